import { pipeline } from 'node:stream/promises'
import type { PoolClient } from 'pg'
import { from as copyFrom } from 'pg-copy-streams'
import { INT64_MIN } from '../../contract/int64.js'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import { BackupUnsupported, sameOrConflict, UnstorableText } from '../store.js'
import type { BulkStore, ImportOptions, ImportResult, Plant, PlantRecord, Row, StoreMetadata } from '../store.js'
import { record } from './outbox.js'
import type { PostgresDatabase } from './database.js'

/** COPY's text format: backslash, tab, newline and carriage return escaped; NULL as \N. */
function copyText (value: string | null): string {
  return value === null ? '\\N' : value.replace(/[\\\t\n\r]/g, (c) => (c === '\\' ? '\\\\' : c === '\t' ? '\\t' : c === '\n' ? '\\n' : '\\r'))
}

/**
 * A batch's new plants, inserted in id order as the creates' batches are (create-batch.ts), so that an
 * import beside creates, or beside another import, never deadlocks with them; a repeated id keeps its
 * first occurrence (ord).
 */
const insertBatchSql = `INSERT INTO plants (id, name, tag, created_at)
  SELECT id, name, tag, $4 FROM unnest($1::bigint[], $2::text[], $3::text[]) WITH ORDINALITY AS t (id, name, tag, ord)
  ORDER BY id, ord
  ON CONFLICT (id) DO NOTHING RETURNING id`

/** Moving data on PostgreSQL: batches as single statements, and COPY for a whole store's plants. */
export class PostgresBulk implements BulkStore {
  readonly #db: PostgresDatabase

  constructor (db: PostgresDatabase) {
    this.#db = db
  }

  async * plants (batchSize: number): AsyncIterable<PlantRecord[]> {
    // Keyset pages in one REPEATABLE READ transaction: one snapshot, whatever is written meanwhile.
    const client = await this.#db.pool.connect()
    try {
      await client.query('BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY')
      let after: bigint | undefined
      for (;;) {
        const { rows } = await client.query<{ id: bigint, name: string, tag: string | null, created_at: bigint }>(
          `SELECT id, name, tag, created_at FROM plants WHERE id ${after === undefined ? '>=' : '>'} $1 ORDER BY id LIMIT ${batchSize}`,
          [(after ?? INT64_MIN).toString()])
        if (rows.length === 0) break
        yield rows.map((row) => ({ id: row.id, name: row.name, tag: row.tag, createdAt: row.created_at }))
        after = rows.at(-1)!.id
        if (rows.length < batchSize) break
      }
      await client.query('COMMIT')
    } finally {
      client.release()
    }
  }

