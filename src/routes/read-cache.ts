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

  /**
   * The answer kept under `key` at `version`, or the one `read` makes, kept for the next caller. The
   * version is asked before the read, so a write meanwhile makes the answer stale, never wrong.
   */
  async through<T extends CachedAnswer> (key: string, version: string | undefined, read: () => Promise<T>): Promise<T> {
    if (version === undefined || !this.#enabled) return read()
    if (version !== this.#version) {
      this.#entries.clear()
      this.#version = version
    }
    // Each key holds one kind of answer (the routes' keys tell pages and plants apart).
    const kept = this.#entries.get(key) as T | undefined
    if (kept !== undefined) return kept
    const answer = await read()
    if (version === this.#version) this.#entries.set(key, answer)
    return answer
  }
}
