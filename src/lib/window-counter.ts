import { boundedCache } from './bounded-cache.js'

// An entry: its key (two bytes a character) and a window's start and count, with the cache's own overhead.
const ENTRY_BYTES = 96

/**
 * Counts events per key in fixed windows (one minute by default), in memory: the per-address limit on
 * failed authentications and the optional per-token rate limit. Each instance counts for itself. The
 * keys are the caller's (addresses), so they live in a cache bounded in bytes: a window ends with its
 * entry, and a flood of new keys evicts the least recently counted ones first.
 */
export class WindowCounter {
  readonly #windowMs: number
  readonly #counts

  constructor (windowMs = 60_000, maxBytes = 4 << 20) {
    this.#windowMs = windowMs
    this.#counts = boundedCache<{ start: number, count: number }>({ maxBytes, ttlMs: windowMs, sizeOf: (_entry, key) => ENTRY_BYTES + key.length * 2 })
  }

  /** The count of `key` in the current window, before any new hit. */
  count (key: string, now = Date.now()): number {
    const entry = this.#counts.get(key)
    return entry === undefined || now - entry.start >= this.#windowMs ? 0 : entry.count
  }

  /** Counts `events` (one) events of `key`; answers the count including them. */
  hit (key: string, now = Date.now(), events = 1): number {
    let entry = this.#counts.get(key)
    if (entry === undefined || now - entry.start >= this.#windowMs) {
      entry = { start: now, count: 0 }
      this.#counts.set(key, entry)
    }
    return (entry.count += events)
  }

  /** Whole seconds until `key`'s window ends (at least 1). */
  retryAfterSeconds (key: string, now = Date.now()): number {
    const entry = this.#counts.get(key)
    const left = entry === undefined ? 0 : entry.start + this.#windowMs - now
    return Math.max(1, Math.ceil(left / 1000))
  }
}