  async importPlants (plants: Plant[], options: ImportOptions): Promise<ImportResult> {
    return this.#db.transaction(async (client) => {
      const result = await this.#importIn(client, plants, options)
      if (result.conflictAt === undefined) return result
      // A conflict with --on-conflict fail: only what came before it is committed.
      await client.query('ROLLBACK')
      await client.query('BEGIN')
      const before = await this.#importIn(client, plants.slice(0, result.conflictAt), options)
      return { ...before, conflictAt: result.conflictAt }
    })
  }

  async #importIn (client: PoolClient, plants: Plant[], { onConflict, notify }: ImportOptions): Promise<ImportResult> {
    const now = Date.now()
    const { rows: inserted } = await client.query<{ id: bigint }>(insertBatchSql, [
      plants.map((plant) => plant.id.toString()), plants.map((plant) => plant.name), plants.map((plant) => plant.tag ?? null), now])
    const created = new Set(inserted.map((row) => row.id))
    const rest = plants.filter((plant) => !created.has(plant.id))
    const stored = new Map((await client.query<PlantRow>('SELECT id, name, tag FROM plants WHERE id = ANY($1::bigint[])',
      [rest.map((plant) => plant.id.toString())])).rows.map((row) => [row.id, plantOfRow(row)]))
    const result: ImportResult = { created: created.size, identical: 0, kept: 0, replaced: 0 }
    const replacing: Array<{ plant: Plant, before: Plant }> = []
    // Each created plant once: a batch may repeat an id, and its first occurrence created the plant,
    // which a later occurrence is then weighed against.
    const news = new Map<bigint, Plant>()
    for (let i = 0; i < plants.length; i++) {
      const plant = plants[i]!
      if (created.delete(plant.id)) {
        news.set(plant.id, plant)
        continue
      }
      if (sameOrConflict(plant, stored.get(plant.id) ?? news.get(plant.id) ?? plant).kind === 'replayed') result.identical++
      else if (onConflict === 'skip') result.kept++
      else if (onConflict === 'replace') replacing.push({ plant, before: stored.get(plant.id) ?? news.get(plant.id)! })
      else return { ...result, conflictAt: i }
    }
    if (replacing.length > 0) {
      await client.query(`UPDATE plants SET name = u.name, tag = u.tag
        FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u (id, name, tag) WHERE plants.id = u.id`,
      [replacing.map(({ plant: p }) => p.id.toString()), replacing.map(({ plant: p }) => p.name), replacing.map(({ plant: p }) => p.tag ?? null)])
      result.replaced = replacing.length
    }
    if (notify) {
      await record(client, [
        ...[...news.values()].map((plant) => ({ type: 'plant.created' as const, plant })),
        ...replacing.map(({ plant, before }) => ({ type: 'plant.updated' as const, plant, before }))
      ], now)
    }
    return result
  }

  async contents () {
    const [row] = await this.#db.query<{ plants: bigint, tokens: bigint, subscriptions: bigint, deliveries: bigint }>(`SELECT
      (SELECT count(*) FROM plants) AS plants, (SELECT count(*) FROM tokens) AS tokens,
      (SELECT count(*) FROM webhook_subscriptions) AS subscriptions, (SELECT count(*) FROM webhook_deliveries) AS deliveries`)
    return { plants: Number(row!.plants), tokens: Number(row!.tokens), subscriptions: Number(row!.subscriptions), deliveries: Number(row!.deliveries) }
  }

  async metadata (): Promise<StoreMetadata> {
    return {
      tokens: await this.#db.query<Row>('SELECT * FROM tokens ORDER BY id'),
      subscriptions: await this.#db.query<Row>('SELECT * FROM webhook_subscriptions ORDER BY id'),
      deliveries: (await this.#db.query<Row>('SELECT * FROM webhook_deliveries WHERE delivered_at IS NULL AND failed_at IS NULL ORDER BY id'))
        .map((row) => ({ ...row, locked_until: null })),
      idempotencyKeys: await this.#db.query<Row>('SELECT * FROM idempotency_keys WHERE expires_at > $1 ORDER BY owner, key', [Date.now()])
    }
  }

  async restore (plants: AsyncIterable<PlantRecord[]>, metadata: StoreMetadata, onPlants?: (count: number) => void) {
    await this.#db.transaction(async (client) => {
      for (const [table, rows] of [['tokens', metadata.tokens], ['webhook_subscriptions', metadata.subscriptions],
        ['webhook_deliveries', metadata.deliveries], ['idempotency_keys', metadata.idempotencyKeys]] as const) {
        for (const row of rows) {
          const columns = Object.keys(row)
          await client.query(`INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map((_c, i) => `$${i + 1}`).join(', ')})`,
            columns.map((column) => postgresValue(row[column])))
        }
        // Rows came with their ids: the next one made here must follow them (keys have none).
        if (table !== 'idempotency_keys') await client.query(`SELECT setval(pg_get_serial_sequence('${table}', 'id'), coalesce((SELECT max(id) FROM ${table}), 0) + 1, false)`)
      }
      // The plants through COPY: one stream, no statement per row. Through pipeline, so that a failure
      // of the source (or a plant PostgreSQL cannot hold) aborts the COPY (CopyFail) rather than leave it
      // open under the ROLLBACK, which then waited for ever.
      await pipeline(async function * () {
        for await (const records of plants) {
          let chunk = ''
          for (const r of records) {
            if (r.name.includes('\u0000') || r.tag?.includes('\u0000') === true) throw new UnstorableText(r.id)
            chunk += `${r.id}\t${copyText(r.name)}\t${copyText(r.tag)}\t${r.createdAt}\n`
          }
          yield chunk
          onPlants?.(records.length)
        }
      }, client.query(copyFrom('COPY plants (id, name, tag, created_at) FROM STDIN')))
    })
  }

  async backup (): Promise<{ pages: number }> {
    throw new BackupUnsupported('backup copies SQLite stores; for PostgreSQL use pg_dump, e.g. pg_dump --format=custom --file=plantstore.dump "$PLANTSTORE_DATABASE_URL"')
  }
}

/** SQLite gives blobs as Buffer and integers as bigint, which pg sends as they are. */
function postgresValue (value: unknown): unknown {
  return typeof value === 'bigint' ? value.toString() : value
}
