import type Database from 'better-sqlite3'
import { LRUCache } from 'lru-cache'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import { nameMatcher } from '../../contract/search.js'
import { exactTag, listSql } from '../plant-list-sql.js'
import type { Bind, Search, SearchSql } from '../plant-list-sql.js'
import type { PlantPage, PlantQuery } from '../plant-store.js'
import { opaqueInteger } from './connection.js'
import { LOG_POSITION_SQL } from './outbox.js'

type Value = string | bigint

/** The index's prefix lengths (migration 019): a prefix of these lengths is read as a term is. */
const INDEXED_PREFIX = 3

/**
 * FTS5, each word as a prefix of at most 3 characters (words are letters and digits only, so quoting them
 * is enough), which the index's prefix terms answer in id order, a page at a time. A longer prefix
 * would make FTS5 merge every matching term's list of plants before the first row, so the words
 * past 3 characters are checked on each candidate's name (`name_has_words`, registered by plantPages).
 * In id order the index drives the page, its matches as `hit`, so a page stops at its limit.
 */
export const searchSql: SearchSql = (words, inIdOrder) => {
  const match = words.map((word) => `"${[...word].slice(0, INDEXED_PREFIX).join('')}"*`).join(' AND ')
  const long = words.filter((word) => [...word].length > INDEXED_PREFIX).join(' ')
  const matches = (bind: Bind, column: string) => `SELECT ${column} FROM plant_search WHERE plant_search MATCH ${bind(match)}`
  return {
    from: (bind) => inIdOrder ? `(${matches(bind, 'rowid AS hit')}) CROSS JOIN plants ON id = hit` : 'plants',
    where: (bind) => [
      ...inIdOrder ? [] : [`id IN (${matches(bind, 'rowid')})`],
      ...long === '' ? [] : [`name_has_words(name, ${bind(long)})`]
    ].join(' AND '),
    key: inIdOrder ? 'hit' : 'id'
  }
}

/** `name_has_words(name, words)`: whether each of the words (space-separated) starts a word of the name. */
function registerNameHasWords (db: Database.Database) {
  let last: { words: string, matches: (name: string) => boolean } | undefined
  db.function('name_has_words', { deterministic: true }, (name: unknown, words: unknown) => {
    if (typeof name !== 'string' || typeof words !== 'string') return 0
    // A statement asks with the same words for every row: the folded words are kept between rows.
    if (last?.words !== words) last = { words, matches: nameMatcher(words.split(' ')) }
    return last.matches(name) ? 1 : 0
  })
}

/**
 * Past this many plants that match, a page is not read by sorting them all, SQLite's plan when the
 * conditions are found through another index than the order's (a name prefix of a letter or two or tags
 * ORed in id order, an id range or tags ORed in name order): it walks an index in the page's order
 * instead, checking each plant, and stops at the page's end. A sort reads every match, a walk about
 * limit × plants ÷ matches: with the choice made at this bound, neither reads more than a few tens of
 * thousands of rows for a page of 100 of a store of millions.
 */
const SORT_BOUND = 20_000

/**
 * How many rows a walk in name order reads at most: past them the page sorts after all. Names that
 * share words sit together there, and so may the plants a filter finds (tags given by kind), so a walk
 * could pass most of the index before its first match. In id order the walk is not stopped: ids are
 * drawn at random, so a filter's matches are spread among them.
 */
const WALK_BOUND = 10_000

/**
 * Pages of plants for queries beyond the plain id-ordered list (a filter, another order, a count), on
 * the serving thread's read-only connection: the page, its count and the log position in one
 * deferred transaction, so one snapshot. Each query shape is prepared once, with whether SQLite's plan
 * for it sorts; the shapes kept are bounded. A page whose plan sorts is first counted up to
 * `bounds.sort`: past it, the page walks an index in its order instead, in name order reading at most
 * `bounds.walk` rows.
 */
