import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, describe, test } from 'node:test'
import { DATABASES } from '../helper.js'
import { freePort, startReceiver, waitFor } from '../receiver.js'
import { setup, verify } from '../webhook-manager.js'

const folder = mkdtempSync(join(tmpdir(), 'plantstore-health-'))
after(() => rmSync(folder, { recursive: true, force: true }))

// On a file the dispatcher runs in its own thread, whose log lines and metrics cross to the app's.
const STORES: Record<string, () => string> = {
  ...Object.fromEntries(Object.entries(DATABASES).map(([name, url]) => [name, () => url])),
  'sqlite file': () => `sqlite:${join(folder, `store-${Date.now()}.db`)}`
}

interface Health { state: string, consecutiveFailures: number, lastSuccessAt: string | null, lastError: string | null, backlog: number }

for (const [db, database] of Object.entries(STORES)) {
  describe(`webhook health on ${db}`, () => {
    test('a subscription failing past --webhook-disable-after is disabled, its owner told; enabling it delivers the backlog at once', { timeout: 60_000 }, async (t) => {
      const port = await freePort()
      const watcher = await startReceiver()
      t.after(() => watcher.close())
      // Retries an hour apart: whatever arrives after enabling was not a retry coming due.
      const { app, send, log } = await setup(t, database(), { webhookRetryBase: '1h', webhookDisableAfter: '2s' })
      const subscribe = async (url: string, events?: string[]) =>
        (await send('POST', '/webhooks', { url, ...(events !== undefined && { events }) })).json() as { id: number, secret: string }
      const dead = await subscribe(`http://127.0.0.1:${port}/hook`)
      const notified = await subscribe(watcher.url, ['webhook.disabled'])
      const health = async (id: number) => (await send('GET', `/webhooks/${id}`)).json() as Health
      const attempts = async (id: number) => ((await send('GET', `/webhooks/${id}/deliveries`)).json() as Array<{ attempts: number }>).map((d) => d.attempts)

      const started = Date.now()
      assert.equal((await send('POST', '/plants', { id: 1, name: 'Fern' })).statusCode, 200)
      await waitFor(async () => (await health(dead.id)).consecutiveFailures === 1, 5000, 'the first failure')
      const failing = await health(dead.id)
      assert.equal(failing.state, 'enabled')
      assert.match(String(failing.lastError), /ECONNREFUSED/)
      assert.equal(failing.backlog, 1)

      await waitFor(async () => (await health(dead.id)).state === 'disabled', 10_000, 'the subscription disabled')
      assert.ok(Date.now() - started >= 2000, 'not before the setting says')
      // The thread's log line crosses to the app's after the row changed.
      await waitFor(() => /"subscriptionId":\d+.*webhook subscription disabled/.test(log()), 2000, 'the log line')
      // A dispatcher thread sends its metrics a few times a second.
      await waitFor(async () => /^plantstore_webhook_subscriptions_disabled_total 1$/m.test((await app.inject('/metrics')).body), 2000, 'the metric')

      // The other subscription that asked for it hears of it, in a verified envelope.
      await waitFor(() => watcher.received.length === 1, 5000, 'webhook.disabled')
      verify(notified.secret, watcher.received[0]!)
      const notice = JSON.parse(watcher.received[0]!.body)
      assert.equal(notice.type, 'webhook.disabled')
      assert.deepEqual([notice.data.id, notice.data.state, notice.data.consecutiveFailures], [dead.id, 'disabled', 1])
      assert.equal((await send('GET', `/webhooks/${notified.id}/deliveries`)).json()[0].type, 'webhook.disabled')

      // Disabled: events are kept, nothing is sent, while a subscription beside it gets them.
      const receiver = await startReceiver(() => 200, port)
      t.after(() => receiver.close())
      const control = await startReceiver()
      t.after(() => control.close())
      await subscribe(control.url)
      for (let id = 2; id <= 4; id++) await send('POST', '/plants', { id, name: 'Ivy' })
      await waitFor(() => control.received.length === 3, 5000, 'the plants at the subscription beside it')
      await waitFor(async () => (await health(dead.id)).backlog === 4, 5000, 'the backlog kept')
      assert.deepEqual(await attempts(dead.id), [0, 0, 0, 1], 'no attempt while disabled')
      assert.equal(receiver.received.length, 0, 'no attempt while disabled')

      // Enabled: the four go at once, in order, though their retries are an hour away.
      const enabled = await send('PATCH', `/webhooks/${dead.id}`, { state: 'enabled' })
      assert.equal(enabled.statusCode, 200)
      assert.deepEqual([enabled.json().state, enabled.json().consecutiveFailures], ['enabled', 0])
      await waitFor(() => receiver.received.length === 4, 5000, 'the backlog delivered')
      assert.deepEqual(receiver.received.map((r) => JSON.parse(r.body).id), [1, 2, 3, 4])
      await waitFor(async () => (await health(dead.id)).backlog === 0, 5000, 'the outcomes recorded')
      const healthy = await health(dead.id)
      assert.deepEqual([healthy.state, healthy.consecutiveFailures, healthy.lastError], ['enabled', 0, null])
      assert.ok(Date.parse(healthy.lastSuccessAt!) >= Date.parse(enabled.json().createdAt))
    })

    test('an owner disables a subscription by hand: nothing is sent until it is enabled', async (t) => {
      const receiver = await startReceiver()
      t.after(() => receiver.close())
      const { send } = await setup(t, database())
      const control = await startReceiver()
      t.after(() => control.close())
      const { id } = (await send('POST', '/webhooks', { url: receiver.url })).json() as { id: number }
      await send('POST', '/webhooks', { url: control.url })
      assert.equal((await send('PATCH', `/webhooks/${id}`, { state: 'disabled' })).json().state, 'disabled')
      await send('POST', '/plants', { id: 1, name: 'Fern' })
      // Sent to the subscription beside it, and still untried here.
      await waitFor(() => control.received.length === 1, 5000, 'the plant at the subscription beside it')
      assert.deepEqual((await send('GET', `/webhooks/${id}/deliveries`)).json().map((d: { state: string, attempts: number }) => [d.state, d.attempts]), [['pending', 0]])
      assert.equal(receiver.received.length, 0)
      await send('PATCH', `/webhooks/${id}`, { state: 'enabled' })
      await waitFor(() => receiver.received.length === 1, 5000, 'the kept event')
    })
  })
}
