import type pg from 'pg'
import type { PoolClient } from 'pg'
import { toToken, toTokenWithHash } from '../rows.js'
import type { TokenRow } from '../rows.js'
import { TokenNameTaken } from '../errors.js'
import type { FoundToken, NewToken, TokenStore } from '../store.js'
import type { PostgresDatabase } from './database.js'
import type { TokenCache } from '../token-cache.js'
import { TokenUsage } from '../token-usage.js'

/** Tokens on PostgreSQL, looked up through a cache that every instance's changes invalidate. */
export class PostgresTokens implements TokenStore {
  readonly #db: PostgresDatabase
  readonly #cache: TokenCache
  readonly #usage: TokenUsage

  constructor (db: PostgresDatabase, cache: TokenCache) {
    this.#db = db
    this.#cache = cache
    this.#usage = new TokenUsage(async (uses) => {
      await db.query(`UPDATE tokens SET last_used_at = greatest(last_used_at, used.at)
        FROM unnest($1::bigint[], $2::bigint[]) AS used (id, at) WHERE tokens.id = used.id`, [[...uses.keys()], [...uses.values()]])
    })
  }

  recordUse (id: number) {
    this.#usage.record(id)
  }

  async close () {
    await this.#usage.close()
  }

  async findByHash (hash: Buffer) {
    return this.#cache.through(hash, async () => {
      const [row] = await this.#db.query<TokenRow>('SELECT * FROM tokens WHERE hash = $1', [hash], 'tokens.by-hash')
      return row === undefined ? undefined : toTokenWithHash(row)
    })
  }

  stillTrusted (found: FoundToken) {
    return this.#cache.stillTrusted(found)
  }

  async create (token: NewToken) {
    try {
      return await this.#insert(this.#db.pool, token)
    } catch (error) {
      if ((error as { constraint?: string }).constraint === 'tokens_name_key') throw new TokenNameTaken(token.name)
      throw error
    }
  }

  async createFirst (token: NewToken) {
    return this.#db.transaction(async (client) => {
      // Instances starting together on an empty store: the table lock lets exactly one create the token.
      await client.query('LOCK TABLE tokens IN SHARE ROW EXCLUSIVE MODE')
      if ((await client.query('SELECT 1 FROM tokens LIMIT 1')).rowCount !== 0) return false
      await this.#insert(client, token)
      return true
    })
  }

  async find (id: number) {
    const [row] = await this.#db.query<TokenRow>('SELECT * FROM tokens WHERE id = $1', [id])
    return row === undefined ? undefined : toToken(row)
  }

  async countActive () {
    const [row] = await this.#db.query<{ count: bigint }>(
      'SELECT count(*) AS count FROM tokens WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > $1)', [Date.now()])
    return Number(row!.count)
  }

  async list () {
    await this.#usage.flush()
    return (await this.#db.query<TokenRow>('SELECT * FROM tokens ORDER BY id')).map(toToken)
  }

  async revoke (nameOrId: string) {
    const id = /^\d{1,18}$/.test(nameOrId) ? nameOrId : null
    const [row] = await this.#db.query<TokenRow>(`UPDATE tokens SET revoked_at = coalesce(revoked_at, $1)
      WHERE name = $2 OR id = $3::bigint RETURNING *`, [Date.now(), nameOrId, id])
    this.#cache.clear()
    return row === undefined ? undefined : toToken(row)
  }

  async revokeById (id: number) {
    const [row] = await this.#db.query<TokenRow>('UPDATE tokens SET revoked_at = coalesce(revoked_at, $1) WHERE id = $2 RETURNING *', [Date.now(), id])
    this.#cache.clear()
    return row === undefined ? undefined : toToken(row)
  }

  async #insert (client: pg.Pool | PoolClient, token: NewToken) {
    const { rows } = await client.query<TokenRow>(`INSERT INTO tokens (name, hash, scopes, created_at, expires_at)
      VALUES ($1, $2, $3, $4, $5) RETURNING *`,
    [token.name, token.hash, token.scopes.join(' '), Date.now(), token.expiresAt?.getTime() ?? null])
    return toToken(rows[0]!)
  }
}
