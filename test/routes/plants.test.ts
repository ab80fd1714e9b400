import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { buildWithToken, DATABASES } from '../helper.js'

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`POST /plants on ${db}`, () => {
    test('a valid NewPlant is 200 with the stored Plant, id included', async (t) => {
      const { send } = await buildWithToken(t, { database })
      const res = await send('POST', '/plants', { id: 1, name: 'Monstera', tag: 'tropical' })
      assert.equal(res.statusCode, 200)
      assert.match(res.headers['content-type'] as string, /^application\/json/)
      assert.deepEqual(res.json(), { id: 1, name: 'Monstera', tag: 'tropical' })
    })

    test('tag is optional and absent from the answer when not given', async (t) => {
      const { send } = await buildWithToken(t, { database })
      const res = await send('POST', '/plants', { id: 2, name: 'Fern' })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), { id: 2, name: 'Fern' })
    })

    test('unknown fields are ignored and not stored', async (t) => {
      const { send } = await buildWithToken(t, { database })
      const res = await send('POST', '/plants', { id: 3, name: 'Fern', colour: 'green' })
      assert.equal(res.statusCode, 200)
      assert.deepEqual(res.json(), { id: 3, name: 'Fern' })
      const replay = await send('POST', '/plants', { id: 3, name: 'Fern' })
      assert.equal(replay.statusCode, 200, 'the stored plant has no colour, so this is an identical replay')
    })

    test('the int64 extremes are stored and echoed with every digit', async (t) => {
      const { send } = await buildWithToken(t, { database })
      for (const id of ['9223372036854775807', '-9223372036854775808']) {
        const res = await send('POST', '/plants', `{"id": ${id}, "name": "Edge"}`)
        assert.equal(res.statusCode, 200)
        assert.match(res.body, new RegExp(`"id":${id}[,}]`))
      }
    })

    test('ids either side of 2^53 are two different plants', async (t) => {
      const { send } = await buildWithToken(t, { database })
      const a = await send('POST', '/plants', '{"id": 9007199254740992, "name": "A"}')
      const b = await send('POST', '/plants', '{"id": 9007199254740993, "name": "B"}')
      assert.equal(a.statusCode, 200)
      assert.equal(b.statusCode, 200, 'a double would make this a conflicting replay of 9007199254740992')
      assert.match(a.body, /"id":9007199254740992[,}]/)
      assert.match(b.body, /"id":9007199254740993[,}]/)
    })

    for (const [label, id] of [['2^63', '9223372036854775808'], ['-2^63-1', '-9223372036854775809'], ['a fraction', '1.5'],
      ['a string', '"7"'], ['null', 'null'], ['a boolean', 'true'], ['an object', '{}'], ['1e300', '1e300'], ['a huge literal', '1'.repeat(400)]]) {
      test(`an id that is ${label} is 400 code 1001 naming body/id`, async (t) => {
        const { send } = await buildWithToken(t, { database })
        const res = await send('POST', '/plants', `{"id": ${id}, "name": "Fern"}`)
        assert.equal(res.statusCode, 400)
        assert.deepEqual(res.json(), { error: 1001, message: 'body/id must be an int64 integer' })
      })
    }

    test('an identical replay is 200 with the stored plant; a different plant under that id is 409 code 3001', async (t) => {
      const { send } = await buildWithToken(t, { database })
      assert.equal((await send('POST', '/plants', { id: 7, name: 'Fern', tag: 'a' })).statusCode, 200)
      const replay = await send('POST', '/plants', { id: 7, name: 'Fern', tag: 'a' })
      assert.equal(replay.statusCode, 200)
      assert.deepEqual(replay.json(), { id: 7, name: 'Fern', tag: 'a' })
      for (const other of [{ id: 7, name: 'Ivy', tag: 'a' }, { id: 7, name: 'Fern' }, { id: 7, name: 'Fern', tag: 'b' }]) {
        const res = await send('POST', '/plants', other)
        assert.equal(res.statusCode, 409)
        assert.deepEqual(res.json(), { error: 3001, message: 'plant 7 exists with different content' })
      }
    })

    test('concurrent creates of one id: the database decides, one content wins and the rest conflict', async (t) => {
      const { send } = await buildWithToken(t, { database })
      const bodies = Array.from({ length: 40 }, (_, i) => ({ id: 99, name: i % 2 === 0 ? 'Even' : 'Odd' }))
      const answers = await Promise.all(bodies.map((body) => send('POST', '/plants', body)))
      const ok = answers.filter((res) => res.statusCode === 200)
      const conflicts = answers.filter((res) => res.statusCode === 409)
      assert.equal(ok.length + conflicts.length, 40)
      const winners = new Set(ok.map((res) => res.json().name))
      assert.equal(winners.size, 1, 'every 200 carries the one stored content')
      assert.equal(ok.length, 20, 'exactly the requests with the winning content are 200')
    })

    test('name and tag length limits of the document', async (t) => {
      const { send } = await buildWithToken(t, { database })
      assert.equal((await send('POST', '/plants', { id: 10, name: 'x'.repeat(256), tag: 't'.repeat(64) })).statusCode, 200)
      const cases: Array<[unknown, string]> = [
        [{ id: 11, name: '' }, 'body/name must NOT have fewer than 1 characters'],
        [{ id: 11, name: 'x'.repeat(257) }, 'body/name must NOT have more than 256 characters'],
        [{ id: 11, name: 'x', tag: 't'.repeat(65) }, 'body/tag must NOT have more than 64 characters'],
        [{ id: 11, name: null }, 'body/name must be string'],
        [{ id: 11, name: 'x', tag: null }, 'body/tag must be string'],
        [{ id: 11, name: 5 }, 'body/name must be string'],
        [{ name: 'x' }, 'body/id is required'],
        [{ id: 11 }, 'body/name is required'],
        [[{ id: 11, name: 'x' }], 'body must be object'],
        ['"text"', 'body must be object']
      ]
      for (const [payload, message] of cases) {
        const res = await send('POST', '/plants', payload)
        assert.equal(res.statusCode, 400, JSON.stringify(payload))
        assert.deepEqual(res.json(), { error: 1001, message })
      }
    })

    test('lengths count characters, not UTF-16 units: 256 emoji are a valid name', async (t) => {
      const { send } = await buildWithToken(t, { database })
      assert.equal((await send('POST', '/plants', { id: 12, name: '🌿'.repeat(256) })).statusCode, 200)
    })
  })
}
