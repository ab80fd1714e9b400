import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { build, createToken, DATABASES } from '../helper.js'
import type { App } from '../helper.js'
import { attackFrom, percentile, probe } from '../clients.js'
import { LISTEN_BACKLOG } from '../../src/http/server.js'
import { loadConfig } from '../../src/config/config.js'
import { waitFor } from '../receiver.js'

// The attacker is 127.0.0.1; everyone else 127.0.0.2.
const OTHER = '127.0.0.2'

/** Client connections the server has open now. */
const connectionsOf = (app: App) => new Promise<number>((resolve, reject) => app.server.getConnections((error, count) => error === null ? resolve(count) : reject(error)))

async function serving (app: App) {
  const base = await app.listen({ host: '127.0.0.1', port: 0, backlog: LISTEN_BACKLOG })
  return { base, port: (app.server.address() as { port: number }).port }
}

describe('no one client can starve the rest', () => {
  test('--max-streams stays below --max-connections: by default half of it; start-up refuses one that is not below', () => {
    assert.equal(loadConfig({}).events.maxStreams, 500)
    assert.equal(loadConfig({ maxConnections: '40' }).events.maxStreams, 20)
    assert.throws(() => loadConfig({ maxConnections: '100', maxStreams: '100' }), /--max-streams \(PLANTSTORE_MAX_STREAMS\) "100": expected fewer than --max-connections \(100\)/)
  })

  test('one address holding 1,000 reopening idle sockets: another address is served, the attacker held to its cap', { timeout: 60_000 }, async (t) => {
    const app = await build(t)
    const { base, port } = await serving(app)
    const token = await createToken(app, { scopes: ['plants:read', 'plants:write'] })
    await app.inject({ method: 'POST', url: '/plants', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: { id: 1, name: 'Fern' } })
    const attack = await attackFrom(port, '127.0.0.1', 1000)
    t.after(() => attack.stop())
    await waitFor(async () => (await connectionsOf(app)) >= 256, 10_000, 'the attacker to hold its share')
    const results = await probe([`${base}/healthz`, `${base}/plants/1`], OTHER, 100, { authorization: `Bearer ${token}` })
    const held = await connectionsOf(app)
    const opened = await attack.stop()
    const ok = results.filter((result) => result.status === 200).length
    assert.ok(ok >= 99, `${ok} of 100 probes succeeded`)
    assert.ok(percentile(results.map((result) => result.ms), 99) < 2000, 'probes were answered promptly')
    // Its 256, the probe's, and those being closed as they arrive.
    assert.ok(held < 320, `${held} connections open while the attacker held its share`)
    assert.ok(opened > 1000, 'the attacker\'s sockets past its cap were closed (and reopened)')
  })

  test('50 tokens trying 20 streams each from one address: another address is still served', { timeout: 60_000 }, async (t) => {
    const app = await build(t)
    const { base, port } = await serving(app)
    const tokens = await Promise.all(Array.from({ length: 50 }, () => createToken(app, { scopes: ['plants:read'] })))
    const attack = await attackFrom(port, '127.0.0.1', 20, tokens.map((token) =>
      `GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`))
    t.after(() => attack.stop())
    await waitFor(() => app.events.open >= 200, 10_000, 'the attacker\'s streams to open')
    const results = await probe([`${base}/healthz`, `${base}/plants/1`], OTHER, 100, { authorization: `Bearer ${tokens[0]}` })
    const streams = app.events.open
    await attack.stop()
    assert.ok(streams <= 256, `${streams} streams open from one address`)
    const ok = results.filter((result) => result.status === 200 || result.status === 404).length
    assert.ok(ok >= 99, `${ok} of 100 probes answered`)
  })

  test('opening streams is rate-limited per token; the per-token cap holds under 200 opens at once', { timeout: 60_000 }, async (t) => {
    for (const database of Object.values(DATABASES)) {
      const app = await build(t, { database })
      const { base } = await serving(app)
      const token = await createToken(app, { scopes: ['plants:read'] })
      const opens = await Promise.all(Array.from({ length: 200 }, () => fetch(`${base}/events`, { headers: { authorization: `Bearer ${token}` } })))
      const accepted = opens.filter((res) => res.status === 200)
      assert.equal(accepted.length, 20, `${database}: exactly --max-streams-per-token accepted`)
      for (const res of opens) await res.body?.cancel()
      await waitFor(() => app.events.open === 0, 5000, 'the streams to close')
      // 20 opened so far: 40 more, one at a time, then 429 though no stream is open.
      const statuses: number[] = []
      for (let i = 0; i < 45; i++) {
        const res = await fetch(`${base}/events`, { headers: { authorization: `Bearer ${token}` } })
        statuses.push(res.status)
        await res.body?.cancel()
        await waitFor(() => app.events.open === 0, 5000, 'the stream to close')
      }
      assert.deepEqual(statuses, [...Array(40).fill(200), ...Array(5).fill(429)], `${database}: opens past 60 a minute are refused`)
      const refused = await fetch(`${base}/events`, { headers: { authorization: `Bearer ${token}` } })
      assert.deepEqual([refused.status, ((await refused.json()) as { error: number }).error], [429, 4000])
      assert.ok(Number(refused.headers.get('retry-after')) >= 1)
    }
  })

  test('tickets: 30 a minute per token, then 429 code 4000; another token is not held back', async (t) => {
    const app = await build(t)
    const flooder = await createToken(app, { scopes: ['plants:read'] })
    const other = await createToken(app, { scopes: ['plants:read'] })
    const issue = (token: string) => app.inject({ method: 'POST', url: '/events/tickets', headers: { authorization: `Bearer ${token}` } })
    const statuses = []
    for (let i = 0; i < 40; i++) statuses.push((await issue(flooder)).statusCode)
    assert.deepEqual(statuses, [...Array(30).fill(201), ...Array(10).fill(429)])
    const refused = await issue(flooder)
    assert.equal(refused.json().error, 4000)
    assert.ok(refused.headers['retry-after'])
    assert.equal((await issue(other)).statusCode, 201)
  })

  for (const [name, database] of Object.entries(DATABASES)) {
    test(`one read token replaying the log through 20 reopening filtered streams: others' reads keep their latency, ${name}`, { timeout: 120_000 }, async (t) => {
      const app = await build(t, { database })
      const { base } = await serving(app)
      const writer = await createToken(app, { scopes: ['plants:write', 'plants:read'] })
      const replayer = await createToken(app, { scopes: ['plants:read'] })
      // 20,000 events: creates, a few hundred at a time.
      for (let start = 1; start <= 20_000; start += 500) {
        await Promise.all(Array.from({ length: 500 }, (_, i) => app.store.plants.create({ id: BigInt(start + i), name: 'Fern' })))
      }
      const replaying = { stopped: false, opened: 0 }
      const replays = Array.from({ length: 20 }, async () => {
        while (!replaying.stopped) {
          const controller = new AbortController()
          const res = await fetch(`${base}/events?after=0&types=plant.deleted`, { headers: { authorization: `Bearer ${replayer}` }, signal: controller.signal }).catch(() => undefined)
          replaying.opened++
          await new Promise((resolve) => setTimeout(resolve, 1000))
          controller.abort()
          await res?.body?.cancel().catch(() => {})
        }
      })
      t.after(async () => {
        replaying.stopped = true
        await Promise.all(replays)
      })
      await waitFor(() => replaying.opened >= 20, 30_000, 'the 20 streams replaying')
      const results = await probe([`${base}/plants/7`], OTHER, 60, { authorization: `Bearer ${writer}` })
      replaying.stopped = true
      await Promise.all(replays)
      assert.ok(results.every((result) => result.status === 200), 'every read answered')
      const p99 = percentile(results.map((result) => result.ms), 99)
      assert.ok(p99 < 1500, `p99 ${p99.toFixed(1)} ms (2,760 ms before catch-up took turns)`)
    })
  }
})
