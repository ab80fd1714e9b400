import assert from 'node:assert/strict'
import { connect } from 'node:net'
import Database from 'better-sqlite3'
import { describe, test } from 'node:test'
import pg from 'pg'
import type { FastifyInstance } from 'fastify'
import { SQLITE_FILE, withStore } from '../databases.js'
import { build, createToken, DATABASES, freshDatabase } from '../helper.js'
import { waitFor } from '../receiver.js'
import { parsePrometheus } from '../prometheus.js'

const ADJECTIVES = ['Boston', 'Sword', 'Golden', 'Silver', 'Dwarf', 'Giant', 'Weeping', 'Royal', 'Rock', 'Snow']
const PLANTS = 60_000
// Every plant matches, sorted by name and counted: a page that reads the whole table.
const COSTLY = `/plants?order_by=name&count=exact&filter=${encodeURIComponent(ADJECTIVES.map((word) => `name = "${word}*"`).join(' OR '))}`

// A file, not :memory:, so that SQLite's pages are read as when serving: on their own thread.
const stores = { 'SQLite file': SQLITE_FILE, ...(DATABASES.postgres !== undefined && { PostgreSQL: DATABASES.postgres }) }

/**
 * Takes a lock on the plants from another connection, as another client would; answers its release.
 * On SQLite the write lock (readers are never blocked there); on PostgreSQL the table in `mode`.
 */
async function holdLock (url: string, mode: 'EXCLUSIVE' | 'ACCESS EXCLUSIVE'): Promise<() => Promise<void>> {
  if (url.startsWith('sqlite:')) {
    const db = new Database(url.slice('sqlite:'.length))
    db.exec('BEGIN IMMEDIATE')
    return async () => {
      db.exec('COMMIT')
      db.close()
    }
  }
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  await client.query(`BEGIN; LOCK TABLE plants IN ${mode} MODE`)
  return async () => {
    await client.query('COMMIT')
    await client.end()
  }
}

/** One series' value on /metrics (0 before its first sample). */
async function metricOf (app: FastifyInstance, series: string): Promise<number> {
  return parsePrometheus((await app.inject('/metrics')).body).get(series) ?? 0
}

