import assert from 'node:assert/strict'
import type { AddressInfo } from 'node:net'
import { test } from 'node:test'
import { buildWithToken } from '../helper.js'

test('while the server closes, requests get 503 code 5001 and Connection: close, and GET /events tells an EventSource to come back', async (t) => {
  const { app, token } = await buildWithToken(t)
  // Holds the close after the feed and the dispatcher have stopped, as a slow stop would: the server still listens.
  let release!: () => void
  const held = new Promise<void>((resolve) => { release = resolve })
  app.addHook('preClose', async () => { await held })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`
  const authorization = `Bearer ${token}`

  const open = await fetch(`${url}/events`, { headers: { authorization } })
  assert.equal(open.status, 200)
  const closed = app.close()
  assert.match(await open.text(), /^retry: \d+\n\n/, 'the open stream ends')

  const plants = await fetch(`${url}/plants`, { headers: { authorization } })
  assert.equal(plants.status, 503)
  assert.equal(plants.headers.get('connection'), 'close')
  assert.equal(plants.headers.get('retry-after'), '1')
  assert.deepEqual(await plants.json(), { error: 5001, message: 'this server is shutting down; retry later' })

  // An EventSource ends for good on any status but 200; a stream that only sets the delay brings it back.
  const again = await fetch(`${url}/events`, { headers: { authorization, 'last-event-id': '0' } })
  assert.equal(again.status, 200)
  assert.equal(again.headers.get('content-type'), 'text/event-stream; charset=utf-8')
  assert.equal(again.headers.get('connection'), 'close')
  assert.equal(await again.text(), 'retry: 2000\n\n')

  release()
  await closed
})
