import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Retention } from '../../src/events/retention.js'
import { DATABASES } from '../helper.js'
import { freePort, startReceiver, waitFor } from '../receiver.js'
import { setup } from '../webhook-manager.js'

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`delivery record retention on ${db}`, () => {
    test('retention deletes delivered and given-up records past it, keeps pending ones, and gives up a disabled subscription\'s', async (t) => {
      const receiver = await startReceiver()
      t.after(() => receiver.close())
      const port = await freePort()
      const { app, send } = await setup(t, database, { webhookRetryBase: '1h' })
      const subscribe = async (url: string) => (await send('POST', '/webhooks', { url })).json() as { id: number }
      const healthy = await subscribe(receiver.url)
      const down = await subscribe(`http://127.0.0.1:${port}/hook`)
      const paused = await subscribe(`http://127.0.0.1:${port}/paused`)
      await send('PATCH', `/webhooks/${paused.id}`, { state: 'disabled' })
      for (let id = 1; id <= 3; id++) await send('POST', '/plants', { id, name: 'Fern' })
      const states = async (id: number) => (await app.store.webhooks.listDeliveries({ subscriptionId: id, limit: 100 })).map((d) => d.state)
      await waitFor(async () => (await states(healthy.id)).every((s) => s === 'delivered') && (await states(down.id)).every((s) => s === 'failed'),
        5000, 'delivered and failed records')
      // A removed subscription's pending events are given up.
      const removed = await subscribe(`http://127.0.0.1:${port}/removed`)
      await send('POST', '/plants', { id: 4, name: 'Ivy' })
      await send('DELETE', `/webhooks/${removed.id}`)
      await waitFor(async () => (await states(healthy.id)).length === 4 && (await states(healthy.id)).every((s) => s === 'delivered') &&
        (await states(down.id)).every((s) => s === 'failed'), 5000, 'the fourth event delivered and failed')

      // Everything is older than a retention of zero, once a millisecond has passed.
      await new Promise((resolve) => setTimeout(resolve, 5))
      const retention = new Retention(app.store, { retentionMs: 0, tokenRetentionMs: 3_600_000, everyMs: 3_600_000 })
      await retention.run()
      assert.deepEqual(await states(healthy.id), [], 'delivered records deleted')
      assert.deepEqual(await states(down.id), ['failed', 'failed', 'failed', 'failed'], 'failed records, to be retried, kept')
      assert.deepEqual(await states(paused.id), ['given_up', 'given_up', 'given_up', 'given_up'], 'a disabled subscription\'s given up, not deleted yet')
      assert.deepEqual(await states(removed.id), [], 'given up before the mark: deleted')

      await new Promise((resolve) => setTimeout(resolve, 5))
      await retention.run()
      assert.deepEqual(await states(paused.id), [], 'given up longer ago than the retention: deleted')
      assert.equal((await states(down.id)).length, 4, 'pending records are never deleted')
    })
  })
}
