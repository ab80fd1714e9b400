import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createPool } from '../../../src/store/postgres/database.js'
import { freshDatabase } from '../../databases.js'

const skip = process.env.PLANTSTORE_TEST_POSTGRES_URL === undefined ? 'PLANTSTORE_TEST_POSTGRES_URL is not set' : false

/** synchronous_commit on each of `count` connections held at once (so that they are distinct). */
async function synchronousCommit (durableCommits: boolean | undefined, count: number): Promise<string[]> {
  const pool = createPool(await freshDatabase('postgres:fresh'), count, durableCommits === undefined ? {} : { durableCommits })
  try {
    const clients = await Promise.all(Array.from({ length: count }, () => pool.connect()))
    const settings = await Promise.all(clients.map(async (client) => (await client.query<{ synchronous_commit: string }>('SHOW synchronous_commit')).rows[0]!.synchronous_commit))
    for (const client of clients) client.release()
    return settings
  } finally {
    await pool.end()
  }
}

describe('PostgreSQL pools', { skip }, () => {
  test('commits are durable by default: the store\'s pool (creates, the API) waits for the flush', async () => {
    assert.deepEqual(await synchronousCommit(undefined, 2), ['on', 'on'])
  })

  test('the bookkeeping pool (the dispatcher\'s claims and outcomes) commits without waiting on every connection', async () => {
    assert.deepEqual(await synchronousCommit(false, 3), ['off', 'off', 'off'])
  })
})