export function plantPages (db: Database.Database, bounds = { sort: SORT_BOUND, walk: WALK_BOUND }): (query: PlantQuery) => PlantPage {
  registerNameHasWords(db)
  const statements = new LRUCache<string, Database.Statement>({ max: 256 })
  const prepared = (sql: string) => {
    let statement = statements.get(sql)
    if (statement === undefined) {
      statement = db.prepare(sql)
      statements.set(sql, statement)
    }
    return statement
  }
  // Whether SQLite's plan for a page's statement sorts, asked once per statement.
  const plans = new LRUCache<string, boolean>({ max: 256 })
  const sorts = (sql: string, params: Value[]) => {
    let sorting = plans.get(sql)
    if (sorting === undefined) {
      const plan = db.prepare<Value[], { detail: string }>(`EXPLAIN QUERY PLAN ${sql}`).all(...params)
      sorting = plan.some((step) => step.detail.includes('TEMP B-TREE FOR ORDER BY'))
      plans.set(sql, sorting)
    }
    return sorting
  }
  const position = db.prepare<[], bigint>(LOG_POSITION_SQL).pluck()
  const pageOf = (query: PlantQuery, table?: Search['from']) => {
    const params: Value[] = []
    const sql = listSql(query, (value) => {
      params.push(value)
      return '?'
    }, searchSql, table)
    params.push(BigInt(sql.possible ? query.limit : 0))
    return { sql, params, text: `SELECT id, name, tag FROM ${sql.from} WHERE ${sql.where} ORDER BY ${sql.order} LIMIT ${opaqueInteger('?')}` }
  }
  type Page = ReturnType<typeof pageOf>
  const read = ({ text, params }: Page) => prepared(text).all(...params) as PlantRow[]
  const counted = (sql: string, params: Value[]) => Number(prepared(sql).pluck().get(...params))
  // How many plants a sort would read (the page's matches after its cursor), counted up to the bound.
  const sortSize = ({ sql, params }: Page) => counted(`SELECT count(*) FROM (SELECT 1 FROM ${sql.from} WHERE ${sql.where} LIMIT ${bounds.sort})`, params.slice(0, -1))
  // At most `bounds.walk` plants after the cursor in name order, through the index of the query's one tag
  // if it has one: the page of that tag alone, with no other condition, as a table.
  const walked = (query: PlantQuery) => {
    const { text, params } = pageOf({ limit: bounds.walk, order: query.order, from: query.from, tag: exactTag(query) })
    const walk = `(${text})`
    const table = (bind: Bind) => {
      for (const value of params) bind(value)
      return walk
    }
    return { text: walk, params, table }
  }
  // A search is not walked: in id order the search index drives the page, and in name order a word's
  // matches sit together (its first word, then the words after it), so a walk passed tens of thousands
  // of rows between them.
  const pageRows = (query: PlantQuery, sorted: Page): PlantRow[] => {
    if (query.search !== undefined || !sorts(sorted.text, sorted.params) || sortSize(sorted) < bounds.sort) return read(sorted)
    if (!(query.order ?? 'id').startsWith('name')) return read(pageOf(query, () => 'plants NOT INDEXED'))
    const walk = walked(query)
    const rows = read(pageOf(query, walk.table))
    // A page short of its limit is whole when the walk reached the end of the index; else it sorts after all.
    if (rows.length === query.limit || counted(`SELECT count(*) FROM ${walk.text}`, walk.params) < bounds.walk) return rows
    return read(sorted)
  }
  return db.transaction((query: PlantQuery): PlantPage => {
    const sorted = pageOf(query)
    const { sql } = sorted
    const rows = sql.possible ? pageRows(query, sorted) : []
    const matching = sorted.params.slice(0, sql.matchingParams)
    const total = query.count === undefined
      ? undefined
      : counted(`SELECT count(*) FROM ${sql.from} WHERE ${sql.matching}`, matching)
    return { plants: rows.map(plantOfRow), position: position.get()!, ...(total !== undefined && { total }) }
  })
}
