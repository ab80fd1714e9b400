import type Database from 'better-sqlite3'
import { LRUCache } from 'lru-cache'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import { nameMatcher } from '../../contract/search.js'
import { listSql } from '../plant-list-sql.js'
import type { Bind, SearchSql } from '../plant-list-sql.js'
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
 * Pages of plants for queries beyond the plain id-ordered list (a filter, another order, a count), on
 * the serving thread's read-only connection: the page, its count and the log position in one
 * deferred transaction, so one snapshot. Each query shape is prepared once; the shapes kept are bounded.
 */
export function plantPages (db: Database.Database): (query: PlantQuery) => PlantPage {
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
  const position = db.prepare<[], bigint>(LOG_POSITION_SQL).pluck()
  return db.transaction((query: PlantQuery): PlantPage => {
    const params: Value[] = []
    const sql = listSql(query, (value) => {
      params.push(value)
      return '?'
    }, searchSql)
    const rows = sql.possible
      ? prepared(`SELECT id, name, tag FROM ${sql.from} WHERE ${sql.where} ORDER BY ${sql.order} LIMIT ${opaqueInteger('?')}`).all(...params, BigInt(query.limit)) as PlantRow[]
      : []
    const total = query.count === undefined
      ? undefined
      : Number(prepared(`SELECT count(*) FROM ${sql.from} WHERE ${sql.matching}`).pluck().get(...params.slice(0, sql.matchingParams)))
    return { plants: rows.map(plantOfRow), position: position.get()!, ...(total !== undefined && { total }) }
  })
}
