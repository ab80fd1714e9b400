import type { Database } from 'better-sqlite3'
import { readdirSync, readFileSync } from 'node:fs'

const folder = new URL('../migrations/sqlite/', import.meta.url)

/**
 * Applies the numbered SQL files not yet applied, each in its own IMMEDIATE transaction, so that two
 * processes starting on one file serialise on SQLite's write lock and neither applies a file twice.
 * Answers the versions it applied.
 */
export function migrateSqlite (db: Database): number[] {
  db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at INTEGER NOT NULL)')
  const applied: number[] = []
  const files = readdirSync(folder).filter((file) => /^\d+-.*\.sql$/.test(file)).sort()
  for (const file of files) {
    const version = Number.parseInt(file, 10)
    const apply = db.transaction(() => {
      if (db.prepare('SELECT 1 FROM schema_migrations WHERE version = ?').get(version) !== undefined) return
      db.exec(readFileSync(new URL(file, folder), 'utf8'))
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at) VALUES (?, ?, ?)').run(version, file, Date.now())
      applied.push(version)
    })
    apply.immediate()
  }
  return applied
}
