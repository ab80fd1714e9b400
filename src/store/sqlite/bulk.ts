import { closeSync, existsSync, openSync } from 'node:fs'
import Database from 'better-sqlite3'
import type { BulkStore, ImportOptions, ImportResult, Plant, PlantRecord, Row, StoreMetadata } from '../store.js'
import { prepareSearchIndex } from './search-index.js'
import { guard } from './connection.js'
import { InFileOrder, prepareImportBatch } from './import-batch.js'
import type { ImportBatch } from './import-batch.js'

type RawPlant = [bigint, string, string | null, bigint]
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
    const importBatch = this.#importBatch ??= prepareImportBatch(this.#db)
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
        .map((row) => ({ ...row, locked_until: null })),
      idempotencyKeys: this.#db.prepare<[number], Row>('SELECT * FROM idempotency_keys WHERE expires_at > ? ORDER BY owner, key').all(Date.now())
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
      insertRows('idempotency_keys', metadata.idempotencyKeys)
    }).immediate()
    const insert = db.prepare('INSERT INTO plants (id, name, tag, created_at) VALUES (?, ?, ?, ?)')
    const batch = db.transaction((records: PlantRecord[]) => {
      for (const record of records) insert.run(record.id, record.name, record.tag, record.createdAt)
    })
    for await (const records of plants) {
      batch.immediate(records)
      onPlants?.(records.length)
    }
    // The search index from the plants, at once (the target held none).
    const search = prepareSearchIndex(db)
    db.transaction(() => { search.rebuild() }).immediate()
  }

  async backup (path: string) {
    if (existsSync(path)) throw new Error(`${path} exists; back up to a new file`)
    // Owner-only, as the store: it holds webhook secrets. SQLite writes into the empty file as it is.
    closeSync(openSync(path, 'wx', 0o600))
    // All pages in one step: a restarted step (another connection wrote meanwhile) could never end.
    const { totalPages } = await this.#db.backup(path, { progress: () => 0x7fffffff })
    const copy = new Database(path)
    try {
      // The copy is one file: out of WAL mode, so that no -wal or -shm is left beside it.
      copy.pragma('journal_mode = DELETE')
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
