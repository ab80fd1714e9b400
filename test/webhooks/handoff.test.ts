import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { TestContext } from 'node:test'
import { parseDatabaseUrl } from '../../src/config/config.js'
import { openStore } from '../../src/store/open-store.js'
import type { DeliveryClaim, HandedDeliveries, Store, WebhookStore } from '../../src/store/store.js'
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js'
import type { Log } from '../../src/webhooks/log.js'
import { generateSecret } from '../../src/webhooks/signature.js'
import { freshDatabase } from '../databases.js'
import { startReceiver, waitFor } from '../receiver.js'
import { setup } from '../webhook-manager.js'

const skip = process.env.PLANTSTORE_TEST_POSTGRES_URL === undefined ? 'PLANTSTORE_TEST_POSTGRES_URL is not set' : false

const quiet: Log = { debug () {}, info () {}, warn () {}, error () {} }
const settings = {
  timeoutMs: 2000,
  perSubscription: 8,
  retryBaseMs: 50,
  giveUpAfterMs: 60_000,
  disableAfterMs: 3_600_000,
  pollMs: 200,
  allowPrivate: true,
  maxConnections: 64
}

async function postgresStore (t: TestContext): Promise<Store> {
  const store = await openStore(parseDatabaseUrl(await freshDatabase('postgres:fresh')))
  t.after(() => store.close())
  return store
}

