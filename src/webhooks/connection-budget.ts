/**
 * The delivery connections one dispatcher may use at once, every subscriber together
 * (`--webhook-max-connections`): a lane takes one before each attempt and gives it back after, and
 * lanes that found none are woken, oldest first, as they come free. However many subscribers there
 * are, the dispatcher never holds more sockets in use than this, so it cannot take the file
 * descriptors the API's own connections need, nor flood one third party through many subscriptions.
 */
export class ConnectionBudget {
  readonly #max: number
  readonly #waiting = new Set<() => void>()
  #inUse = 0

  constructor (max: number) {
    this.#max = max
  }

  get inUse (): number {
    return this.#inUse
  }

  /** Takes a connection if one is free; else `onFree` is called (once) when one may be. */
  take (onFree: () => void): boolean {
    if (this.#inUse < this.#max) {
      this.#inUse++
      return true
    }
    this.#waiting.add(onFree)
    return false
  }

  give () {
    this.#inUse--
    const next = this.#waiting.values().next()
    if (next.done === true) return
    this.#waiting.delete(next.value)
    next.value()
  }

  /** A stopped lane waits for nothing. */
  forget (onFree: () => void) {
    this.#waiting.delete(onFree)
  }
}
