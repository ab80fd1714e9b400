import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createPool } from '../../../src/store/postgres/database.js'
import { freshDatabase } from '../../databases.js'

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
})
