import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { DATABASES } from '../helper.js'
import { startReceiver, waitFor } from '../receiver.js'
import type { Receiver } from '../receiver.js'
import { setup, verify } from '../webhook-manager.js'

const MAX_INT64 = '9223372036854775807'
const typesOf = (receiver: Receiver) => receiver.received.map((r) => JSON.parse(r.body).type as string)

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`webhook event filters on ${db}`, () => {
    test('a subscription with events gets exactly those types as verified envelopes; one without gets the newPlant bodies as before', async (t) => {
      const [chosen, original, updates] = await Promise.all([startReceiver(), startReceiver(), startReceiver()])
      t.after(() => Promise.all([chosen.close(), original.close(), updates.close()]))
      const { send } = await setup(t, database)
      const subscribe = async (url: string, events?: string[]) => {
        const created = await send('POST', '/webhooks', { url, ...(events !== undefined && { events }) })
        assert.equal(created.statusCode, 201, created.body)
        return created.json() as { id: number, secret: string, events: string[] | null }
      }
      const a = await subscribe(chosen.url, ['plant.created', 'plant.deleted'])
      const b = await subscribe(original.url)
      const c = await subscribe(updates.url, ['plant.updated'])
      assert.deepEqual([a.events, b.events, c.events], [['plant.created', 'plant.deleted'], null, ['plant.updated']])

      // A raw body, so the id keeps every digit on its way in.
      const big = await send('POST', '/plants', `{"id":${MAX_INT64},"name":"Fern","tag":"green"}`)
      assert.equal(big.statusCode, 200)
      assert.equal((await send('PUT', `/plants/${MAX_INT64}`, { name: 'Fern', tag: 'blue' })).statusCode, 200)
      assert.equal((await send('DELETE', `/plants/${MAX_INT64}`)).statusCode, 204)
      assert.equal((await send('POST', '/plants', { id: 2, name: 'Ivy' })).statusCode, 200)
      assert.equal((await send('POST', '/plants', { id: 2, name: 'Ivy' })).statusCode, 200, 'an identical replay sends nothing')

      // Each subscriber's deliveries, all sent: the outbox holds what each chose and nothing else.
      const delivered = async (id: number, count: number) => {
        const log = (await send('GET', `/webhooks/${id}/deliveries`)).json() as Array<{ state: string }>
        return log.length === count && log.every((delivery) => delivery.state === 'delivered')
      }
      await waitFor(async () => await delivered(a.id, 3) && await delivered(b.id, 2) && await delivered(c.id, 1), 10_000, 'the deliveries')
      assert.deepEqual([chosen.received.length, original.received.length, updates.received.length], [3, 2, 1])

      assert.deepEqual(typesOf(chosen), ['plant.created', 'plant.deleted', 'plant.created'])
      for (const request of chosen.received) verify(a.secret, request)
      const [created, deleted, second] = chosen.received.map((r) => r.body)
      assert.match(created!, /^\{"type":"plant\.created","timestamp":"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z","data":\{"name":"Fern","id":9223372036854775807,"tag":"green"\}\}$/)
      assert.match(deleted!, /"data":\{"id":9223372036854775807\}\}$/)
      assert.match(second!, /"data":\{"name":"Ivy","id":2\}\}$/)

      // The original document's newPlant body, byte for byte as before events existed (recorded).
      assert.deepEqual(original.received.map((r) => r.body), ['{"id":9223372036854775807,"name":"Fern","tag":"green"}', '{"id":2,"name":"Ivy"}'])
      for (const request of original.received) verify(b.secret, request)

      assert.deepEqual(typesOf(updates), ['plant.updated'])
      assert.match(updates.received[0]!.body, /"data":\{"name":"Fern","id":9223372036854775807,"tag":"blue"\}\}$/)
      verify(c.secret, updates.received[0]!)

      // One event, one webhook-id: the created plant's id is the same for both subscribers.
      assert.equal(chosen.received[0]!.headers['webhook-id'], original.received[0]!.headers['webhook-id'])

      // The delivery log names each event's type.
      const log = (await send('GET', `/webhooks/${a.id}/deliveries`)).json() as Array<{ type: string }>
      assert.deepEqual(log.map((d) => d.type), ['plant.created', 'plant.deleted', 'plant.created'])
    })

    test('PATCH changes events, description and throttle; back to null restores the newPlant body', async (t) => {
      const receiver = await startReceiver()
      t.after(() => receiver.close())
      const { send } = await setup(t, database)
      const { id } = (await send('POST', '/webhooks', { url: receiver.url, events: ['plant.deleted'] })).json() as { id: number }

      const changed = await send('PATCH', `/webhooks/${id}`, { events: ['plant.created'], description: 'shop', maxPerSecond: 50 })
      assert.equal(changed.statusCode, 200, changed.body)
      assert.deepEqual(
        (({ events, description, maxPerSecond, state }) => ({ events, description, maxPerSecond, state }))(changed.json()),
        { events: ['plant.created'], description: 'shop', maxPerSecond: 50, state: 'enabled' })
      await send('POST', '/plants', { id: 1, name: 'Fern' })
      await waitFor(() => receiver.received.length === 1, 5000, 'an envelope')
      assert.equal(JSON.parse(receiver.received[0]!.body).type, 'plant.created')

      assert.deepEqual((await send('PATCH', `/webhooks/${id}`, { events: null, maxPerSecond: null })).json().events, null)
      await send('POST', '/plants', { id: 2, name: 'Ivy' })
      await waitFor(() => receiver.received.length === 2, 5000, 'a newPlant body')
      assert.equal(receiver.received[1]!.body, '{"id":2,"name":"Ivy"}')
    })

    test('bad filters, throttles, changes and recoveries are 400 in the Error shape', async (t) => {
      const { send } = await setup(t, database)
      const url = 'http://127.0.0.1:9/hook'
      const expectations: Array<[string, string, unknown, RegExp]> = [
        ['POST', '/webhooks', { url, events: ['plant.eaten'] }, /^body\/events\/0 must be one of "plant.created", /],
        ['POST', '/webhooks', { url, events: [] }, /^body\/events must NOT have fewer than 1 items/],
        ['POST', '/webhooks', { url, events: ['plant.created', 'plant.created'] }, /^body\/events must NOT have duplicate items/],
        ['POST', '/webhooks', { url, maxPerSecond: 0 }, /^body\/maxPerSecond must be >= 1/]
      ]
      for (const [method, path, body, message] of expectations) {
        const res = await send(method, path, body)
        assert.equal(res.statusCode, 400, `${JSON.stringify(body)}: ${res.body}`)
        assert.equal(res.json().error, 1001)
        assert.match(res.json().message, message)
      }
      const { id } = (await send('POST', '/webhooks', { url })).json() as { id: number }
      for (const [body, message] of [
        [{}, /must NOT have fewer than 1 properties/],
        [{ state: 'paused' }, /^body\/state must be one of "enabled", "disabled"$/],
        [{ url: 'http://example.com/' }, /must NOT have additional properties/]
      ] as const) {
        const res = await send('PATCH', `/webhooks/${id}`, body)
        assert.equal(res.statusCode, 400, res.body)
        assert.match(res.json().message, message)
      }
      for (const since of ['yesterday', '2026-13-01T00:00:00Z', '2026-11-24']) {
        const res = await send('POST', `/webhooks/${id}/recover`, { since })
        assert.equal(res.statusCode, 400, res.body)
        assert.match(res.json().message, /^body\/since must match format "date-time"/)
      }
      assert.equal((await send('PATCH', '/webhooks/999999', { state: 'enabled' })).statusCode, 404)
      assert.equal((await send('POST', '/webhooks/999999/recover', { since: '2026-01-01T00:00:00Z' })).statusCode, 404)
    })
  })
}
