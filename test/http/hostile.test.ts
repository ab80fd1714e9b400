import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { connect } from 'node:net'
import type { Socket } from 'node:net'
import { describe, test } from 'node:test'
import { fileURLToPath } from 'node:url'
import { build, createToken, DATABASES, freshDatabase } from '../helper.js'
import type { App } from '../helper.js'
import { startReceiver, waitFor } from '../receiver.js'

/** Sends as `token`; a JSON body when given. */
const as = (app: App, token: string) => (method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: unknown) => app.inject({
  method,
  url,
  headers: { authorization: `Bearer ${token}`, ...(payload !== undefined && { 'content-type': 'application/json' }) },
  ...(payload !== undefined && { payload: JSON.stringify(payload) })
})

for (const [name, database] of Object.entries(DATABASES)) {
  describe(`hostile users, ${name}`, () => {
    test('a read token asking for many large pages cannot exhaust the heap (the list cache is bounded in bytes)', { timeout: 120_000 }, async () => {
      // In a child with a 96 MiB heap: 300 pages of about 1 MB each, every one under a different key.
      const script = fileURLToPath(new URL('../fixtures/large-pages.ts', import.meta.url))
      const url = await freshDatabase(database)
      const result = await new Promise<{ code: number | null, stdout: string, stderr: string }>((resolve) => {
        execFile(process.execPath, ['--max-old-space-size=96', '--import', 'tsx', script, url, '300'], { timeout: 110_000, maxBuffer: 1 << 20 },
          (error, stdout, stderr) => resolve({ code: error === null ? 0 : (error.code as number | null), stdout, stderr }))
      })
      assert.equal(result.code, 0, result.stderr.slice(-2000))
      const { answered, heapMiB } = JSON.parse(result.stdout) as { answered: number, heapMiB: number }
      assert.equal(answered, 300)
      assert.ok(heapMiB < 96, `heap ${heapMiB} MiB`)
    })

    test('?tag= and no tag are different pages: one reader cannot make everyone\'s list empty', async (t) => {
      const app = await build(t, { database })
      const send = as(app, await createToken(app))
      for (const id of [1, 2]) await send('POST', '/plants', { id, name: 'Fern' })
      assert.deepEqual((await send('GET', '/plants?tag=')).json(), [])
      assert.deepEqual((await send('GET', '/plants')).json().map((p: { id: number }) => p.id), [1, 2])
      assert.deepEqual((await send('GET', '/plants?tag=')).json(), [])
    })

    test('subscriptions have owners: another integrator\'s and the operator\'s are 404; webhooks:admin sees and manages all', async (t) => {
      const app = await build(t, { database, webhookAllowPrivate: 'true' })
      const alice = as(app, await createToken(app, { scopes: ['webhooks:manage'] }))
      const bob = as(app, await createToken(app, { scopes: ['webhooks:manage'] }))
      const admin = as(app, await createToken(app, { scopes: ['webhooks:admin'] }))
      const operators = (await app.store.webhooks.addSubscription({ url: 'http://127.0.0.1:9/secret-key-in-url', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', operator: true }))!
      const mine = (await alice('POST', '/webhooks', { url: 'http://127.0.0.1:9/alice' })).json() as { id: number }
      const bobs = (await bob('POST', '/webhooks', { url: 'http://127.0.0.1:9/bob' })).json() as { id: number }

      assert.deepEqual((await alice('GET', '/webhooks')).json().map((s: { id: number }) => s.id), [mine.id], 'alice lists her own only')
      for (const id of [bobs.id, operators.id]) {
        for (const [method, url] of [['GET', `/webhooks/${id}`], ['POST', `/webhooks/${id}/rotate-secret`], ['GET', `/webhooks/${id}/deliveries`],
          ['POST', `/webhooks/${id}/deliveries/msg_x/redeliver`], ['DELETE', `/webhooks/${id}`]] as const) {
          const res = await alice(method, url)
          assert.deepEqual([res.statusCode, res.json().error], [404, 3000], `${method} ${url}`)
        }
      }
      assert.equal((await app.store.webhooks.getSubscription(bobs.id))?.secret !== undefined, true, 'bob\'s subscription is untouched')
      assert.deepEqual((await admin('GET', '/webhooks')).json().map((s: { id: number }) => s.id), [operators.id, mine.id, bobs.id])
      assert.equal((await admin('GET', `/webhooks/${bobs.id}`)).statusCode, 200)
      assert.equal((await admin('DELETE', `/webhooks/${bobs.id}`)).statusCode, 204)
      const plain = as(app, await createToken(app, { scopes: ['plants:read', 'plants:write'] }))
      assert.equal((await plain('GET', '/webhooks')).statusCode, 403)
    })

    test('caps: subscriptions per owner (429 code 4000 naming the cap), and GET /webhooks is keyset-paged', async (t) => {
      const app = await build(t, { database, webhookAllowPrivate: 'true', webhookMaxPerOwner: '3' })
      const alice = as(app, await createToken(app, { scopes: ['webhooks:manage'] }))
      const bob = as(app, await createToken(app, { scopes: ['webhooks:manage'] }))
      for (let i = 0; i < 3; i++) assert.equal((await alice('POST', '/webhooks', { url: `http://127.0.0.1:9/${i}` })).statusCode, 201)
      const refused = await alice('POST', '/webhooks', { url: 'http://127.0.0.1:9/3' })
      assert.deepEqual([refused.statusCode, refused.json().error], [429, 4000])
      assert.match(refused.json().message, /holds 3 webhook subscriptions/)
      assert.ok(Number(refused.headers['retry-after']) > 0)
      assert.equal((await bob('POST', '/webhooks', { url: 'http://127.0.0.1:9/bob' })).statusCode, 201, 'the cap is per owner')

      const first = await alice('GET', '/webhooks?limit=2')
      assert.equal(first.json().length, 2)
      const next = /<([^>]+)>; rel="next"/.exec(String(first.headers.link))?.[1]
      assert.ok(next !== undefined, 'a Link to the next page')
      const second = await alice('GET', next)
      assert.equal(second.json().length, 1)
      assert.equal(second.headers.link, undefined)
      assert.equal((await alice('DELETE', `/webhooks/${second.json()[0].id}`)).statusCode, 204)
      assert.equal((await alice('POST', '/webhooks', { url: 'http://127.0.0.1:9/again' })).statusCode, 201, 'a removed one frees its place')
      assert.equal((await alice('GET', '/webhooks?limit=0')).statusCode, 400)
    })

    test('a lone surrogate is 400 code 1001, so what is answered is what is stored', async (t) => {
      const app = await build(t, { database })
      const token = await createToken(app)
      const send = as(app, token)
      for (const body of ['{"id": 1, "name": "a\\ud800b"}', '{"id": 1, "name": "Fern", "tag": "\\udc00"}']) {
        const res = await app.inject({ method: 'POST', url: '/plants', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: body })
        assert.deepEqual([res.statusCode, res.json().error], [400, 1001], body)
        assert.match(res.json().message, /^body\/(name|tag) must be valid Unicode$/)
      }
      const paired = await send('POST', '/plants', { id: 2, name: 'a😀b' })
      assert.equal(paired.statusCode, 200)
      assert.equal((await send('GET', '/plants/2')).headers.etag, paired.headers.etag)
    })
  })
}

describe('hostile users, the rest', () => {
  test('/metrics\' own token: wrong guesses count toward the failed-authentication limit', async (t) => {
    const app = await build(t, { metrics: 'token', metricsToken: 'a-metrics-token-of-length', authFailureLimit: '5' })
    const statuses = []
    for (let i = 0; i < 7; i++) statuses.push((await app.inject({ url: '/metrics', headers: { authorization: `Bearer guess-${i}` } })).statusCode)
    assert.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429])
    assert.equal((await app.inject({ url: '/metrics', headers: { authorization: 'Bearer a-metrics-token-of-length' } })).statusCode, 200, 'the right token still works')
  })

  test('the served document never reflects Host, and is cacheable with a validator', async (t) => {
    // Listening on every address: a server on loopback answers loopback names only (see the DNS rebinding test).
    const app = await build(t, { host: '0.0.0.0' })
    for (const url of ['/docs/json', '/docs/yaml', '/openapi.json', '/openapi.yaml']) {
      const res = await app.inject({ url, headers: { host: 'evil.example' } })
      assert.equal(res.statusCode, 200, url)
      assert.doesNotMatch(res.body, /evil\.example/, url)
      assert.match(String(res.headers['cache-control']), /max-age=/, url)
      const again = await app.inject({ url, headers: { host: 'other.example', 'if-none-match': String(res.headers.etag) } })
      assert.equal(again.statusCode, 304, url)
    }
    assert.equal((await app.inject('/openapi.json')).json().servers[0].url, '/')
    const pub = await build(t, { publicUrl: 'https://plants.example.com' })
    assert.equal((await pub.inject('/openapi.json')).json().servers[0].url, 'https://plants.example.com')
    assert.equal((await pub.inject('/docs/json')).json().servers[0].url, 'https://plants.example.com')
  })

  test('a missing file under /docs/static is 404', async (t) => {
    const app = await build(t)
    const res = await app.inject('/docs/static/no-such-file.js')
    assert.deepEqual([res.statusCode, res.json().error], [404, 3000])
  })

  test('server connections are capped: past --max-connections new ones are closed at once', async (t) => {
    const app = await build(t, { maxConnections: '5' })
    await app.listen({ host: '127.0.0.1', port: 0 })
    const { port } = app.server.address() as { port: number }
    const sockets: Socket[] = []
    const closed = new Set<number>()
    for (let i = 0; i < 12; i++) {
      const socket = connect(port, '127.0.0.1')
      socket.on('close', () => closed.add(i))
      socket.on('error', () => {})
      sockets.push(socket)
      await new Promise((resolve) => socket.once('connect', resolve))
    }
    await waitFor(() => closed.size >= 7, 3000, 'the connections past the cap closed')
    assert.equal(closed.size, 7)
    assert.deepEqual([...closed].sort((a, b) => a - b), [5, 6, 7, 8, 9, 10, 11])
    // Before the app closes, which waits for its connections.
    for (const socket of sockets) socket.destroy()
  })

  test('outbound deliveries: never more connections in use than --webhook-max-connections, all subscribers together', { timeout: 60_000 }, async (t) => {
    let inFlight = 0
    let most = 0
    const receiver = await startReceiver(() => {
      inFlight++
      most = Math.max(most, inFlight)
      setTimeout(() => { inFlight-- }, 150)
      return { status: 200, afterMs: 150 }
    })
    t.after(() => receiver.close())
    const app = await build(t, { webhookMaxConnections: '3' })
    for (let i = 0; i < 6; i++) await app.store.webhooks.addSubscription({ url: `${receiver.url}/${i}`, secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', operator: true })
    await app.webhooks.refresh()
    const send = as(app, await createToken(app))
    for (let id = 1; id <= 5; id++) await send('POST', '/plants', { id, name: 'Fern' })
    await waitFor(() => receiver.received.length === 30, 30_000, 'every delivery')
    assert.ok(most <= 3, `${most} at once`)
    assert.ok(most >= 2, 'the budget is used')
  })
})
