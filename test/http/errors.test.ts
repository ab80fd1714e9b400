import assert from 'node:assert/strict'
import { test } from 'node:test'
import { build, buildWithToken, createToken } from '../helper.js'

/** Every error is the contract's Error body, as JSON, with the request id header. */
function assertError (res: { statusCode: number, headers: Record<string, unknown>, json: () => any, body: string }, status: number, code: number) {
  assert.equal(res.statusCode, status, res.body)
  assert.match(String(res.headers['content-type']), /^application\/json/)
  assert.ok(res.headers['x-request-id'], 'x-request-id is set')
  const body = res.json()
  assert.deepEqual(Object.keys(body).sort(), ['error', 'message'])
  assert.equal(body.error, code)
  assert.equal(typeof body.message, 'string')
  assert.doesNotMatch(body.message, /\n\s+at /, 'no stack trace')
  return body.message as string
}

test('malformed JSON is 400 code 1000', async (t) => {
  const { send } = await buildWithToken(t)
  for (const text of ['{bad', '{"id": 1,}', '{"id": 1', 'nul', '{"id": 12345678901234567890123 "name": "x"}']) {
    assertError(await send('POST', '/plants', text), 400, 1000)
  }
})

test('an empty body is 400 code 1001 "body is required", with or without a content type', async (t) => {
  const { app, token, send } = await buildWithToken(t)
  assert.equal(assertError(await send('POST', '/plants', ''), 400, 1001), 'body is required')
  const bare = await app.inject({ method: 'POST', url: '/plants', headers: { authorization: `Bearer ${token}` } })
  assert.equal(assertError(bare, 400, 1001), 'body is required')
})

test('a body of another content type is 415 code 1002', async (t) => {
  const { send } = await buildWithToken(t)
  for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'application/xml', 'multipart/form-data; boundary=x']) {
    assertError(await send('POST', '/plants', '{"id": 1, "name": "x"}', { 'content-type': type }), 415, 1002)
  }
})

test('a body over the limit is 413 code 1003; the limit is configurable', async (t) => {
  const { send } = await buildWithToken(t)
  const big = JSON.stringify({ id: 1, name: 'x', padding: 'p'.repeat(70 * 1024) })
  assertError(await send('POST', '/plants', big), 413, 1003)
  const small = await buildWithToken(t, { bodyLimit: '2048' })
  assertError(await small.send('POST', '/plants', JSON.stringify({ id: 1, name: 'x', padding: 'p'.repeat(3000) })), 413, 1003)
})

test('an unknown path is 404 code 3000; a known path with another method is 405 code 3003 with Allow', async (t) => {
  const { send } = await buildWithToken(t)
  assertError(await send('GET', '/nowhere'), 404, 3000)
  assertError(await send('GET', '/%E0%A4%A'), 404, 3000)
  const put = await send('PUT', '/plants')
  assertError(put, 405, 3003)
  assert.equal(put.headers.allow, 'GET, HEAD, POST, OPTIONS')
  const get = await send('GET', '/batch')
  assertError(get, 405, 3003)
  assert.equal(get.headers.allow, 'POST, OPTIONS')
  assert.match(get.json().message, /GET is not allowed on \/batch/)
})

test('an unexpected failure is 500 code 5000 with a generic message and the request id', async (t) => {
  const app = await build(t)
  const token = await createToken(app)
  // A real failure, not a mock: the store's database is closed under the running app.
  await app.store.close()
  const res = await app.inject({
    method: 'POST',
    url: '/plants',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', 'x-request-id': 'trace-me-1' },
    payload: '{"id": 1, "name": "x"}'
  })
  const message = assertError(res, 500, 5000)
  assert.equal(res.headers['x-request-id'], 'trace-me-1')
  assert.equal(message, 'internal error (request id trace-me-1)')
  assert.doesNotMatch(message, /database|sqlite|TypeError/i, 'no driver text')
})

test('x-request-id: a plain caller id is kept, anything else is replaced by a fresh one', async (t) => {
  const app = await build(t)
  const kept = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'abc-123' } })
  assert.equal(kept.headers['x-request-id'], 'abc-123')
  const replaced = await app.inject({ url: '/healthz', headers: { 'x-request-id': 'bad id\nforged log line' } })
  assert.match(String(replaced.headers['x-request-id']), /^[0-9a-f-]{36}$/)
})
