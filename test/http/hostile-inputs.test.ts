import assert from 'node:assert/strict'
import { connect } from 'node:net'
import { describe, test } from 'node:test'
import { build, createToken, DATABASES } from '../helper.js'
import type { App } from '../helper.js'
import { startReceiver, waitFor } from '../receiver.js'

const as = (app: App, token: string) => (method: 'GET' | 'POST' | 'PATCH' | 'DELETE', url: string, payload?: unknown) => app.inject({
  method,
  url,
  headers: { authorization: `Bearer ${token}`, ...(payload !== undefined && { 'content-type': 'application/json' }) },
  ...(payload !== undefined && { payload: JSON.stringify(payload) })
})

/** Sends raw HTTP/1.1 text and answers the response's status line and body. */
function rawRequest (port: number, text: string) {
  return new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text))
    let answer = ''
    socket.on('data', (chunk) => { answer += String(chunk) })
    socket.on('end', () => resolve(answer))
    socket.on('error', reject)
  })
}

for (const [name, database] of Object.entries(DATABASES)) {
  describe(`hostile inputs, round two, ${name}`, () => {
    test('revoking a token disables its subscriptions, with the reason; webhooks:admin sees and removes them', async (t) => {
      const receiver = await startReceiver(() => 200)
      const control = await startReceiver(() => 200)
      t.after(() => Promise.all([receiver.close(), control.close()]))
      const app = await build(t, { database, webhookAllowPrivate: 'true' })
      const manager = await createToken(app, { scopes: ['tokens:manage', 'webhooks:manage', 'plants:read'] })
      const integrator = await createToken(app, { scopes: ['webhooks:manage', 'plants:read'], name: 'integrator' })
      const admin = as(app, await createToken(app, { scopes: ['webhooks:admin'] }))
      const writer = as(app, await createToken(app, { scopes: ['plants:write'] }))
      const hook = (await as(app, integrator)('POST', '/webhooks', { url: receiver.url })).json() as { id: number }
      assert.equal((await admin('POST', '/webhooks', { url: control.url })).statusCode, 201)
      await writer('POST', '/plants', { id: 1, name: 'Fern' })
      await waitFor(() => receiver.received.length === 1, 10_000, 'the first delivery')

      const id = (await app.store.tokens.list()).find((token) => token.name === 'integrator')!.id
      assert.equal((await as(app, manager)('DELETE', `/tokens/${id}`)).statusCode, 204)
      const seen = (await admin('GET', `/webhooks/${hook.id}`)).json() as { state: string, lastError: string }
      assert.equal(seen.state, 'disabled')
      assert.match(seen.lastError, /the token that owns this subscription was revoked/)
      await writer('POST', '/plants', { id: 2, name: 'Ivy' })
      await waitFor(() => control.received.length === 2, 10_000, 'another owner\'s subscription to receive both plants')
      assert.equal(receiver.received.length, 1, 'no delivery after the revocation')
      assert.equal((await admin('DELETE', `/webhooks/${hook.id}`)).statusCode, 204)
    })

    test('token names and webhook descriptions refuse control, bidirectional and zero-width characters (400 code 1001); plant names do not', async (t) => {
      const app = await build(t, { database, webhookAllowPrivate: 'true' })
      const send = as(app, await createToken(app, { scopes: ['tokens:manage', 'webhooks:manage', 'plants:read', 'plants:write'] }))
      for (const [bad, codePoint, at] of [['evil\u001b[2J', 'U+001B', 5], ['\u202eevil', 'U+202E', 1], ['a\u200bb', 'U+200B', 2], ['a\r\nb', 'U+000D', 2], ['nul\u0000', 'U+0000', 4]] as const) {
        const token = await send('POST', '/tokens', { name: bad })
        assert.deepEqual([token.statusCode, token.json()], [400, { error: 1001, message: `body/name must not contain control, bidirectional or zero-width characters (${codePoint} at character ${at})` }])
        const hook = await send('POST', '/webhooks', { url: 'http://127.0.0.1:9/', description: bad })
        assert.deepEqual([hook.statusCode, hook.json().error], [400, 1001], JSON.stringify(bad))
      }
      const hook = (await send('POST', '/webhooks', { url: 'http://127.0.0.1:9/', description: 'plain' })).json() as { id: number }
      assert.equal((await send('PATCH', `/webhooks/${hook.id}`, { description: 'x\u2066y' })).statusCode, 400)
      assert.equal((await send('POST', '/tokens', { name: 'Zoë 🌿 名前' })).statusCode, 201, 'letters and emoji are welcome')
      assert.equal((await send('POST', '/plants', { id: 1, name: '\u202eevil' })).statusCode, 200, 'plant names keep what they accepted')
    })

    test('U+0000, which PostgreSQL cannot store, is 400 code 1001 in a name, a tag, a batch, a tag parameter and a filter, and so is a query that is not UTF-8', async (t) => {
      const app = await build(t, { database })
      const send = as(app, await createToken(app))
      const refused = async (method: 'GET' | 'POST' | 'PATCH', url: string, payload: unknown, message: string) => {
        const res = await send(method, url, payload)
        assert.deepEqual([res.statusCode, res.json()], [400, { error: 1001, message }], url)
      }
      await refused('POST', '/plants', { id: 1, name: 'a\u0000b' }, 'body/name must not contain U+0000 (at character 2)')
      await refused('POST', '/plants', { id: 1, name: 'a', tag: '\u0000' }, 'body/tag must not contain U+0000 (at character 1)')
      await refused('POST', '/batch', { operations: [{ method: 'POST', path: '/plants', body: { id: 1, name: '🌿\u0000' } }] }, 'operations/0: body/name must not contain U+0000 (at character 2)')
      await refused('GET', '/plants?tag=a%00', undefined, 'query/tag must not contain U+0000 (at character 2)')
      await refused('GET', `/plants?filter=${encodeURIComponent('name = "\u0000"')}`, undefined, 'query/filter must not contain U+0000 (at character 9)')
      assert.deepEqual((await send('GET', '/plants')).json(), [])
      // Percent-encoding that is not UTF-8 (a lone surrogate, a stray byte, a lone %) is refused, not searched for as typed.
      for (const query of ['tag=%ED%A0%80', 'tag=%FF', 'limit=2&tag=%', `filter=${encodeURIComponent('name = "')}%FF%22`]) {
        await refused('GET', `/plants?${query}`, undefined, `query/${query.includes('filter') ? 'filter' : 'tag'} is not percent-encoded UTF-8`)
      }
    })

    test('a body that is not UTF-8 is 400 code 1000 naming the byte, not stored as U+FFFD; a byte order mark is ignored', async (t) => {
      const app = await build(t, { database })
      const token = await createToken(app)
      const raw = (method: 'POST' | 'PATCH', url: string, text: string, bad: number[] = []) => app.inject({
        method,
        url,
        headers: { authorization: `Bearer ${token}`, 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' },
        payload: Buffer.concat([Buffer.from(text), Buffer.from(bad), Buffer.from('"}')])
      })
      for (const [method, url, text] of [['POST', '/plants', '{"id":1,"name":"a'], ['PATCH', '/plants/1', '{"name":"a'], ['POST', '/batch', '{"operations":[],"x":"']] as const) {
        for (const bad of [[0xff], [0xed, 0xa0, 0x80], [0xe2, 0x82]]) {
          const res = await raw(method, url, text, bad)
          assert.deepEqual([res.statusCode, res.json()], [400, { error: 1000, message: `body is not valid JSON: it is not UTF-8 (at byte ${Buffer.byteLength(text) + 1})` }], `${method} ${url} ${bad}`)
        }
      }
      const deep = await raw('POST', '/plants', `{"id":1234567890123456789,"x":${'['.repeat(30_000)}${']'.repeat(30_000)},"name":"a`)
      assert.deepEqual([deep.statusCode, deep.json()], [400, { error: 1000, message: 'body is not valid JSON: it is nested too deeply' }])
      assert.deepEqual((await raw('POST', '/plants', '\uFEFF{"id":1,"name":"\uFFFD')).json(), { id: 1, name: '\uFFFD' })
      assert.deepEqual((await raw('PATCH', '/plants/1', '\uFEFF{"tag":"b')).json(), { id: 1, name: '\uFFFD', tag: 'b' })
    })

    test('GET /tokens is keyset-paged with Link; revoked and expired tokens are purged after the token retention', async (t) => {
      const app = await build(t, { database })
      const send = as(app, await createToken(app, { scopes: ['tokens:manage'], name: 'manager' }))
      for (let i = 0; i < 5; i++) await createToken(app, { name: `t${i}` })
      const first = await send('GET', '/tokens?limit=2')
      assert.deepEqual(first.json().map((token: { name: string }) => token.name), ['manager', 't0'])
      const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))![1]!
      assert.deepEqual((await send('GET', next)).json().map((token: { name: string }) => token.name), ['t1', 't2'])
      const last = await send('GET', '/tokens?limit=2&after=5')
      assert.deepEqual(last.json().map((token: { name: string }) => token.name), ['t4'])
      assert.equal(last.headers.link, undefined)

      await app.store.tokens.revokeByName('t0')
      await createToken(app, { name: 'expired', expiresAt: new Date(Date.now() - 1000) })
      assert.equal(await app.store.tokens.purgeEnded(Date.now() - 60_000, 100), 0, 'within the retention: kept')
      assert.equal(await app.store.tokens.purgeEnded(Date.now() + 1, 100), 2)
      assert.deepEqual((await app.store.tokens.list()).map((token) => token.name), ['manager', 't1', 't2', 't3', 't4'])
    })
  })
}

