import assert from 'node:assert/strict'
import { Writable } from 'node:stream'
import { test } from 'node:test'
import { build, createToken } from '../helper.js'

const plant = '{"id": 1, "name": "Fern"}'
const post = (authorization?: string, payload = plant) => ({
  method: 'POST' as const,
  url: '/plants',
  headers: { 'content-type': 'application/json', ...(authorization !== undefined && { authorization }) },
  payload
})

test('no credentials (no header, another scheme) is 401 code 2000 with a bare Bearer challenge', async (t) => {
  const app = await build(t)
  for (const header of [undefined, 'Basic dXNlcjpwYXNz', 'Token abc']) {
    const res = await app.inject(post(header))
    assert.equal(res.statusCode, 401)
    assert.equal(res.json().error, 2000)
    assert.equal(res.headers['www-authenticate'], 'Bearer realm="plantstore"')
  }
})

test('an unknown, revoked or expired token is 401 code 2001 with error="invalid_token"', async (t) => {
  const app = await build(t)
  const revoked = await createToken(app, { name: 'to-revoke' })
  await app.store.tokens.revokeByName('to-revoke')
  const expired = await createToken(app, { expiresAt: new Date(Date.now() - 1000) })
  const unknown = 'ps_' + 'A'.repeat(43)
  for (const token of [revoked, expired, unknown, 'not-one-of-ours']) {
    const res = await app.inject(post(`Bearer ${token}`))
    assert.equal(res.statusCode, 401, token)
    assert.equal(res.json().error, 2001)
    assert.match(String(res.headers['www-authenticate']), /^Bearer realm="plantstore", error="invalid_token"/)
  }
})

test('revocation holds from the next request on', async (t) => {
  const app = await build(t)
  const token = await createToken(app, { name: 'short-lived' })
  assert.equal((await app.inject(post(`Bearer ${token}`))).statusCode, 200)
  await app.store.tokens.revokeByName('short-lived')
  assert.equal((await app.inject(post(`Bearer ${token}`))).statusCode, 401)
})

test('a token without plants:write is 403 code 2002 with error="insufficient_scope"', async (t) => {
  const app = await build(t)
  const reader = await createToken(app, { scopes: ['plants:read'] })
  const res = await app.inject(post(`Bearer ${reader}`))
  assert.equal(res.statusCode, 403)
  assert.deepEqual(res.json(), { error: 2002, message: 'token lacks the scope plants:write' })
  assert.equal(res.headers['www-authenticate'], 'Bearer realm="plantstore", error="insufficient_scope", scope="plants:write"')
})

test('a malformed Bearer header is 400 code 2003', async (t) => {
  const app = await build(t)
  for (const header of ['Bearer', 'Bearer ', 'Bearer a b', 'Bearer tok€n']) {
    const res = await app.inject(post(header))
    assert.equal(res.statusCode, 400, header)
    assert.equal(res.json().error, 2003)
  }
})

test('the scheme word is case-insensitive', async (t) => {
  const app = await build(t)
  const token = await createToken(app)
  for (const scheme of ['bearer', 'BEARER', 'BeArEr']) {
    assert.equal((await app.inject(post(`${scheme} ${token}`, '{"id": 1, "name": "Fern"}'))).statusCode, 200)
  }
})

test('authentication runs before the body is parsed or validated', async (t) => {
  const app = await build(t)
  for (const payload of ['{not json', '{"id": "x"}', 'p'.repeat(100 * 1024)]) {
    const res = await app.inject(post(undefined, payload))
    assert.equal(res.statusCode, 401)
    assert.equal(res.json().error, 2000)
  }
  const res = await app.inject({ ...post(undefined), headers: { 'content-type': 'text/plain' } })
  assert.equal(res.statusCode, 401, 'even an unsupported content type is refused as unauthenticated first')
})

test('health, readiness and the document need no token', async (t) => {
  const app = await build(t)
  assert.deepEqual((await app.inject('/healthz')).json(), { status: 'ok' })
  assert.deepEqual((await app.inject('/readyz')).json(), { status: 'ok' })
  assert.equal((await app.inject('/openapi.json')).json().openapi, '3.1.0')
})

test('tokens never reach the log, even at trace level and on failures', async (t) => {
  const lines: string[] = []
  const logStream = new Writable({ write (chunk, _encoding, done) { lines.push(String(chunk)); done() } })
  const app = await build(t, { logLevel: 'trace' }, { logStream })
  const token = await createToken(app)
  await app.inject(post(`Bearer ${token}`))
  await app.inject(post(`Bearer ${token}`, '{broken'))
  await app.inject(post(`Bearer ${token.slice(0, -1)}x`))
  await app.inject(post(`Bearer ${token} extra`))
  const log = lines.join('')
  assert.ok(log.includes('request completed'), 'the log was captured')
  assert.ok(!log.includes(token.slice(3)), 'no token in the log')
  assert.ok(!log.includes(token.slice(3, -1)), 'no near-token in the log')
})
