import assert from 'node:assert/strict'
import { PassThrough } from 'node:stream'
import { test } from 'node:test'
import { build, createToken } from '../helper.js'
import { waitFor } from '../receiver.js'

test('/ leads to the reference and /console/ to the console', async (t) => {
  const app = await build(t)
  const root = await app.inject('/')
  assert.deepEqual([root.statusCode, root.headers.location], [302, '/docs'])
  const console = await app.inject('/console/')
  assert.deepEqual([console.statusCode, console.headers.location], [301, '/console'])
})

test('an unknown ?types= is named in the message, with the types the stream carries', async (t) => {
  const app = await build(t)
  const token = await createToken(app, { scopes: ['plants:read'] })
  const res = await app.inject({ url: '/events?types=plant.created,plant.exploded', headers: { authorization: `Bearer ${token}` } })
  assert.deepEqual([res.statusCode, res.json()], [400, {
    error: 1001,
    message: 'query/types names "plant.exploded", not an event type it carries; the stream\'s types are plant.created, plant.updated, plant.deleted (and plant.left, with a filter)'
  }])
})

test('a reader closing its stream is not logged at info (it is how streams end)', async (t) => {
  const lines: string[] = []
  const logStream = new PassThrough()
  logStream.on('data', (chunk) => lines.push(...String(chunk).split('\n').filter(Boolean)))
  const app = await build(t, { logLevel: 'info' }, { logStream })
  const base = await app.listen({ host: '127.0.0.1', port: 0 })
  const token = await createToken(app, { scopes: ['plants:read'] })
  for (let i = 0; i < 3; i++) {
    const controller = new AbortController()
    const res = await fetch(`${base}/events`, { headers: { authorization: `Bearer ${token}` }, signal: controller.signal })
    assert.equal(res.status, 200)
    controller.abort()
    await res.body?.cancel().catch(() => {})
  }
  await waitFor(() => app.events.open === 0, 5000, 'the streams to close')
  // A request after them: its access line comes after anything their closing logged.
  await app.inject('/healthz')
  await waitFor(() => lines.some((line) => line.includes('"url":"/healthz"')), 5000, 'the access log\'s line')
  assert.deepEqual(lines.filter((line) => line.includes('stream closed prematurely')), [])
})
