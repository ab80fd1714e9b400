import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import { describe, test } from 'node:test'
import pg from 'pg'
import { createPool } from '../../../src/store/postgres/database.js'
import { freshDatabase } from '../../databases.js'
import { createPlant, run, serve, stop } from '../../executable.js'
import { waitFor } from '../../receiver.js'

const skip = process.env.PLANTSTORE_TEST_POSTGRES_URL === undefined ? 'PLANTSTORE_TEST_POSTGRES_URL is not set' : false

/** A server setting on each of `count` connections held at once (so that they are distinct). */
async function setting (name: string, durableCommits: boolean | undefined, count: number): Promise<string[]> {
  const pool = createPool(await freshDatabase('postgres:fresh'), count, durableCommits === undefined ? {} : { durableCommits })
  try {
    const clients = await Promise.all(Array.from({ length: count }, () => pool.connect()))
    const settings = await Promise.all(clients.map(async (client) => Object.values((await client.query(`SHOW ${name}`)).rows[0] as object)[0] as string))
    for (const client of clients) client.release()
    return settings
  } finally {
    await pool.end()
  }
}

describe('PostgreSQL pools', { skip }, () => {
  test('commits are durable by default: the store\'s pool (creates, the API) waits for the flush', async () => {
    assert.deepEqual(await setting('synchronous_commit', undefined, 2), ['on', 'on'])
    assert.deepEqual(await setting('plan_cache_mode', undefined, 2), ['auto', 'auto'])
  })

  test('the bookkeeping pool (the dispatcher\'s claims and outcomes) commits without waiting on every connection', async () => {
    assert.deepEqual(await setting('synchronous_commit', false, 3), ['off', 'off', 'off'])
  })

  test('no pool gathers parallel workers for a statement: they queued behind the other connections\' statements', async () => {
    assert.deepEqual(await setting('max_parallel_workers_per_gather', undefined, 2), ['0', '0'])
    assert.deepEqual(await setting('max_parallel_workers_per_gather', false, 2), ['0', '0'])
  })

  test('the bookkeeping pool plans each statement for its values: no plan kept from when the outbox was small', async () => {
    assert.deepEqual(await setting('plan_cache_mode', false, 2), ['force_custom_plan', 'force_custom_plan'])
  })

  test('serve opens its whole pool as it starts, each connection readied for creates, writing nothing', async (t) => {
    // The server's connections are told apart from every other test's by an application name of their own.
    const name = `warm-${randomBytes(4).toString('hex')}`
    const fresh = await freshDatabase('postgres:fresh')
    const url = new URL(fresh)
    url.searchParams.set('application_name', name)
    const database = url.href
    const token = (await run(['tokens', 'create', '--name', 'warm', '--database', database])).stdout.trim()
    // On the server's schema (the fresh URL's search_path), under no application name of the server's.
    const observer = new pg.Client({ connectionString: fresh })
    await observer.connect()
    t.after(() => observer.end())
    // The server's connections but the listeners' (LISTEN is the last statement those ran).
    const poolConnections = async () => Number((await observer.query(
      "SELECT count(*) FROM pg_stat_activity WHERE application_name = $1 AND query NOT LIKE 'LISTEN %'", [name])).rows[0].count)
    const server = await serve(database, ['--database-pool-size', '4'])
    t.after(() => stop(server))
    // The whole pool open before any request; without the warm-up the start itself needs two.
    await waitFor(async () => await poolConnections() === 4, 10_000, 'the pool\'s four connections')
    const written = async () => Number((await observer.query('SELECT (SELECT count(*) FROM plants) + (SELECT count(*) FROM events) AS count')).rows[0].count)
    assert.equal(await written(), 0, 'the warm-up created no plant and appended no event')
    assert.equal((await createPlant(server.url, token, { id: 1, name: 'Warm fern' })).status, 200)
    assert.equal(await written(), 2, 'a create after it is stored with its event')
  })

  test('a warm-up that cannot ready the pool is logged with its reason, and serve starts anyway', async (t) => {
    const fresh = await freshDatabase('postgres:fresh')
    const token = (await run(['tokens', 'create', '--name', 'warm', '--database', fresh])).stdout.trim()
    // The plants table held by another session: the warm-up's create statement waits for it past the lock timeout.
    const holder = new pg.Client({ connectionString: fresh })
    await holder.connect()
    t.after(() => holder.end())
    await holder.query('BEGIN')
    await holder.query('LOCK TABLE plants IN ACCESS EXCLUSIVE MODE')
    const url = new URL(fresh)
    url.searchParams.set('options', `${url.searchParams.get('options')} -c lock_timeout=200`)
    const server = await serve(url.href, ['--database-pool-size', '2'])
    t.after(() => stop(server))
    const warned = () => server.stdout().split('\n').find((text) => text.includes('ahead of requests'))
    await waitFor(() => warned() !== undefined, 10_000, 'the warm-up\'s log line')
    const logged = JSON.parse(warned()!) as { level: number, err: { message: string } }
    assert.equal(logged.level, 40, warned())
    assert.match(logged.err.message, /lock timeout/, warned())
    await holder.query('COMMIT')
    const listed = await fetch(`${server.url}/plants`, { headers: { authorization: `Bearer ${token}` } })
    assert.equal(listed.status, 200, 'served once the table is free')
  })
})
