import { boundedCache, stringBytes } from '../lib/bounded-cache.js'

/** A cached answer: its body, and the headers that go with it. */
export interface CachedAnswer { body: string, link?: string, etag?: string, position: string }

// What an entry costs beside its strings: the map's node and the object (measured order of magnitude).
const ENTRY_OVERHEAD = 200

/**
 * Answers to reads (pages of plants, single plants), kept while the store says nothing changed:
 * every entry belongs to the store's read version (`StoreDialect.readVersion`, on SQLite
 * `PRAGMA data_version` and this process's own writes), and a new version empties the cache, so no
 * answer outlives a committed write. A store without a read version (PostgreSQL, where another
 * instance's commit cannot be seen for free) is never cached. Bounded in bytes (`--read-cache-size`):
 * a reader choosing large pages and many cursors cannot grow it past that.
 */
export class ReadCache {
  readonly #entries
  readonly #enabled: boolean
  #version: string | undefined

  constructor (maxBytes: number) {
    this.#enabled = maxBytes > 0
    this.#entries = boundedCache<CachedAnswer>({
      maxBytes,
      sizeOf: (answer, key) => ENTRY_OVERHEAD + stringBytes(key) + stringBytes(answer.body) + stringBytes(answer.link ?? '') +
        stringBytes(answer.etag ?? '') + stringBytes(answer.position)
    })
  }

  get (key: string, version: string | undefined): CachedAnswer | undefined {
    if (version === undefined || !this.#enabled) return undefined
    if (version !== this.#version) {
      this.#entries.clear()
      this.#version = version
      return undefined
    }
    return this.#entries.get(key)
  }

  /** Keeps an answer read at `version` (asked before the read, so a write meanwhile makes it stale, never wrong). */
  set (key: string, version: string | undefined, answer: CachedAnswer) {
    if (version === undefined || version !== this.#version || !this.#enabled) return
    this.#entries.set(key, answer)
  }
}
