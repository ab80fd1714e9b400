import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import Ajv2020 from 'ajv/dist/2020.js'
import { openapiDocument } from '../../src/contract/document.js'
import { build, createToken, DATABASES } from '../helper.js'
import { waitFor } from '../receiver.js'
import { openStream, sequences } from '../sse.js'

const Ajv = Ajv2020.default

/** The app listening on a loopback port, a reader's and a writer's token, and a JSON sender. */
async function serving (t: Parameters<typeof build>[0], database: string, raw: Record<string, string> = {}) {
  const app = await build(t, { database, ...raw })
  const base = await app.listen({ port: 0, host: '127.0.0.1' })
  const token = await createToken(app)
  const send = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const response = await fetch(base + path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }), ...headers },
      ...(body !== undefined && { body: typeof body === 'string' ? body : JSON.stringify(body) })
    })
    const text = await response.text()
    return { status: response.status, headers: response.headers, text, json: () => JSON.parse(text) }
  }
  const stream = (query = '', headers: Record<string, string> = {}) => openStream(`${base}/events${query}`, { authorization: `Bearer ${token}`, ...headers })
  return { app, base, token, send, stream }
}

const closeAll = (t: { after: (fn: () => Promise<void>) => void }, ...streams: Array<{ close: () => Promise<void> }>) =>
  t.after(async () => { for (const stream of streams) await stream.close() })

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`GET /events on ${db}`, () => {
    test('creates, replaces and deletes arrive in order: id the sequence, event the type, data the plant or its id', async (t) => {
      const { send, stream } = await serving(t, database)
      const live = await stream()
      closeAll(t, live)
      assert.equal(live.response.status, 200)
      assert.match(live.response.headers.get('content-type') ?? '', /^text\/event-stream/)
      assert.equal((await send('POST', '/plants', '{"id":9223372036854775807,"name":"Max"}')).status, 200)
      await send('POST', '/plants', { id: 2, name: 'Fern', tag: 'green' })
      await send('POST', '/plants', { id: 2, name: 'Fern', tag: 'green' }) // an identical replay: no event
      await send('PUT', '/plants/2', { name: 'Fern', tag: 'blue' })
      await send('DELETE', '/plants/9223372036854775807')
      await live.until((events) => events.length === 4)
      assert.deepEqual(live.events.map((event) => [event.event, event.data]), [
        ['plant.created', '{"name":"Max","id":9223372036854775807}'],
        ['plant.created', '{"name":"Fern","id":2,"tag":"green"}'],
        ['plant.updated', '{"name":"Fern","id":2,"tag":"blue"}'],
        ['plant.deleted', '{"id":9223372036854775807}']
      ])
      const ids = sequences(live.events)
      assert.deepEqual(ids, [...ids].sort((a, b) => a - b))
      assert.equal(new Set(ids).size, 4)
      assert.equal(live.retry, 2000)
      // Metrics: open streams, events sent, and their lag.
      const metrics = await (await fetch(live.response.url.replace('/events', '/metrics'))).text()
      assert.match(metrics, /^plantstore_streams_open 1$/m)
      assert.match(metrics, /^plantstore_stream_events_sent_total 4$/m)
      assert.match(metrics, /^plantstore_stream_lag_seconds_count [1-4]$/m, 'one observation per write')
      // Reads tell the position they reflect.
      assert.equal((await send('GET', '/plants')).headers.get('plantstore-event-position'), String(ids.at(-1)))
      assert.equal((await send('GET', '/plants/2')).headers.get('plantstore-event-position'), String(ids.at(-1)))
    })

    test('Last-Event-ID and ?after= resume exactly after N; ?types= filters; bad values are 400', async (t) => {
      const { send, stream } = await serving(t, database)
      for (let i = 1; i <= 5; i++) await send('POST', '/plants', { id: i, name: `P${i}` })
      await send('DELETE', '/plants/1')
      const position = Number((await send('GET', '/plants')).headers.get('plantstore-event-position'))
      const fromHeader = await stream('?after=1', { 'last-event-id': String(position - 3) })
      const fromQuery = await stream(`?after=${position - 2}`)
      const deletes = await stream('?after=0&types=plant.deleted')
      closeAll(t, fromHeader, fromQuery, deletes)
      await fromHeader.until((events) => events.length === 3)
      await fromQuery.until((events) => events.length === 2)
      await deletes.until((events) => events.length === 1)
      assert.deepEqual(sequences(fromHeader.events), [position - 2, position - 1, position])
      assert.deepEqual(sequences(fromQuery.events), [position - 1, position])
      assert.deepEqual(deletes.events.map((event) => event.data), ['{"id":1}'])
      // Live after catching up, with nothing twice at the seam.
      await send('POST', '/plants', { id: 6, name: 'P6' })
      await fromQuery.until((events) => events.length === 3)
      assert.deepEqual(sequences(fromQuery.events), [position - 1, position, position + 1])
      for (const [query, headers] of [['?types=plant.eaten', {}], ['?after=-1', {}], ['', { 'last-event-id': 'abc' }]] as const) {
        const refused = await send('GET', `/events${query}`, undefined, headers)
        assert.equal(refused.status, 400, `${query} ${JSON.stringify(headers)}`)
        assert.equal(refused.json().error, 1001)
      }
    })

    /** The app, its sender and stream opener, and how often anything read the event log. */
    async function counted (t: Parameters<typeof build>[0]) {
      const served = await serving(t, database)
      const events = served.app.store.events
      const read = events.readChecked.bind(events)
      const log = { reads: 0 }
      events.readChecked = async (query, tokenIds) => { log.reads++; return read(query, tokenIds) }
      return { ...served, log }
    }

    test('with no stream open the feed reads nothing from the log', async (t) => {
      const { app, send, log } = await counted(t)
      for (let i = 1; i <= 20; i++) assert.equal((await send('POST', '/plants', { id: i, name: `P${i}` })).status, 200)
      // Closing waits for the feed's read under way, if any: one that a commit started is counted.
      await app.close()
      assert.equal(log.reads, 0, 'no reads while nobody watches')
    })

    test('a stream opened after writes nobody watched starts at the newest event', async (t) => {
      const { send, stream, log } = await counted(t)
      for (let i = 1; i <= 20; i++) assert.equal((await send('POST', '/plants', { id: i, name: `P${i}` })).status, 200)
      const position = Number((await send('GET', '/plants/20')).headers.get('plantstore-event-position'))
      const live = await stream()
      closeAll(t, live)
      await send('POST', '/plants', { id: 21, name: 'P21' })
      await send('DELETE', '/plants/1')
      await live.until((received) => received.length === 2)
      assert.deepEqual(sequences(live.events), [position + 1, position + 2])
      assert.deepEqual(live.events.map((event) => event.event), ['plant.created', 'plant.deleted'])
      assert.ok(log.reads > 0)
    })

    test('read, then stream from the read\'s position while others write: nothing missed, nothing twice', async (t) => {
      const { send, stream } = await serving(t, database)
      for (let i = 1; i <= 50; i++) await send('POST', '/plants', { id: i, name: `P${i}` })
      const writing = { on: true, rounds: 0 }
      const writer = (async () => {
        for (let round = 0; writing.on; round++) {
          const id = 1 + (round % 80)
          await send('POST', '/plants', { id, name: `P${id}` })
          await send('PUT', `/plants/${id}`, { name: `R${round}` })
          if (round % 3 === 0) await send('DELETE', `/plants/${1 + ((round * 7) % 80)}`)
          writing.rounds++
        }
      })()
      await waitFor(() => writing.rounds >= 5, 10_000, 'writes before the read')
      const read = await send('GET', '/plants?limit=1000')
      const state = new Map((read.json() as Array<{ id: number, name: string }>).map((plant) => [plant.id, plant.name]))
      const follow = await stream(`?after=${read.headers.get('plantstore-event-position')}`)
      closeAll(t, follow)
      const readAt = writing.rounds
      await waitFor(() => writing.rounds >= readAt + 20, 10_000, 'writes while the stream follows')
      writing.on = false
      await writer
      const final = await send('GET', '/plants?limit=1000')
      const end = Number(final.headers.get('plantstore-event-position'))
      await follow.until((events) => sequences(events).at(-1) === end)
      const ids = sequences(follow.events)
      assert.equal(new Set(ids).size, ids.length, 'no event twice')
      for (const event of follow.events) {
        const data = JSON.parse(event.data) as { id: number, name: string }
        if (event.event === 'plant.deleted') state.delete(data.id)
        else state.set(data.id, data.name)
      }
      const expected = new Map((final.json() as Array<{ id: number, name: string }>).map((plant) => [plant.id, plant.name]))
      assert.deepEqual([...state].sort((a, b) => a[0] - b[0]), [...expected].sort((a, b) => a[0] - b[0]))
    })

    test('a ticket opens the stream for EventSource; a revoked token\'s ticket, a bad one and an expired one are 401', async (t) => {
      const { app, base, send } = await serving(t, database)
      const reader = await createToken(app, { scopes: ['plants:read'], name: 'reader' })
      const ticketOf = async (token: string) => {
        const response = await fetch(`${base}/events/tickets`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
        return { status: response.status, body: await response.json() as { ticket: string, expiresAt: string, error?: number } }
      }
      const { status, body } = await ticketOf(reader)
      assert.equal(status, 201)
      assert.match(body.ticket, /^pst_[A-Za-z0-9_-]+\.[A-Za-z0-9_-]{43}$/)
      assert.ok(Math.abs(Date.parse(body.expiresAt) - Date.now() - 600_000) < 5000)
      const viaTicket = await openStream(`${base}/events?after=0&ticket=${body.ticket}`)
      closeAll(t, viaTicket)
      assert.equal(viaTicket.response.status, 200)
      await send('POST', '/plants', { id: 1, name: 'Fern' })
      await viaTicket.until((events) => events.length === 1)
      // A ticket is for the stream only.
      assert.equal((await fetch(`${base}/plants?ticket=${body.ticket}`)).status, 401)
      // A token without plants:read gets none.
      const writer = await createToken(app, { scopes: ['plants:write'], name: 'writer' })
      assert.equal((await ticketOf(writer)).status, 403)
      // Revoked: its tickets are refused from then on.
      await app.store.tokens.revokeByName('reader')
      const refused = await fetch(`${base}/events?ticket=${body.ticket}`)
      assert.equal(refused.status, 401)
      assert.equal(((await refused.json()) as { error: number }).error, 2001)
      assert.equal((await fetch(`${base}/events?ticket=pst_${'A'.repeat(43)}`)).status, 401)
      // Signed with the store's key, but expired; and one signed with another key.
      const { issueTicket } = await import('../../src/auth/tickets.js')
      const jwt = { key: 'jwt:x|y', name: 'y', scopes: ['plants:read' as const], tokenId: null, expiresAt: null }
      const expired = issueTicket(await app.store.events.ticketKey(), jwt, new Date(Date.now() - 1))
      assert.equal((await fetch(`${base}/events?ticket=${expired}`)).status, 401)
      const forged = issueTicket(Buffer.alloc(32), jwt, new Date(Date.now() + 60_000))
      assert.equal((await fetch(`${base}/events?ticket=${forged}`)).status, 401)
      const valid = issueTicket(await app.store.events.ticketKey(), jwt, new Date(Date.now() + 60_000))
      const opened = await fetch(`${base}/events?ticket=${valid}`)
      assert.equal(opened.status, 200, 'the same claims, signed with the store key and unexpired')
      await opened.body?.cancel()
    })

    test('streams are limited per token and in all (429 code 4000); closing one frees its place', async (t) => {
      const { app, stream } = await serving(t, database, { maxStreamsPerToken: '2', maxStreams: '3' })
      const first = await stream()
      const second = await stream()
      closeAll(t, first, second)
      const third = await stream()
      assert.equal(third.response.status, 429)
      assert.equal(((await third.response.json()) as { error: number }).error, 4000)
      assert.ok(third.response.headers.get('retry-after'))
      await first.close()
      // The server counts a stream open until it sees the connection close.
      await waitFor(() => app.events.open === 1, 5000, 'the closed stream to leave the count')
      const again = await stream()
      closeAll(t, again)
      assert.equal(again.response.status, 200)
    })
  })
}

test('the document declares Last-Event-ID as the values the server takes: each it refuses is outside the declared schema', async (t) => {
  const { base, token } = await serving(t, DATABASES.sqlite!)
  const declared = (openapiDocument.paths['/events'].get.parameters as Array<{ name: string, schema: object }>)
    .find((parameter) => parameter.name === 'Last-Event-ID')!.schema
  const valid = new Ajv({ strict: false }).compile(declared)
  for (const value of ['0', '42', '9223372036854775807', '9999999999999999999', '12345678901234567890', 'abc', '-1', '1.5', '0x10', '7 8']) {
    const aborted = new AbortController()
    const response = await fetch(`${base}/events`, { headers: { authorization: `Bearer ${token}`, 'last-event-id': value }, signal: aborted.signal })
    aborted.abort()
    await response.body?.cancel().catch(() => {})
    assert.equal(response.status === 200, valid(value), `Last-Event-ID ${value}: the server answered ${response.status}`)
  }
})
