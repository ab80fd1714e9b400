import pg from 'pg'
import type { TokenRecord } from '../store.js'

type CachedToken = TokenRecord & { hash: Buffer }

const CHANNEL = 'plantstore_tokens'
// A safety net under the notifications: no entry is trusted longer than this, even if a notification
// was lost on a connection that died without telling us.
const MAX_AGE_MS = 1000

/**
 * Token lookups cached per instance, and dropped whenever any instance (or the CLI, or plain SQL) changes
 * the tokens table: a trigger NOTIFYs, and this cache LISTENs on a connection of its own. While that
 * connection is down the cache is bypassed, so a revocation is never missed for longer than the
 * notification takes to arrive (milliseconds), and never longer than one second.
 */
export class TokenCache {
  readonly #url: string
  readonly #entries = new Map<string, { token: CachedToken, at: number }>()
  #listener: pg.Client | undefined
  #listening = false
  #closed = false
  #retry: NodeJS.Timeout | undefined

  constructor (url: string) {
    this.#url = url
    this.#connect()
  }

  get (hash: Buffer): CachedToken | undefined {
    if (!this.#listening) return undefined
    const key = hash.toString('hex')
    const entry = this.#entries.get(key)
    if (entry === undefined) return undefined
    if (Date.now() - entry.at > MAX_AGE_MS) {
      this.#entries.delete(key)
      return undefined
    }
    return entry.token
  }

  set (token: CachedToken) {
    // Only tokens that exist are kept: guesses cannot grow the cache.
    if (this.#listening) this.#entries.set(token.hash.toString('hex'), { token, at: Date.now() })
  }

  /** Drops every entry: this instance changed tokens itself, ahead of its own notification. */
  clear () {
    this.#entries.clear()
  }

  async close () {
    this.#closed = true
    clearTimeout(this.#retry)
    this.#listening = false
    await this.#listener?.end().catch(() => {})
  }

  #connect () {
    if (this.#closed) return
    const client = new pg.Client({ connectionString: this.#url, connectionTimeoutMillis: 3000 })
    this.#listener = client
    const lost = () => {
      this.#listening = false
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
      .then(() => {
        this.#entries.clear()
        this.#listening = !this.#closed
      }, lost)
  }
}
