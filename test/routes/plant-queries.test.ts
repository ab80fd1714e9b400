import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import type { TestContext } from 'node:test'
import { SQLITE_FILE } from '../databases.js'
import { buildWithToken, DATABASES } from '../helper.js'
import { seededRandom } from '../random.js'
import { parseFilter } from '../../src/contract/filter.js'
import { matches } from '../../src/contract/filter-match.js'
import { nameMatcher, searchWords } from '../../src/contract/search.js'
import type { Plant } from '../../src/contract/plant.js'
import { INT64_MAX, INT64_MIN } from '../../src/contract/int64.js'

const WORDS = ['Monstera', 'monstera', 'Fern', 'fern', 'Boston fern', 'Éléphant', 'elephant', 'Ōkami', 'Ficus', 'Ficus 🌿', '🌿', '植物', '植', 'a*b', 'Say "hi"', 'back\\slash', 'Zz', '\uFFFD', '\u{1F600} smile']
const TAGS = ['tropical', 'Tropical', 'dry', 'trop', '多肉', '🌵']
const ORDERS = ['id', 'id desc', 'name', 'name desc'] as const

/** A few thousand plants: ids over the whole int64 range, names with accents, case, emoji and CJK, a third without a tag. */
function plantsFrom (random: () => number, count: number): Plant[] {
  const pick = <T> (list: readonly T[]) => list[Math.floor(random() * list.length)]!
  const ids = new Set<bigint>([INT64_MIN, INT64_MAX, 0n, -1n, 1n])
  while (ids.size < count) ids.add(BigInt.asIntN(64, BigInt(Math.floor(random() * 2 ** 32)) << 32n | BigInt(Math.floor(random() * 2 ** 32))))
  return [...ids].map((id) => {
    const name = random() < 0.5 ? pick(WORDS) : `${pick(WORDS)} ${Math.floor(random() * 100)}`
    return random() < 1 / 3 ? { id, name } : { id, name, tag: pick(TAGS) }
  })
}

const quoted = (value: string) => `"${value.replace(/[\\"]/g, (c) => `\\${c}`)}"`

/** A random filter over the plants' own values (so that it matches some), up to two levels deep. */
function filterFrom (random: () => number, plants: Plant[], depth = 0): string {
  const pick = <T> (list: readonly T[]) => list[Math.floor(random() * list.length)]!
  const roll = random()
  if (depth < 2 && roll < 0.3) {
    const joiner = random() < 0.5 ? ' AND ' : ' OR '
    return `(${filterFrom(random, plants, depth + 1)}${joiner}${filterFrom(random, plants, depth + 1)})`
  }
  if (depth < 2 && roll < 0.4) return `${random() < 0.5 ? 'NOT ' : '-'}${filterFrom(random, plants, depth + 1)}`
  const plant = pick(plants)
  const op = pick(['=', '!=', '<', '<=', '>', '>='])
  const field = pick(['id', 'name', 'name', 'tag', 'tag', 'has'])
  if (field === 'has') return 'tag:*'
  if (field === 'id') return `id ${op} ${plant.id}`
  const value = field === 'name' ? plant.name : plant.tag ?? pick(TAGS)
  if ((op === '=' || op === '!=') && random() < 0.5) return `${field} ${op} ${quoted([...value].slice(0, 1 + Math.floor(random() * 6)).join(''))}*`.replace(/"\*$/, '*"')
  return `${field} ${op} ${quoted(value)}`
}

/** A search for words of a plant's name: the start of one or two of them, in another case or with its accents removed. */
function searchFrom (random: () => number, plants: Plant[]): string | undefined {
  const words = plants[Math.floor(random() * plants.length)]!.name.split(/[^\p{L}\p{N}]+/u).filter((word) => word !== '')
  if (words.length === 0) return undefined
  const chosen = words.filter(() => random() < 0.7).slice(0, 2)
  const picked = chosen.length === 0 ? [words[0]!] : chosen
  return picked.map((word) => {
    const start = [...word].slice(0, 1 + Math.floor(random() * 4)).join('')
    const roll = random()
    return roll < 0.3 ? start.toUpperCase() : roll < 0.6 ? start.normalize('NFKD').replace(/\p{M}/gu, '') : start
  }).join(random() < 0.5 ? ' ' : ', ')
}

/** The ids the rules give, in the order's sequence. */
function expected (plants: Plant[], filter: string | undefined, tag: string | undefined, order: typeof ORDERS[number], q?: string): string[] {
  const tree = filter === undefined ? undefined : parseFilter(filter)
  const named = q === undefined ? undefined : nameMatcher(searchWords(q))
  const byId = (a: Plant, b: Plant) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  // Names by their UTF-8 bytes, which is code point order, independently of the service's comparison.
  const compareCodePoints = (a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b))
  const sorted = plants
    .filter((plant) => (tag === undefined || plant.tag === tag) && (tree === undefined || matches(tree, plant)) && (named === undefined || named(plant.name)))
    .sort((a, b) => order.startsWith('name') ? compareCodePoints(a.name, b.name) || byId(a, b) : byId(a, b))
  if (order.endsWith('desc')) sorted.reverse()
  return sorted.map((plant) => String(plant.id))
}

