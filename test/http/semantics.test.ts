import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { Writable } from 'node:stream'
import { loadConfig } from '../../src/config/config.js'
import { build, buildWithToken, DATABASES } from '../helper.js'

const JSON_HEADER = { 'content-type': 'application/json' }

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`HTTP semantics on ${db}`, () => {
    test('a request without a body is served whatever its Content-Type: DELETE deletes, GET reads', async (t) => {
      const { send } = await buildWithToken(t, { database })
      await send('POST', '/plants', { id: 7, name: 'Fern' })
      assert.equal((await send('GET', '/plants/7', undefined, JSON_HEADER)).statusCode, 200)
      const deleted = await send('DELETE', '/plants/7', undefined, JSON_HEADER)
      assert.equal(deleted.statusCode, 204, deleted.body)
      assert.equal((await send('GET', '/plants/7')).statusCode, 404, 'the plant is gone')
      const unknown = await send('DELETE', '/nowhere', undefined, JSON_HEADER)
      assert.deepEqual([unknown.statusCode, unknown.json().error], [404, 3000])
      const create = await send('POST', '/plants', undefined, JSON_HEADER)
      assert.deepEqual([create.statusCode, create.json()], [400, { error: 1001, message: 'body is required' }])
    })

    test('POST /plants answers Location: /plants/{id}, for a new plant and for a replay', async (t) => {
      const { send } = await buildWithToken(t, { database })
      const created = await send('POST', '/plants', '{"id": 9223372036854775807, "name": "Fern"}')
      assert.equal(created.statusCode, 200)
      assert.equal(created.headers.location, '/plants/9223372036854775807')
      const replayed = await send('POST', '/plants', '{"id": 9223372036854775807, "name": "Fern"}')
      assert.equal(replayed.headers.location, '/plants/9223372036854775807')
      assert.equal((await send('GET', String(created.headers.location))).statusCode, 200, 'the Location is the plant')
    })
  })
}

