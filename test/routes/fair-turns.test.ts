import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { SQLITE_FILE, withStore } from '../databases.js'
import { build, createToken, DATABASES, freshDatabase } from '../helper.js'

const ADJECTIVES = ['Boston', 'Sword', 'Golden', 'Silver', 'Dwarf', 'Giant', 'Weeping', 'Royal', 'Rock', 'Snow']
const PLANTS = 60_000
// Every plant matches, sorted by name and counted: a page that reads the whole table.
const COSTLY = `/plants?order_by=name&count=exact&filter=${encodeURIComponent(ADJECTIVES.map((word) => `name = "${word}*"`).join(' OR '))}`

// A file, not :memory:, so that SQLite's pages are read as when serving: on their own thread.
const stores = { 'SQLite file': SQLITE_FILE, ...(DATABASES.postgres !== undefined && { PostgreSQL: DATABASES.postgres }) }

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
      const batch = (first: number) => ({ operations: Array.from({ length: 1000 }, (_, i) => ({ method: 'POST', path: '/plants', body: { id: first + i, name: `plant ${first + i}` } })) })
      const herBatches = Array.from({ length: 16 }, (_, i) => post(hers, '/batch', batch(i * 1000), `hers ${i}`))
      const hisCreate = post(his, '/plants', { id: -1, name: 'his' }, 'his create')
      const hisBatch = post(his, '/batch', batch(100_000), 'his batch')
      await Promise.all([...herBatches, hisCreate, hisBatch])
      // In arrival order both would come after all 16 of hers.
      assert.ok(finished.indexOf('his create') < finished.length / 2, `his create went ahead: ${finished.join(', ')}`)
      assert.ok(finished.indexOf('his batch') < finished.length / 2, `his batch took its turn: ${finished.join(', ')}`)
      const count = await app.inject({ method: 'GET', url: '/plants?limit=1&count=exact&filter=id%3E%3D0', headers: { authorization: `Bearer ${hers}` } })
      assert.equal(count.headers['x-total-count'], '17000')
    })
  })
}