async function seeded (t: TestContext, database: string, count: number) {
  const random = seededRandom(t)
  const built = await buildWithToken(t, { database })
  const plants = plantsFrom(random, count)
  for (let i = 0; i < plants.length; i += 500) await Promise.all(plants.slice(i, i + 500).map((plant) => built.app.store.plants.create(plant)))
  return { ...built, random, plants }
}

for (const [db, database] of Object.entries({ ...DATABASES, 'sqlite file': SQLITE_FILE })) {
  describe(`finding plants on ${db}`, () => {
    test('random filters, searches, orders and page sizes: every page followed gives exactly the ids the rules give, and the count', async (t) => {
      const { send, random, plants } = await seeded(t, database, 3000)
      for (let round = 0; round < 60; round++) {
        const filter = random() < 0.1 ? undefined : filterFrom(random, plants)
        const order = ORDERS[Math.floor(random() * ORDERS.length)]!
        const tag = random() < 0.15 ? TAGS[0] : undefined
        const limit = [1, 7, 100, 1000][Math.floor(random() * 4)]!
        const q = random() < 0.35 ? searchFrom(random, plants) : undefined
        const want = expected(plants, filter, tag, order, q)
        const params = new URLSearchParams({ limit: String(limit), order_by: order, count: 'exact' })
        if (filter !== undefined) params.set('filter', filter)
        if (q !== undefined) params.set('q', q)
        if (tag !== undefined) params.set('tag', tag)
        let url: string | undefined = `/plants?${params}`
        const got: string[] = []
        let pages = 0
        while (url !== undefined && pages++ < 3100) {
          const res = await send('GET', url)
          assert.equal(res.statusCode, 200, `${url}: ${res.body}`)
          assert.equal(res.headers['x-total-count'], String(want.length), `the count of ${filter} (${order})`)
          for (const match of res.body.matchAll(/"id":(-?\d+)/g)) got.push(match[1]!)
          url = /^<([^>]+)>; rel="next"$/.exec(String(res.headers.link ?? ''))?.[1]
          if (limit === 1 && pages > 30) break // a long walk of single plants: its start is enough
        }
        if (limit === 1 && pages > 30) assert.deepEqual(got, want.slice(0, got.length), `${filter} (${order}, limit ${limit})`)
        else assert.deepEqual(got, want, `${filter} (${order}, limit ${limit}, tag ${tag}, q ${q})`)
      }
    })

    test('a bad filter is 400 code 1001 naming the place; a cursor with another query, or after outside id order, is 400', async (t) => {
      const { send } = await buildWithToken(t, { database })
      for (let id = 1; id <= 3; id++) assert.equal((await send('POST', '/plants', { id, name: `Plant ${id}` })).statusCode, 200)
      const bad = await send('GET', `/plants?filter=${encodeURIComponent('name = ')}`)
      assert.equal(bad.statusCode, 400)
      assert.deepEqual(bad.json(), { error: 1001, message: 'query/filter: expected a value after "=" at character 8' })
      const first = await send('GET', '/plants?limit=1&order_by=name%20desc')
      const next = /^<([^>]+)>; rel="next"$/.exec(String(first.headers.link))![1]!
      assert.match(next, /cursor=/)
      assert.equal((await send('GET', next)).statusCode, 200)
      const other = await send('GET', next.replace('order_by=name+desc', 'order_by=name'))
      assert.equal(other.statusCode, 400)
      assert.equal(other.json().error, 1001)
      assert.match(other.json().message, /^query\/cursor belongs to another query/)
      assert.equal((await send('GET', `${next}&filter=id%3E0`)).statusCode, 400, 'the cursor is bound to its filter')
      assert.equal((await send('GET', '/plants?cursor=nonsense&order_by=name')).json().message, 'query/cursor is not a cursor this server gave; follow the Link header')
      assert.equal((await send('GET', '/plants?order_by=name&after=1')).statusCode, 400)
      assert.equal((await send('GET', '/plants?order_by=size')).json().message, 'query/order_by must be one of "id", "id desc", "name", "name desc"')
      assert.equal((await send('GET', '/plants?tag=a&tag=b')).json().message, 'query/tag may be given only once')
    })

    test('a thousand NOTs within the length limit are a filter like any other, not a 500', async (t) => {
      const { send } = await buildWithToken(t, { database })
      for (let id = 1; id <= 4; id++) assert.equal((await send('POST', '/plants', { id, name: `Plant ${id}`, ...(id % 2 === 0 && { tag: 'even' }) })).statusCode, 200)
      const ids = async (filter: string) => {
        const res = await send('GET', `/plants?filter=${encodeURIComponent(filter)}`)
        assert.equal(res.statusCode, 200, res.body)
        return (res.json() as Plant[]).map((plant) => plant.id)
      }
      assert.deepEqual(await ids(`${'-'.repeat(1000)}tag:*`), [2, 4])
      assert.deepEqual(await ids(`${'-'.repeat(999)}tag:*`), [1, 3])
      assert.deepEqual(await ids(`${'NOT ('.repeat(101)}id > 1${')'.repeat(101)}`), [1])
      // A comparison on a missing tag is false, so NOT of it holds, however the comparison is combined.
      assert.deepEqual(await ids('tag != "even" OR tag = "even"'), [2, 4])
      assert.deepEqual(await ids('NOT (tag != "even" OR tag = "even")'), [1, 3])
      assert.deepEqual(await ids('NOT (tag = "e*" AND id > 0)'), [1, 3])
      assert.deepEqual(await ids('NOT (tag < "z" OR id > 2)'), [1])
      assert.deepEqual(await ids('NOT NOT (tag >= "a" OR id = 1)'), [1, 2, 4])
    })

    test('count=exact counts the whole query, not the page; without count there is no header; plain lists are as before', async (t) => {
      const { send } = await buildWithToken(t, { database })
      for (let id = 1; id <= 5; id++) assert.equal((await send('POST', '/plants', { id, name: `Plant ${id}`, ...(id % 2 === 0 && { tag: 'even' }) })).statusCode, 200)
      const counted = await send('GET', '/plants?limit=1&count=exact&filter=NOT%20tag%3A*')
      assert.equal(counted.headers['x-total-count'], '3')
      assert.equal(counted.json().length, 1)
      assert.match(String(counted.headers.link), /count=exact/)
      assert.equal((await send('GET', '/plants?count=estimated')).headers['x-total-count'] !== undefined, true)
      const plain = await send('GET', '/plants?limit=2')
      assert.equal(plain.headers['x-total-count'], undefined)
      assert.equal(plain.headers.link, '</plants?limit=2&after=2>; rel="next"')
    })
  })
}