describe('creates hand their deliveries straight to a dispatcher on PostgreSQL', { skip }, () => {
  test('deliveries to the subscriptions it takes are written claimed and handed over; the others wait for a claim', async (t) => {
    const store = await postgresStore(t)
    const taken = (await store.webhooks.addSubscription({ url: 'http://127.0.0.1:9/taken', secret: generateSecret(), operator: true }))!
    const left = (await store.webhooks.addSubscription({ url: 'http://127.0.0.1:9/left', secret: generateSecret(), operator: true }))!
    const handed: HandedDeliveries[] = []
    let subscriptions = [taken.id]
    store.plants.handOff!({ get subscriptions () { return subscriptions }, leaseMs: 60_000, take: (deliveries) => { handed.push(deliveries) } })

    const before = Date.now()
    const outcome = await store.plants.create({ id: 7n, name: 'Fern' })
    assert.deepEqual(outcome, { kind: 'created', plant: { id: 7n, name: 'Fern' }, enqueued: true }, 'the other subscription\'s delivery waits in the outbox')
    assert.equal(handed.length, 1)
    const [{ leaseUntil, rows }] = handed as [HandedDeliveries]
    assert.ok(leaseUntil >= before + 60_000 && leaseUntil <= Date.now() + 60_000, 'claimed for the lease the dispatcher asked for')
    assert.equal(rows.length, 1)
    assert.equal(Number(rows[0]!.subscription_id), taken.id)
    assert.equal(rows[0]!.payload, '{"id":7,"name":"Fern"}')
    assert.match(rows[0]!.message_id, /^msg_[0-9a-f]{32}$/)

    const claim = (subscriptionId: number, now = Date.now()): DeliveryClaim => ({ subscriptionId, now, leaseMs: 1000, max: 10 })
    assert.deepEqual(await store.webhooks.claim(claim(taken.id)), [], 'a handed delivery is claimed already: no claim finds it')
    const [waiting] = await store.webhooks.claim(claim(left.id))
    assert.equal(waiting?.messageId, rows[0]!.message_id, 'one event, one webhook-id, whichever way it goes')
    // Were the dispatcher it was handed to gone, the lease lapses and any dispatcher claims it.
    const [lapsed] = await store.webhooks.claim(claim(taken.id, leaseUntil + 1))
    assert.equal(lapsed?.id, Number(rows[0]!.id))

    // Taking every subscription, nothing waits: the create does not wake the dispatcher.
    subscriptions = [taken.id, left.id]
    assert.deepEqual(await store.plants.create({ id: 8n, name: 'Ivy' }), { kind: 'created', plant: { id: 8n, name: 'Ivy' }, enqueued: false })
    assert.deepEqual(handed[1]!.rows.map((row) => Number(row.subscription_id)).sort(), [taken.id, left.id].sort())
    // Nor does one that no subscription takes, nor a replay.
    subscriptions = []
    assert.deepEqual(await store.plants.create({ id: 9n, name: 'Oak' }), { kind: 'created', plant: { id: 9n, name: 'Oak' }, enqueued: true })
    assert.deepEqual(await store.plants.create({ id: 8n, name: 'Ivy' }), { kind: 'replayed', plant: { id: 8n, name: 'Ivy' } })
    assert.equal(handed.length, 2)

    // Handed over just as it was disabled elsewhere: not sent (its lease lapses, and claims wait for it to be enabled).
    const toTaken = { leaseUntil: handed[1]!.leaseUntil, rows: handed[1]!.rows.filter((row) => Number(row.subscription_id) === taken.id) }
    assert.equal((await store.webhooks.adopt(taken.id, toTaken)).length, 1)
    await store.webhooks.updateSubscription(taken.id, { state: 'disabled' })
    assert.deepEqual(await store.webhooks.adopt(taken.id, toTaken), [])
  })

  test('the dispatcher sends what creates hand it, signed, without claiming it', async (t) => {
    const store = await postgresStore(t)
    const receiver = await startReceiver()
    t.after(() => receiver.close())
    await store.webhooks.addSubscription({ url: receiver.url, secret: generateSecret(), operator: true })
    // The store the dispatcher works with counts what its claims find.
    let claimed = 0
    const webhooks = new Proxy(store.webhooks, {
      get (target, name: keyof WebhookStore) {
        if (name === 'claim') {
          return async (request: DeliveryClaim) => {
            const deliveries = await target.claim(request)
            claimed += deliveries.length
            return deliveries
          }
        }
        const member = target[name]
        return typeof member === 'function' ? member.bind(target) : member
      }
    })
    const dispatcher = new WebhookDispatcher(webhooks, quiet, settings)
    store.plants.handOff!(dispatcher)
    dispatcher.start()
    t.after(() => dispatcher.stop())
    await waitFor(() => dispatcher.subscriptions.length === 1, 5000, 'the lane to take deliveries from creates')

    const outcomes = await Promise.all(Array.from({ length: 12 }, (_, i) => store.plants.create({ id: BigInt(i + 1), name: `plant ${i + 1}` })))
    assert.ok(outcomes.every((outcome) => outcome.kind === 'created' && !outcome.enqueued), 'nothing waits in the outbox')
    await waitFor(() => receiver.received.length === 12, 5000, 'twelve deliveries')
    assert.deepEqual(receiver.received.map((request) => JSON.parse(request.body).id).sort((a, b) => a - b), Array.from({ length: 12 }, (_, i) => i + 1))
    assert.ok(receiver.received.every((request) => /^v1,/.test(String(request.headers['webhook-signature']))))
    await waitFor(async () => (await store.webhooks.listDeliveries({ limit: 20 })).every((delivery) => delivery.state === 'delivered'), 5000, 'every outcome recorded')
    assert.equal(claimed, 0, 'no claim found any of them')
  })

  test('one client\'s writes reach a subscriber in the order made, those handed over and those claimed alike', async (t) => {
    const receiver = await startReceiver()
    t.after(() => receiver.close())
    // One delivery in flight at a time: two in flight on two connections may arrive in either order.
    const { app, send } = await setup(t, 'postgres:fresh', { webhookConcurrency: '1' })
    const subscribed = await send('POST', '/webhooks', { url: receiver.url, events: ['plant.created', 'plant.deleted'] })
    assert.equal(subscribed.statusCode, 201)
    const { id: subscription } = subscribed.json() as { id: number }
    await waitFor(() => app.webhooks.subscriptions.includes(subscription), 5000, 'the dispatcher thread to take deliveries from creates')
    // A wake says something waits in the outbox: nothing is handed over until the thread has claimed it.
    app.webhooks.wake()
    assert.deepEqual(app.webhooks.subscriptions, [])
    await waitFor(() => app.webhooks.subscriptions.includes(subscription), 5000, 'the thread to take deliveries again')
    // A create may be handed over; a delete waits in the outbox for a claim. Neither overtakes the other.
    for (let id = 1; id <= 8; id++) {
      assert.equal((await send('POST', '/plants', { id, name: 'Fern' })).statusCode, 200)
      assert.equal((await send('DELETE', `/plants/${id}`)).statusCode, 204)
      assert.equal((await send('POST', '/plants', { id, name: 'Ivy' })).statusCode, 200)
    }
    await waitFor(() => receiver.received.length >= 24, 10_000, 'every event')
    const events = receiver.received.map((request) => JSON.parse(request.body) as { type: string, data: { id: number, name?: string } })
    assert.deepEqual(events.map((event) => `${event.type} ${event.data.id} ${event.data.name ?? ''}`.trim()),
      Array.from({ length: 8 }, (_, i) => [`plant.created ${i + 1} Fern`, `plant.deleted ${i + 1}`, `plant.created ${i + 1} Ivy`]).flat())
  })
})
