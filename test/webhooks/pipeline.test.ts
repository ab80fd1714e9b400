import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { ConcurrencyLimit } from '../../src/webhooks/concurrency-limit.js'
import { generateSecret } from '../../src/webhooks/signature.js'
import { buildWithToken, DATABASES } from '../helper.js'
import { startReceiver, waitFor } from '../receiver.js'
import type { Receiver } from '../receiver.js'

const folder = mkdtempSync(join(tmpdir(), 'plantstore-pipeline-'))
after(() => rmSync(folder, { recursive: true, force: true }))
let files = 0

// An SQLite file as well as the in-memory store: on a file the dispatcher runs in its own thread and
// writes through the writer thread's port, as `plantstore serve` does.
const STORES: Record<string, () => string> = {
  ...Object.fromEntries(Object.entries(DATABASES).map(([name, url]) => [name, () => url])),
  'sqlite file': () => `sqlite:${join(folder, `store-${++files}.db`)}`
}

const idsOf = (receiver: Receiver) => receiver.received.map((r) => BigInt(JSON.parse(r.body.replace(/"id":(-?\d+)/, '"id":"$1"')).id))

for (const [db, database] of Object.entries(STORES)) {
  describe(`the webhook pipeline on ${db}`, () => {
    test('a burst of creates reaches a healthy subscriber exactly once each, every delivery verified', async (t) => {
      const receiver = await startReceiver()
      t.after(() => receiver.close())
      const { app, send } = await buildWithToken(t, { database: database() })
      const secret = generateSecret()
      await app.store.webhooks.addSubscription({ url: receiver.url, secret, operator: true })
      const total = 600
      for (let first = 0; first < total; first += 100) {
        const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => send('POST', '/plants', { id: first + i, name: `p${first + i}` })))
        assert.deepEqual([...new Set(answers.map((res) => res.statusCode))], [200])
      }
      await waitFor(() => receiver.received.length >= total, 20_000, `${total} deliveries`)
      // Every outcome recorded, each after one attempt: nothing is left to send, and nothing was sent twice.
      await waitFor(async () => (await app.store.webhooks.listDeliveries({ limit: total + 1 })).every((d) => d.state === 'delivered'), 5000, 'every outcome recorded')
      const deliveries = await app.store.webhooks.listDeliveries({ limit: total + 1 })
      assert.equal(deliveries.length, total)
      assert.deepEqual(new Set(deliveries.map((d) => d.attempts)), new Set([1]))
      assert.equal(receiver.received.length, total, 'no delivery twice')
      assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, total, 'one webhook-id per event')
      assert.deepEqual(idsOf(receiver).sort((a, b) => (a < b ? -1 : 1)), Array.from({ length: total }, (_, i) => BigInt(i)))
      for (const request of receiver.received) new Webhook(secret).verify(request.body, request.headers as Record<string, string>)
      assert.deepEqual(await app.store.webhooks.backlog(), new Map())
    })

    test('a second subscriber that does not answer does not hold the first one back', { timeout: 120_000 }, async (t) => {
      // The slow subscriber holds every delivery it is sent for longer than the test runs: each
      // subscriber may have 4 in flight, so if its lane held the other's up, the fast one would get 4.
      const fast = await startReceiver(() => 200)
      const slow = await startReceiver(() => 'hang')
      t.after(() => Promise.all([fast.close(), slow.close()]))
      const { app, send } = await buildWithToken(t, { database: database(), webhookTimeout: '60s', webhookConcurrency: '4' })
      await app.store.webhooks.addSubscription({ url: fast.url, secret: generateSecret(), operator: true })
      const slowSubscription = (await app.store.webhooks.addSubscription({ url: slow.url, secret: generateSecret(), operator: true }))!
      await app.ready()
      await app.webhooks.refresh()
      await Promise.all(Array.from({ length: 120 }, (_, id) => send('POST', '/plants', { id, name: `p${id}` })))
      await waitFor(() => fast.received.length >= 120, 30_000, 'every delivery to the fast subscriber')
      assert.ok(slow.received.length >= 1 && slow.received.length <= 4, `the slow one holds its first deliveries (${slow.received.length} sent)`)
      await app.store.webhooks.removeSubscription(slowSubscription.id)
    })
  })
}

describe('the concurrency limit of one subscriber', () => {
  test('grows while answers are quick, halves on failures, shrinks on slow answers, within its bounds', () => {
    const limit = new ConcurrencyLimit(4, 64)
    let now = 0
    for (let i = 0; i < 200; i++) limit.succeeded(5, now += 1)
    assert.equal(limit.current, 64, 'quick answers: up to the bound')
    limit.failed(now += 100)
    assert.equal(limit.current, 32)
    limit.failed(now += 1)
    assert.equal(limit.current, 32, 'failures of one round trip count once')
    limit.failed(now += 100)
    assert.equal(limit.current, 16)
    limit.succeeded(500, now += 100)
    assert.ok(limit.current < 16, 'an answer much slower than usual shrinks it')
    for (let i = 0; i < 20; i++) limit.failed(now += 1000)
    assert.equal(limit.current, 1, 'never below one')
    const steady = new ConcurrencyLimit(4, 64)
    for (let i = 0; i < 500; i++) steady.succeeded(2000, now += 10)
    assert.equal(steady.current, 64, 'a receiver that always takes 2 s is slow, not overloaded: it still gets the bound')
  })
})
