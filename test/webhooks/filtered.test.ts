import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { buildWithToken, DATABASES } from '../helper.js'
import { startReceiver, waitFor } from '../receiver.js'

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`filtered webhook subscriptions on ${db}`, () => {
    test('created, left, updated, deleted in order, as envelopes; a subscription without the filter gets every event', async (t) => {
      const filtered = await startReceiver()
      const all = await startReceiver()
      t.after(async () => { await filtered.close(); await all.close() })
      const { send } = await buildWithToken(t, { database, webhookAllowPrivate: 'true' })
      const events = ['plant.created', 'plant.updated', 'plant.deleted']
      const made = await send('POST', '/webhooks', { url: filtered.url, events, filter: 'tag = "tropical"' })
      assert.equal(made.statusCode, 201)
      assert.equal(made.json().filter, 'tag = "tropical"')
      assert.equal((await send('POST', '/webhooks', { url: all.url, events })).statusCode, 201)
      assert.equal((await send('POST', '/plants', { id: 1, name: 'Monstera', tag: 'tropical' })).statusCode, 200)
      assert.equal((await send('POST', '/plants', { id: 2, name: 'Cactus', tag: 'dry' })).statusCode, 200) // never matches
      assert.equal((await send('PUT', '/plants/1', { name: 'Monstera', tag: 'indoor' })).statusCode, 200) // leaves
      assert.equal((await send('PUT', '/plants/1', { name: 'Monstera' })).statusCode, 200) // still outside
      assert.equal((await send('PUT', '/plants/1', { name: 'Monstera', tag: 'tropical' })).statusCode, 200) // enters
      assert.equal((await send('DELETE', '/plants/2')).statusCode, 204) // never matched
      assert.equal((await send('DELETE', '/plants/1')).statusCode, 204)
      await waitFor(() => all.received.length === 7 && filtered.received.length === 4, 15_000, 'the deliveries')
      const sent = (receiver: typeof all) => receiver.received
        .map((request) => ({ id: String(request.headers['webhook-id']), ...JSON.parse(request.body) as { type: string, data: unknown } }))
        .sort((a, b) => a.id < b.id ? -1 : 1)
      assert.deepEqual(sent(filtered).map(({ type, data }) => [type, data]), [
        ['plant.created', { name: 'Monstera', id: 1, tag: 'tropical' }],
        ['plant.left', { id: 1 }],
        ['plant.updated', { name: 'Monstera', id: 1, tag: 'tropical' }],
        ['plant.deleted', { id: 1 }]
      ])
      const ids = sent(all).map(({ id }) => id)
      assert.deepEqual(sent(filtered).map(({ id }) => id), [ids[0], ids[2], ids[4], ids[6]], 'each with its event\'s webhook-id')
      assert.ok(!sent(all).some(({ type }) => type === 'plant.left'))
    })

    test('a bad filter is 400 naming the place; a filter needs events; PATCH sets and clears it', async (t) => {
      const { send } = await buildWithToken(t, { database, webhookAllowPrivate: 'true' })
      const bad = await send('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['plant.created'], filter: 'tag =' })
      assert.deepEqual(bad.json(), { error: 1001, message: 'body/filter: expected a value after "=" at character 6' })
      const bare = await send('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', filter: 'tag:*' })
      assert.equal(bare.statusCode, 400)
      assert.match(bare.json().message, /^body\/filter needs events/)
      const made = await send('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook', events: ['plant.created'] })
      const id = made.json().id as number
      assert.equal(made.json().filter, null)
      assert.equal((await send('PATCH' as 'PUT', `/webhooks/${id}`, { filter: 'name = "Mon*"' }, { 'content-type': 'application/json' })).json().filter, 'name = "Mon*"')
      assert.equal((await send('PATCH' as 'PUT', `/webhooks/${id}`, { events: null })).statusCode, 400, 'events cannot go while the filter stays')
      assert.equal((await send('PATCH' as 'PUT', `/webhooks/${id}`, { filter: null })).json().filter, null)
    })
  })
}
