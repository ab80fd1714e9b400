import type Database from 'better-sqlite3'
import { toToken } from '../rows.js'
import type { TokenRow } from '../rows.js'
import { TokenNameTaken } from '../errors.js'
import { hashToken } from '../store.js'
import type { NewToken, TokenPage, TokenRecord, TokenStore } from '../store.js'
import type { GroupCommit } from '../group-commit.js'
import type { CallOf, WriteJob, WriteResult } from './write-jobs.js'
import type { TokenWrites } from './token-writes.js'
import { guard, Statements } from './connection.js'
import { TokenCache } from '../token-cache.js'
import { changedElsewhere } from './data-version.js'
import { TokenUsage } from '../token-usage.js'

/**
 * Tokens on SQLite: looked up on the serving connection through a cache; every write goes through the
 * write queue (token-writes.ts), so on a file the writer thread makes it.
 */
export class SqliteTokens implements TokenStore {
  readonly #sql: Statements
  readonly #selectByHash: Database.Statement<[Buffer], TokenRow>
  readonly #cache: TokenCache
  readonly #usage: TokenUsage
  readonly #writes: GroupCommit<WriteJob, WriteResult>

  constructor (db: Database.Database, writes: GroupCommit<WriteJob, WriteResult>, cacheBytes: number) {
    this.#sql = new Statements(db)
    this.#writes = writes
    this.#selectByHash = db.prepare('SELECT * FROM tokens WHERE hash = ?')
    this.#cache = new TokenCache(cacheBytes, changedElsewhere(db))
    this.#usage = new TokenUsage(async (uses) => { await this.#write({ method: 'touch', args: [[...uses]] }) })
  }

  recordUse (id: number) {
    this.#usage.record(id)
  }

  async close () {
    await this.#usage.close()
  }

  async findByToken (token: string) {
    return this.#cache.through(token, () => guard(() => {
      const row = this.#selectByHash.get(hashToken(token))
      return row === undefined ? undefined : toToken(row)
    }))
  }

  async create (token: NewToken) {
    this.#cache.clear()
    const created = await this.#write({ method: 'create', args: [token] }) as TokenRecord | { taken: string }
    if ('taken' in created) throw new TokenNameTaken(created.taken)
    return created
  }

  async createFirst (token: NewToken) {
    return await this.#write({ method: 'createFirst', args: [token] }) as boolean
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
    return this.#revoke('name', name)
  }

  async revokeById (id: number) {
    return this.#revoke('id', id)
  }

  /** Revokes the token and, in the same transaction, disables the subscriptions it owns. */
  async #revoke (by: 'name' | 'id', value: string | number) {
    this.#cache.clear()
    try {
      return await this.#write({ method: 'revoke', args: [by, value] }) as TokenRecord | undefined
    } finally {
      this.#cache.clear()
    }
  }

  async activeIds (ids: readonly number[]) {
    return activeTokenIds(this.#sql, ids)
  }

  async purgeEnded (before: number, max: number) {
    return await this.#write({ method: 'purgeEnded', args: [before, max] }) as number
  }

  #write (call: CallOf<TokenWrites>) {
    return this.#writes.submit({ op: 'tokens', call })
  }
}

/** Of `ids`, the tokens neither revoked nor expired. */
export function activeTokenIds (sql: Statements, ids: readonly number[]): Set<number> {
  if (ids.length === 0) return new Set<number>()
  const rows = guard(() => sql.get<[string, number], { id: bigint }>(`SELECT id FROM tokens WHERE id IN (SELECT value FROM json_each(?))
    AND revoked_at IS NULL AND (expires_at IS NULL OR expires_at > ?)`).all(JSON.stringify(ids), Date.now()))
  return new Set(rows.map((row) => Number(row.id)))
}
