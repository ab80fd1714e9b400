import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { test } from 'node:test'
import { build, buildWithToken, createToken } from '../helper.js'
import type { App } from '../helper.js'

const post = (authorization: string | undefined, remoteAddress = '203.0.113.7') => ({
  method: 'POST' as const,
  url: '/plants',
  remoteAddress,
  headers: { 'content-type': 'application/json', ...(authorization !== undefined && { authorization }) },
  payload: '{"id": 1, "name": "Fern"}'
})

test('past the failed-authentication limit an address gets 429 code 4000; valid tokens are never held back', async (t) => {
  const app = await build(t, { authFailureLimit: '5' })
  const token = await createToken(app)
  for (let i = 0; i < 5; i++) assert.equal((await app.inject(post('Bearer ps_' + 'x'.repeat(43)))).statusCode, 401)
  for (const header of ['Bearer ps_' + 'y'.repeat(43), undefined, 'Bearer']) {
    const limited = await app.inject(post(header))
    assert.equal(limited.statusCode, 429, String(header))
    assert.equal(limited.json().error, 4000)
    assert.match(String(limited.headers['retry-after']), /^\d+$/)
    assert.ok(Number(limited.headers['retry-after']) <= 60)
  }
  assert.equal((await app.inject(post(`Bearer ${token}`))).statusCode, 200, 'a valid token from the same address')
  assert.equal((await app.inject(post(undefined, '198.51.100.1'))).statusCode, 401, 'another address is not limited')
})

test('the per-token rate limit is off by default, and when set answers 429 code 4000 with Retry-After', async (t) => {
  const open = await buildWithToken(t)
  for (let i = 0; i < 50; i++) assert.equal((await open.send('GET', '/plants')).statusCode, 200)
  const { app, send } = await buildWithToken(t, { rateLimit: '3' })
  for (let i = 0; i < 3; i++) assert.equal((await send('GET', '/plants')).statusCode, 200)
  const limited = await send('GET', '/plants')
  assert.equal(limited.statusCode, 429)
  assert.equal(limited.json().error, 4000)
  assert.ok(Number(limited.headers['retry-after']) >= 1)
  const other = await createToken(app)
  assert.equal((await send('GET', '/plants', undefined, { authorization: `Bearer ${other}` })).statusCode, 200, 'per token')
})

test('a batch counts as its operations against the per-token rate limit', async (t) => {
  const { send } = await buildWithToken(t, { rateLimit: '5' })
  const batch = (first: number) => ({ operations: [0, 1, 2].map((i) => ({ method: 'POST', path: '/plants', body: { id: first + i, name: 'Fern' } })) })
  assert.equal((await send('POST', '/batch', batch(1))).statusCode, 200)
  const limited = await send('POST', '/batch', batch(4))
  assert.deepEqual([limited.statusCode, limited.json().error], [429, 4000])
  assert.ok(Number(limited.headers['retry-after']) >= 1)
  assert.equal((await send('GET', '/plants/4')).statusCode, 429, 'the window is spent')
})

test('security headers: no-store on authenticated answers, nosniff everywhere, no x-powered-by', async (t) => {
  const { app, send } = await buildWithToken(t)
  for (const res of [await send('GET', '/plants'), await send('POST', '/plants', { id: 1 }), await app.inject({ method: 'GET', url: '/plants' })]) {
    assert.equal(res.headers['cache-control'], 'no-store')
    assert.equal(res.headers['x-content-type-options'], 'nosniff')
    assert.equal(res.headers['x-powered-by'], undefined)
  }
})

/** Sends raw bytes to a listening app and collects what comes back until the server closes. */
async function raw (app: App, write: (socket: import('node:net').Socket) => void, ms = 5000) {
  const address = app.server.address() as { port: number }
  return new Promise<{ text: string, closedAfterMs: number }>((resolve) => {
    const started = Date.now()
    const socket = connect(address.port, '127.0.0.1')
    let text = ''
    socket.on('data', (chunk) => { text += chunk })
    socket.on('close', () => resolve({ text, closedAfterMs: Date.now() - started }))
    socket.on('error', () => {})
    socket.setTimeout(ms, () => socket.destroy())
    write(socket)
  })
}

