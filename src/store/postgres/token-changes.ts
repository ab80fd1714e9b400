import pg from 'pg'
import type { TokenCache } from '../token-cache.js'

const CHANNEL = 'plantstore_tokens'

/**
 * The token cache's invalidation signal on PostgreSQL: any instance (or the CLI, or plain SQL) changing
 * the tokens table NOTIFYs through a trigger, and this LISTENs on a connection of its own and clears
 * the cache. Entries live a second at most (token-cache.ts), so a revocation is never missed for longer
 * than the notification takes (milliseconds) while that connection is up, nor than a second while it
 * is down. During a database outage a token looked up in the last second still authenticates (its
 * request then gets 503 from the store, never a 401).
 */
export class TokenChanges {
  readonly #url: string
  readonly #cache: TokenCache
  #listener: pg.Client | undefined
  #closed = false
  #retry: NodeJS.Timeout | undefined

  constructor (url: string, cache: TokenCache) {
    this.#url = url
    this.#cache = cache
    this.#connect()
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
      this.#cache.clear()
      client.removeAllListeners()
      client.end().catch(() => {})
      if (!this.#closed) this.#retry = setTimeout(() => this.#connect(), 1000).unref()
    }
    client.on('notification', () => this.#cache.clear())
    client.on('error', lost)
    client.on('end', lost)
    client.connect()
      .then(() => client.query(`LISTEN ${CHANNEL}`))
      // What was cached before listening began may have missed a change.
      .then(() => { this.#cache.clear() }, lost)
  }
}
