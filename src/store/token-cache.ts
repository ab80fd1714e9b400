import { boundedCache } from '../lib/bounded-cache.js'
import { tokenEntryBytes } from './token-store.js'
import type { TokenRecord } from './token-store.js'

// No entry is trusted longer than this: a revocation is refused within a second, whatever happens.
const MAX_AGE_MS = 1000

/**
 * Token lookups cached in memory, so that a request costs no statement for its token, on either
 * database. Each dialect brings its own invalidation signal: SQLite asks `isStale` on lookups
 * (sqlite/data-version.ts), PostgreSQL calls `clear` on a notification (postgres/listener.ts).
 * Only tokens that exist are kept, under a bound in bytes (--token-cache-size), for a second at most.
 */
export class TokenCache {
  readonly #entries
  readonly #isStale: () => boolean
  readonly #enabled: boolean
  // Counts the clears: what was found before one may no longer be trusted.
  #generation = 0

  constructor (maxBytes: number, isStale: () => boolean = () => false) {
    this.#entries = boundedCache<TokenRecord>({ maxBytes, ttlMs: MAX_AGE_MS, sizeOf: (token, key) => tokenEntryBytes(token, key) })
    this.#isStale = isStale
    this.#enabled = maxBytes > 0
  }

  /**
   * The token a bearer presents: the cached one, or the one `read` finds in the store, kept for the next
   * lookup under the token itself, so that a cached lookup costs no hash. A clear while it was read may
   * have been its revocation, read too late: such a token serves its own request only, as does every
   * token when the cache is off.
   */
  async through (key: string, read: () => TokenRecord | undefined | Promise<TokenRecord | undefined>): Promise<TokenRecord | undefined> {
    this.#clearIfStale()
    const generation = this.#generation
    const cached = this.#entries.get(key)
    if (cached !== undefined) return cached
    const token = await read()
    if (token === undefined) return undefined
    if (this.#enabled && generation === this.#generation) this.#entries.set(key, token)
    return token
  }

  /** Tokens changed (here or elsewhere): nothing cached may outlive the change. */
  clear () {
    this.#entries.clear()
    this.#generation++
  }

  /** The dialect's signal that tokens changed elsewhere (another process, another instance). */
  #clearIfStale () {
    if (this.#isStale()) this.clear()
  }
}
