import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import fc from 'fast-check'
import { SQLITE_FILE } from '../databases.js'
import { buildWithToken, DATABASES } from '../helper.js'
import { assertSound } from '../sound-answers.js'

// Ids as JSON numbers, whatever their size (JSON.stringify cannot write a bigint).
const json = (value: unknown) => JSON.stringify(value, (_key, v: unknown) => typeof v === 'bigint' ? `#${v}#` : v).replace(/"#(-?\d+)#"/g, '$1')

const text = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.constantFrom('\uD800', '\u0000', '²', 'ʼ', 'Éléphant', '植物', '🌿', '', ' ', '*', '"', '\\', '%', "'", 'a:*', 'x'.repeat(300)))
const id = fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -3n, max: 3n }))
  .map(String)
const idText = fc.oneof(id, fc.constantFrom('9223372036854775808', '-9223372036854775809', '01', '-0', '1e3', 'x', ''))

// Filters from the grammar's own pieces, so that most are near-misses rather than noise.
const filterPiece = fc.oneof(fc.constantFrom('id', 'name', 'tag', '=', '!=', '<', '<=', '>', '>=', 'AND', 'OR', 'NOT', '-', '(', ')',
  ':', '*', 'tag:*', '"a*"', '"É*"', '"\\""', '"\\\\"', '"', 'colour', '-9223372036854775808', '9223372036854775807', '99999999999999999999'),
idText, text.map((s) => JSON.stringify(s)))
const noise = fc.array(filterPiece, { maxLength: 12 }).map((pieces) => pieces.join(' '))
const comparison = fc.oneof(
  fc.tuple(fc.constantFrom('=', '!=', '<', '<=', '>', '>='), idText).map(([op, value]) => `id ${op} ${value}`),
  fc.tuple(fc.constantFrom('name', 'tag'), fc.constantFrom('=', '!=', '<', '>='), fc.oneof({ arbitrary: fc.constantFrom('Boston', 'even', 'É', ''), weight: 3 }, { arbitrary: text, weight: 1 }), fc.boolean())
    .map(([field, op, value, prefix]) => `${field} ${op} ${JSON.stringify(value + (prefix ? '*' : ''))}`),
  fc.constant('tag:*'))
const wellFormed = fc.array(fc.tuple(fc.constantFrom('', 'NOT ', '-'), comparison), { minLength: 1, maxLength: 4 })
  .chain((terms) => fc.array(fc.constantFrom(' AND ', ' OR '), { minLength: terms.length - 1, maxLength: terms.length - 1 })
    .map((joins) => terms.map(([not, term], i) => (i === 0 ? '' : joins[i - 1]) + not + term).join('')))
const filter = fc.oneof({ arbitrary: wellFormed, weight: 3 }, { arbitrary: noise, weight: 1 })
// Each parameter present half the time, and mostly valid, so that most queries reach the store.
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, weight = 1, nilWeight = 1) => fc.oneof({ arbitrary: fc.constant(null), weight: nilWeight }, { arbitrary, weight })
const query = fc.record({
  filter: sometimes(filter),
  q: sometimes(fc.oneof({ arbitrary: fc.constantFrom('fern', 'élé', '植', 'bos fer', 'e'), weight: 3 }, { arbitrary: text, weight: 1 })),
  order_by: sometimes(fc.constantFrom('id', 'id desc', 'name', 'name desc', 'name desc', 'tag')),
  count: sometimes(fc.constantFrom('exact', 'estimated', 'exact', 'none')),
  limit: sometimes(fc.constantFrom('1', '2', '3', '100', '0')),
  tag: sometimes(fc.oneof({ arbitrary: fc.constant('even'), weight: 3 }, { arbitrary: text, weight: 1 })),
  cursor: fc.oneof({ arbitrary: fc.constant(null), weight: 12 }, { arbitrary: fc.constantFrom('e30', 'AAAA', ''), weight: 1 })
}, { requiredKeys: [] })
const smallId = fc.integer({ min: -3, max: 3 })
const name = fc.oneof({ arbitrary: fc.constantFrom('Fern', 'Éléphant ear', '植物', 'Fern 2', 'fern ²'), weight: 5 }, { arbitrary: text, weight: 1 })
const plantBody = fc.record({ id: fc.oneof(id.map(BigInt), fc.constant('7' as unknown as bigint)), name: fc.oneof(text, fc.constant(null)), tag: fc.oneof(text, fc.constant(null)) }, { requiredKeys: [] })
const hostileOperation = fc.record({
  method: fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE', 'GET', 'post'),
  path: fc.oneof(fc.constant('/plants'), idText.map((i) => `/plants/${i}`), fc.constantFrom('/plants/', '/batch', '/plants/1/x', '')),
  body: fc.option(fc.oneof(plantBody, fc.jsonValue({ maxDepth: 2 }))),
  ifMatch: fc.option(fc.oneof(text, fc.constant('*')))
}, { requiredKeys: ['method', 'path'] })
// Operations on a few ids, mostly well formed, so that they meet each other's plants.
const plausibleOperation = fc.tuple(fc.constantFrom('POST', 'PUT', 'PATCH', 'DELETE'), smallId, name, fc.option(name), sometimes(fc.constantFrom('*', '"nope"'), 1, 6))
  .map(([method, id, name, tag, ifMatch]) => ({
    method,
    path: method === 'POST' ? '/plants' : `/plants/${id}`,
    ...(method !== 'DELETE' && { body: { ...(method === 'POST' && { id }), name, ...(tag !== null && { tag }) } }),
    ...(ifMatch !== null && method !== 'POST' && { ifMatch })
  }))
