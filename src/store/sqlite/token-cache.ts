import type Database from 'better-sqlite3'
import { boundedCache } from '../../lib/bounded-cache.js'
import { tokenEntryBytes } from '../token-store.js'
import type { TokenRecord } from '../store.js'

type CachedToken = TokenRecord & { hash: Buffer }

// No entry is trusted longer than this: a revocation is refused within a second, whatever happens.
const MAX_AGE_MS = 1000
// How often to ask SQLite whether another connection (another process, the CLI) committed anything.
const CHECK_EVERY_MS = 100

/**
 * Token lookups cached in memory, so that a request costs no SQLite statement for its token. Entries
 * are dropped whenever `PRAGMA data_version` says another connection committed (checked at most every
 * 100 ms, so the CLI's `tokens revoke` holds within that), when this process changes a token itself,
 * and after a second in any case.
 */
export class SqliteTokenCache {
  readonly #dataVersion: Database.Statement<[], bigint>
  // Only tokens that exist are kept, but a bound in bytes (--token-cache-size) holds all the same.
  readonly #entries
  #version: bigint | undefined
  #checkedAt = 0

  constructor (db: Database.Database, maxBytes: number) {
    this.#entries = boundedCache<CachedToken>({ maxBytes, ttlMs: MAX_AGE_MS, sizeOf: tokenEntryBytes })
    this.#dataVersion = db.prepare<[], bigint>('PRAGMA data_version').pluck()
  }

  get (hash: Buffer, now = Date.now()): CachedToken | undefined {
    if (now - this.#checkedAt >= CHECK_EVERY_MS) {
      this.#checkedAt = now
      const version = this.#dataVersion.get()
      if (version !== this.#version) {
        this.#version = version
        this.#entries.clear()
        return undefined
      }
    }
    return this.#entries.get(hash.toString('base64'))
  }

  set (token: CachedToken) {
    this.#entries.set(token.hash.toString('base64'), token)
  }

  /** This process changed a token: nothing cached may outlive the change. */
  clear () {
    this.#entries.clear()
  }
}
