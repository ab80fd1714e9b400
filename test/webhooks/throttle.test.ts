import assert from 'node:assert/strict'
import { once } from 'node:events'
import { describe, test } from 'node:test'
import { Worker } from 'node:worker_threads'
import { DATABASES } from '../helper.js'
import { startReceiver, waitFor } from '../receiver.js'
import { setup } from '../webhook-manager.js'

const RATE = 10
const BACKLOG = 300

// The throttled receiver runs on a thread of its own: on the test's thread, which also serves the app and
// takes the unthrottled burst, a busy moment would hold arrivals back and let them bunch up.
const STAMPING_RECEIVER = `
const { createServer } = require('node:http')
const { parentPort } = require('node:worker_threads')
const server = createServer((req, res) => {
  parentPort.postMessage(performance.timeOrigin + performance.now())
  req.resume()
  req.on('end', () => res.writeHead(200).end())
})
server.listen(0, '127.0.0.1', () => parentPort.postMessage({ port: server.address().port }))
parentPort.on('message', () => { server.closeAllConnections(); server.close(() => parentPort.close()) })
`

/** A receiver on its own thread; `arrivals` holds each request's arrival, in ms since the epoch. */
async function startStampingReceiver () {
  const worker = new Worker(STAMPING_RECEIVER, { eval: true })
  const arrivals: number[] = []
  const [{ port }] = await once(worker, 'message') as [{ port: number }]
  worker.on('message', (time: number) => arrivals.push(time))
  return {
    url: `http://127.0.0.1:${port}/hook`,
    arrivals,
    close: async () => { worker.postMessage('close'); await once(worker, 'exit') }
  }
}

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
      const [slow, fast] = await Promise.all([startStampingReceiver(), startReceiver()])
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
      const arrivals = slow.arrivals
      await waitFor(() => arrivals.length > 0 && arrivals.at(-1)! - arrivals[0]! >= 10_000, 30_000, 'ten seconds of throttled deliveries')
      const inTenSeconds = busiest(arrivals, 10_000)
      assert.ok(inTenSeconds <= 10 * RATE + 1, `${inTenSeconds} deliveries in 10 s at ${RATE}/s`)
      assert.ok(inTenSeconds >= 7 * RATE, `only ${inTenSeconds} deliveries in 10 s: the throttle holds it far below ${RATE}/s`)
      assert.ok(busiest(arrivals, 1000) <= RATE + 1, `${busiest(arrivals, 1000)} in one second`)
      assert.ok(fastSeconds < 5, `the unthrottled subscription took ${fastSeconds.toFixed(1)} s for ${BACKLOG}`)
    })
  })
}
