import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { parseDatabaseUrl } from '../../src/config/config.js'
import { openStore } from '../../src/store/open-store.js'
import { WebhookDispatcher } from '../../src/webhooks/dispatcher.js'
import type { Log } from '../../src/webhooks/log.js'
import { generateSecret } from '../../src/webhooks/signature.js'
import { DATABASES, freshDatabase } from '../databases.js'
import { startReceiver, waitFor } from '../receiver.js'

const quiet: Log = { debug () {}, info () {}, warn () {}, error () {} }

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`a stopping dispatcher on ${db}`, () => {
    test('gives back what it claimed but did not send: another dispatcher claims it at once, not when the lease lapses', async (t) => {
      const store = await openStore(parseDatabaseUrl(await freshDatabase(database)))
      t.after(() => store.close())
      // Answers after 300 ms, so that one delivery is in flight and the next ones wait, claimed, behind it.
      const receiver = await startReceiver(() => ({ status: 200, afterMs: 300 }))
      t.after(() => receiver.close())
      const { id } = (await store.webhooks.addSubscription({ url: receiver.url, secret: generateSecret(), operator: true }))!
      for (let plant = 1; plant <= 6; plant++) await store.plants.create({ id: BigInt(plant), name: `plant ${plant}` })

      const dispatcher = new WebhookDispatcher(store.webhooks, quiet, {
        timeoutMs: 5000, perSubscription: 1, retryBaseMs: 50, giveUpAfterMs: 60_000, disableAfterMs: 3_600_000, pollMs: 60_000, allowPrivate: true, maxConnections: 8
      })
      dispatcher.start()
      await waitFor(() => receiver.received.length === 1, 5000, 'the first delivery in flight')
      await dispatcher.stop()

      // Its lease is 20 s: without the release, a claim now would find only what the lane had not claimed yet.
      const claimed = await store.webhooks.claim({ subscriptionId: id, now: Date.now(), leaseMs: 1000, max: 10 })
      const undelivered = (await store.webhooks.listDeliveries({ limit: 10 })).filter((delivery) => delivery.state !== 'delivered')
      assert.equal(undelivered.length, 5, 'the one in flight was sent and recorded before the stop ended')
      assert.deepEqual(claimed.map((delivery) => delivery.id).sort(), undelivered.map((delivery) => delivery.id).sort())
    })

    test('gives back only leases still its own: one that lapsed and another dispatcher took stays taken', async (t) => {
      const store = await openStore(parseDatabaseUrl(await freshDatabase(database)))
      t.after(() => store.close())
      const { id } = (await store.webhooks.addSubscription({ url: 'http://127.0.0.1:9/hook', secret: generateSecret(), operator: true }))!
      await store.plants.create({ id: 1n, name: 'Fern' })
      const now = Date.now()
      const [first] = await store.webhooks.claim({ subscriptionId: id, now, leaseMs: 1000, max: 1 })
      const [second] = await store.webhooks.claim({ subscriptionId: id, now: now + 2000, leaseMs: 60_000, max: 1 })
      assert.equal(second?.id, first?.id, 'the first lease lapsed: another dispatcher claimed it')
      await store.webhooks.release([first!])
      assert.deepEqual(await store.webhooks.claim({ subscriptionId: id, now: now + 3000, leaseMs: 1000, max: 1 }), [])
      await store.webhooks.release([second!])
      assert.equal((await store.webhooks.claim({ subscriptionId: id, now: now + 3000, leaseMs: 1000, max: 1 }))[0]?.id, first?.id)
    })
  })
}
