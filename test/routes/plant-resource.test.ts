import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { buildWithToken, createToken, DATABASES } from '../helper.js'

const ids = (res: { json: () => Array<{ id: number }> }) => res.json().map((plant) => plant.id)

/** The next page's URL of a Link header, or undefined on the last page. */
function nextLink (header: unknown): string | undefined {
  return typeof header === 'string' ? /^<([^>]+)>; rel="next"$/.exec(header)?.[1] : undefined
}

for (const [db, database] of Object.entries(DATABASES)) {
  describe(`the plant resource on ${db}`, () => {
    test('GET /plants lists in id order, the original\'s array of Plant, default limit 100', async (t) => {
      const { send } = await buildWithToken(t, { database })
      for (const id of [5, -3, 9223372036854775807n, 1]) await send('POST', '/plants', `{"id": ${id}, "name": "p${id}"}`)
      const res = await send('GET', '/plants')
      assert.equal(res.statusCode, 200)
      assert.equal(res.body, '[{"name":"p-3","id":-3},{"name":"p1","id":1},{"name":"p5","id":5},{"name":"p9223372036854775807","id":9223372036854775807}]')
      assert.equal(res.headers.link, undefined, 'one page: no next link')
      const empty = await buildWithToken(t, { database })
      assert.deepEqual((await empty.send('GET', '/plants')).json(), [])
      for (let i = 0; i < 120; i++) await send('POST', '/plants', { id: 1000 + i, name: 'bulk' })
      assert.equal((await send('GET', '/plants')).json().length, 100)
    })

    test('limit, tag and after; the Link header walks the pages', async (t) => {
      const { send } = await buildWithToken(t, { database })
      for (let id = 1; id <= 7; id++) await send('POST', '/plants', { id, name: `p${id}`, tag: id % 2 === 0 ? 'even' : 'odd' })
      const first = await send('GET', '/plants?limit=3&tag=odd')
      assert.deepEqual(ids(first), [1, 3, 5])
      assert.equal(nextLink(first.headers.link), '/plants?limit=3&tag=odd&after=5')
      const second = await send('GET', nextLink(first.headers.link)!)
      assert.deepEqual(ids(second), [7])
      assert.equal(second.headers.link, undefined)
      assert.deepEqual(ids(await send('GET', '/plants?after=4')), [5, 6, 7])
      assert.deepEqual(ids(await send('GET', '/plants?after=9223372036854775807')), [])
      assert.deepEqual(ids(await send('GET', '/plants?tag=none')), [])
    })

    test('bad list parameters are 400 code 1001 naming the parameter', async (t) => {
      const { send } = await buildWithToken(t, { database })
      const cases: Array<[string, RegExp]> = [
        ['limit=0', /^query\/limit must be >= 1$/],
        ['limit=1001', /^query\/limit must be <= 1000$/],
        ['limit=abc', /^query\/limit must be integer$/],
        ['limit=1.5', /^query\/limit must be integer$/],
        ['after=abc', /^query\/after must be an int64 integer$/],
        ['after=9223372036854775808', /^query\/after must be an int64 integer$/],
        [`tag=${'t'.repeat(65)}`, /^query\/tag must NOT have more than 64 characters$/]
      ]
      for (const [query, message] of cases) {
        const res = await send('GET', `/plants?${query}`)
        assert.equal(res.statusCode, 400, query)
        assert.equal(res.json().error, 1001)
        assert.match(res.json().message, message)
      }
    })

    test('walking every page while plants are inserted between page reads returns each plant once', async (t) => {
      const { app, send } = await buildWithToken(t, { database })
      const total = 2500
      for (let id = 0; id < total; id++) await app.store.plants.create({ id: BigInt(id * 10), name: `p${id}` })
      const seen: number[] = []
      let url: string | undefined = '/plants?limit=250'
      let inserted = 0
      while (url !== undefined) {
        const res = await send('GET', url)
        assert.equal(res.statusCode, 200)
        seen.push(...ids(res))
        // Between page reads, add plants before the cursor (they must not shift the pages) and after it.
        await app.store.plants.create({ id: BigInt(-1 - inserted), name: 'behind' })
        await app.store.plants.create({ id: BigInt(total * 10 + inserted), name: 'ahead' })
        inserted++
        url = nextLink(res.headers.link)
      }
      assert.equal(new Set(seen).size, seen.length, 'no plant twice')
      assert.deepEqual(seen, [...seen].sort((a, b) => a - b), 'id order')
      for (let id = 0; id < total; id++) assert.ok(seen.includes(id * 10), `plant ${id * 10} listed`)
      assert.ok(seen.some((id) => id >= total * 10), 'plants added ahead of the cursor are reached')
      assert.ok(!seen.some((id) => id < 0), 'plants added behind the cursor do not shift pages')
    })

    test('GET /plants/{id}: 200 with an ETag, 404 code 3000, int64 exact in the path', async (t) => {
      const { send } = await buildWithToken(t, { database })
      await send('POST', '/plants', '{"id": 9223372036854775807, "name": "Max"}')
      const res = await send('GET', '/plants/9223372036854775807')
      assert.equal(res.statusCode, 200)
      assert.equal(res.body, '{"name":"Max","id":9223372036854775807}')
      assert.match(String(res.headers.etag), /^"[A-Za-z0-9_-]+"$/)
      const missing = await send('GET', '/plants/9223372036854775806')
      assert.equal(missing.statusCode, 404)
      assert.deepEqual(missing.json(), { error: 3000, message: 'plant 9223372036854775806 not found' })
      const cached = await send('GET', '/plants/9223372036854775807', undefined, { 'if-none-match': String(res.headers.etag) })
      assert.equal(cached.statusCode, 304)
      for (const bad of ['abc', '1.5', '9223372036854775808', '-9223372036854775809', '0x1F']) {
        const r = await send('GET', `/plants/${bad}`)
        assert.equal(r.statusCode, 400, bad)
        assert.deepEqual(r.json(), { error: 1001, message: 'params/id must be an int64 integer' })
      }
    })

    test('PUT /plants/{id} replaces name and tag; 404 when absent; a differing body id is 400', async (t) => {
      const { send } = await buildWithToken(t, { database })
      await send('POST', '/plants', { id: 1, name: 'Fern', tag: 'green' })
      const replaced = await send('PUT', '/plants/1', { name: 'Ivy' })
      assert.equal(replaced.statusCode, 200)
      assert.deepEqual(replaced.json(), { id: 1, name: 'Ivy' })
      assert.deepEqual((await send('GET', '/plants/1')).json(), { id: 1, name: 'Ivy' }, 'the tag is replaced too: removed')
      assert.equal((await send('PUT', '/plants/1', { id: 1, name: 'Oak', tag: 't' })).statusCode, 200, 'an equal body id is fine')
      const mismatch = await send('PUT', '/plants/1', { id: 2, name: 'Oak' })
      assert.equal(mismatch.statusCode, 400)
      assert.equal(mismatch.json().error, 1001)
      const absent = await send('PUT', '/plants/2', { name: 'Oak' })
      assert.deepEqual([absent.statusCode, absent.json().error], [404, 3000])
      const invalid = await send('PUT', '/plants/1', { name: '' })
      assert.deepEqual([invalid.statusCode, invalid.json().error], [400, 1001])
      const noBody = await send('PUT', '/plants/1')
      assert.deepEqual([noBody.statusCode, noBody.json()], [400, { error: 1001, message: 'body is required' }])
    })

    test('DELETE /plants/{id} is 204, then 404; the id can be created again', async (t) => {
      const { send } = await buildWithToken(t, { database })
      await send('POST', '/plants', { id: 1, name: 'Fern' })
      const deleted = await send('DELETE', '/plants/1')
      assert.equal(deleted.statusCode, 204)
      assert.equal(deleted.body, '')
      assert.deepEqual([(await send('DELETE', '/plants/1')).statusCode, (await send('GET', '/plants/1')).statusCode], [404, 404])
      assert.equal((await send('POST', '/plants', { id: 1, name: 'Other' })).statusCode, 200)
    })

    test('If-Match: two editors cannot silently overwrite each other; 412 code 3002 on a stale ETag', async (t) => {
      const { send } = await buildWithToken(t, { database })
      const created = await send('POST', '/plants', { id: 1, name: 'Fern' })
      const etag = String(created.headers.etag)
      assert.equal(etag, String((await send('GET', '/plants/1')).headers.etag), 'POST and GET agree on the ETag')
      const first = await send('PUT', '/plants/1', { name: 'Alice was here' }, { 'if-match': etag })
      assert.equal(first.statusCode, 200)
      assert.notEqual(first.headers.etag, etag)
      const second = await send('PUT', '/plants/1', { name: 'Bob was here' }, { 'if-match': etag })
      assert.equal(second.statusCode, 412)
      assert.equal(second.json().error, 3002)
      assert.equal((await send('GET', '/plants/1')).json().name, 'Alice was here')
      assert.equal((await send('DELETE', '/plants/1', undefined, { 'if-match': etag })).statusCode, 412)
      assert.equal((await send('DELETE', '/plants/1', undefined, { 'if-match': `W/${first.headers.etag}` })).statusCode, 412, 'weak tags never match')
      assert.equal((await send('PUT', '/plants/1', { name: 'Any' }, { 'if-match': '*' })).statusCode, 200)
      assert.equal((await send('PUT', '/plants/2', { name: 'Any' }, { 'if-match': '*' })).statusCode, 404)
      const current = String((await send('GET', '/plants/1')).headers.etag)
      assert.equal((await send('DELETE', '/plants/1', undefined, { 'if-match': `"x", ${current}` })).statusCode, 204)
    })

    test('If-None-Match on PUT and DELETE: `*` or the current ETag (weak comparison) is 412 and writes nothing; another tag writes', async (t) => {
      const { app, send } = await buildWithToken(t, { database })
      const created = await send('POST', '/plants', { id: 1, name: 'Fern' })
      const etag = String(created.headers.etag)
      const position = (await send('GET', '/plants/1')).headers['plantstore-event-position']
      for (const [method, body, ifNoneMatch] of [['PUT', { name: 'Palm' }, '*'], ['PUT', { name: 'Palm' }, etag], ['DELETE', undefined, `"x", W/${etag}`]] as const) {
        const refused = await send(method, '/plants/1', body, { 'if-none-match': ifNoneMatch })
        assert.equal(refused.statusCode, 412, `${method} If-None-Match: ${ifNoneMatch}`)
        assert.deepEqual(refused.json(), { error: 3002, message: `If-None-Match ${ifNoneMatch} matches the current ETag ${etag}` })
      }
      assert.deepEqual(await app.store.events.read({ after: BigInt(String(position)), limit: 10 }), [], 'no event written')
      assert.equal((await send('GET', '/plants/1')).json().name, 'Fern')
      // If-Match is evaluated first (RFC 9110 §13.2.2): a mismatch is reported as such.
      const both = await send('PUT', '/plants/1', { name: 'Palm' }, { 'if-match': '"stale"', 'if-none-match': '*' })
      assert.match(both.json().message, /^If-Match "stale" does not match/)
      const replaced = await send('PUT', '/plants/1', { name: 'Palm' }, { 'if-match': etag, 'if-none-match': '"other"' })
      assert.equal(replaced.statusCode, 200)
      assert.equal((await send('PUT', '/plants/2', { name: 'Any' }, { 'if-none-match': '*' })).statusCode, 404, 'no plant: the condition holds, and the replace finds nothing')
      assert.equal((await send('DELETE', '/plants/1', undefined, { 'if-none-match': etag })).statusCode, 204, 'the old tag no longer matches')
    })

    test('scopes: GET needs plants:read; POST, PUT and DELETE need plants:write', async (t) => {
      const { app, send } = await buildWithToken(t, { database })
      await send('POST', '/plants', { id: 1, name: 'Fern' })
      const reader = await createToken(app, { scopes: ['plants:read'] })
      const writer = await createToken(app, { scopes: ['plants:write'] })
      const as = (token: string) => ({ authorization: `Bearer ${token}` })
      assert.equal((await send('GET', '/plants', undefined, as(reader))).statusCode, 200)
      assert.equal((await send('GET', '/plants/1', undefined, as(reader))).statusCode, 200)
      for (const [method, url, body] of [['PUT', '/plants/1', { name: 'x' }], ['DELETE', '/plants/1', undefined], ['POST', '/plants', { id: 2, name: 'x' }]] as const) {
        const res = await send(method, url, body, as(reader))
        assert.deepEqual([res.statusCode, res.json().error], [403, 2002], `${method} ${url}`)
        assert.match(String(res.headers['www-authenticate']), /scope="plants:write"/)
      }
      for (const url of ['/plants', '/plants/1']) {
        const res = await send('GET', url, undefined, as(writer))
        assert.deepEqual([res.statusCode, res.json().error], [403, 2002])
        assert.match(String(res.headers['www-authenticate']), /scope="plants:read"/)
      }
      assert.equal((await send('PUT', '/plants/1', { name: 'x' }, as(writer))).statusCode, 200)
      assert.equal((await send('DELETE', '/plants/1', undefined, as(writer))).statusCode, 204)
      assert.equal((await app.inject({ method: 'GET', url: '/plants' })).statusCode, 401)
    })
  })
}
