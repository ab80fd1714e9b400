import assert from 'node:assert/strict'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { test } from 'node:test'
import type { TestContext } from 'node:test'
import Database from 'better-sqlite3'
import pg from 'pg'
import { freshDatabase, withStore } from '../databases.js'
import { parseFilter } from '../../src/contract/filter.js'
import { filterSql, listSql } from '../../src/store/plant-list-sql.js'
import type { SearchSql } from '../../src/store/plant-list-sql.js'
import { plantPages, searchSql as sqliteSearch } from '../../src/store/sqlite/plant-pages.js'
import { searchSql as postgresSearch } from '../../src/store/postgres/plant-pages.js'
import type { PlantQuery } from '../../src/store/store.js'

/** The shapes a page is read in: each must find its page through an index, never by reading the table. */
const SHAPES: Array<[string, PlantQuery]> = [
  ['name prefix', { limit: 101, filter: parseFilter('name = "Mon*"') }],
  ['name prefix, next page', { limit: 101, filter: parseFilter('name = "Mon*"'), after: 5n }],
  ['tag =', { limit: 101, filter: parseFilter('tag = "tropical"') }],
  ['tag parameter', { limit: 101, tag: 'tropical', after: 5n }],
  ['tags ORed', { limit: 101, filter: parseFilter('tag = "tropical" OR tag = "dry"') }],
  ['id range', { limit: 101, filter: parseFilter('id >= 10 AND id < 1000') }],
  ['name order desc with a filter', { limit: 101, order: 'name desc', filter: parseFilter('tag = "tropical"') }],
  ['name order desc, next page', { limit: 101, order: 'name desc', filter: parseFilter('tag:*'), from: { id: 7n, name: 'Fern' } }],
  ['id order desc, next page', { limit: 101, order: 'id desc', from: { id: 7n, name: 'Fern' } }],
  ['q, two words', { limit: 101, search: ['bos', 'fer'] }],
  ['q, two words, next page', { limit: 101, search: ['boston', 'fer'], after: 5n }],
  ['q, one word with a filter, id order desc', { limit: 101, search: ['fern'], filter: parseFilter('tag = "tropical"'), order: 'id desc', from: { id: 7n, name: 'Fern' } }],
  ['q, one word with an id range', { limit: 101, search: ['fern'], filter: parseFilter('id >= 10 AND id < 1000') }],
  ['q, one word with a filter, in name order', { limit: 101, search: ['fer'], filter: parseFilter('tag = "tropical"'), order: 'name' }]
]

/** Searches in id order: the search index yields its matches in id order and drives the page. */
const DRIVEN_BY_SEARCH = new Set(['q, two words', 'q, two words, next page', 'q, one word with a filter, id order desc', 'q, one word with an id range'])

/** Shapes whose index gives the page's order on SQLite too: no plant of the range is sorted. */
const UNSORTED = new Set(['tag =', 'tag parameter', 'id range', 'name order desc with a filter', 'id order desc, next page', ...DRIVEN_BY_SEARCH])

const pageSql = (query: PlantQuery, bind: (value: string | bigint) => string, search: SearchSql) => {
  const sql = listSql(query, bind, search)
  return `SELECT id, name, tag FROM ${sql.from} WHERE ${sql.where} ORDER BY ${sql.order} LIMIT ${query.limit}`
}