describe('hostile requests, round two', () => {
  test('the webhook URL check is no DNS oracle: one refusal text for a private name, an unresolvable one and a private address', async (t) => {
    const app = await build(t)
    const send = as(app, await createToken(app, { scopes: ['webhooks:manage', 'plants:read'] }))
    const messages = []
    for (const url of ['http://localhost:9/', 'http://nonexistent.invalid/', 'http://10.0.0.1/', 'http://127.0.0.1:9/']) {
      const res = await send('POST', '/webhooks', { url })
      assert.deepEqual([res.statusCode, res.json().error], [400, 1004], url)
      messages.push(res.json().message.replace(new URL(url).hostname, 'HOST'))
    }
    assert.equal(new Set(messages).size, 1, messages.join('\n'))
  })

  test('two Authorization headers are 400 code 2003, whichever comes first', async (t) => {
    const app = await build(t)
    await app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.server.address() as { port: number }
    const reader = await createToken(app, { scopes: ['plants:read'] })
    const writer = await createToken(app, { scopes: ['plants:write'] })
    for (const [a, b] of [[reader, writer], [writer, reader]]) {
      const answer = await rawRequest(port, `POST /plants HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${a}\r\nAuthorization: Bearer ${b}\r\n` +
        'Content-Type: application/json\r\nContent-Length: 26\r\nConnection: close\r\n\r\n{"id": 1, "name": "Fern"}\n')
      assert.match(answer, /^HTTP\/1\.1 400 /)
      assert.match(answer, /\{"error":2003,"message":"malformed Authorization header: more than one Authorization header"\}/)
    }
  })

  test('DNS rebinding: a server on loopback answers loopback names and --public-url\'s host only (421)', async (t) => {
    const app = await build(t, { publicUrl: 'https://plants.example.com' })
    for (const host of ['localhost:8080', '127.0.0.1:8080', '127.3.4.5', '[::1]:8080', 'app.localhost', 'plants.example.com', 'PLANTS.example.com:443']) {
      assert.equal((await app.inject({ url: '/healthz', headers: { host } })).statusCode, 200, host)
    }
    for (const host of ['rebound.attacker.example', 'attacker.example:8080', '10.0.0.5', 'localhost.attacker.example']) {
      const res = await app.inject({ url: '/metrics', headers: { host } })
      assert.deepEqual([res.statusCode, res.json().error], [421, 1001], host)
      assert.match(res.json().message, /is not a name this server answers to/)
    }
    const everywhere = await build(t, { host: '0.0.0.0' })
    assert.equal((await everywhere.inject({ url: '/healthz', headers: { host: 'plants.internal' } })).statusCode, 200, 'not on loopback: any name')
  })

  test('recover takes strict RFC 3339 times: no February 30, no hour 24', async (t) => {
    const app = await build(t, { webhookAllowPrivate: 'true' })
    const send = as(app, await createToken(app, { scopes: ['webhooks:manage', 'plants:read'] }))
    const hook = (await send('POST', '/webhooks', { url: 'http://127.0.0.1:9/' })).json() as { id: number }
    for (const since of ['2026-02-30T00:00:00Z', '2026-01-01T24:00:00Z', '2026-04-31T10:00:00Z', '2026-01-01T10:00:00+25:00']) {
      const res = await send('POST', `/webhooks/${hook.id}/recover`, { since })
      assert.deepEqual([res.statusCode, res.json().error], [400, 1001], since)
    }
    assert.equal((await send('POST', `/webhooks/${hook.id}/recover`, { since: '2024-02-29T23:59:59.5+01:00' })).statusCode, 202)
  })
})
