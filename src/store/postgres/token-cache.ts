import pg from 'pg'
import { boundedCache } from '../../lib/bounded-cache.js'
import { tokenEntryBytes } from '../token-store.js'
import type { TokenRecord } from '../store.js'

type CachedToken = TokenRecord & { hash: Buffer }

const CHANNEL = 'plantstore_tokens'
// A safety net under the notifications: no entry is trusted longer than this, even if a notification
// was lost on a connection that died without telling us.
const MAX_AGE_MS = 1000

/**
 * Token lookups cached per instance, and dropped whenever any instance (or the CLI, or plain SQL) changes
 * the tokens table: a trigger NOTIFYs, and this cache LISTENs on a connection of its own. No entry
 * lives longer than a second, so a revocation is never missed for longer than the notification takes
 * to arrive (milliseconds) while that connection is up, nor longer than one second while it is down.
 * Entries made while it is down are kept too: during a database outage a token looked up in the last
 * second still authenticates (its request then gets 503 from the store, never a 401).
 */
export class TokenCache {
  readonly #url: string
  // Only tokens that exist are kept, but a bound in bytes (--token-cache-size) holds all the same.
  readonly #entries
  #listener: pg.Client | undefined
  #closed = false
  #retry: NodeJS.Timeout | undefined

  constructor (url: string, maxBytes: number) {
    this.#url = url
    this.#entries = boundedCache<CachedToken>({ maxBytes, ttlMs: MAX_AGE_MS, sizeOf: tokenEntryBytes })
    this.#connect()
  }

  get (hash: Buffer): CachedToken | undefined {
    return this.#entries.get(hash.toString('hex'))
  }

  set (token: CachedToken) {
    // Only tokens that exist are kept: guesses cannot grow the cache.
    this.#entries.set(token.hash.toString('hex'), token)
  }

  /** Drops every entry: this instance changed tokens itself, ahead of its own notification. */
  clear () {
    this.#entries.clear()
  }

  async close () {
    this.#closed = true
    clearTimeout(this.#retry)
    await this.#listener?.end().catch(() => {})
  }

  #connect () {
    if (this.#closed) return
    const client = new pg.Client({ connectionString: this.#url, connectionTimeoutMillis: 3000 })
    this.#listener = client
    const lost = () => {
      // Changes may be missed from now on: forget what was cached (new entries live a second at most).
      this.#entries.clear()
      client.removeAllListeners()
      client.end().catch(() => {})
      if (!this.#closed) this.#retry = setTimeout(() => this.#connect(), 1000).unref()
    }
    client.on('notification', () => this.#entries.clear())
    client.on('error', lost)
    client.on('end', lost)
    client.connect()
      .then(() => client.query(`LISTEN ${CHANNEL}`))
      // What was cached before listening began may have missed a change.
      .then(() => { this.#entries.clear() }, lost)
  }
}