test('OPTIONS on a known path: 204 with Allow, no token; an unknown path stays 404', async (t) => {
  const app = await build(t)
  for (const [url, allow] of [['/plants', 'GET, HEAD, POST, OPTIONS'], ['/plants/42', 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS'], ['/batch', 'POST, OPTIONS'],
    ['/healthz', 'GET, HEAD, OPTIONS']]) {
    const res = await app.inject({ method: 'OPTIONS', url: url! })
    assert.deepEqual([res.statusCode, res.headers.allow, res.body], [204, allow, ''], url)
  }
  for (const url of ['/nowhere', '/plants/']) {
    const unknown = await app.inject({ method: 'OPTIONS', url })
    assert.deepEqual([unknown.statusCode, unknown.json().error], [404, 3000], url)
  }
  const post = await app.inject({ method: 'POST', url: '/healthz' })
  assert.deepEqual([post.statusCode, post.headers.allow, post.json().error], [405, 'GET, HEAD, OPTIONS', 3003])
})

describe('CORS', () => {
  const origin = 'https://app.example.com'

  test('off by default: no CORS header on any answer', async (t) => {
    const { send } = await buildWithToken(t)
    const res = await send('GET', '/plants', undefined, { origin })
    assert.equal(res.statusCode, 200)
    assert.deepEqual(Object.keys(res.headers).filter((name) => name.startsWith('access-control-')), [])
    const preflight = await send('OPTIONS' as 'GET', '/plants', undefined, { origin, 'access-control-request-method': 'POST' })
    assert.equal(preflight.headers['access-control-allow-origin'], undefined)
  })

  test('an allowed origin: preflight, headers on answers and on errors; another origin gets none', async (t) => {
    const { app, send } = await buildWithToken(t, { corsOrigins: `${origin}, https://admin.example.com` })
    const preflight = await app.inject({
      method: 'OPTIONS',
      url: '/plants/7',
      headers: { origin, 'access-control-request-method': 'PUT', 'access-control-request-headers': 'authorization, content-type, if-match' }
    })
    assert.equal(preflight.statusCode, 204)
    assert.equal(preflight.headers['access-control-allow-origin'], origin)
    assert.equal(preflight.headers['access-control-allow-methods'], 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS')
    assert.deepEqual(String(preflight.headers['access-control-allow-headers']).split(', ').slice(0, 4),
      ['authorization', 'content-type', 'idempotency-key', 'if-match'])
    assert.ok(Number(preflight.headers['access-control-max-age']) > 0)
    assert.match(String(preflight.headers.vary), /Origin/)

    const created = await send('POST', '/plants', { id: 7, name: 'Fern' }, { origin })
    assert.equal(created.headers['access-control-allow-origin'], origin)
    assert.match(String(created.headers.vary), /Origin/)
    assert.deepEqual(String(created.headers['access-control-expose-headers']).split(', '),
      ['ETag', 'Idempotent-Replayed', 'Link', 'Location', 'Plantstore-Event-Position', 'Retry-After', 'WWW-Authenticate', 'X-Request-Id', 'X-Total-Count'])
    const refused = await app.inject({ method: 'GET', url: '/plants', headers: { origin } })
    assert.equal(refused.statusCode, 401)
    assert.equal(refused.headers['access-control-allow-origin'], origin, 'an error a browser app can read')
    assert.match(String(refused.headers['access-control-expose-headers']), /WWW-Authenticate/)
    const missing = await app.inject({ method: 'GET', url: '/nowhere', headers: { origin } })
    assert.equal(missing.headers['access-control-allow-origin'], origin, 'a 404 too')

    const stranger = await send('GET', '/plants', undefined, { origin: 'https://evil.example' })
    assert.equal(stranger.statusCode, 200)
    assert.deepEqual(Object.keys(stranger.headers).filter((name) => name.startsWith('access-control-')), [],
      'no CORS header at all for an origin that is not allowed')
    const strangerPreflight = await app.inject({ method: 'OPTIONS', url: '/plants', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } })
    assert.equal(strangerPreflight.headers['access-control-allow-methods'], undefined)
  })

  test('* allows any origin', async (t) => {
    const { send } = await buildWithToken(t, { corsOrigins: '*' })
    const res = await send('GET', '/plants', undefined, { origin: 'https://anyone.example' })
    assert.equal(res.headers['access-control-allow-origin'], '*')
    assert.match(String(res.headers.vary), /Origin/)
  })

  test('bad --cors-origins and --trust-proxy values stop start-up naming the setting', () => {
    assert.throws(() => loadConfig({ corsOrigins: 'app.example.com' }), /--cors-origins \(PLANTSTORE_CORS_ORIGINS\)/)
    assert.throws(() => loadConfig({ corsOrigins: 'https://app.example.com/path' }), /--cors-origins/)
    assert.throws(() => loadConfig({ trustProxy: 'the-balancer' }), /--trust-proxy \(PLANTSTORE_TRUST_PROXY\)/)
    assert.throws(() => loadConfig({ trustProxy: '10.0.0.0/33' }), /--trust-proxy/)
    assert.deepEqual(loadConfig({ trustProxy: '10.0.0.0/8, ::1' }).trustProxy, ['10.0.0.0/8', '::1'])
    assert.equal(loadConfig({ trustProxy: '2' }).trustProxy, 2)
  })
})

describe('behind a proxy', () => {
  // Requests from app.inject come from 127.0.0.1: the proxy, when it is trusted.
  const failFrom = (app: Awaited<ReturnType<typeof build>>, client: string) =>
    app.inject({ method: 'GET', url: '/plants', headers: { authorization: 'Bearer ps_wrong', 'x-forwarded-for': client } })

  test('with --trust-proxy, two clients behind one proxy are limited separately, and logged as themselves', async (t) => {
    let log = ''
    const logStream = new Writable({ write (chunk, _encoding, done) { log += String(chunk); done() } })
    const app = await build(t, { trustProxy: '127.0.0.1', authFailureLimit: '2', logLevel: 'info' }, { logStream })
    for (let i = 0; i < 2; i++) assert.equal((await failFrom(app, '198.51.100.1')).statusCode, 401)
    assert.equal((await failFrom(app, '198.51.100.1')).statusCode, 429, 'the first client is past its limit')
    assert.equal((await failFrom(app, '198.51.100.2')).statusCode, 401, 'the second has its own')
    assert.match(log, /"remoteAddress":"198\.51\.100\.2"/)
  })

  test('without it, a forged X-Forwarded-For changes nothing', async (t) => {
    const app = await build(t, { authFailureLimit: '2' })
    for (let i = 0; i < 2; i++) assert.equal((await failFrom(app, `203.0.113.${i}`)).statusCode, 401)
    assert.equal((await failFrom(app, '203.0.113.99')).statusCode, 429, 'one address, whatever the header says')
  })
})
