import assert from 'node:assert/strict'
import { test } from 'node:test'
// Through the package's own export, as a user imports it: the built client and its generated types.
import { createPlantStoreClient, PlantStoreError } from '@plantstore/client'
import { build, createToken } from '../helper.js'
import { startReceiver, waitFor } from '../receiver.js'

test('the typed client against a running server: create, pages, read, replace, delete, errors, int64 edge', async (t) => {
  const app = await build(t)
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
  const client = createPlantStoreClient({ baseUrl, token: await createToken(app) })

  const max = await client.createPlant({ id: 9223372036854775807n, name: 'Edge', tag: 'int64' })
  assert.deepEqual(max, { id: 9223372036854775807n, name: 'Edge', tag: 'int64' })
  assert.deepEqual((await client.getPlant(9223372036854775807n)).plant, max)
  assert.deepEqual(await client.createPlant({ id: 9007199254740993n, name: 'Above 2^53' }), { id: 9007199254740993n, name: 'Above 2^53' })
  for (let id = 1; id <= 25; id++) await client.createPlant({ id, name: `plant ${id}`, tag: id % 2 === 0 ? 'even' : 'odd' })

  const first = await client.listPlants({ limit: 10 })
  assert.deepEqual(first.plants.map((p) => p.id), Array.from({ length: 10 }, (_, i) => BigInt(i + 1)))
  assert.deepEqual(first.next, { limit: 10, after: 10n })
  const all = []
  for await (const plant of client.allPlants({ limit: 7 })) all.push(plant.id)
  assert.equal(all.length, 27)
  assert.equal(all.at(-1), 9223372036854775807n)
  const odd = []
  for await (const plant of client.allPlants({ limit: 4, tag: 'odd' })) odd.push(plant.id)
  assert.equal(odd.length, 13)
  const found = await client.listPlants({ filter: 'name = "plant 1*" AND tag = "odd"', orderBy: 'name desc', count: 'exact', limit: 3 })
  assert.deepEqual(found.plants.map((p) => p.name), ['plant 19', 'plant 17', 'plant 15'])
  assert.equal(found.total, 6, 'plant 1, 11, 13, 15, 17, 19')
  assert.equal(found.next?.orderBy, 'name desc')
  assert.ok(found.next?.cursor !== undefined)
  const rest = []
  for await (const plant of client.plants({ ...found.next })) rest.push(plant.name)
  assert.deepEqual(rest, ['plant 13', 'plant 11', 'plant 1'])
  assert.deepEqual((await client.listPlants({ q: 'PLANT 2', orderBy: 'name' })).plants.map((p) => p.name), ['plant 2', 'plant 20', 'plant 21', 'plant 22', 'plant 23', 'plant 24', 'plant 25'])

  const { etag } = await client.getPlant(3)
  const replaced = await client.replacePlant(3, { name: 'Renamed' }, { ifMatch: etag })
  assert.deepEqual(replaced.plant, { id: 3n, name: 'Renamed' })
  await assert.rejects(client.replacePlant(3, { name: 'Lost update' }, { ifMatch: etag }),
    (error: unknown) => error instanceof PlantStoreError && error.status === 412 && error.error === 3002)
  await assert.rejects(client.deletePlant(3, { ifNoneMatch: replaced.etag }),
    (error: unknown) => error instanceof PlantStoreError && error.status === 412 && error.message.startsWith('If-None-Match'))
  await client.deletePlant(3, { ifMatch: replaced.etag })
  await assert.rejects(client.getPlant(3), (error: unknown) =>
    error instanceof PlantStoreError && error.status === 404 && error.error === 3000 && error.message === 'plant 3 not found' &&
    typeof error.requestId === 'string')
  await assert.rejects(client.createPlant({ id: 4, name: 'Different' }),
    (error: unknown) => error instanceof PlantStoreError && error.status === 409 && error.error === 3001)
  await assert.rejects(client.getPlant(2 ** 53 + 2), TypeError, 'an unsafe number id is refused before it is sent')

  const stranger = createPlantStoreClient({ baseUrl, token: 'ps_' + 'x'.repeat(43) })
  await assert.rejects(stranger.listPlants(), (error: unknown) => error instanceof PlantStoreError && error.status === 401 && error.error === 2001)
})

