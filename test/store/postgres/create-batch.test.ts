import assert from 'node:assert/strict'
import { setTimeout as sleep } from 'node:timers/promises'
import { describe, test } from 'node:test'
import type { TestContext } from 'node:test'
import pg from 'pg'
import { openStore } from '../../../src/store/open-store.js'
import { parseDatabaseUrl } from '../../../src/config/config.js'
import { createBatchParams, createBatchSql } from '../../../src/store/postgres/create-batch.js'
import { freshDatabase } from '../../databases.js'

const skip = process.env.PLANTSTORE_TEST_POSTGRES_URL === undefined ? 'PLANTSTORE_TEST_POSTGRES_URL is not set' : false

const batch = (ids: number[]) => createBatchParams(ids.map((id) => ({ plant: { id: BigInt(id), name: `plant ${id}` }, trace: undefined })), Date.now())

/** `count` connections to `url`, each ended when the test ends. */
async function connections (t: TestContext, url: string, count: number): Promise<pg.Client[]> {
  const clients = Array.from({ length: count }, () => new pg.Client({ connectionString: url }))
  await Promise.all(clients.map((client) => client.connect()))
  t.after(() => Promise.all(clients.map((client) => client.end())))
  return clients
}

/** Inserts plant `id` in a transaction left open: whoever inserts that id next waits on `client`. */
async function hold (client: pg.Client, id: number) {
  await client.query('BEGIN')
  await client.query('INSERT INTO plants (id, name, created_at) VALUES ($1, $2, 0)', [id, 'held'])
}

/** Waits until `count` sessions of the test's database wait on a lock (the statements under test have reached it). */
async function lockWaiters (client: pg.Client, count: number) {
  const deadline = Date.now() + 10_000
  for (;;) {
    const { rows: [row] } = await client.query<{ n: string }>("SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'")
    if (Number(row!.n) >= count) return
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${count} sessions to wait on a lock (${row!.n} do)`)
    await sleep(10)
  }
}

describe('create and import batches on PostgreSQL', { skip }, () => {
  test('two batches whose ids cross never deadlock: each locks its ids in the same order', async (t) => {
    const url = await freshDatabase('postgres:fresh')
    await (await openStore(parseDatabaseUrl(url))).close() // migrates
    const [holder, first, second] = await connections(t, url, 3)

    // Another writer holds plant 3 uncommitted, so that the first batch stops there holding plant 1.
    await hold(holder!, 3)
    await first!.query('BEGIN')
    const firstDone = first!.query(createBatchSql, batch([1, 3, 2])).then(() => first!.query('COMMIT'))
    await lockWaiters(holder!, 1)
    // Arriving as 2 then 1: in that order it would take plant 2 and wait for plant 1.
    await second!.query('BEGIN')
    const secondDone = second!.query(createBatchSql, batch([2, 1])).then(() => second!.query('COMMIT'))
    await lockWaiters(holder!, 2)
    await holder!.query('ROLLBACK')

    const outcomes = await Promise.allSettled([firstDone, secondDone])
    assert.deepEqual(outcomes.map((outcome) => outcome.status === 'rejected' ? String(outcome.reason) : 'ok'), ['ok', 'ok'])
    const stored = await holder!.query<{ id: string }>('SELECT id FROM plants ORDER BY id')
    assert.deepEqual(stored.rows.map((row) => Number(row.id)), [1, 2, 3])
  })

  test('the batch never reads all of plants, even in a plan made while the table was empty', async (t) => {
    const url = await freshDatabase('postgres:fresh')
    await (await openStore(parseDatabaseUrl(url))).close() // migrates
    const [client] = await connections(t, url, 1)
    // The plan a prepared statement keeps: made without its values, from the table's size then.
    await client!.query('SET plan_cache_mode = force_generic_plan')
    await client!.query('BEGIN')
    await client!.query({ name: 'create-batch', text: createBatchSql, values: batch([1, 2]) })
    await client!.query({ name: 'create-batch', text: createBatchSql, values: batch([2, 3]) })
    const { rows } = await client!.query<{ seq_scan: string }>("SELECT seq_scan FROM pg_stat_xact_user_tables WHERE relid = 'plants'::regclass")
    await client!.query('ROLLBACK')
    assert.equal(Number(rows[0]!.seq_scan), 0)
  })

  test('an import beside creates never deadlocks with them: it too takes its ids in order', async (t) => {
    const url = await freshDatabase('postgres:fresh')
    const store = await openStore(parseDatabaseUrl(url))
    t.after(() => store.close())
    const [holder, creator] = await connections(t, url, 2)

    // The creates' batch takes plant 1, then waits on plant 2, which another writer holds.
    await hold(holder!, 2)
    await creator!.query('BEGIN')
    const created = creator!.query(createBatchSql, batch([1, 2, 3])).then(() => creator!.query('COMMIT'))
    await lockWaiters(holder!, 1)
    // The file lists plant 3 before plant 1: in that order the import would hold 3 and wait on 1.
    const imported = store.bulk.importPlants([{ id: 3n, name: 'plant 3' }, { id: 1n, name: 'plant 1' }], { onConflict: 'skip', notify: false })
    await lockWaiters(holder!, 2)
    await holder!.query('ROLLBACK')

    const outcomes = await Promise.allSettled([created, imported])
    assert.deepEqual(outcomes.map((outcome) => outcome.status === 'rejected' ? String(outcome.reason) : 'ok'), ['ok', 'ok'])
    // Sorting by id keeps a repeated id's first occurrence first.
    assert.deepEqual(await store.bulk.importPlants([{ id: 7n, name: 'first' }, { id: 5n, name: 'five' }, { id: 7n, name: 'second' }], { onConflict: 'skip', notify: false }),
      { created: 2, identical: 0, kept: 1, replaced: 0 })
    assert.equal((await holder!.query<{ name: string }>('SELECT name FROM plants WHERE id = 7')).rows[0]!.name, 'first')
  })
})
