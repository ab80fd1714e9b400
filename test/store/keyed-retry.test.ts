import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { freshDatabase, withStore } from '../databases.js'
import { createPlant, newDatabase, run, serve, stop } from '../executable.js'
import { seededRandom } from '../random.js'

/** 200 creates from `first` on, then the delete of plant `first - 1`: run twice, the second would be 404. */
const batchOf = (first: number) => JSON.stringify({
  operations: [
    ...Array.from({ length: 200 }, (_, i) => ({ method: 'POST', path: '/plants', body: { id: first + i, name: `Plant ${first + i}` } })),
    { method: 'DELETE', path: `/plants/${first - 1}` }
  ]
})

async function sendBatch (url: string, token: string, key: string, body: string) {
  const res = await fetch(`${url}/batch`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'idempotency-key': key }, body })
  return { status: res.status, replayed: res.headers.get('idempotent-replayed') === 'true', body: await res.text() }
}

/** The events of batchOf(first) in the log, by type: 200 created and 1 deleted when it ran once. */
async function eventsOf (database: string, first: number): Promise<Record<string, number>> {
  const events = await withStore(database, (store) => store.events.read({ after: 0n, limit: 100_000 }))
  const counts: Record<string, number> = {}
  for (const event of events) {
    const id = Number(/"id":(-?\d+)/.exec(event.data)?.[1])
    if (id >= first - 1 && id < first + 200 && !(event.type === 'plant.created' && id === first - 1)) counts[event.type] = (counts[event.type] ?? 0) + 1
  }
  return counts
}

const stores: Array<[string, () => Promise<string>]> = [
  ['SQLite', async () => newDatabase()],
  ...(process.env.PLANTSTORE_TEST_POSTGRES_URL === undefined ? [] : [['PostgreSQL', () => freshDatabase('postgres:fresh')] as [string, () => Promise<string>]])
]

for (const [name, make] of stores) {
  describe(`Idempotency-Key across a crash, on ${name}`, () => {
    test('SIGKILL at random moments while a keyed batch runs, then its retry: the batch is written exactly once', { timeout: 120_000 }, async (t) => {
      const random = seededRandom(t)
      const database = await make()
      const token = (await run(['tokens', 'create', '--name', 'retry', '--database', database])).stdout.trim()
      const seen = { replayed: 0, ranAgain: 0 }
      for (let round = 0; round < 4; round++) {
        const first = 1000 * (round + 1)
        const body = batchOf(first)
        const key = `crash-${round}`
        const server = await serve(database)
        assert.equal((await createPlant(server.url, token, { id: first - 1, name: 'Deleted by the batch' })).status, 200)
        const sent = sendBatch(server.url, token, key, body).catch(() => undefined)
        await new Promise((resolve) => setTimeout(resolve, random() * 60))
        server.child.kill('SIGKILL')
        await server.exited
        const answered = await sent
        const again = await serve(database)
        try {
          const retry = await sendBatch(again.url, token, key, body)
          assert.equal(retry.status, 200, retry.body)
          if (retry.replayed) seen.replayed++
          else seen.ranAgain++
          if (answered?.status === 200) assert.ok(retry.replayed, 'an answered batch is replayed')
          assert.deepEqual(await eventsOf(database, first), { 'plant.created': 200, 'plant.deleted': 1 }, `round ${round}: the batch written once`)
        } finally {
          await stop(again)
        }
      }
      t.diagnostic(`retries replayed ${seen.replayed}, ran for the first time ${seen.ranAgain}`)
    })
  })
}

describe('Idempotency-Key on two instances of one PostgreSQL database', { skip: process.env.PLANTSTORE_TEST_POSTGRES_URL === undefined ? 'PLANTSTORE_TEST_POSTGRES_URL is not set' : false }, () => {
  test('the same key sent to both at the same moment runs once: the other is 409 code 3005 or the replay', { timeout: 60_000 }, async (t) => {
    const database = await freshDatabase('postgres:fresh')
    const token = (await run(['tokens', 'create', '--name', 'twins', '--database', database])).stdout.trim()
    const [a, b] = await Promise.all([serve(database), serve(database)])
    t.after(() => Promise.all([stop(a!), stop(b!)]))
    for (let round = 0; round < 10; round++) {
      const first = 100_000 + 1000 * round
      const body = batchOf(first)
      assert.equal((await createPlant(a!.url, token, { id: first - 1, name: 'Deleted by the batch' })).status, 200)
      const answers = await Promise.all([sendBatch(a!.url, token, `twin-${round}`, body), sendBatch(b!.url, token, `twin-${round}`, body)])
      const ran = answers.filter((answer) => answer.status === 200 && !answer.replayed)
      assert.equal(ran.length, 1, JSON.stringify(answers.map(({ status, replayed }) => ({ status, replayed }))))
      const other = answers.find((answer) => answer !== ran[0])!
      assert.ok(other.replayed || (other.status === 409 && JSON.parse(other.body).error === 3005), `${other.status} ${other.body}`)
      assert.deepEqual(await eventsOf(database, first), { 'plant.created': 200, 'plant.deleted': 1 })
    }
  })
})
