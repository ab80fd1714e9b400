import type Database from 'better-sqlite3'
import { toToken } from '../rows.js'
import type { TokenRow } from '../rows.js'
import { OWNER_REVOKED } from '../store.js'
import type { NewToken, TokenRecord } from '../store.js'
import { Statements } from './connection.js'

/**
 * Every write to tokens, run by the write queue's runner (on a file, the writer thread: the serving
 * connection only reads). Each answers plain data, so that it crosses back by postMessage; a taken
 * name is an answer, not an error, so that it fails no other write of its batch.
 */
export function prepareTokenWrites (db: Database.Database) {
  const sql = new Statements(db)
  const insert = (token: NewToken): TokenRecord => toToken(sql.get<unknown[], TokenRow>('INSERT INTO tokens (name, hash, scopes, created_at, expires_at) VALUES (?, ?, ?, ?, ?) RETURNING *')
    .get(token.name, token.hash, token.scopes.join(' '), Date.now(), token.expiresAt?.getTime() ?? null)!)
  // A savepoint: a refused insert undoes only itself.
  const tryInsert = db.transaction(insert)
  const revoke = db.transaction((by: 'name' | 'id', value: string | number) => {
    const now = Date.now()
    const row = sql.get<unknown[], TokenRow>(`UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE ${by} = ? RETURNING *`).get(now, value)
    if (row === undefined) return undefined
    // Its subscriptions stop with it (OWNER_REVOKED says why).
    sql.get(`UPDATE webhook_subscriptions SET disabled_at = ?, last_error = ?
      WHERE owner = ? AND removed_at IS NULL AND disabled_at IS NULL`).run(now, OWNER_REVOKED, `token:${row.id}`)
    return toToken(row)
  })
  return {
    create (token: NewToken): TokenRecord | { taken: string } {
      try {
        return tryInsert(token)
      } catch (error) {
        if ((error as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE' && String(error).includes('tokens.name')) return { taken: token.name }
        throw error
      }
    },
    createFirst (token: NewToken): boolean {
      if (sql.get('SELECT 1 FROM tokens LIMIT 1').get() !== undefined) return false
      insert(token)
      return true
    },
    revoke: (by: 'name' | 'id', value: string | number): TokenRecord | undefined => revoke(by, value),
    touch (uses: Array<[id: number, at: number]>): null {
      const touch = sql.get<[number, number]>('UPDATE tokens SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?')
      for (const [id, at] of uses) touch.run(at, id)
      return null
    },
    purgeEnded (before: number, max: number): number {
      return sql.get<[number, number], never>(`DELETE FROM tokens WHERE id IN (SELECT id FROM tokens
        WHERE (revoked_at IS NOT NULL OR expires_at IS NOT NULL) AND coalesce(revoked_at, expires_at) < ? LIMIT ?)`).run(before, max).changes
    }
  }
}

export type TokenWrites = ReturnType<typeof prepareTokenWrites>
