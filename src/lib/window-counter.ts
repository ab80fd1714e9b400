/**
 * Counts events per key in fixed windows (one minute by default), in memory: the per-address limit on
 * failed authentications and the optional per-token rate limit. Each instance counts for itself.
 */
export class WindowCounter {
  readonly #windowMs: number
  readonly #counts = new Map<string, { start: number, count: number }>()

  constructor (windowMs = 60_000) {
    this.#windowMs = windowMs
  }

  /** The count of `key` in the current window, before any new hit. */
  count (key: string, now = Date.now()): number {
    const entry = this.#counts.get(key)
    return entry === undefined || now - entry.start >= this.#windowMs ? 0 : entry.count
  }

  /** Counts one event of `key`; answers the count including it. */
  hit (key: string, now = Date.now()): number {
    let entry = this.#counts.get(key)
    if (entry === undefined || now - entry.start >= this.#windowMs) {
      // Dropping expired keys now and then keeps the map as small as the set of recent keys.
      if (this.#counts.size > 10_000) this.#prune(now)
      entry = { start: now, count: 0 }
      this.#counts.set(key, entry)
    }
    return ++entry.count
  }

  /** Whole seconds until `key`'s window ends (at least 1). */
  retryAfterSeconds (key: string, now = Date.now()): number {
    const entry = this.#counts.get(key)
    const left = entry === undefined ? 0 : entry.start + this.#windowMs - now
    return Math.max(1, Math.ceil(left / 1000))
  }

  #prune (now: number) {
    for (const [key, entry] of this.#counts) {
      if (now - entry.start >= this.#windowMs) this.#counts.delete(key)
    }
  }
}
