import { existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import { sameOrConflict } from '../store.js'
import type { BulkStore, ImportOptions, ImportResult, Plant, PlantRecord, Row, StoreMetadata } from '../store.js'
import { guard } from './connection.js'
import { prepareOutbox } from './outbox.js'

type RawPlant = [bigint, string, string | null, bigint]
type ImportBatch = Database.Transaction<(plants: Plant[], options: ImportOptions, sorted: boolean) => ImportResult>

/** A sorted batch met a conflict under `fail`: it rolls back and runs again in the file's order. */
class InFileOrder extends Error {}

const byId = (plants: Plant[]) => plants.toSorted((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))

/**
 * Moving data on SQLite, on the main connection (the commands that use it own the process): imports
 * and restores commit a batch per transaction, each fsynced as the store's synchronous setting says.
 */
export class SqliteBulk implements BulkStore {
  readonly #db: Database.Database
  #importBatch: ImportBatch | undefined

  constructor (db: Database.Database) {
    this.#db = db
  }

  async * plants (batchSize: number): AsyncIterable<PlantRecord[]> {
    // One statement, so one read transaction: a snapshot, while writers go on (WAL).
    const rows = this.#db.prepare<[], RawPlant>('SELECT id, name, tag, created_at FROM plants ORDER BY id').raw(true).iterate()
    try {
      let batch: PlantRecord[] = []
      for (const [id, name, tag, createdAt] of rows) {
        batch.push({ id, name, tag, createdAt })
        if (batch.length === batchSize) {
          yield batch
          batch = []
        }
      }
      if (batch.length > 0) yield batch
    } finally {
      rows.return?.()
    }
  }

  async importPlants (plants: Plant[], options: ImportOptions): Promise<ImportResult> {
    const importBatch = this.#importBatch ??= this.#prepareImport()
    // Ids in order land on the table's and index's pages in order, so a file whose ids come in random
    // order (an export from another system) imports nearly as fast as an id-ordered one. Not with
    // --notify, whose events follow the file; and a conflict under `fail` must be the file's first.
    if (!options.notify) {
      try {
        return guard(() => importBatch.immediate(byId(plants), options, true))
      } catch (error) {
        if (!(error instanceof InFileOrder)) throw error
      }
    }
    return guard(() => importBatch.immediate(plants, options, false))
  }

  /** An import batch as one transaction, its statements prepared once (a run has many batches). */
  #prepareImport (): ImportBatch {
    const db = this.#db
    // An import owns its process: a page cache that holds the pages random ids land on, and a
    // checkpoint every 40 MB of WAL rather than 4, so a batch's pages are not copied into the file
    // again after nearly every commit.
    db.pragma('cache_size = -32768')
    db.pragma('wal_autocheckpoint = 10000')
    const insert = db.prepare('INSERT INTO plants (id, name, tag, created_at) VALUES (?, ?, ?, ?) ON CONFLICT (id) DO NOTHING')
    const select = db.prepare<[bigint], PlantRow>('SELECT id, name, tag FROM plants WHERE id = ?')
    const update = db.prepare('UPDATE plants SET name = ?, tag = ? WHERE id = ?')
    const outbox = prepareOutbox(db)
    return db.transaction((plants: Plant[], { onConflict, notify }: ImportOptions, sorted: boolean): ImportResult => {
      const result: ImportResult = { created: 0, identical: 0, kept: 0, replaced: 0 }
      const now = Date.now()
      const subscribed = notify && outbox.anySubscriber()
      for (let i = 0; i < plants.length; i++) {
        const plant = plants[i]!
        if (insert.run(plant.id, plant.name, plant.tag ?? null, now).changes === 1) {
          result.created++
          if (notify) outbox.record({ type: 'plant.created', plant }, now, subscribed)
          continue
        }
        if (sameOrConflict(plant, plantOfRow(select.get(plant.id)!)).kind === 'replayed') result.identical++
        else if (onConflict === 'skip') result.kept++
        else if (onConflict === 'replace') {
          update.run(plant.name, plant.tag ?? null, plant.id)
          if (notify) outbox.record({ type: 'plant.updated', plant }, now, subscribed)
          result.replaced++
        } else {
          if (sorted) throw new InFileOrder()
          // What came before the conflict is committed, so a rerun after the fix goes on from there.
          result.conflictAt = i
          return result
        }
      }
      return result
    })
  }

  async contents () {
    const count = (table: string) => Number(this.#db.prepare(`SELECT count(*) FROM ${table}`).pluck().get())
    return guard(() => ({
      plants: count('plants'),
      tokens: count('tokens'),
      subscriptions: count('webhook_subscriptions'),
      deliveries: count('webhook_deliveries')
    }))
  }

  async metadata (): Promise<StoreMetadata> {
    const all = (sql: string) => this.#db.prepare<[], Row>(sql).all()
    return guard(() => ({
      tokens: all('SELECT * FROM tokens ORDER BY id'),
      subscriptions: all('SELECT * FROM webhook_subscriptions ORDER BY id'),
      deliveries: all('SELECT * FROM webhook_deliveries WHERE delivered_at IS NULL AND failed_at IS NULL ORDER BY id')
        .map((row) => ({ ...row, locked_until: null }))
    }))
  }

  async restore (plants: AsyncIterable<PlantRecord[]>, metadata: StoreMetadata, onPlants?: (count: number) => void) {
    const db = this.#db
    const insertRows = (table: string, rows: Row[]) => {
      if (rows.length === 0) return
      const columns = Object.keys(rows[0]!)
      const statement = db.prepare(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`)
      for (const row of rows) statement.run(...columns.map((column) => sqliteValue(row[column])))
    }
    db.transaction(() => {
      insertRows('tokens', metadata.tokens)
      insertRows('webhook_subscriptions', metadata.subscriptions)
      insertRows('webhook_deliveries', metadata.deliveries)
    }).immediate()
    const insert = db.prepare('INSERT INTO plants (id, name, tag, created_at) VALUES (?, ?, ?, ?)')
    const batch = db.transaction((records: PlantRecord[]) => {
      for (const record of records) insert.run(record.id, record.name, record.tag, record.createdAt)
    })
    for await (const records of plants) {
      batch.immediate(records)
      onPlants?.(records.length)
    }
  }

  async backup (path: string) {
    if (existsSync(path)) throw new Error(`${path} exists; back up to a new file`)
    // All pages in one step: a restarted step (another connection wrote meanwhile) could never end.
    const { totalPages } = await this.#db.backup(path, { progress: () => 0x7fffffff })
    const copy = new Database(path, { readonly: true })
    try {
      const check = copy.pragma('integrity_check', { simple: true })
      if (check !== 'ok') throw new Error(`the backup at ${path} failed its integrity check: ${String(check)}`)
    } finally {
      copy.close()
    }
    return { pages: totalPages }
  }
}

/** PostgreSQL gives int4 columns as numbers and timestamps as bigints; SQLite takes both. */
function sqliteValue (value: unknown): unknown {
  return typeof value === 'boolean' ? Number(value) : value
}
