/**
 * Turns at reading the log for streams catching up: at most `atOnce` in the process and one per
 * principal, the rest waiting in arrival order. A turn is one page, whether or not it matched
 * anything, so a token replaying the log from 0 through many filtered streams gets one page at a time
 * while every other stream, and every request, gets its share.
 */
export class CatchUpTurns {
  readonly #atOnce: number
  readonly #busy = new Set<string>()
  readonly #waiting: Array<{ key: string, start: () => void }> = []

  constructor (atOnce: number) {
    this.#atOnce = atOnce
  }

  /** Waits for a turn for `key`; answers the function that ends it (call it once). */
  take (key: string): Promise<() => void> {
    return new Promise((resolve) => {
      this.#waiting.push({ key, start: () => resolve(() => this.#end(key)) })
      this.#next()
    })
  }

  #end (key: string) {
    this.#busy.delete(key)
    // From the event loop, not from the turn that ends: SQLite reads a page synchronously, so turns
    // handed on in one task would run back to back while every request waits for I/O to be polled.
    setImmediate(() => this.#next())
  }

  #next () {
    for (let i = 0; i < this.#waiting.length && this.#busy.size < this.#atOnce; i++) {
      const waiter = this.#waiting[i]!
      if (this.#busy.has(waiter.key)) continue
      this.#waiting.splice(i--, 1)
      this.#busy.add(waiter.key)
      waiter.start()
    }
  }
}
