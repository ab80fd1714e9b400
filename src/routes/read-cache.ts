/** A cached answer: its body, and the headers that go with it. */
export interface CachedAnswer { body: string, etag?: string, link?: string }

const MAX_ENTRIES = 4096

/**
 * Answers to reads, kept while the store says nothing changed: every entry belongs to the store's
 * read version (`PlantStore.readVersion`, on SQLite `PRAGMA data_version` and this process's own
 * writes), and a new version empties the cache, so no answer outlives a committed write. A store
 * without a read version (PostgreSQL, where another instance's commit cannot be seen for free) is
 * never cached.
 */
export class ReadCache {
  readonly #entries = new Map<string, CachedAnswer>()
  #version: string | undefined

  get (key: string, version: string | undefined): CachedAnswer | undefined {
    if (version === undefined) return undefined
    if (version !== this.#version) {
      this.#entries.clear()
      this.#version = version
      return undefined
    }
    return this.#entries.get(key)
  }

  /** Keeps an answer read at `version` (asked before the read, so a write meanwhile makes it stale, never wrong). */
  set (key: string, version: string | undefined, answer: CachedAnswer) {
    if (version === undefined || version !== this.#version) return
    if (this.#entries.size >= MAX_ENTRIES) this.#entries.delete(this.#entries.keys().next().value!)
    this.#entries.set(key, answer)
  }
}