const operation = fc.oneof({ arbitrary: plausibleOperation, weight: 6 }, { arbitrary: hostileOperation, weight: 1 })
for (const [db, database] of Object.entries({ ...DATABASES, 'sqlite file': SQLITE_FILE })) {
  describe(`hostile finding and batches on ${db}`, () => {
    test('random filters, searches, orders, counts and cursors on GET /plants: never a 5xx, always the Error shape', async (t) => {
      const { app, send } = await buildWithToken(t, { database })
      for (let i = 1; i <= 6; i++) assert.equal((await send('POST', '/plants', { id: i, name: ['Boston fern', 'Éléphant ear', '植物 garden'][i % 3], ...(i % 2 === 0 && { tag: 'even' }) })).statusCode, 200)
      const statuses = new Map<number, number>()
      await fc.assert(fc.asyncProperty(query, async (parameters) => {
        const search = new URLSearchParams(Object.entries(parameters).filter((entry): entry is [string, string] => entry[1] !== null && entry[1] !== undefined))
        const res = await send('GET', `/plants?${search}`)
        assertSound(res, parameters)
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
      }), { numRuns: 400 })
      assert.ok((statuses.get(200) ?? 0) > 100, `most queries are well formed enough to reach the store: ${[...statuses]}`)
      assert.equal((await app.inject('/healthz')).statusCode, 200)
    })

    test('random batches: never a 5xx, always the Error shape, and a refused batch writes nothing', async (t) => {
      const { send } = await buildWithToken(t, { database })
      const statuses = new Map<number, number>()
      const snapshot = async () => {
        const res = await send('GET', '/plants?limit=1000')
        return [res.body, res.headers['plantstore-event-position']]
      }
      const key = sometimes(fc.oneof({ arbitrary: fc.constantFrom('k1', 'k2', 'k3'), weight: 8 }, { arbitrary: fc.string({ unit: fc.constantFrom(...'ab1 -_~é\t'), maxLength: 8 }), weight: 1 }, { arbitrary: fc.constant('k'.repeat(256)), weight: 1 }))
      await fc.assert(fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 5 }), key, async (operations, key) => {
        const before = await snapshot()
        const res = await send('POST', '/batch', json({ operations }), key === null ? {} : { 'idempotency-key': key })
        assertSound(res, { operations, key })
        statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1)
        if (res.statusCode !== 200) assert.deepEqual(await snapshot(), before, 'a refused batch wrote no plant and no event')
      }), { numRuns: 300 })
      assert.ok((statuses.get(200) ?? 0) > 0 && (statuses.get(404) ?? 0) > 0 && (statuses.get(422) ?? 0) > 0, `batches that succeed, fail at the store and reuse a key: ${[...statuses]}`)
    })
  })
}
