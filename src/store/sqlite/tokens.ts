import type Database from 'better-sqlite3'
import { toToken, toTokenWithHash } from '../rows.js'
import type { TokenRow } from '../rows.js'
import { TokenNameTaken } from '../errors.js'
import { OWNER_REVOKED } from '../store.js'
import type { NewToken, TokenPage, TokenStore } from '../store.js'
import { guard, Statements } from './connection.js'
import { TokenCache } from '../token-cache.js'
import { changedElsewhere } from './data-version.js'
import { TokenUsage } from '../token-usage.js'

/** Tokens on SQLite, on the main connection (writes are rare and small), looked up through a cache. */
export class SqliteTokens implements TokenStore {
  readonly #db: Database.Database
  readonly #sql: Statements
  readonly #selectByHash: Database.Statement<[Buffer], TokenRow>
  readonly #cache: TokenCache
  readonly #usage: TokenUsage

  constructor (db: Database.Database, cacheBytes: number) {
    this.#db = db
    this.#sql = new Statements(db)
    this.#selectByHash = db.prepare('SELECT * FROM tokens WHERE hash = ?')
    this.#cache = new TokenCache(cacheBytes, changedElsewhere(db))
    const touch = db.prepare<[number, number]>('UPDATE tokens SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?')
    const touchAll = db.transaction((uses: ReadonlyMap<number, number>) => { for (const [id, at] of uses) touch.run(at, id) })
    this.#usage = new TokenUsage(async (uses) => guard(() => touchAll.immediate(uses)))
  }

  recordUse (id: number) {
    this.#usage.record(id)
  }

  async close () {
    if (this.#db.open) await this.#usage.close()
  }

  async findByHash (hash: Buffer) {
    return this.#cache.through(hash, () => guard(() => {
      const row = this.#selectByHash.get(hash)
      return row === undefined ? undefined : toTokenWithHash(row)
    }))
  }

  async create (token: NewToken) {
    this.#cache.clear()
    return guard(() => {
      try {
        return this.#insert(token)
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && String(error).includes('tokens.name')) {
          throw new TokenNameTaken(token.name)
        }
        throw error
      }
    })
  }

  async createFirst (token: NewToken) {
    const createIfNone = this.#db.transaction(() => {
      if (this.#sql.get('SELECT 1 FROM tokens LIMIT 1').get() !== undefined) return false
      this.#insert(token)
      return true
    })
    return guard(() => createIfNone.immediate())
  }

  async find (id: number) {
    return guard(() => {
      const row = this.#sql.get<[number], TokenRow>('SELECT * FROM tokens WHERE id = ?').get(id)
      return row === undefined ? undefined : toToken(row)
    })
  }

  async countActive () {
    return guard(() => Number(this.#sql.get<[number], { count: bigint }>(
      'SELECT count(*) AS count FROM tokens WHERE revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)').get(Date.now())!.count))
  }

  async list (page: TokenPage = {}) {
    await this.#usage.flush()
    return guard(() => this.#sql.get<[number, number], TokenRow>('SELECT * FROM tokens WHERE id > ? ORDER BY id LIMIT ?')
      .all(page.after ?? 0, page.limit ?? -1).map(toToken))
  }

  async revokeByName (name: string) {
    return this.#revoke('name = ?', name)
  }

  async revokeById (id: number) {
    return this.#revoke('id = ?', id)
  }

  /** Revokes the token `where` finds and, in the same transaction, disables the subscriptions it owns. */
  #revoke (where: string, value: string | number) {
    this.#cache.clear()
    const revoke = this.#db.transaction(() => {
      const now = Date.now()
      const row = this.#sql.get<unknown[], TokenRow>(`UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE ${where} RETURNING *`).get(now, value)
      if (row === undefined) return undefined
      this.#sql.get(`UPDATE webhook_subscriptions SET disabled_at = ?, last_error = ?
        WHERE owner = ? AND removed_at IS NULL AND disabled_at IS NULL`).run(now, OWNER_REVOKED, `token:${row.id}`)
      return toToken(row)
    })
    return guard(() => revoke.immediate())
  }

  async activeIds (ids: readonly number[]) {
    if (ids.length === 0) return new Set<number>()
    const rows = guard(() => this.#sql.get<[string, number], { id: bigint }>(`SELECT id FROM tokens WHERE id IN (SELECT value FROM json_each(?))
      AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`).all(JSON.stringify(ids), Date.now()))
    return new Set(rows.map((row) => Number(row.id)))
  }

  async purgeEnded (before: number, max: number) {
    return guard(() => this.#sql.get<[number, number], never>(`DELETE FROM tokens WHERE id IN (SELECT id FROM tokens
      WHERE (revoked_at IS NOT NULL OR expires_at IS NOT NULL) AND coalesce(revoked_at, expires_at) < ? LIMIT ?)`).run(before, max).changes)
  }

  #insert (token: NewToken) {
    return toToken(this.#sql.get<unknown[], TokenRow>('INSERT INTO tokens (name, hash, scopes, created_at, expires_at) VALUES (?, ?, ?, ?, ?) RETURNING *')
      .get(token.name, token.hash, token.scopes.join(' '), Date.now(), token.expiresAt?.getTime() ?? null)!)
  }
}
