import type Database from 'better-sqlite3'

/**
 * The search index (`plant_search`, FTS5 over `plants.name` as external content), kept in step by
 * every write of a plant's name, in the write's own transaction. Written here rather than by triggers:
 * each statement a trigger runs opens a savepoint, and FTS5 flushes its pending terms at every
 * savepoint, so a trigger wrote a tiny index segment per plant.
 * An external-content index is told what it held: a delete and a rename name the old name.
 * FTS5 rather than a table of (word, id) as on PostgreSQL: names of several words land at as many
 * random places in such a table, which cost a create more than FTS5's segment per commit.
 */
export function prepareSearchIndex (db: Database.Database) {
  const add = db.prepare('INSERT INTO plant_search (rowid, name) VALUES (?, ?)')
  const remove = db.prepare("INSERT INTO plant_search (plant_search, rowid, name) VALUES ('delete', ?, ?)")
  const rebuild = db.prepare("INSERT INTO plant_search (plant_search) VALUES ('rebuild')")
  return {
    inserted (id: bigint, name: string) { add.run(id, name) },
    deleted (id: bigint, name: string) { remove.run(id, name) },
    renamed (id: bigint, before: string, after: string) {
      if (before === after) return
      remove.run(id, before)
      add.run(id, after)
    },
    /** The whole index from the plants table (after a restore writes plants in bulk). */
    rebuild () { rebuild.run() }
  }
}

export type SearchIndex = ReturnType<typeof prepareSearchIndex>
