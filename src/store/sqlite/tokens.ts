import type Database from 'better-sqlite3'
import { toToken, toTokenWithHash } from '../rows.js'
import type { TokenRow } from '../rows.js'
import { TokenNameTaken } from '../errors.js'
import type { FoundToken, NewToken, TokenStore } from '../store.js'
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

  stillTrusted (found: FoundToken) {
    return this.#cache.stillTrusted(found)
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

  async list () {
    await this.#usage.flush()
    return guard(() => this.#sql.get<[], TokenRow>('SELECT * FROM tokens ORDER BY id').all().map(toToken))
  }

  async revoke (nameOrId: string) {
    this.#cache.clear()
    return guard(() => {
      const row = this.#sql.get<unknown[], TokenRow>(`UPDATE tokens SET revoked_at = coalesce(revoked_at, ?)
        WHERE name = ? OR (? GLOB '[0-9]*' AND id = CAST(? AS INTEGER)) RETURNING *`)
        .get(Date.now(), nameOrId, nameOrId, nameOrId)
      return row === undefined ? undefined : toToken(row)
    })
  }

  async revokeById (id: number) {
    this.#cache.clear()
    return guard(() => {
      const row = this.#sql.get<unknown[], TokenRow>('UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? RETURNING *').get(Date.now(), id)
      return row === undefined ? undefined : toToken(row)
    })
  }

  #insert (token: NewToken) {
    return toToken(this.#sql.get<unknown[], TokenRow>('INSERT INTO tokens (name, hash, scopes, created_at, expires_at) VALUES (?, ?, ?, ?, ?) RETURNING *')
      .get(token.name, token.hash, token.scopes.join(' '), Date.now(), token.expiresAt?.getTime() ?? null)!)
  }
}