for (const [db, database] of Object.entries(DATABASES)) {
  test(`q on ${db}: word prefixes in names, case- and accent-insensitive, with a filter; words and length bounded`, async (t) => {
    const { send } = await buildWithToken(t, { database })
    const names = ['Boston fern', 'Éléphant ear', 'Fernleaf', 'Sword fern', 'Elephant bush', '植物 garden']
    for (const [i, name] of names.entries()) assert.equal((await send('POST', '/plants', { id: i + 1, name, ...(i % 2 === 0 && { tag: 'even' }) })).statusCode, 200)
    const names0 = async (query: string) => ((await send('GET', `/plants?${query}`)).json() as Plant[]).map((plant) => plant.name)
    assert.deepEqual(await names0('q=bos%20fer'), ['Boston fern'])
    assert.deepEqual(await names0('q=FERN&order_by=name'), ['Boston fern', 'Fernleaf', 'Sword fern'])
    assert.deepEqual(await names0('q=elep'), ['Éléphant ear', 'Elephant bush'])
    assert.deepEqual(await names0('q=%C3%A9l%C3%A9'), ['Éléphant ear', 'Elephant bush'])
    assert.deepEqual(await names0('q=ern'), [], 'a word matches the start of a word only')
    assert.deepEqual(await names0('q=ferns'), [], 'every letter of a word counts, past the index\'s prefixes too')
    assert.deepEqual(await names0('q=ELEPHANT%20b&order_by=id%20desc'), ['Elephant bush'])
    assert.deepEqual(await names0('q=fernl&order_by=name%20desc'), ['Fernleaf'])
    assert.equal((await send('GET', '/plants?q=swor%20fer&count=exact')).headers['x-total-count'], '1')
    assert.deepEqual(await names0('q=%E6%A4%8D'), ['植物 garden'])
    assert.deepEqual(await names0(`q=fern&filter=${encodeURIComponent('tag:*')}`), ['Boston fern', 'Fernleaf'])
    const none = await send('GET', '/plants?q=%F0%9F%8C%BF')
    assert.deepEqual(none.json(), { error: 1001, message: 'query/q has no word to search for (letters or digits)' })
    // Letters and digits a store's folding erases (PostgreSQL's unaccent drops ² and ʼ): an answer, never a 500.
    for (const q of ['%C2%B2', 'bos%20%CA%BC']) assert.equal((await send('GET', `/plants?q=${q}`)).statusCode, 200, q)
    assert.equal((await send('GET', `/plants?q=${'a '.repeat(9)}`)).json().message, 'query/q has 9 words; at most 8 are allowed')
    assert.equal((await send('GET', `/plants?q=${'a'.repeat(201)}`)).statusCode, 400)
    const replaced = await send('PUT', '/plants/1', { name: 'Maidenhair' })
    assert.equal(replaced.statusCode, 200)
    assert.deepEqual(await names0('q=bos'), [], 'the index follows a replace in the same transaction')
    assert.deepEqual(await names0('q=maiden'), ['Maidenhair'])
    assert.equal((await send('DELETE', '/plants/1')).statusCode, 204)
    assert.deepEqual(await names0('q=maiden'), [])
  })
}
