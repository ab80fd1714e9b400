import { boundedCache } from '../lib/bounded-cache.js'
import { tokenEntryBytes } from './token-store.js'
import type { TokenRecord } from './token-store.js'

export type CachedToken = TokenRecord & { hash: Buffer }

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

  constructor (maxBytes: number, isStale: () => boolean = () => false) {
    this.#entries = boundedCache<CachedToken>({ maxBytes, ttlMs: MAX_AGE_MS, sizeOf: tokenEntryBytes })
    this.#isStale = isStale
  }

  get (hash: Buffer): CachedToken | undefined {
    if (this.#isStale()) {
      this.#entries.clear()
      return undefined
    }
    return this.#entries.get(hash.toString('base64'))
  }

  set (token: CachedToken) {
    this.#entries.set(token.hash.toString('base64'), token)
  }

  /** Tokens changed (here or elsewhere): nothing cached may outlive the change. */
  clear () {
    this.#entries.clear()
  }
}
