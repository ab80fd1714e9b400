import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import Database from 'better-sqlite3'
import pg from 'pg'
import { freshDatabase, withStore } from '../databases.js'
import { seededRandom } from '../random.js'
import { parseFilter } from '../../src/contract/filter.js'
import { listSql } from '../../src/store/plant-list-sql.js'
import { plantPages } from '../../src/store/sqlite/plant-pages.js'
import { searchSql as postgresSearch } from '../../src/store/postgres/plant-pages.js'
import type { PlantQuery } from '../../src/store/store.js'

const NAMES = ['Monstera', 'Fern', 'Boston fern', 'Éléphant', 'Ficus', 'Zz', 'Aloe', 'Sage', 'Sword lily']
const TAGS = ['tropical', 'dry', 'shade']

/** A filter over the plants' names and tags: prefixes, ranges and ORs, which SQLite finds through an index and sorts. */
function filterFrom (random: () => number): string {
  const pick = <T> (list: readonly T[]) => list[Math.floor(random() * list.length)]!
  const term = () => {
    const roll = random()
    if (roll < 0.4) return `name = "${pick(NAMES).slice(0, 1 + Math.floor(random() * 3))}*"`
    if (roll < 0.6) return `name ${pick(['<', '>=', '!='])} "${pick(NAMES)}"`
    if (roll < 0.8) return `tag = "${pick(TAGS)}"`
    return `id ${pick(['<', '>='])} ${BigInt(Math.floor((random() - 0.5) * 2 ** 53)) << 10n}`
  }
  return random() < 0.5 ? term() : `${term()} ${pick(['AND', 'OR'])} ${term()}`
}

type Page = { plants: Array<{ id: bigint, name: string }> }

/** Every page of a query, following the cursor as GET /plants does. */
async function allPages (read: (query: PlantQuery) => Page | Promise<Page>, query: PlantQuery): Promise<bigint[]> {
  const ids: bigint[] = []
  let cursor: PlantQuery = query
  for (;;) {
    const { plants } = await read(cursor)
    ids.push(...plants.map((plant) => plant.id))
    const last = plants.at(-1)
    if (plants.length < query.limit || last === undefined) return ids
    cursor = (query.order ?? 'id') === 'id' ? { ...query, after: last.id } : { ...query, from: { id: last.id, name: last.name } }
  }
}

test('SQLite: a page that would sort more matches than the bound walks an index in its order instead, with the same pages', async (t) => {
  const random = seededRandom(t)
  const dir = mkdtempSync(join(tmpdir(), 'plantstore-walk-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'plants.db')
  await withStore(`sqlite:${file}`, async (store) => {
    const ids = new Set<bigint>()
    while (ids.size < 600) ids.add(BigInt.asIntN(64, BigInt(Math.floor(random() * 2 ** 32)) << 32n | BigInt(Math.floor(random() * 2 ** 32))))
    await Promise.all([...ids].map(async (id, i) => {
      const name = `${NAMES[i % NAMES.length]} ${Math.floor(random() * 50)}`
      await store.plants.create(i % 3 === 0 ? { id, name } : { id, name, tag: TAGS[i % TAGS.length]! })
    }))
  })
  const db = new Database(file, { readonly: true })
  t.after(() => db.close())
  db.defaultSafeIntegers(true)
  // A sort bound of one match walks every page whose plan sorts; the default sorts every page of this
  // small store. A walk in name order stopped after a few rows, fewer than the plants, sorts after all.
  const walking = plantPages(db, { sort: 1, walk: 1000 })
  const stopped = [plantPages(db, { sort: 1, walk: 7 }), plantPages(db, { sort: 1, walk: 60 })]
  const sorting = plantPages(db)
  const WORDS = ['fe', 'fern', 'bos', 'sword li', 'élé', 'zz', 's', 'mon']
  let nonEmpty = 0
  for (let i = 0; i < 200; i++) {
    const text = random() < 0.8 ? filterFrom(random) : undefined
    const query: PlantQuery = {
      limit: 1 + Math.floor(random() * 40),
      filter: text === undefined ? undefined : parseFilter(text),
      order: (['id', 'id desc', 'name', 'name desc'] as const)[Math.floor(random() * 4)],
      ...(random() < 0.3 && { search: WORDS[Math.floor(random() * WORDS.length)]!.split(' ') }),
      ...(random() < 0.3 && { count: 'exact' as const })
    }
    const what = `${text} q=${query.search?.join(' ')} (${query.order}, limit ${query.limit})`
    const expected = await allPages(sorting, query)
    assert.deepEqual(await allPages(walking, query), expected, what)
    for (const pages of stopped) assert.deepEqual(await allPages(pages, query), expected, what)
    assert.equal(walking(query).total, sorting(query).total, what)
    if (expected.length > 0) nonEmpty++
  }
  assert.ok(nonEmpty > 60, `most queries match some plants: ${nonEmpty}`)
})

test('PostgreSQL: a search of short words read in id order without their prefix ranges finds the same pages as through them', { skip: process.env.PLANTSTORE_TEST_POSTGRES_URL === undefined }, async (t) => {
  const random = seededRandom(t)
  const url = await freshDatabase('postgres:fresh')
  await withStore(url, async (store) => {
    await Promise.all(Array.from({ length: 400 }, async (_, i) => {
      const name = `${NAMES[i % NAMES.length]} ${NAMES[Math.floor(random() * NAMES.length)]} ${Math.floor(random() * 50)}`
      await store.plants.create(i % 3 === 0 ? { id: BigInt(i * 7919 - 1_000_000), name } : { id: BigInt(i * 7919 - 1_000_000), name, tag: TAGS[i % TAGS.length]! })
    }))
  })
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  t.after(() => client.end())
  const read = (lexemes: string[], ranges: boolean) => (query: PlantQuery) => {
    const params: string[] = []
    const sql = listSql(query, (value) => `$${params.push(String(value))}`, postgresSearch(lexemes, ranges))
    return client.query(`SELECT id, name, tag FROM ${sql.from} WHERE ${sql.where} ORDER BY ${sql.order} LIMIT ${query.limit}`, params)
      .then(({ rows }) => ({ plants: rows.map((row: { id: string, name: string }) => ({ id: BigInt(row.id), name: row.name })) }))
  }
  let nonEmpty = 0
  for (let i = 0; i < 60; i++) {
    const words = Array.from({ length: 1 + Math.floor(random() * 2) }, () => NAMES[Math.floor(random() * NAMES.length)]!.split(' ')[0]!.slice(0, 1 + Math.floor(random() * 2)))
    const { rows: [{ lexemes }] } = await client.query('SELECT tsvector_to_array(to_tsvector(\'simple\', plant_search_text($1))) AS lexemes', [words.join(' ')])
    const query: PlantQuery = { limit: 1 + Math.floor(random() * 30), search: words, order: random() < 0.5 ? 'id' : 'id desc', ...(random() < 0.3 && { filter: parseFilter(`tag = "${TAGS[0]}"`) }) }
    const walked = await allPages(read(lexemes, false), query)
    assert.deepEqual(walked, await allPages(read(lexemes, true), query), `${words.join(' ')} (${query.order}, limit ${query.limit})`)
    if (walked.length > 0) nonEmpty++
  }
  assert.ok(nonEmpty > 30, `most searches match some plants: ${nonEmpty}`)
})
