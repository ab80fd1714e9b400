import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { build, createToken, DATABASES } from '../helper.js'
import { openStream } from '../sse.js'

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`filtered streams on ${db}`, () => {
    test('created, left, updated, deleted in order: a replace that leaves the filter, one that enters it, and a delete', async (t) => {
      const app = await build(t, { database })
      const base = await app.listen({ port: 0, host: '127.0.0.1' })
      const token = await createToken(app)
      const send = (method: string, path: string, body?: unknown) => fetch(base + path, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body !== undefined && { 'content-type': 'application/json' }) },
        ...(body !== undefined && { body: JSON.stringify(body) })
      }).then((res) => res.status)
      const filter = encodeURIComponent('tag = "tropical"')
      const filtered = await openStream(`${base}/events?filter=${filter}`, { authorization: `Bearer ${token}` })
      const all = await openStream(`${base}/events`, { authorization: `Bearer ${token}` })
      t.after(async () => { await filtered.close(); await all.close() })
      assert.equal(filtered.response.status, 200)
      assert.equal(await send('POST', '/plants', { id: 1, name: 'Monstera', tag: 'tropical' }), 200)
      assert.equal(await send('POST', '/plants', { id: 2, name: 'Cactus', tag: 'dry' }), 200) // never matches: not sent
      assert.equal(await send('PUT', '/plants/1', { name: 'Monstera', tag: 'indoor' }), 200) // leaves the filter
      assert.equal(await send('PUT', '/plants/1', { name: 'Monstera' }), 200) // still outside: nothing
      assert.equal(await send('PUT', '/plants/1', { name: 'Monstera', tag: 'tropical' }), 200) // enters it again
      assert.equal(await send('DELETE', '/plants/2'), 204) // was never in: nothing
      assert.equal(await send('DELETE', '/plants/1'), 204)
      await all.until((events) => events.length === 7)
      await filtered.until((events) => events.length === 4)
      assert.deepEqual(filtered.events.map((event) => [event.event, event.data]), [
        ['plant.created', '{"name":"Monstera","id":1,"tag":"tropical"}'],
        ['plant.left', '{"id":1}'],
        ['plant.updated', '{"name":"Monstera","id":1,"tag":"tropical"}'],
        ['plant.deleted', '{"id":1}']
      ])
      const ids = all.events.map((event) => event.id)
      assert.deepEqual(filtered.events.map((event) => event.id), [ids[0], ids[2], ids[4], ids[6]], 'each under its change\'s own id, so a resume is exact')
      assert.ok(!all.events.some((event) => event.event === 'plant.left'), 'unfiltered readers never get plant.left')

      // From the log (catching up), the same; and types may pick plant.left.
      const replay = await openStream(`${base}/events?after=0&filter=${filter}&types=plant.left,plant.deleted`, { authorization: `Bearer ${token}` })
      t.after(() => replay.close())
      await replay.until((events) => events.length === 2)
      assert.deepEqual(replay.events.map((event) => event.event), ['plant.left', 'plant.deleted'])
      const resumed = await openStream(`${base}/events?filter=${filter}`, { authorization: `Bearer ${token}`, 'last-event-id': ids[2]! })
      t.after(() => resumed.close())
      await resumed.until((events) => events.length === 2)
      assert.deepEqual(resumed.events.map((event) => event.event), ['plant.updated', 'plant.deleted'])
    })

    test('a bad filter is 400 naming the place; plant.left without a filter is 400', async (t) => {
      const app = await build(t, { database })
      const token = await createToken(app)
      const get = (url: string) => app.inject({ url, headers: { authorization: `Bearer ${token}` } })
      const bad = await get(`/events?filter=${encodeURIComponent('tag = ')}`)
      assert.equal(bad.statusCode, 400)
      assert.deepEqual(bad.json(), { error: 1001, message: 'query/filter: expected a value after "=" at character 7' })
      const left = await get('/events?types=plant.left')
      assert.equal(left.statusCode, 400)
      assert.match(left.json().message, /"plant\.left", not an event type it carries/)
    })
  })
}
