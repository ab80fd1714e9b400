import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { DATABASES } from '../helper.js'
import { startReceiver, waitFor } from '../receiver.js'
import { setup } from '../webhook-manager.js'

interface Delivery { id: string, plantId: number, state: string, attempts: number }

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`webhook recovery on ${db}`, () => {
    // Retries an hour apart: nothing is retried during the test. Given up after two hours, a failed
    // event waits for its retry ("failed"); after half an hour, it is given up at its first failure.
    for (const [state, giveUpAfter] of [['failed', '2h'], ['given_up', '30m']] as const) {
      test(`recover after an outage re-sends exactly the ${state} events since then, once each, in sequence order`, async (t) => {
        let up = true
        const receiver = await startReceiver(() => (up ? 200 : 503))
        t.after(() => receiver.close())
        // One delivery in flight at a time, so that arrivals keep the order they are sent in.
        const { send } = await setup(t, database, { webhookRetryBase: '1h', webhookGiveUpAfter: giveUpAfter, webhookConcurrency: '1' })
        const { id } = (await send('POST', '/webhooks', { url: receiver.url, events: ['plant.created', 'plant.deleted'] })).json() as { id: number }
        const log = async () => (await send('GET', `/webhooks/${id}/deliveries`)).json() as Delivery[]

        await send('POST', '/plants', { id: 1, name: 'before the outage' })
        await waitFor(async () => (await log())[0]?.state === 'delivered', 5000, 'the first delivery')
        await new Promise((resolve) => setTimeout(resolve, 5))
        const since = new Date().toISOString()
        up = false
        for (let plant = 2; plant <= 5; plant++) await send('POST', '/plants', { id: plant, name: 'during the outage' })
        await send('DELETE', '/plants/2')
        await waitFor(async () => (await log()).filter((d) => d.state === state).length === 5, 10_000, `five events ${state}`)
        const lost = (await log()).filter((d) => d.state === state).map((d) => d.id).reverse()
        assert.equal(receiver.received.length, 6, 'one delivery, five failed attempts')

        up = true
        const recovered = await send('POST', `/webhooks/${id}/recover`, { since })
        assert.equal(recovered.statusCode, 202)
        assert.deepEqual(recovered.json(), { recovered: 5 })
        await waitFor(async () => (await log()).every((d) => d.state === 'delivered'), 5000, 'the recovered events delivered')
        assert.equal(receiver.received.length, 11, 'each lost event sent once more')
        assert.deepEqual((await log()).map((d) => d.attempts), [2, 2, 2, 2, 2, 1], 'the failed attempt and one more each: none sent twice')
        const resent = receiver.received.slice(6)
        assert.deepEqual(resent.map((r) => r.headers['webhook-id']), lost, 'each lost event once, same webhook-id, in sequence order')
        assert.deepEqual(resent.map((r) => JSON.parse(r.body).type), ['plant.created', 'plant.created', 'plant.created', 'plant.created', 'plant.deleted'])
        assert.deepEqual((await send('POST', `/webhooks/${id}/recover`, { since })).json(), { recovered: 0 }, 'nothing left to recover')
      })
    }
  })
}