/** A migrated, empty SQLite file, opened read-only as a page reader opens it; removed after the test. */
async function emptySqliteStore (t: TestContext) {
  const dir = mkdtempSync(join(tmpdir(), 'plantstore-plans-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'plants.db')
  await withStore(`sqlite:${file}`, async () => {})
  const db = new Database(file, { readonly: true })
  t.after(() => db.close())
  return db
}

test('SQLite: every shape of page reads through an index: no table scan, and a sort only of an index range', async (t) => {
  const db = await emptySqliteStore(t)
  plantPages(db) // registers the functions a page's SQL calls
  for (const [shape, query] of SHAPES) {
    const params: Array<string | bigint> = []
    const plan = db.prepare(`EXPLAIN QUERY PLAN ${pageSql(query, (value) => { params.push(value); return '?' }, sqliteSearch)}`).all(...params) as Array<{ detail: string }>
    const details = plan.map((row) => row.detail).join('; ')
    assert.ok(!/SCAN plants(?! USING)/.test(details), `${shape}: ${details}`)
    assert.ok(!/TEMP B-TREE/.test(details) || /SEARCH plants USING/.test(details), `${shape}: ${details}`)
    if (UNSORTED.has(shape)) assert.ok(!/TEMP B-TREE/.test(details), `${shape}: the index gives the order: ${details}`)
    if (DRIVEN_BY_SEARCH.has(shape)) assert.match(details, /^SCAN plant_search VIRTUAL TABLE INDEX \d+:M1[<>]*; SEARCH plants USING INTEGER PRIMARY KEY/, shape)
    // An id range bounds the search index's reading, as the cursor does, rather than each candidate's plant.
    if (shape === 'q, one word with an id range') assert.match(details, /INDEX \d+:M1[<>]{2}/, `${shape}: ${details}`)
  }
})

test('SQLite: a broad name prefix in id order, walked (plant-pages.ts), reads the table in id order and stops at the page', async (t) => {
  const db = await emptySqliteStore(t)
  for (const order of ['id', 'id desc'] as const) {
    const params: Array<string | bigint> = []
    const sql = listSql({ limit: 101, filter: parseFilter('name = "S*" OR tag = "dry"'), order }, (value) => { params.push(value); return '?' }, sqliteSearch, () => 'plants NOT INDEXED')
    const plan = db.prepare(`EXPLAIN QUERY PLAN SELECT id, name, tag FROM ${sql.from} WHERE ${sql.where} ORDER BY ${sql.order} LIMIT 101`).all(...params) as Array<{ detail: string }>
    assert.deepEqual(plan.map((row) => row.detail), ['SCAN plants'], order)
  }
})

test('equalities of one column ORed are compiled as IN, which each database reads from the column\'s index; other ORs stay ORs', () => {
  const sql = (text: string) => {
    let n = 0
    return filterSql(parseFilter(text)!, () => `$${++n}`)
  }
  assert.equal(sql('tag = "a" OR tag = "b" OR tag = "c"'), '(tag IN ($1, $2, $3))')
  assert.equal(sql('id = 1 OR id = 2'), '(id IN ($1, $2))')
  assert.equal(sql('tag = "a" OR name = "b"'), '((tag = $1) OR (name = $2))')
  assert.equal(sql('tag = "a*" OR tag = "b"'), '(((tag >= $1 AND tag < $2)) OR (tag = $3))')
  assert.equal(sql('tag = "a" OR tag != "b"'), '((tag = $1) OR (tag <> $2))')
})

test('PostgreSQL: every shape of page has an index plan, without a sort but of a search\'s candidates (sequential scans and sorts disabled)', { skip: process.env.PLANTSTORE_TEST_POSTGRES_URL === undefined }, async (t) => {
  const url = await freshDatabase('postgres:fresh')
  await withStore(url, async () => {})
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  t.after(() => client.end())
  await client.query('SET enable_seqscan = off')
  await client.query('SET enable_sort = off')
  for (const [shape, query] of SHAPES) {
    const params: string[] = []
    const { rows } = await client.query(`EXPLAIN ${pageSql(query, (value) => `$${params.push(String(value))}`, postgresSearch(query.search ?? []))}`, params)
    const plan = rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n')
    assert.ok(!/Seq Scan/.test(plan), `${shape}:\n${plan}`)
    // A search in name order with a tag sorts its candidates: the prefix's rows joined to the tag's index.
    if (shape === 'q, one word with a filter, in name order') assert.match(plan, /Sort[\s\S]*Join[\s\S]*plant_search_prefixes_pkey[\s\S]*plants_tag_id/, `${shape}:\n${plan}`)
    else assert.ok(!/Sort/.test(plan), `${shape}:\n${plan}`)
    if (DRIVEN_BY_SEARCH.has(shape)) assert.match(plan, /Limit[\s\S]*Index Only Scan( Backward)? using plant_search_prefixes_pkey/, `${shape}: one prefix's rows drive the page:\n${plan}`)
    // A search that needs one tag walks the tag's index in id order beside the prefix's rows, rather than read each candidate's plant.
    if (shape === 'q, one word with a filter, id order desc') assert.match(plan, /plants_tag_id/, `${shape}:\n${plan}`)
    if (shape === 'q, one word with an id range') assert.match(plan, /Index Cond: \(\(prefix = '[^']+'::text\) AND \(id >= '10'::bigint\) AND \(id < '1000'::bigint\)\)/, `${shape}:\n${plan}`)
  }
})
