import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Webhook } from 'standardwebhooks'
import { generateSecret } from '../../src/webhooks/signature.js'
import { retryDelay } from '../../src/webhooks/dispatcher.js'
import { buildWithToken, DATABASES } from '../helper.js'
import { freePort, startReceiver, waitFor } from '../receiver.js'
import type { Received } from '../receiver.js'

// Quick retries, so that a test of four attempts takes well under a second.
const fast = { webhookRetryBase: '50ms', webhookTimeout: '500ms' }

/** Verifies a delivery with the Standard Webhooks reference library, not with our own code. */
function verify (secret: string, request: Received) {
  return new Webhook(secret).verify(request.body, request.headers as Record<string, string>)
}

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`the newPlant webhook on ${db}`, () => {
    test('a created plant is POSTed to the subscriber as NewPlant JSON, signed as Standard Webhooks specifies', async (t) => {
      const receiver = await startReceiver()
      t.after(() => receiver.close())
      const { app, send } = await buildWithToken(t, { database, ...fast })
      const secret = generateSecret()
      await app.store.webhooks.addSubscription({ url: receiver.url, secret, operator: true })
      assert.equal((await send('POST', '/plants', '{"id": 9223372036854775807, "name": "Fern", "tag": "green", "extra": 1}')).statusCode, 200)
      await waitFor(() => receiver.received.length === 1, 5000, 'the delivery')
      const [request] = receiver.received
      assert.equal(request!.body, '{"id":9223372036854775807,"name":"Fern","tag":"green"}', 'NewPlant, every digit of the id')
      assert.equal(request!.headers['content-type'], 'application/json')
      assert.match(String(request!.headers['webhook-id']), /^msg_[0-9a-f]{32}$/)
      assert.match(String(request!.headers['webhook-signature']), /^v1,[A-Za-z0-9+/]+=*$/)
      assert.ok(verify(secret, request!), 'the reference verifier accepts the signature')
      assert.throws(() => verify(generateSecret(), request!), 'another secret does not verify')
      await waitFor(async () => (await app.store.webhooks.listDeliveries({ limit: 1 }))[0]?.state === 'delivered')
      const [report] = await app.store.webhooks.listDeliveries({ limit: 1 })
      assert.equal(report!.attempts, 1)
      assert.equal(report!.plantId, 9223372036854775807n)
    })

    test('replays and conflicts send nothing; every subscriber gets each new plant once', async (t) => {
      const a = await startReceiver()
      const b = await startReceiver()
      t.after(() => Promise.all([a.close(), b.close()]))
      const { app, send } = await buildWithToken(t, { database, ...fast })
      await app.store.webhooks.addSubscription({ url: a.url, secret: generateSecret(), operator: true })
      await app.store.webhooks.addSubscription({ url: b.url, secret: generateSecret(), operator: true })
      await send('POST', '/plants', { id: 1, name: 'Fern' })
      await send('POST', '/plants', { id: 1, name: 'Fern' })
      await send('POST', '/plants', { id: 1, name: 'Ivy' })
      await send('POST', '/plants', { id: 2, name: 'Oak' })
      // The outbox holds the two events for each subscriber and nothing else, and each was sent once.
      await waitFor(async () => {
        const deliveries = await app.store.webhooks.listDeliveries({ limit: 10 })
        return deliveries.length === 4 && deliveries.every((delivery) => delivery.state === 'delivered')
      }, 5000, 'both subscribers')
      assert.deepEqual((await app.store.webhooks.listDeliveries({ limit: 10 })).map((delivery) => delivery.attempts), [1, 1, 1, 1])
      for (const receiver of [a, b]) {
        assert.deepEqual(receiver.received.map((r) => JSON.parse(r.body).id).sort(), [1, 2])
      }
      assert.equal(a.received[0]!.headers['webhook-id'], b.received.find((r) => r.body === a.received[0]!.body)!.headers['webhook-id'],
        'one event, one webhook-id, whichever subscriber')
    })

    test('a receiver that is down (connection refused) gets the event once it is up', async (t) => {
      const port = await freePort()
      const { app, send } = await buildWithToken(t, { database, ...fast })
      await app.store.webhooks.addSubscription({ url: `http://127.0.0.1:${port}/hook`, secret: generateSecret(), operator: true })
      await send('POST', '/plants', { id: 1, name: 'Fern' })
      await waitFor(async () => (await app.store.webhooks.listDeliveries({ limit: 1 }))[0]!.attempts >= 2, 5000, 'two failed attempts')
      const [failing] = await app.store.webhooks.listDeliveries({ limit: 1 })
      assert.equal(failing!.state, 'failed', 'its last attempt failed; it will be retried')
      assert.match(String(failing!.lastError), /ECONNREFUSED/)
      const receiver = await startReceiver(() => 200, port)
      t.after(() => receiver.close())
      await waitFor(() => receiver.received.length === 1, 5000, 'the delivery after the receiver came up')
      await waitFor(async () => (await app.store.webhooks.listDeliveries({ limit: 1 }))[0]!.state === 'delivered')
    })

    test('a receiver answering 500 three times gets it on the fourth try, with one stable webhook-id', async (t) => {
      const receiver = await startReceiver((_request, index) => (index < 3 ? 500 : 204))
      t.after(() => receiver.close())
      const { app, send } = await buildWithToken(t, { database, ...fast })
      await app.store.webhooks.addSubscription({ url: receiver.url, secret: generateSecret(), operator: true })
      await send('POST', '/plants', { id: 5, name: 'Fern' })
      await waitFor(async () => (await app.store.webhooks.listDeliveries({ limit: 1 }))[0]!.state === 'delivered', 5000, 'delivery')
      assert.equal(receiver.received.length, 4)
      assert.equal(new Set(receiver.received.map((r) => r.headers['webhook-id'])).size, 1)
      assert.equal((await app.store.webhooks.listDeliveries({ limit: 1 }))[0]!.attempts, 4)
    })

    test('a receiver that does not answer in time is retried', async (t) => {
      const receiver = await startReceiver((_request, index) => (index === 0 ? 'hang' : 200))
      t.after(() => receiver.close())
      const { app, send } = await buildWithToken(t, { database, webhookRetryBase: '50ms', webhookTimeout: '200ms' })
      await app.store.webhooks.addSubscription({ url: receiver.url, secret: generateSecret(), operator: true })
      await send('POST', '/plants', { id: 6, name: 'Fern' })
      await waitFor(async () => (await app.store.webhooks.listDeliveries({ limit: 1 }))[0]!.state === 'delivered', 5000, 'delivery')
      assert.equal(receiver.received.length, 2)
    })

    test('at most --webhook-concurrency deliveries are in flight to one subscriber', async (t) => {
      // The receiver holds every request until the test answers it, and counts how many it holds.
      const held: Array<() => void> = []
      let holding = 0
      let most = 0
      const receiver = await startReceiver(() => {
        most = Math.max(most, ++holding)
        return new Promise<number>((resolve) => held.push(() => { holding--; resolve(200) }))
      })
      t.after(() => receiver.close())
      const { app, send } = await buildWithToken(t, { database, webhookConcurrency: '2', webhookTimeout: '30s', webhookRetryBase: '10s' })
      await app.store.webhooks.addSubscription({ url: receiver.url, secret: generateSecret(), operator: true })
      await app.ready()
      await app.webhooks.refresh()
      for (let id = 1; id <= 6; id++) await send('POST', '/plants', { id, name: 'p' })
      await waitFor(() => receiver.received.length >= 2, 10_000, 'the first two deliveries, held')
      // Answered one at a time: each answer lets the next delivery in, never a third beside two held.
      for (let answered = 0; answered < 6; answered++) {
        await waitFor(() => held.length > 0, 10_000, `delivery ${answered + 1} of 6`)
        held.shift()!()
      }
      await waitFor(async () => (await app.store.webhooks.listDeliveries({ limit: 10 })).filter(({ state }) => state === 'delivered').length === 6, 10_000, 'six deliveries delivered')
      assert.equal(receiver.received.length, 6, 'each delivered once')
      assert.equal(most, 2, 'two held at once, never more')
    })

    test('an event still undelivered after --webhook-give-up-after is given up', async (t) => {
      const port = await freePort()
      const { app, send } = await buildWithToken(t, { database, webhookRetryBase: '20ms', webhookGiveUpAfter: '300ms' })
      await app.store.webhooks.addSubscription({ url: `http://127.0.0.1:${port}/hook`, secret: generateSecret(), operator: true })
      // The dispatcher (on PostgreSQL in a thread of its own) is up and knows the subscriber before the clock starts.
      await app.ready()
      await app.webhooks.refresh()
      await send('POST', '/plants', { id: 1, name: 'Fern' })
      await waitFor(async () => (await app.store.webhooks.listDeliveries({ limit: 1 }))[0]!.state === 'given_up', 5000, 'giving up')
      const [report] = await app.store.webhooks.listDeliveries({ limit: 1 })
      assert.ok(report!.attempts >= 2)
      assert.equal(report!.nextAttemptAt, null)
    })

    test('a removed subscriber gets nothing more', async (t) => {
      const receiver = await startReceiver()
      const control = await startReceiver()
      t.after(() => Promise.all([receiver.close(), control.close()]))
      const { app, send } = await buildWithToken(t, { database, ...fast })
      const subscription = (await app.store.webhooks.addSubscription({ url: receiver.url, secret: generateSecret(), operator: true }))!
      assert.equal(await app.store.webhooks.removeSubscription(subscription.id), true)
      assert.equal(await app.store.webhooks.removeSubscription(subscription.id), false)
      await app.store.webhooks.addSubscription({ url: control.url, secret: generateSecret(), operator: true })
      await send('POST', '/plants', { id: 1, name: 'Fern' })
      // The event is written with its deliveries: none for the removed subscriber, so none can ever be
      // sent; the subscriber beside it gets the plant.
      assert.deepEqual(await app.store.webhooks.listDeliveries({ subscriptionId: subscription.id, limit: 10 }), [])
      await waitFor(() => control.received.length === 1, 5000, 'the delivery to the other subscriber')
      assert.equal(receiver.received.length, 0)
    })
  })
}

test('backoff doubles from the base, with jitter, capped at an hour', () => {
  assert.equal(retryDelay(1, 2000, () => 0.5), 2000)
  assert.equal(retryDelay(2, 2000, () => 0.5), 4000)
  assert.equal(retryDelay(1, 2000, () => 0), 1500)
  assert.equal(retryDelay(1, 2000, () => 1), 2500)
  assert.equal(retryDelay(40, 2000, () => 0.5), 3_600_000)
})
