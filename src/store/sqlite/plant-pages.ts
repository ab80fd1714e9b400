import type Database from 'better-sqlite3'
import { LRUCache } from 'lru-cache'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import { listSql } from '../plant-list-sql.js'
import type { SearchSql } from '../plant-list-sql.js'
import type { PlantPage, PlantQuery } from '../plant-store.js'
import { opaqueInteger } from './connection.js'
import { LOG_POSITION_SQL } from './outbox.js'

type Value = string | bigint

/** FTS5: every word as a prefix (words are letters and digits only, so quoting them is enough). */
export const searchSql: SearchSql = (words, bind) =>
  `id IN (SELECT rowid FROM plant_search WHERE plant_search MATCH ${bind(words.map((word) => `"${word}"*`).join(' AND '))})`

/**
 * Pages of plants for queries beyond the plain id-ordered list (a filter, another order, a count), on
 * the serving thread's read-only connection: the page, its count and the log position in one
 * deferred transaction, so one snapshot. Each query shape is prepared once; the shapes kept are bounded.
 */
export function plantPages (db: Database.Database): (query: PlantQuery) => PlantPage {
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
      ? prepared(`SELECT id, name, tag FROM plants WHERE ${sql.where} ORDER BY ${sql.order} LIMIT ${opaqueInteger('?')}`).all(...params, BigInt(query.limit)) as PlantRow[]
      : []
    const total = query.count === undefined
      ? undefined
      : Number(prepared(`SELECT count(*) FROM plants WHERE ${sql.matching}`).pluck().get(...params.slice(0, sql.matchingParams)))
    return { plants: rows.map(plantOfRow), position: position.get()!, ...(total !== undefined && { total }) }
  })
}
