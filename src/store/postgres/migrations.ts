import { readdirSync, readFileSync } from 'node:fs'
import type { Pool } from 'pg'

const folder = new URL('../migrations/postgres/', import.meta.url)
// Any fixed number: the advisory lock that makes concurrent starts migrate one at a time.
const MIGRATION_LOCK = 7_311_804_226

/**
 * Applies the numbered SQL files not yet applied, each in its own transaction, under a session advisory
 * lock: of several instances starting together, one migrates and the others then find nothing to do.
 */
export async function migratePostgres (pool: Pool): Promise<number[]> {
  const client = await pool.connect()
  const applied: number[] = []
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK])
    await client.query('CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at bigint NOT NULL)')
    const done = new Set((await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version))
    for (const file of readdirSync(folder).filter((f) => /^\d+-.*\.sql$/.test(f)).sort()) {
      const version = Number.parseInt(file, 10)
      if (done.has(version)) continue
      await client.query('BEGIN')
      try {
        await client.query(readFileSync(new URL(file, folder), 'utf8'))
        await client.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [version, file, Date.now()])
        await client.query('COMMIT')
      } catch (error) {
        await client.query('ROLLBACK')
        throw error
      }
      applied.push(version)
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => {})
    client.release()
  }
  return applied
}
