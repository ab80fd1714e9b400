import fp from 'fastify-plugin'
import { MethodNotAllowed, NotFound } from '../contract/errors.js'
import { sendError } from './error-handler.js'
import type { Config } from '../config/config.js'

// What a browser may send cross-origin: the credentials and conditional requests the API reads.
const ALLOWED_HEADERS = 'authorization, content-type, idempotency-key, if-match, if-none-match, x-request-id'
const PREFLIGHT_MAX_AGE_SECONDS = '600'

/**
 * Fills the route table as routes are declared (register it before any route), and answers a request
 * no route takes: 405 with `Allow` for a known path, else 404.
 */
export const routeTable = fp<{ routes: RouteTable }>(async (app, { routes }) => {
  app.addHook('onRoute', (route) => {
    // OPTIONS routes are this plugin's own (and @fastify/cors's catch-all): they answer for a path, not make one.
    if (route.method !== 'OPTIONS') routes.add(route.method, route.url)
  })
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?', 1)[0]!
    const allowed = routes.allowed(path)
    // A route that has this method but nothing here (a missing file under /docs/static) is 404, not 405.
    const missing = allowed === undefined || allowed.includes(request.method)
    sendError(missing ? new NotFound(`no route for ${request.method} ${path}`) : new MethodNotAllowed(request.method, path, allowed),
      request, reply)
  })
}, { name: 'route-table' })

/**
 * OPTIONS on every known path (register it after every route): 204 with `Allow`, no token needed.
 * With CORS on (cors.ts has already answered the origin), a preflight from an allowed origin
 * also gets the methods, request headers and cache time it may use. A known path asked with a method
 * it lacks is 405 with `Allow` (the not-found handler above).
 */
export const optionsRoutes = fp<{ routes: RouteTable, cors: Config['cors'] }>(async (app, { routes, cors }) => {
  for (const url of routes.templates()) {
    app.route({
      method: 'OPTIONS',
      url,
      handler: async (request, reply) => {
        // The router can match more than the table (an empty :id): what the table does not know is 404.
        const allowed = routes.allowed(request.url.split('?', 1)[0]!)
        if (allowed === undefined) return reply.callNotFound()
        const allow = allowed.join(', ')
        reply.header('allow', allow)
        const preflight = request.headers['access-control-request-method'] !== undefined
        if (cors !== undefined && preflight && reply.hasHeader('access-control-allow-origin')) {
          reply.header('access-control-allow-methods', allow)
          reply.header('access-control-allow-headers', ALLOWED_HEADERS)
          reply.header('access-control-max-age', PREFLIGHT_MAX_AGE_SECONDS)
        }
        return reply.code(204).header('content-length', '0').send()
      }
    })
  }
}, { name: 'options-routes' })

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
