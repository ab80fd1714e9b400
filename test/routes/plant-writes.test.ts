import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { TestContext } from 'node:test'
import { buildWithToken, createToken, DATABASES } from '../helper.js'
import type { App } from '../helper.js'
import { waitFor } from '../receiver.js'

const MERGE_PATCH = { 'content-type': 'application/merge-patch+json' }

/** The app, a writer's `send`, a PATCH, and the log position and plants as they stand (to show what a request wrote). */
async function setup (t: TestContext, database: string, raw: Record<string, string> = {}) {
  const { app, token, send } = await buildWithToken(t, { database, ...raw })
  const patch = (id: number | string, body: unknown, headers: Record<string, string> = {}) =>
    send('PATCH', `/plants/${id}`, body, { ...MERGE_PATCH, ...headers })
  const batch = (operations: unknown[], headers: Record<string, string> = {}) => send('POST', '/batch', { operations }, headers)
  const state = async () => {
    const page = await send('GET', '/plants?limit=1000')
    return { position: page.headers['plantstore-event-position'], plants: page.json() as unknown[] }
  }
  return { app, token, send, patch, batch, state }
}

/** The events after `position`, as GET /events?after= lists them without waiting (type and data). */
async function eventsAfter (app: App, position: unknown) {
  const events = await app.store.events.read({ after: BigInt(String(position)), limit: 10_000 })
  return events.map((event) => ({ sequence: event.sequence, type: event.type, data: JSON.parse(event.data) as { id: number } }))
}

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`PATCH /plants/{id} on ${db}`, () => {
    test('merge patch: a null tag removes it, an unknown field is ignored, and one event is written', async (t) => {
      const { app, send, patch, state } = await setup(t, database)
      await send('POST', '/plants', { id: 1, name: 'Fern', tag: 'shade' })
      const before = await state()
      const res = await patch(1, { tag: null, colour: 'green' })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), { id: 1, name: 'Fern' })
      assert.equal(res.headers.etag, (await send('GET', '/plants/1')).headers.etag)
      const events = await eventsAfter(app, before.position)
      assert.deepEqual(events.map((event) => event.type), ['plant.updated'])
      const renamed = await patch(1, { name: 'Boston fern' })
      assert.deepEqual(renamed.json(), { id: 1, name: 'Boston fern' })
    })

    test('{} and a patch to what is stored answer the plant and write no event', async (t) => {
      const { send, patch, state } = await setup(t, database)
      await send('POST', '/plants', { id: 2, name: 'Ivy', tag: 'vine' })
      const before = await state()
      assert.deepEqual((await patch(2, {})).json(), { id: 2, name: 'Ivy', tag: 'vine' })
      assert.equal((await patch(2, { name: 'Ivy', tag: 'vine' })).statusCode, 200)
      assert.equal((await state()).position, before.position)
    })

    test('a null name, a wrong id and a bad tag are 400; a missing plant is 404', async (t) => {
      const { send, patch } = await setup(t, database)
      await send('POST', '/plants', { id: 3, name: 'Aloe' })
      const nullName = await patch(3, { name: null })
      assert.equal(nullName.statusCode, 400)
      assert.match(nullName.json().message, /^body\/name /)
      assert.equal((await patch(3, { id: 4, name: 'Aloe' })).statusCode, 400)
      assert.equal((await patch(3, { tag: 'x'.repeat(65) })).statusCode, 400)
      assert.equal((await patch(3, '[1]')).statusCode, 400)
      const missing = await patch(99, { name: 'Nobody' })
      assert.equal(missing.statusCode, 404)
      assert.deepEqual(missing.json(), { error: 3000, message: 'plant 99 not found' })
    })

    test('application/json is 415 naming application/merge-patch+json; merge-patch is 415 on POST', async (t) => {
      const { send } = await setup(t, database)
      await send('POST', '/plants', { id: 5, name: 'Cactus' })
      const wrongType = await send('PATCH', '/plants/5', { tag: 'dry' })
      assert.equal(wrongType.statusCode, 415)
      assert.equal(wrongType.json().error, 1002)
      assert.match(wrongType.json().message, /send application\/merge-patch\+json$/)
      const mergeOnPost = await send('POST', '/plants', { id: 6, name: 'Cactus' }, MERGE_PATCH)
      assert.equal(mergeOnPost.statusCode, 415)
      assert.match(mergeOnPost.json().message, /send application\/json$/)
    })

    test('If-Match: a stale ETag is 412 and changes nothing; the current one patches', async (t) => {
      const { send, patch } = await setup(t, database)
      const created = await send('POST', '/plants', { id: 7, name: 'Palm' })
      const etag = created.headers.etag as string
      assert.equal((await patch(7, { tag: 'tall' }, { 'if-match': etag })).statusCode, 200)
      const stale = await patch(7, { tag: 'short' }, { 'if-match': etag })
      assert.equal(stale.statusCode, 412)
      assert.equal(stale.json().error, 3002)
      assert.deepEqual((await send('GET', '/plants/7')).json(), { id: 7, name: 'Palm', tag: 'tall' })
    })

    test('If-None-Match: the current ETag is 412 and patches nothing, also as a retry with its Idempotency-Key', async (t) => {
      const { send, patch } = await setup(t, database)
      const etag = (await send('POST', '/plants', { id: 7, name: 'Palm' })).headers.etag as string
      const refused = await patch(7, { tag: 'tall' }, { 'if-none-match': etag, 'idempotency-key': 'k1' })
      assert.equal(refused.statusCode, 412)
      assert.equal(refused.json().error, 3002)
      assert.deepEqual((await send('GET', '/plants/7')).json(), { id: 7, name: 'Palm' })
      const replayed = await patch(7, { tag: 'tall' }, { 'if-none-match': etag, 'idempotency-key': 'k1' })
      assert.deepEqual([replayed.statusCode, replayed.headers['idempotent-replayed']], [412, 'true'])
      const other = await patch(7, { tag: 'tall' }, { 'if-none-match': '"other"', 'idempotency-key': 'k1' })
      assert.equal(other.json().error, 1005, 'another If-None-Match is another request')
      assert.equal((await patch(7, { tag: 'tall' }, { 'if-none-match': '"other"' })).statusCode, 200)
    })
  })

  describe(`POST /batch on ${db}`, () => {
    test('operations apply in order, see each other, and write one event each with consecutive sequences', async (t) => {
      const { app, send, batch, state } = await setup(t, database)
      await send('POST', '/plants', { id: 10, name: 'Old' })
      const before = await state()
      const res = await batch([
        { method: 'POST', path: '/plants', body: { id: 11, name: 'Monstera' } },
        { method: 'PUT', path: '/plants/11', body: { name: 'Monstera deliciosa', tag: 'tropical' } },
        { method: 'PATCH', path: '/plants/11', body: { tag: null } },
        { method: 'POST', path: '/plants', body: { id: 11, name: 'Monstera deliciosa' } },
        { method: 'DELETE', path: '/plants/10' }
      ])
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), {
        results: [
          { status: 200, body: { id: 11, name: 'Monstera' } },
          { status: 200, body: { id: 11, name: 'Monstera deliciosa', tag: 'tropical' } },
          { status: 200, body: { id: 11, name: 'Monstera deliciosa' } },
          { status: 200, body: { id: 11, name: 'Monstera deliciosa' } },
          { status: 204 }
        ]
      })
      const events = await eventsAfter(app, before.position)
      assert.deepEqual(events.map((event) => `${event.type} ${event.data.id}`), ['plant.created 11', 'plant.updated 11', 'plant.updated 11', 'plant.deleted 10'])
      const first = Number(events[0]!.sequence)
      assert.deepEqual(events.map((event) => Number(event.sequence)), [first, first + 1, first + 2, first + 3])
      assert.deepEqual((await state()).plants, [{ id: 11, name: 'Monstera deliciosa' }])
    })

    for (const [where, at] of [['first', 0], ['middle', 2], ['last', 4]] as const) {
      test(`a batch failing at its ${where} operation writes nothing and answers that operation's error at its place`, async (t) => {
        const { app, send, batch, state } = await setup(t, database)
        // A subscriber of every event (on a closed loopback port): a failed batch writes it no delivery either.
        await app.store.webhooks.addSubscription({ url: 'http://127.0.0.1:9/hook', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw', operator: true, events: ['plant.created', 'plant.updated', 'plant.deleted'] })
        await send('POST', '/plants', { id: 20, name: 'Kept', tag: 'a' })
        const before = await state()
        const deliveries = (await app.store.webhooks.listDeliveries({ limit: 100 })).length
        assert.equal(deliveries, 1, 'the create before the batch has its delivery')
        const operations: unknown[] = [
          { method: 'POST', path: '/plants', body: { id: 21, name: 'New' } },
          { method: 'PATCH', path: '/plants/20', body: { tag: 'b' } },
          { method: 'DELETE', path: '/plants/21' },
          { method: 'PUT', path: '/plants/20', body: { name: 'Changed' } },
          { method: 'POST', path: '/plants', body: { id: 22, name: 'Another' } }
        ]
        operations[at] = { method: 'DELETE', path: '/plants/7' }
        const res = await batch(operations)
        assert.equal(res.statusCode, 404)
        assert.deepEqual(res.json(), { error: 3000, message: `operations/${at}: plant 7 not found` })
        assert.deepEqual(await state(), before)
        assert.equal((await app.store.webhooks.listDeliveries({ limit: 100 })).length, deliveries)
      })
    }

    test('concurrent batches, keyed and not, some failing: each all or nothing, its events consecutive, replays exact', async (t) => {
      const { app, send, batch, state } = await setup(t, database)
      await send('POST', '/plants', { id: 1, name: 'Taken' })
      const before = await state()
      // Arriving together (on PostgreSQL, run as one group commit): even ones succeed, odd ones fail at their last operation.
      const bodies = Array.from({ length: 12 }, (_, i) => [
        { method: 'POST', path: '/plants', body: { id: 100 + i * 10, name: `Batch ${i}` } },
        { method: 'PATCH', path: `/plants/${100 + i * 10}`, body: { tag: 'grouped' } },
        i % 2 === 0 ? { method: 'POST', path: '/plants', body: { id: 101 + i * 10, name: `Second ${i}` } } : { method: 'POST', path: '/plants', body: { id: 1, name: 'Other' } }
      ])
      const keyed = (i: number): Record<string, string> => i % 3 === 0 ? { 'idempotency-key': `group-${i}` } : {}
      const answers = await Promise.all(bodies.map((operations, i) => batch(operations, keyed(i))))
      answers.forEach((res, i) => assert.equal(res.statusCode, i % 2 === 0 ? 200 : 409, `batch ${i}: ${res.body}`))
      const events = await eventsAfter(app, before.position)
      assert.equal(events.length, 6 * 3)
      for (let i = 0; i < 12; i += 2) {
        const own = events.filter((event) => event.data.id === 100 + i * 10 || event.data.id === 101 + i * 10)
        assert.deepEqual(own.map((event) => event.type), ['plant.created', 'plant.updated', 'plant.created'], `batch ${i}`)
        assert.deepEqual(own.map((event) => Number(event.sequence) - Number(own[0]!.sequence)), [0, 1, 2], `batch ${i}'s events are consecutive`)
      }
      const stored = (await state()).plants as Array<{ id: number }>
      assert.deepEqual(stored.map((plant) => plant.id), [1, ...[0, 2, 4, 6, 8, 10].flatMap((i) => [100 + i * 10, 101 + i * 10])])
      // The keyed ones, replayed: the same answers, nothing written.
      const position = (await state()).position
      for (const i of [0, 3, 6, 9]) {
        const replay = await batch(bodies[i]!, keyed(i))
        assert.equal(replay.headers['idempotent-replayed'], 'true')
        assert.equal(replay.body, answers[i]!.body)
      }
      assert.equal((await state()).position, position)
    })

    test('a create repeated in one batch is a replay with the same content and a conflict with another, as across requests', async (t) => {
      const { send, batch, state } = await setup(t, database)
      await send('POST', '/plants', { id: 80, name: 'Stored' })
      const creates = (extra: unknown[]) => [
        { method: 'POST', path: '/plants', body: { id: 81, name: 'A' } },
        { method: 'POST', path: '/plants', body: { id: 80, name: 'Stored' } },
        { method: 'POST', path: '/plants', body: { id: 82, name: 'B' } },
        { method: 'POST', path: '/plants', body: { id: 81, name: 'A' } },
        ...extra
      ]
      const before = await state()
      const conflict = await batch(creates([{ method: 'POST', path: '/plants', body: { id: 82, name: 'Not B' } }]))
      assert.equal(conflict.statusCode, 409)
      assert.equal(conflict.json().message, 'operations/4: plant 82 exists with different content')
      assert.deepEqual(await state(), before)
      const replayed = await batch(creates([]))
      assert.deepEqual(replayed.json().results.map((result: { body: { id: number } }) => result.body.id), [81, 80, 82, 81])
      assert.equal((await state()).plants.length, 3)
    })

    test('a conflict and a failed precondition fail the batch with their own status', async (t) => {
      const { send, batch, state } = await setup(t, database)
      await send('POST', '/plants', { id: 30, name: 'Rose' })
      const before = await state()
      const conflict = await batch([{ method: 'POST', path: '/plants', body: { id: 31, name: 'Lily' } }, { method: 'POST', path: '/plants', body: { id: 30, name: 'Tulip' } }])
      assert.equal(conflict.statusCode, 409)
      assert.deepEqual(conflict.json(), { error: 3001, message: 'operations/1: plant 30 exists with different content' })
      const stale = await batch([{ method: 'DELETE', path: '/plants/30', ifMatch: '"stale"' }])
      assert.equal(stale.statusCode, 412)
      assert.match(stale.json().message, /^operations\/0: If-Match "stale" does not match/)
      assert.deepEqual(await state(), before)
    })

    test('each operation is validated as alone, before anything runs; 1,001 operations are 400', async (t) => {
      const { batch, state } = await setup(t, database)
      const before = await state()
      const cases: Array<[unknown[], RegExp]> = [
        [[{ method: 'POST', path: '/plants', body: { id: 1, name: 'A' } }, { method: 'POST', path: '/plants', body: { name: 'no id' } }], /^operations\/1: body\/id is required$/],
        [[{ method: 'PUT', path: '/plants/x', body: { name: 'A' } }], /^operations\/0: path must be \/plants\/\{id\}/],
        [[{ method: 'PATCH', path: '/plants/1' }], /^operations\/0: body is required$/],
        [[{ method: 'PUT', path: '/plants/1', body: { id: 2, name: 'A' } }], /^operations\/0: body\/id 2 must equal the id in the path, 1$/],
        [[{ method: 'GET', path: '/plants/1' }], /^body\/operations\/0\/method /],
        [[], /^body\/operations /],
        [Array.from({ length: 1001 }, (_, i) => ({ method: 'DELETE', path: `/plants/${i}` })), /^body\/operations must NOT have more than 1000 items$/]
      ]
      for (const [operations, message] of cases) {
        const res = await batch(operations)
        assert.equal(res.statusCode, 400, JSON.stringify(operations).slice(0, 80))
        assert.match(res.json().message, message)
      }
      assert.deepEqual(await state(), before)
    })

    test('a token without plants:write is 403; the batch body has a limit of its own', async (t) => {
      const { app, batch } = await setup(t, database, { batchBodyLimit: '2048' })
      const reader = await createToken(app, { scopes: ['plants:read'] })
      const refused = await app.inject({ method: 'POST', url: '/batch', headers: { authorization: `Bearer ${reader}`, 'content-type': 'application/json' }, payload: JSON.stringify({ operations: [{ method: 'DELETE', path: '/plants/1' }] }) })
      assert.equal(refused.statusCode, 403)
      const big = await batch(Array.from({ length: 50 }, (_, i) => ({ method: 'POST', path: '/plants', body: { id: i, name: 'A plant with a name' } })))
      assert.equal(big.statusCode, 413)
      assert.deepEqual(big.json(), { error: 1003, message: 'body is larger than the limit of 2048 bytes' })
    })
  })

  test(`on ${db}, search follows every write of a name: creates, renames and deletes, alone and in batches`, async (t) => {
    const { send, patch, batch } = await setup(t, database)
    const found = async (q: string) => ((await send('GET', `/plants?q=${encodeURIComponent(q)}`)).json() as Array<{ id: number }>).map((plant) => plant.id)
    await send('POST', '/plants', { id: 1, name: 'Boston fern' })
    await batch([{ method: 'POST', path: '/plants', body: { id: 2, name: 'Sword fern' } }, { method: 'POST', path: '/plants', body: { id: 3, name: 'Golden pothos' } }])
    assert.deepEqual(await found('fern'), [1, 2])
    await patch(1, { name: 'Boston ivy' })
    await send('PUT', '/plants/3', { name: 'Golden fern' })
    await batch([{ method: 'PATCH', path: '/plants/2', body: { tag: 'x' } }, { method: 'DELETE', path: '/plants/2' }])
    assert.deepEqual(await found('fern'), [3])
    assert.deepEqual(await found('ivy'), [1])
    assert.deepEqual(await found('pothos'), [])
    await send('DELETE', '/plants/1')
    assert.deepEqual(await found('boston'), [])
    // A failed batch leaves the index as it was.
    await batch([{ method: 'POST', path: '/plants', body: { id: 4, name: 'Rock fern' } }, { method: 'DELETE', path: '/plants/99' }])
    assert.deepEqual(await found('fern'), [3])
  })

  describe(`Idempotency-Key on ${db}`, () => {
    test('the same key and request is the first answer again, replayed, writing nothing', async (t) => {
      const { send, batch, state } = await setup(t, database)
      await send('POST', '/plants', { id: 40, name: 'Sage' })
      const key = { 'idempotency-key': 'batch-1' }
      const operations = [{ method: 'DELETE', path: '/plants/40' }, { method: 'POST', path: '/plants', body: { id: 41, name: 'Thyme' } }]
      const first = await batch(operations, key)
      assert.equal(first.statusCode, 200)
      assert.equal(first.headers['idempotent-replayed'], undefined)
      const after = await state()
      const again = await batch(operations, key)
      assert.equal(again.statusCode, 200)
      assert.equal(again.headers['idempotent-replayed'], 'true')
      assert.equal(again.body, first.body)
      assert.deepEqual(await state(), after)
      const deleted = await send('DELETE', '/plants/41', undefined, { 'idempotency-key': 'delete-41' })
      assert.equal(deleted.statusCode, 204)
      const redeleted = await send('DELETE', '/plants/41', undefined, { 'idempotency-key': 'delete-41' })
      assert.equal(redeleted.statusCode, 204, 'a retried delete is its first answer, not a 404')
      assert.equal(redeleted.headers['idempotent-replayed'], 'true')
    })

    test('another request under the same key is 422 code 1005; a failure is kept and replayed too', async (t) => {
      const { send, patch } = await setup(t, database)
      await send('POST', '/plants', { id: 50, name: 'Mint' })
      const key = { 'idempotency-key': 'patch-50' }
      const first = await patch(50, { tag: 'herb' }, key)
      assert.equal(first.statusCode, 200)
      assert.equal(first.headers.etag, (await send('GET', '/plants/50')).headers.etag)
      const replay = await patch(50, { tag: 'herb' }, key)
      assert.equal(replay.headers.etag, first.headers.etag)
      const other = await patch(50, { tag: 'weed' }, key)
      assert.equal(other.statusCode, 422)
      assert.equal(other.json().error, 1005)
      const missing = await send('DELETE', '/plants/404', undefined, { 'idempotency-key': 'gone' })
      assert.equal(missing.statusCode, 404)
      await send('POST', '/plants', { id: 404, name: 'Now here' })
      const replayedMissing = await send('DELETE', '/plants/404', undefined, { 'idempotency-key': 'gone' })
      assert.equal(replayedMissing.statusCode, 404)
      assert.equal(replayedMissing.headers['idempotent-replayed'], 'true')
    })

    test('a key is its token\'s: another token\'s same key is a request of its own', async (t) => {
      const { app, send } = await setup(t, database)
      await send('POST', '/plants', { id: 60, name: 'Basil' })
      await send('POST', '/plants', { id: 61, name: 'Dill' })
      const other = await createToken(app, { name: 'other' })
      assert.equal((await send('DELETE', '/plants/60', undefined, { 'idempotency-key': 'k' })).statusCode, 204)
      const theirs = await app.inject({ method: 'DELETE', url: '/plants/61', headers: { authorization: `Bearer ${other}`, 'idempotency-key': 'k' } })
      assert.equal(theirs.statusCode, 204)
      assert.equal(theirs.headers['idempotent-replayed'], undefined)
      assert.equal((await send('GET', '/plants/61')).statusCode, 404)
    })

    test('a retry while the first request runs is 409 code 3005, or the replay once it has answered', async (t) => {
      const { batch } = await setup(t, database)
      const operations = Array.from({ length: 200 }, (_, i) => ({ method: 'POST', path: '/plants', body: { id: 100 + i, name: `Plant ${i}` } }))
      const answers = await Promise.all([batch(operations, { 'idempotency-key': 'same' }), batch(operations, { 'idempotency-key': 'same' })])
      const statuses = answers.map((res) => res.statusCode).sort()
      assert.ok(statuses[0] === 200 && (statuses[1] === 409 || answers.every((res) => res.statusCode === 200)), statuses.join())
      const conflicted = answers.find((res) => res.statusCode === 409)
      if (conflicted !== undefined) assert.equal(conflicted.json().error, 3005)
      assert.equal(answers.filter((res) => res.statusCode === 200 && res.headers['idempotent-replayed'] === undefined).length, 1)
    })

    test('a malformed key is 400 and keeps nothing; keys expire after --idempotency-retention', async (t) => {
      const { app, send } = await setup(t, database, { idempotencyRetention: '1s' })
      for (const bad of ['', 'a b', 'é', 'x'.repeat(256)]) {
        const res = await send('DELETE', '/plants/1', undefined, { 'idempotency-key': bad })
        assert.equal(res.statusCode, 400, JSON.stringify(bad))
      }
      await send('POST', '/plants', { id: 70, name: 'Chive' })
      assert.equal((await send('DELETE', '/plants/70', undefined, { 'idempotency-key': 'short' })).statusCode, 204)
      // Replayed while kept; once expired, the same request runs again (and finds no plant).
      await waitFor(async () => (await send('DELETE', '/plants/70', undefined, { 'idempotency-key': 'short' })).statusCode === 404, 10_000, 'the key to expire')
      // Retention's purge deletes the key once it expires again.
      await waitFor(async () => await app.store.plants.purgeKeys(Date.now(), 500) === 1, 10_000, 'the expired key to be purged')
    })
  })
}