test('request headers over 16 KiB are 431 with the Error body', async (t) => {
  const app = await build(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { text } = await raw(app, (s) => s.write(`GET /plants HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`))
  assert.match(text, /^HTTP\/1\.1 431 /)
  assert.match(text, /\{"error":1003,"message":"request headers are larger than the limit of 16384 bytes"\}$/)
})

test('a slow-loris client trickling headers is cut off after --headers-timeout', async (t) => {
  const app = await build(t, { headersTimeout: '1s' })
  await app.listen({ host: '127.0.0.1', port: 0 })
  let timer: NodeJS.Timeout | undefined
  const { text, closedAfterMs } = await raw(app, (s) => {
    s.write('GET /plants HTTP/1.1\r\nHost: x\r\n')
    timer = setInterval(() => s.writable && s.write('X-Slow: a\r\n'), 200)
  }, 10_000)
  clearInterval(timer)
  assert.ok(closedAfterMs < 4000, `closed after ${closedAfterMs} ms`)
  assert.match(text, /^HTTP\/1\.1 408 /)
  assert.match(text, /"error":1001/)
})

test('a body that does not arrive within --request-timeout is cut off', async (t) => {
  const app = await build(t, { requestTimeout: '1s', headersTimeout: '1s' })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const token = await createToken(app)
  const { closedAfterMs } = await raw(app, (s) => {
    s.write(`POST /plants HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"id":`)
  }, 10_000)
  assert.ok(closedAfterMs < 4000, `closed after ${closedAfterMs} ms`)
})

test('an idle keep-alive connection is closed after --keep-alive-timeout', async (t) => {
  const app = await build(t, { keepAliveTimeout: '500ms' })
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { text, closedAfterMs } = await raw(app, (s) => s.write('GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\n\r\n'), 10_000)
  assert.match(text, /^HTTP\/1\.1 200 /)
  assert.ok(closedAfterMs >= 400 && closedAfterMs < 3000, `closed after ${closedAfterMs} ms`)
})

test('malformed HTTP is 400 with the Error body, not the framework\'s', async (t) => {
  const app = await build(t)
  await app.listen({ host: '127.0.0.1', port: 0 })
  const { text } = await raw(app, (s) => s.write('BREW /plants HTCPCP/1.0\r\n\r\n'))
  assert.match(text, /^HTTP\/1\.1 400 /)
  assert.match(text, /\{"error":1000,"message":"the request is not valid HTTP"\}$/)
})

/** Blocks this thread for `ms` without spinning the CPU: the event loop lags as if under heavy work. */
const block = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
const turn = () => new Promise((resolve) => setImmediate(resolve))

test('while the event loop lags past --max-event-loop-delay, requests are shed with 503 code 5001', async (t) => {
  const app = await build(t, { maxEventLoopDelay: '20ms' })
  await app.ready()
  // Sustained heavy work: the loop turns only every 80 ms, until a sample (once a second) sees it.
  const deadline = Date.now() + 10_000
  let shed = await app.inject('/plants')
  while (shed.statusCode !== 503 && Date.now() < deadline) {
    block(80)
    await turn()
    shed = await app.inject('/plants')
  }
  assert.equal(shed.statusCode, 503)
  assert.equal(shed.json().error, 5001)
  assert.equal(shed.headers['retry-after'], '1')
})

test('one block that outlasted the sampling interval, as a slow start-up, is over and sheds nothing', async (t) => {
  const app = await build(t, { maxEventLoopDelay: '20ms' })
  await app.ready()
  block(1200)
  await turn()
  assert.equal((await app.inject('/plants')).statusCode, 401, 'answered, not shed')
})
