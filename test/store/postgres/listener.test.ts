import assert from 'node:assert/strict'
import { once } from 'node:events'
import { createServer, connect } from 'node:net'
import type { AddressInfo, Socket } from 'node:net'
import { describe, test } from 'node:test'
import { Listener } from '../../../src/store/postgres/listener.js'
import { freshDatabase } from '../../databases.js'
import { waitFor } from '../../receiver.js'

const skip = process.env.PLANTSTORE_TEST_POSTGRES_URL === undefined ? 'PLANTSTORE_TEST_POSTGRES_URL is not set' : false

// PostgreSQL's Terminate message: what a client sends to end its session cleanly.
const TERMINATE = Buffer.from([0x58, 0, 0, 0, 4])

/**
 * A loopback proxy in front of the database that records, for each client connection once it closed,
 * whether the last thing the client sent was Terminate (the server sees an abrupt close otherwise).
 */
async function goodbyeProxy (databaseUrl: string) {
  const target = new URL(databaseUrl)
  const closed: boolean[] = []
  const server = createServer((client: Socket) => {
    const upstream = connect(Number(target.port || 5432), target.hostname)
    let last = Buffer.alloc(0)
    client.on('data', (chunk: Buffer) => { last = Buffer.concat([last, chunk]).subarray(-TERMINATE.length) })
    client.pipe(upstream).pipe(client)
    client.on('error', () => {})
    upstream.on('error', () => client.destroy())
    client.on('close', () => {
      closed.push(last.equals(TERMINATE))
      upstream.destroy()
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  const proxied = new URL(databaseUrl)
  proxied.hostname = '127.0.0.1'
  proxied.port = String((server.address() as AddressInfo).port)
  return { url: proxied.toString(), closed, close: () => new Promise((resolve) => server.close(resolve)) }
}

describe('the PostgreSQL listener', { skip }, () => {
  test('closed at once (a short CLI command), it still ends its session cleanly: the server sees no reset', async (t) => {
    const proxy = await goodbyeProxy(await freshDatabase('postgres:fresh'))
    t.after(proxy.close)
    for (let run = 0; run < 5; run++) {
      const listener = new Listener(proxy.url, 'plantstore_test', () => {})
      await listener.close()
    }
    await waitFor(() => proxy.closed.length === 5, 5000, 'the five connections to close')
    assert.deepEqual(proxy.closed, [true, true, true, true, true])
  })

  test('closed once it listens, it ends its session cleanly too, and it was told it may have missed signals', async (t) => {
    const proxy = await goodbyeProxy(await freshDatabase('postgres:fresh'))
    t.after(proxy.close)
    let signals = 0
    const listener = new Listener(proxy.url, 'plantstore_test', () => { signals++ })
    await waitFor(() => signals === 1, 5000, 'the listener to listen')
    await listener.close()
    await waitFor(() => proxy.closed.length === 1, 5000, 'the connection to close')
    assert.deepEqual(proxy.closed, [true])
  })
})
