import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { DATABASES } from '../helper.js'
import { startReceiver, waitFor } from '../receiver.js'
import type { Receiver } from '../receiver.js'
import { setup } from '../webhook-manager.js'

const RATE = 10
const BACKLOG = 300

/** The most deliveries that arrived within any `windowMs` (the receiver stamps each arrival). */
function busiest (arrivals: number[], windowMs: number): number {
  let most = 0
  for (let first = 0, last = 0; last < arrivals.length; last++) {
    while (arrivals[last]! - arrivals[first]! >= windowMs) first++
    most = Math.max(most, last - first + 1)
  }
  return most
}

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`webhook throttle on ${db}`, () => {
    test(`a subscription with maxPerSecond ${RATE} stays under it over 10 s while one beside it takes the whole backlog at once`, { timeout: 60_000 }, async (t) => {
      const stamps = new Map<Receiver, number[]>()
      const stamped = async () => {
        const times: number[] = []
        const receiver = await startReceiver(() => { times.push(performance.now()); return 200 })
        stamps.set(receiver, times)
        return receiver
      }
      const [slow, fast] = await Promise.all([stamped(), stamped()])
      t.after(() => Promise.all([slow.close(), fast.close()]))
      const { send } = await setup(t, database)
      assert.equal((await send('POST', '/webhooks', { url: slow.url, maxPerSecond: RATE })).statusCode, 201)
      assert.equal((await send('POST', '/webhooks', { url: fast.url })).statusCode, 201)

      for (let first = 0; first < BACKLOG; first += 50) {
        await Promise.all(Array.from({ length: 50 }, (_, i) => send('POST', '/plants', { id: first + i, name: 'Fern' })))
      }
      const started = performance.now()
      await waitFor(() => fast.received.length === BACKLOG, 20_000, 'the unthrottled subscription\'s backlog')
      const fastSeconds = (performance.now() - started) / 1000
      await new Promise((resolve) => setTimeout(resolve, 10_000 - (performance.now() - started)))

      const arrivals = stamps.get(slow)!
      const inTenSeconds = busiest(arrivals, 10_000)
      assert.ok(inTenSeconds <= 10 * RATE + 1, `${inTenSeconds} deliveries in 10 s at ${RATE}/s`)
      assert.ok(inTenSeconds >= 7 * RATE, `only ${inTenSeconds} deliveries in 10 s: the throttle holds it far below ${RATE}/s`)
      assert.ok(busiest(arrivals, 1000) <= RATE + 1, `${busiest(arrivals, 1000)} in one second`)
      assert.ok(fastSeconds < 5, `the unthrottled subscription took ${fastSeconds.toFixed(1)} s for ${BACKLOG}`)
    })
  })
}
