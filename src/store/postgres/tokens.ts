import type pg from 'pg'
import type { PoolClient } from 'pg'
import { toToken } from '../rows.js'
import type { TokenRow } from '../rows.js'
import { TokenNameTaken } from '../errors.js'
import { OWNER_REVOKED, hashToken } from '../store.js'
import type { NewToken, TokenPage, TokenStore } from '../store.js'
import type { PostgresDatabase } from './database.js'
import type { TokenCache } from '../token-cache.js'
import { TokenUsage } from '../token-usage.js'

/** Of the tokens whose ids the parameter `ids` holds (bigint[]), those neither revoked nor expired at `now` (Unix ms). */
export const activeTokensWhere = (ids: string, now: string) =>
  `id = ANY(${ids}::bigint[]) AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ${now})`

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

  async findByToken (token: string) {
    return this.#cache.through(token, async () => {
      const [row] = await this.#db.query<TokenRow>('SELECT * FROM tokens WHERE hash = $1', [hashToken(token)], 'tokens.by-hash')
      return row === undefined ? undefined : toToken(row)
    })
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

  async list (page: TokenPage = {}) {
    await this.#usage.flush()
    return (await this.#db.query<TokenRow>('SELECT * FROM tokens WHERE id > $1 ORDER BY id LIMIT $2', [page.after ?? 0, page.limit ?? null])).map(toToken)
  }

  async revokeByName (name: string) {
    return this.#revoke('name = $2', name)
  }

  async revokeById (id: number) {
    return this.#revoke('id = $2', id)
  }

  /** Revokes the token `where` finds and, in the same transaction, disables the subscriptions it owns. */
  async #revoke (where: string, value: string | number) {
    const row = await this.#db.transaction(async (client) => {
      const now = Date.now()
      const { rows: [revoked] } = await client.query<TokenRow>(`UPDATE tokens SET revoked_at = coalesce(revoked_at, $1) WHERE ${where} RETURNING *`, [now, value])
      if (revoked === undefined) return undefined
      await client.query(`UPDATE webhook_subscriptions SET disabled_at = $1, last_error = $2
        WHERE owner = $3 AND removed_at IS NULL AND disabled_at IS NULL`, [now, OWNER_REVOKED, `token:${revoked.id}`])
      return revoked
    })
    this.#cache.clear()
    return row === undefined ? undefined : toToken(row)
  }

  async activeIds (ids: readonly number[]) {
    if (ids.length === 0) return new Set<number>()
    const rows = await this.#db.query<{ id: string }>(`SELECT id FROM tokens WHERE ${activeTokensWhere('$1', '$2')}`, [ids, Date.now()])
    return new Set(rows.map((row) => Number(row.id)))
  }

  async purgeEnded (before: number, max: number) {
    const [row] = await this.#db.query<{ n: string }>(`WITH gone AS (DELETE FROM tokens WHERE id IN (SELECT id FROM tokens
      WHERE (revoked_at IS NOT NULL OR expires_at IS NOT NULL) AND coalesce(revoked_at, expires_at) < $1 LIMIT $2) RETURNING 1)
      SELECT count(*) AS n FROM gone`, [before, max])
    return Number(row!.n)
  }

  async #insert (client: pg.Pool | PoolClient, token: NewToken) {
    const { rows } = await client.query<TokenRow>(`INSERT INTO tokens (name, hash, scopes, created_at, expires_at)
      VALUES ($1, $2, $3, $4, $5) RETURNING *`,
    [token.name, token.hash, token.scopes.join(' '), Date.now(), token.expiresAt?.getTime() ?? null])
    return toToken(rows[0]!)
  }
}
