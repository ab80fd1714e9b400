import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { after, test } from 'node:test'
import { parseDatabaseUrl } from '../../src/config/config.js'
import { openStore } from '../../src/store/open-store.js'
import { buildWithToken } from '../helper.js'

const folder = mkdtempSync(join(tmpdir(), 'plantstore-read-cache-'))
after(() => rmSync(folder, { recursive: true, force: true }))

// Pages of GET /plants are kept in memory while SQLite's data_version says nothing changed: every
// write, from this process or another connection, must show in the next read.
test('a cached page of plants never outlives a committed write, from this process or another', async (t) => {
  const database = `sqlite:${join(folder, 'plants.db')}`
  const { send } = await buildWithToken(t, { database })
  const page = async () => (await send('GET', '/plants?limit=10')).body
  await send('POST', '/plants', { id: 1, name: 'Fern' })
  assert.equal(await page(), '[{"name":"Fern","id":1}]')
  assert.equal(await page(), '[{"name":"Fern","id":1}]', 'the same page again (now from the cache)')

  await send('POST', '/plants', { id: 2, name: 'Ivy' })
  assert.equal(await page(), '[{"name":"Fern","id":1},{"name":"Ivy","id":2}]', 'a create through the API')
  await send('PUT', '/plants/1', { name: 'Boston fern' })
  assert.equal(await page(), '[{"name":"Boston fern","id":1},{"name":"Ivy","id":2}]', 'a replace')
  await send('DELETE', '/plants/2')
  assert.equal(await page(), '[{"name":"Boston fern","id":1}]', 'a delete')

  // Another process's connection to the same file (as `plantstore import` or a second worker would be).
  const other = await openStore(parseDatabaseUrl(database))
  t.after(() => other.close())
  await other.plants.create({ id: 3n, name: 'Oak' })
  assert.equal(await page(), '[{"name":"Boston fern","id":1},{"name":"Oak","id":3}]', 'a create by another connection')
  await other.plants.replace({ id: 3n, name: 'Old oak' })
  assert.equal(await page(), '[{"name":"Boston fern","id":1},{"name":"Old oak","id":3}]', 'a replace by another connection')
})

test('a cached plant never outlives a committed write, and its ETag and position stay its own', async (t) => {
  const database = `sqlite:${join(folder, 'plant.db')}`
  const { send } = await buildWithToken(t, { database })
  const read = async (headers: Record<string, string> = {}) => {
    const answer = await send('GET', '/plants/1', undefined, headers)
    return { status: answer.statusCode, body: answer.body, etag: answer.headers.etag, position: answer.headers['plantstore-event-position'] }
  }
  assert.equal((await read()).status, 404)
  await send('POST', '/plants', { id: 1, name: 'Fern' })
  const first = await read()
  assert.deepEqual({ status: first.status, body: first.body, position: first.position }, { status: 200, body: '{"name":"Fern","id":1}', position: '1' })
  assert.deepEqual(await read(), first, 'the same answer again (now from the cache)')
  assert.equal((await read({ 'if-none-match': first.etag as string })).status, 304, 'a conditional GET answered from the cache')

  await send('PUT', '/plants/1', { name: 'Boston fern' })
  const replaced = await read()
  assert.equal(replaced.body, '{"name":"Boston fern","id":1}', 'a replace through the API')
  assert.notEqual(replaced.etag, first.etag)
  assert.equal(replaced.position, '2')
  assert.equal((await read({ 'if-none-match': first.etag as string })).status, 200, 'the old tag no longer matches')

  const other = await openStore(parseDatabaseUrl(database))
  t.after(() => other.close())
  await other.plants.replace({ id: 1n, name: 'Old fern' })
  const elsewhere = await read()
  assert.deepEqual({ body: elsewhere.body, position: elsewhere.position }, { body: '{"name":"Old fern","id":1}', position: '3' }, 'a replace by another connection')
  await other.plants.delete(1n)
  const gone = await read()
  assert.deepEqual({ status: gone.status, position: gone.position }, { status: 404, position: '4' }, 'a delete by another connection')
})