for (const [name, database] of Object.entries(stores)) {
  describe(`costly pages, ${name}`, () => {
    test('one token\'s pile of costly pages neither holds up plain reads nor makes another token\'s page wait for all of it', async (t) => {
      const url = await freshDatabase(database)
      await withStore(url, (store) => store.bulk.importPlants(Array.from({ length: PLANTS }, (_, i) => ({ id: BigInt(i), name: `${ADJECTIVES[i % ADJECTIVES.length]} fern ${i}` })), { onConflict: 'fail', notify: false }))
      const app = await build(t, { database: url })
      const [hers, his] = [await createToken(app), await createToken(app)]
      // Both tokens known to the token cache first: on PostgreSQL a first lookup queues for the pool with the others.
      for (const token of [hers, his]) await app.inject({ method: 'GET', url: '/plants?limit=1', headers: { authorization: `Bearer ${token}` } })
      const finished: string[] = []
      const get = async (token: string, url: string, label: string) => {
        const res = await app.inject({ method: 'GET', url, headers: { authorization: `Bearer ${token}` } })
        assert.equal(res.statusCode, 200, res.body)
        finished.push(label)
        return res
      }
      const herPages = Array.from({ length: 24 }, (_, i) => get(hers, COSTLY, `hers ${i}`))
      const hisPage = get(his, COSTLY, 'his')
      const plain = get(his, '/plants?limit=1', 'plain')
      const answers = await Promise.all([...herPages, hisPage, plain])
      // On SQLite no costly page runs on the event loop: the plain read comes first. On PostgreSQL it
      // shares the database's CPU with them, but not its pool: it comes early, not after the pile.
      if (name === 'SQLite file') assert.equal(finished[0], 'plain', `a plain read is answered while the costly pages are read: ${finished.join(', ')}`)
      else assert.ok(finished.indexOf('plain') < finished.length / 2, `a plain read is answered while the costly pages are read: ${finished.join(', ')}`)
      // In arrival order his page would come after all of hers (more than PostgreSQL's pool holds);
      // taking turns, it goes after one more of hers.
      assert.ok(finished.indexOf('his') < finished.length / 2, `his page took its turn: ${finished.join(', ')}`)
      for (const res of answers.slice(0, 25)) {
        assert.equal(res.headers['x-total-count'], String(PLANTS))
        assert.equal(res.json()[0].name, 'Boston fern 0')
      }
    })

    test('costly pages whose clients close their connections while they wait leave the line: they are never read', async (t) => {
      const url = await freshDatabase(database)
      await withStore(url, (store) => store.bulk.importPlants(Array.from({ length: PLANTS }, (_, i) => ({ id: BigInt(i), name: `${ADJECTIVES[i % ADJECTIVES.length]} fern ${i}` })), { onConflict: 'fail', notify: false }))
      const app = await build(t, { database: url })
      const token = await createToken(app)
      // Known to the token cache first, so that the pages go straight to their line.
      await app.inject({ method: 'GET', url: '/plants?limit=1', headers: { authorization: `Bearer ${token}` } })
      await app.listen({ host: '127.0.0.1', port: 0 })
      const { port } = app.server.address() as { port: number }
      const metric = (series: string) => metricOf(app, series)
      const pagesRead = () => metric('plantstore_store_operation_duration_seconds_count{operation="plants.list"}')
      const inFlight = async () => await metric('plantstore_http_requests_in_flight') - 1 // less the /metrics request itself
      // On PostgreSQL, pages are quick at this size: a lock holds the ones being read until the others are dropped.
      const release = name === 'PostgreSQL' ? await holdLock(url, 'ACCESS EXCLUSIVE') : undefined
      const before = await pagesRead()
      const sockets = Array.from({ length: 24 }, () => {
        const socket = connect(port, '127.0.0.1', () => socket.write(`GET ${COSTLY} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n\r\n`))
        socket.on('error', () => {})
        return socket
      })
      // Every page is either read or in flight: all 24 are in. Then every client hangs up.
      let readBefore = 0
      await waitFor(async () => {
        readBefore = await pagesRead() - before
        return readBefore + await inFlight() >= 24
      }, 10_000, 'the pages to arrive')
      for (const socket of sockets) socket.destroy()
      // Each hang-up is counted as it is seen, and a page waiting for its turn leaves the line at that moment.
      const hungUp = 'plantstore_http_requests_total{method="GET",route="/plants",status="499"}'
      await waitFor(async () => await metric(hungUp) === 24, 10_000, 'every hang-up to be seen')
      await release?.()
      // The same token's next page comes after whatever of its pages is still in line.
      const res = await app.inject({ method: 'GET', url: COSTLY, headers: { authorization: `Bearer ${token}` } })
      assert.equal(res.statusCode, 200, 'the line still moves')
      const readAfter = await pagesRead() - before - readBefore - 1
      // Those being read finish (and a turn may be handed on as the clients hang up); the others are dropped.
      const { pageReaders } = app.store.dialect
      assert.ok(readBefore + pageReaders + 2 < 24, `the line was long enough to tell: ${readBefore} pages read before the clients hung up`)
      assert.ok(readAfter <= pageReaders + 2, `${readAfter} of ${24 - readBefore} waiting or being read were read, ${pageReaders} at once`)
      assert.equal(await inFlight(), 0, 'a request whose client hung up is no longer counted in flight')
    })

    test('batches whose clients hang up while they wait leave the line: they are never written', async (t) => {
      const url = await freshDatabase(database)
      const app = await build(t, { database: url })
      const token = await createToken(app)
      const count = async () => Number((await app.inject({ method: 'GET', url: '/plants?limit=1&count=exact&filter=id%3E%3D0', headers: { authorization: `Bearer ${token}` } })).headers['x-total-count'])
      await count() // the token known to the token cache: the batches go straight to their line
      await app.listen({ host: '127.0.0.1', port: 0 })
      const { port } = app.server.address() as { port: number }
      const metric = (series: string) => metricOf(app, series)
      const answered = (status: number) => metric(`plantstore_http_requests_total{method="POST",route="/batch",status="${status}"}`)
      // The store's write lock held from outside: the batches being written wait until the others are dropped.
      const release = await holdLock(url, 'EXCLUSIVE')
      const sockets = Array.from({ length: 32 }, (_, n) => {
        const body = JSON.stringify({ operations: Array.from({ length: 1000 }, (_, i) => ({ method: 'POST', path: '/plants', body: { id: n * 1000 + i, name: `plant ${i}` } })) })
        const socket = connect(port, '127.0.0.1', () => socket.write(`POST /batch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`))
        socket.on('error', () => {})
        return socket
      })
      // Every batch either answered or in flight (less the /metrics request itself): all 32 are in. Then every client hangs up.
      let writtenBefore = 0
      await waitFor(async () => {
        writtenBefore = await answered(200)
        return writtenBefore + await metric('plantstore_http_requests_in_flight') - 1 >= 32
      }, 20_000, 'the batches to arrive')
      for (const socket of sockets) socket.destroy()
      await waitFor(async () => await answered(499) === 32 - writtenBefore, 10_000, 'every hang-up to be seen')
      await release()
      // A batch of the same token comes after whatever of its batches is still in line.
      const last = await app.inject({ method: 'POST', url: '/batch', headers: { authorization: `Bearer ${token}` }, payload: { operations: [{ method: 'POST', path: '/plants', body: { id: -1, name: 'last' } }] } })
      assert.equal(last.statusCode, 200, last.body)
      const written = await count() / 1000 - writtenBefore // the last batch's plant is outside the filter
      const { batchWriters } = app.store.dialect
      assert.ok(writtenBefore + batchWriters + 2 < 32, `the line was long enough to tell: ${writtenBefore} batches written before the clients hung up`)
      assert.ok(written <= batchWriters + 2, `${written} of the ${32 - writtenBefore} batches waiting or being written were written, ${batchWriters} at once`)
      assert.equal(await metric('plantstore_http_requests_in_flight'), 1, 'a request whose client hung up is no longer counted in flight')
    })
  })
}