test('the typed client manages webhook subscriptions: create, list, rotate, deliveries, redeliver, delete', async (t) => {
  const receiver = await startReceiver()
  t.after(() => receiver.close())
  const app = await build(t, { webhookAllowPrivate: 'true' })
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
  const client = createPlantStoreClient({ baseUrl, token: await createToken(app) })
  const created = await client.createWebhook({ url: receiver.url, description: 'typed' })
  assert.match(created.secret, /^whsec_/)
  assert.deepEqual((await client.listWebhooks()).map((s) => s.id), [created.id])
  assert.equal((await client.getWebhook(created.id)).description, 'typed')
  await client.createPlant({ id: 9223372036854775807n, name: 'Edge' })
  await waitFor(async () => (await client.listWebhookDeliveries(created.id)).deliveries[0]?.state === 'delivered', 5000, 'the delivery')
  const { deliveries } = await client.listWebhookDeliveries(created.id, { limit: 1 })
  assert.equal(deliveries[0]!.plantId, 9223372036854775807n, 'the plant id exact')
  await client.redeliverWebhookEvent(created.id, deliveries[0]!.id)
  await waitFor(() => receiver.received.length === 2, 5000, 'the redelivery')
  assert.notEqual((await client.rotateWebhookSecret(created.id)).secret, created.secret)
  const changed = await client.updateWebhook(created.id, { events: ['plant.deleted'], maxPerSecond: 5, state: 'disabled' })
  assert.deepEqual([changed.events, changed.maxPerSecond, changed.state], [['plant.deleted'], 5, 'disabled'])
  assert.equal(await client.recoverWebhook(created.id, new Date(0)), 0, 'nothing failed')
  await client.deleteWebhook(created.id)
  await assert.rejects(client.getWebhook(created.id), (error: unknown) => error instanceof PlantStoreError && error.status === 404)
})

test('the typed client patches and batches, and retries a lost answer under one key: exactly once', async (t) => {
  const app = await build(t)
  const baseUrl = await app.listen({ host: '127.0.0.1', port: 0 })
  const token = await createToken(app)
  const client = createPlantStoreClient({ baseUrl, token })
  await client.createPlant({ id: 1, name: 'Fern', tag: 'shade' })
  const patched = await client.patchPlant(1, { tag: null })
  assert.deepEqual(patched.plant, { id: 1n, name: 'Fern' })
  assert.equal(patched.etag, (await client.getPlant(1)).etag)
  await assert.rejects(client.patchPlant(1, { name: 'Stale' }, { ifMatch: '"stale"' }),
    (error: unknown) => error instanceof PlantStoreError && error.status === 412)

  const results = await client.batch([
    { op: 'create', plant: { id: 9223372036854775807n, name: 'Edge' } },
    { op: 'patch', id: 9223372036854775807n, patch: { tag: 'int64' } },
    { op: 'replace', id: 1, content: { name: 'Boston fern' }, ifMatch: patched.etag },
    { op: 'delete', id: 1 }
  ])
  assert.deepEqual(results, [
    { status: 200, plant: { id: 9223372036854775807n, name: 'Edge' } },
    { status: 200, plant: { id: 9223372036854775807n, name: 'Edge', tag: 'int64' } },
    { status: 200, plant: { id: 1n, name: 'Boston fern' } },
    { status: 204 }
  ])
  await assert.rejects(client.batch([{ op: 'create', plant: { id: 2, name: 'Ivy' } }, { op: 'delete', id: 1 }]),
    (error: unknown) => error instanceof PlantStoreError && error.status === 404 && error.message === 'operations/1: plant 1 not found')
  assert.deepEqual((await client.listPlants()).plants.map((plant) => plant.id), [9223372036854775807n], 'the failed batch wrote nothing')

  // A network that loses the first answer (after the server committed), and one that answers 503 once.
  let lost = 0
  const losing: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    if (lost++ === 0) throw new TypeError('fetch failed: the answer was lost')
    return response
  }
  const flaky = createPlantStoreClient({ baseUrl, token, fetch: losing })
  const before = (await client.listPlants()).position!
  const retried = await flaky.batch([{ op: 'create', plant: { id: 3, name: 'Sage' } }, { op: 'delete', id: 9223372036854775807n }])
  assert.deepEqual(retried, [{ status: 200, plant: { id: 3n, name: 'Sage' } }, { status: 204 }], 'the retry got the first answer, not a 404')
  assert.equal(lost, 2)
  assert.equal((await client.listPlants()).position, before + 2n, 'two events: the batch ran once')
  let busy = 0
  const unavailable: typeof fetch = async (input, init) => busy++ === 0
    ? new Response('{"error":5001,"message":"storage unavailable"}', { status: 503 })
    : fetch(input, init)
  await createPlantStoreClient({ baseUrl, token, fetch: unavailable }).deletePlant(3)
  assert.equal(busy, 2)
})
