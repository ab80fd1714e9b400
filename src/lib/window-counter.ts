import { boundedCache } from './bounded-cache.js'

// An entry: its key (two bytes a character), a window's start and count, and the cache's own overhead.
const ENTRY_BYTES = 96

/**
 * Counts events per key in fixed windows, in memory, per process. Keys are the caller's (addresses,
 * tokens), so they live in a cache bounded in bytes: a flood of new keys evicts the least recent ones.
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

  /** Counts `events` events of `key`; answers the count including them. */
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