for (const [name, database] of Object.entries(DATABASES)) {
  describe(`batches, ${name}`, () => {
    test('one token\'s pile of batches makes another token\'s create wait for a few of them, and its batch for one more', async (t) => {
      const app = await build(t, { database })
      const [hers, his] = [await createToken(app), await createToken(app)]
      for (const token of [hers, his]) await app.inject({ method: 'GET', url: '/plants?limit=1', headers: { authorization: `Bearer ${token}` } })
      const finished: string[] = []
      const post = async (token: string, url: string, payload: unknown, label: string) => {
        const res = await app.inject({ method: 'POST', url, headers: { authorization: `Bearer ${token}` }, payload: payload as object })
        assert.equal(res.statusCode, 200, res.body)
        finished.push(label)
      }
      const batch = (first: number, length = 1000) => ({ operations: Array.from({ length }, (_, i) => ({ method: 'POST', path: '/plants', body: { id: first + i, name: `plant ${first + i}` } })) })
      const herBatches = Array.from({ length: 16 }, (_, i) => post(hers, '/batch', batch(i * 1000), `hers ${i}`))
      const hisCreate = post(his, '/plants', { id: -1, name: 'his' }, 'his create')
      // His batch is short, so that it ends soon after its turn comes: as long as hers, it could share the
      // database with those of hers that start after it and end after them on a busy machine.
      const hisBatch = post(his, '/batch', batch(100_000, 10), 'his batch')
      await Promise.all([...herBatches, hisCreate, hisBatch])
      // In arrival order both would come after all 16 of hers.
      assert.ok(finished.indexOf('his create') < finished.length / 2, `his create went ahead: ${finished.join(', ')}`)
      assert.ok(finished.indexOf('his batch') < finished.length / 2, `his batch took its turn: ${finished.join(', ')}`)
      const count = await app.inject({ method: 'GET', url: '/plants?limit=1&count=exact&filter=id%3E%3D0', headers: { authorization: `Bearer ${hers}` } })
      assert.equal(count.headers['x-total-count'], '16010')
    })
  })
}
