import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { createPlantStoreClient } from '@plantstore/client'
import type { StoreEvent } from '@plantstore/client'
import { build, createToken, DATABASES } from '../helper.js'
import { openStream, sequences } from '../sse.js'
import { seededRandom } from '../random.js'

/** A stream owner with no token behind it and no expiry (the feed's own tests). */
const owner = (key: string) => ({ key, tokenId: null, expiresAt: null })

/** Every event of the log, read from the start in one go (the reference a stream is compared with). */
async function wholeLog (base: string, token: string, end: number) {
  const all = await openStream(`${base}/events?after=0`, { authorization: `Bearer ${token}` })
  assert.equal(all.response.status, 200)
  await all.until((events) => sequences(events).at(-1) === end, 10_000)
  await all.close()
  return sequences(all.events)
}

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`the event feed on ${db}`, () => {
    test('exactly once and in order across forced reconnects while creates, replaces and deletes run', async (t) => {
      // The reader reconnects every 20–120 ms: more opens than a token's default cap allows in a minute.
      const app = await build(t, { database, maxStreamsPerToken: '200' })
      const baseUrl = await app.listen({ port: 0, host: '127.0.0.1' })
      const token = await createToken(app)
      const writer = createPlantStoreClient({ baseUrl, token })
      // A fetch that drops each stream connection after a random 20–120 ms (seeded: the seed is printed).
      const random = seededRandom(t)
      const dropped = { count: 0 }
      const flaky: typeof fetch = async (input, init) => {
        const controller = new AbortController()
        init?.signal?.addEventListener('abort', () => controller.abort())
        const response = await fetch(input, { ...init, signal: controller.signal })
        setTimeout(() => { dropped.count++; controller.abort() }, 20 + random() * 100)
        return response
      }
      const reader = createPlantStoreClient({ baseUrl, token, fetch: flaky })
      const stop = new AbortController()
      const received: StoreEvent[] = []
      const following = (async () => {
        for await (const event of reader.events({ after: 0n, signal: stop.signal, reconnectMs: 5 })) received.push(event)
      })()
      // Writes go on until the stream has been dropped a few times.
      for (let round = 0; round < 2000 && (round < 150 || dropped.count < 8); round++) {
        const id = round % 40
        await writer.createPlant({ id, name: `P${round}` }).catch(() => {})
        if (round % 2 === 0) await writer.replacePlant(id, { name: `R${round}` }).catch(() => {})
        if (round % 5 === 0) await writer.deletePlant(id).catch(() => {})
      }
      const { position } = await writer.listPlants()
      const deadline = Date.now() + 10_000
      while (received.at(-1)?.sequence !== position && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20))
      stop.abort()
      await following
      assert.ok(dropped.count >= 8, `connections dropped: ${dropped.count}`)
      const got = received.map((event) => Number(event.sequence))
      assert.deepEqual(got, await wholeLog(baseUrl, await createToken(app), Number(position)), 'every event once, in order')
    })

    test('a stream that goes live while the feed is still reading the log\'s bounds gets every event after its cursor', async (t) => {
      const app = await build(t, { database })
      for (let i = 1; i <= 5; i++) await app.store.plants.create({ id: BigInt(i), name: `P${i}` })
      const log = app.store.events
      const bounds = log.bounds.bind(log)
      const { latest } = await bounds()
      // Nobody watches: the feed forgets its position.
      app.events.wake()
      await new Promise((resolve) => setImmediate(resolve))
      // The second read of the bounds (the feed's own) answers only after another event was committed.
      let release!: () => void
      const held = new Promise<void>((resolve) => { release = resolve })
      let calls = 0
      log.bounds = async () => {
        if (++calls === 2) await held
        return bounds()
      }
      const stream = app.events.createStream(owner('reader'), latest, undefined)
      let received = ''
      stream.body.on('data', (chunk) => { received += String(chunk) })
      const serving = app.events.serve(stream) // reads the bounds first, and goes live at them
      app.events.wake() // the feed's tail reads them second
      await serving
      assert.ok(stream.live)
      await app.store.plants.create({ id: 6n, name: 'P6' })
      release()
      await app.store.plants.create({ id: 7n, name: 'P7' })
      const deadline = Date.now() + 5000
      while (!received.includes(`id: ${latest + 2n}\n`) && Date.now() < deadline) {
        app.events.wake()
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
      stream.end()
      assert.equal(calls, 2)
      assert.deepEqual([...received.matchAll(/^id: (\d+)$/gm)].map((match) => BigInt(match[1]!)), [latest + 1n, latest + 2n])
    })

    test('a slow reader is cut after its last whole event, and resumes from there without loss', async (t) => {
      const app = await build(t, { database, streamBufferSize: '16384' })
      const base = await app.listen({ port: 0, host: '127.0.0.1' })
      const token = await createToken(app)
      // A stream whose reader reads nothing (a socket's kernel buffers would hold megabytes first).
      const stream = app.events.createStream(owner('slow reader'), 0n, undefined)
      // Live before anything is written (a stream still catching up waits for its reader instead).
      await app.events.serve(stream)
      const name = 'x'.repeat(250)
      for (let batch = 0; batch < 40 && !stream.ended; batch++) {
        await Promise.all(Array.from({ length: 50 }, (_, i) => app.store.plants.create({ id: BigInt(batch * 50 + i), name })))
        app.events.wake()
        await new Promise((resolve) => setTimeout(resolve, 5))
      }
      assert.ok(stream.ended, 'the slow stream was cut')
      let received = ''
      for await (const chunk of stream.body) received += String(chunk)
      assert.ok(received.length < 16384 + 1000, `held ${received.length} bytes`)
      const ids = [...received.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1]))
      assert.ok(ids.length > 10)
      assert.match(received, new RegExp(`id: ${ids.at(-1)}\\nevent: plant.created\\ndata: \\{"name":"x{250}","id":\\d+\\}\\n\\n$`), 'ends with a whole event')
      const position = Number((await app.inject({ url: '/plants?limit=1', headers: { authorization: `Bearer ${token}` } })).headers['plantstore-event-position'])
      assert.ok(ids.at(-1)! < position, `cut at ${ids.at(-1)} of ${position}`)
      const rest = await openStream(`${base}/events`, { authorization: `Bearer ${token}`, 'last-event-id': String(ids.at(-1)) })
      await rest.until((events) => sequences(events).at(-1) === position, 10_000)
      await rest.close()
      assert.deepEqual([...ids, ...sequences(rest.events)], await wholeLog(base, token, position))
    })

    test('retention deletes a prefix of the log; a resume from below it gets event: reset, then the oldest kept event', async (t) => {
      const app = await build(t, { database })
      const base = await app.listen({ port: 0, host: '127.0.0.1' })
      const token = await createToken(app)
      for (let id = 1; id <= 30; id++) await app.store.plants.create({ id: BigInt(id), name: `P${id}` })
      // Writes through the store are announced by their caller, as the routes do: on an in-memory store
      // nothing else tells the feed (no other connection changes data_version), and a stream joining
      // a feed whose position lags would wait for the next commit.
      app.events.wake()
      // Everything is past a retention of "now"; only the newest event must stay.
      const pruned = await app.store.events.prune(Date.now() + 1000, 20)
      assert.equal(pruned, 20)
      assert.equal(await app.store.events.prune(Date.now() + 1000, 500), 9)
      const { deletedThrough, latest } = await app.store.events.bounds()
      assert.equal(deletedThrough, 29n)
      assert.equal(latest, 30n)
      const stream = await openStream(`${base}/events?after=5`, { authorization: `Bearer ${token}` })
      await stream.until((events) => events.length === 2)
      await stream.close()
      assert.deepEqual(stream.events[0], { id: undefined, event: 'reset', data: '{"oldest":30,"relist":"/plants"}' })
      assert.deepEqual(sequences(stream.events), [30])
      // A resume at or above what was deleted is no reset.
      const fine = await openStream(`${base}/events?after=29`, { authorization: `Bearer ${token}` })
      await fine.until((events) => events.length === 1)
      await fine.close()
      assert.equal(fine.events[0]!.event, 'plant.created')
    })

    test('retention that deletes past a stream still catching up sends it event: reset, then the oldest kept event', async (t) => {
      const app = await build(t, { database })
      for (let id = 1; id <= 30; id++) await app.store.plants.create({ id: BigInt(id), name: `P${id}` })
      app.events.wake()
      // Retention runs once the stream has started, before the log is read for it.
      const log = app.store.events
      const read = log.readChecked.bind(log)
      // Once, whichever read comes first (the feed's own tail may read beside the stream).
      let pruned: Promise<number> | undefined
      log.readChecked = async (query, tokenIds) => {
        await (pruned ??= log.prune(Date.now() + 1000, 10))
        return read(query, tokenIds)
      }
      const stream = app.events.createStream(owner('reader'), 5n, undefined)
      let received = ''
      stream.body.on('data', (chunk) => { received += String(chunk) })
      await app.events.serve(stream)
      stream.end()
      assert.equal(await pruned, 10)
      assert.match(received, /^event: reset\ndata: \{"oldest":11,"relist":"\/plants"\}\n\nid: 11\n/)
      assert.deepEqual([...received.matchAll(/^id: (\d+)$/gm)].map((match) => Number(match[1])), Array.from({ length: 20 }, (_, i) => 11 + i))
    })

    test('retention keeps an event whose webhook delivery is pending, and everything after it', async (t) => {
      const app = await build(t, { database, webhookRetryBase: '1h' })
      await app.store.plants.create({ id: 1n, name: 'before' })
      // A subscriber that refuses connections: its delivery stays pending.
      await app.store.webhooks.addSubscription({ url: 'http://127.0.0.1:9/', secret: 'whsec_dGVzdA==', operator: true })
      await app.store.plants.create({ id: 2n, name: 'pending' })
      await app.store.plants.create({ id: 3n, name: 'after' })
      await app.store.plants.create({ id: 4n, name: 'newest' })
      assert.equal(await app.store.events.prune(Date.now() + 1000, 500), 1)
      assert.equal((await app.store.events.bounds()).deletedThrough, 1n)
      assert.deepEqual((await app.store.events.read({ after: 0n, limit: 10 })).map((event) => event.sequence), [2n, 3n, 4n])
    })
  })
}
