/**
 * Every route's path template and methods, as Fastify declares them (an onRoute hook fills it), so
 * that a concrete path can be asked which methods it has: OPTIONS answers them in `Allow`, and a known
 * path asked with another method is 405, not 404.
 */
export class RouteTable {
  readonly #paths = new Map<string, { pattern: RegExp, methods: Set<string> }>()

  add (methods: string | string[], url: string) {
    let path = this.#paths.get(url)
    if (path === undefined) {
      const pattern = new RegExp(`^${url.split('/').map((part) => part === '*' ? '.*' : part.startsWith(':') ? '[^/]+' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('/')}$`)
      path = { pattern, methods: new Set() }
      this.#paths.set(url, path)
    }
    for (const method of [methods].flat()) path.methods.add(method)
  }

  /** The path templates known, for declaring their OPTIONS routes. */
  templates (): string[] {
    return [...this.#paths.keys()]
  }

  /** The methods a concrete path allows (OPTIONS included), or undefined when no route has it. */
  allowed (path: string): string[] | undefined {
    const methods = new Set<string>()
    for (const { pattern, methods: of } of this.#paths.values()) {
      if (pattern.test(path)) for (const method of of) methods.add(method)
    }
    if (methods.size === 0) return undefined
    if (methods.has('GET')) methods.add('HEAD')
    methods.add('OPTIONS')
    return ORDER.filter((method) => methods.has(method))
  }
}

const ORDER = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']
