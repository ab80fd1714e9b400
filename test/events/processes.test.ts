import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { freshDatabase } from '../databases.js'
import { createPlant, newDatabase, run, serve, stop } from '../executable.js'
import { openStream, sequences } from '../sse.js'

const skipPostgres = process.env.PLANTSTORE_TEST_POSTGRES_URL === undefined ? 'PLANTSTORE_TEST_POSTGRES_URL is not set' : false

/** Creates, replaces and deletes spread over several servers, 8 at a time; answers the final log position. */
async function writeAcross (urls: string[], token: string, count: number) {
  const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  await Promise.all(Array.from({ length: 8 }, async (_, worker) => {
    for (let i = worker; i < count; i += 8) {
      const url = urls[i % urls.length]!
      await createPlant(url, token, { id: i, name: `P${i}` })
      if (i % 3 === 0) await fetch(`${url}/plants/${i}`, { method: 'PUT', headers, body: JSON.stringify({ name: `R${i}` }) })
      if (i % 4 === 0) await fetch(`${url}/plants/${i}`, { method: 'DELETE', headers })
    }
  }))
  const read = await fetch(`${urls[0]}/plants?limit=1`, { headers })
  return Number(read.headers.get('plantstore-event-position'))
}

/** Opens a stream on each URL, runs the writes, and checks every stream saw the whole log, in order. */
async function everyStreamSeesEverything (urls: string[], streamUrls: string[], token: string) {
  const streams = await Promise.all(streamUrls.map((url) => openStream(`${url}/events`, { authorization: `Bearer ${token}` })))
  try {
    const position = await writeAcross(urls, token, 240)
    for (const stream of streams) await stream.until((events) => sequences(events).at(-1) === position, 10_000)
    const first = sequences(streams[0]!.events)
    assert.ok(first.length >= 240)
    assert.deepEqual(first, [...new Set(first)].sort((a, b) => a - b), 'strictly increasing')
    for (const stream of streams) assert.deepEqual(sequences(stream.events), first, 'every stream, the same sequence')
    // What the streams saw is the log itself.
    const replay = await openStream(`${urls[0]}/events?after=0`, { authorization: `Bearer ${token}` })
    await replay.until((events) => sequences(events).at(-1) === position)
    await replay.close()
    assert.deepEqual(sequences(replay.events), first)
  } finally {
    for (const stream of streams) await stream.close()
  }
}

describe('one feed across processes', () => {
  test('two PostgreSQL instances, writes on both: a stream on each sees the same sequence', { skip: skipPostgres }, async (t) => {
    const database = await freshDatabase('postgres:fresh')
    const token = (await run(['tokens', 'create', '--name', 'feed', '--database', database])).stdout.trim()
    const [a, b] = await Promise.all([serve(database), serve(database)])
    t.after(() => Promise.all([stop(a!), stop(b!)]))
    await everyStreamSeesEverything([a!.url, b!.url], [a!.url, b!.url], token)
  })

  test('SQLite with serve --workers 2: streams on either worker see every worker\'s commits', async (t) => {
    const database = newDatabase()
    const token = (await run(['tokens', 'create', '--name', 'feed', '--database', database])).stdout.trim()
    const server = await serve(database, ['--workers', '2'])
    t.after(() => stop(server))
    // Connections are spread over the workers; several streams land on both.
    await everyStreamSeesEverything([server.url], Array.from({ length: 6 }, () => server.url), token)
  })

  test('SIGTERM ends open streams cleanly and the server exits 0', async () => {
    const database = newDatabase()
    const token = (await run(['tokens', 'create', '--name', 'feed', '--database', database])).stdout.trim()
    const server = await serve(database)
    const stream = await openStream(`${server.url}/events`, { authorization: `Bearer ${token}` })
    await createPlant(server.url, token, { id: 1, name: 'Fern' })
    await stream.until((events) => events.length === 1)
    const started = Date.now()
    assert.equal(await stop(server), 0)
    await stream.done
    assert.ok(stream.ended, 'the stream ended')
    assert.match(stream.raw, /data: \{"name":"Fern","id":1\}\n\n$/, 'after its last whole event')
    assert.ok(Date.now() - started < 5000, `stopped in ${Date.now() - started} ms`)
  })
})
