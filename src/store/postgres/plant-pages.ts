import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import { listSql } from '../plant-list-sql.js'
import type { SearchSql } from '../plant-list-sql.js'
import { isPlainList, keysetStart } from '../store.js'
import type { PlantPage, PlantQuery } from '../store.js'
import type { PostgresDatabase } from './database.js'
import { LOG_POSITION_SQL } from './outbox.js'

const POSITION_SQL = `SELECT (${LOG_POSITION_SQL}) AS position`

/**
 * The words folded as names are (plant_search_text, a migration), each a prefix, against the stored
 * tsvector's GIN index. The query is built from the parameter in the statement itself, so a custom plan
 * sees it as a constant and estimates it. Words the folding erases (² or ʼ) are left out, as they are
 * from names; when none is left the query is null and matches nothing, where ':*' alone was a syntax error.
 */
export const searchSql: SearchSql = (words) => ({
  from: () => 'plants',
  where: (bind) => `search @@ to_tsquery('simple', nullif(regexp_replace(btrim(plant_search_text(${bind(words.join(' '))})), ' +', ':* & ', 'g'), '') || ':*')`,
  key: 'id'
})

// The table's row count from PostgreSQL's statistics, when it has any (-1 before the first ANALYZE).
const ESTIMATED_TOTAL_SQL = `(SELECT CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint ELSE (SELECT count(*) FROM plants) END
  FROM pg_class c WHERE c.oid = 'plants'::regclass)`

type PositionedRow = { position: bigint, id: bigint | null, name: string | null, tag: string | null }

/** A page of plants (PlantStore.list) with the log position it reflects, in one statement. */
export async function listPlants (db: PostgresDatabase, query: PlantQuery): Promise<PlantPage> {
  const { limit, after, tag } = query
  if (!isPlainList(query)) return page(db, query)
  // No id can follow the cursor: an empty page, still with its position.
  const from = keysetStart(after)
  const rows = tag === undefined
    ? await db.query<PositionedRow>(`SELECT pos.position, p.* FROM (${POSITION_SQL}) pos LEFT JOIN LATERAL (
        SELECT id, name, tag FROM plants WHERE id >= $1 ORDER BY id LIMIT $2) p ON true ORDER BY p.id`,
    [(from ?? 0n).toString(), from === undefined ? 0 : limit], 'plants.list')
    : await db.query<PositionedRow>(`SELECT pos.position, p.* FROM (${POSITION_SQL}) pos LEFT JOIN LATERAL (
        SELECT id, name, tag FROM plants WHERE tag = $1 AND id >= $2 ORDER BY id LIMIT $3) p ON true ORDER BY p.id`,
    [tag, (from ?? 0n).toString(), from === undefined ? 0 : limit], 'plants.list-by-tag')
  return { plants: rows.filter((row) => row.id !== null).map((row) => plantOfRow(row as PlantRow)), position: rows[0]!.position }
}

/**
 * A page beyond the plain id-ordered list (a filter, another order, a count): one statement, so the
 * page, its count and the log position come from one snapshot.
 */
async function page (db: PostgresDatabase, query: PlantQuery): Promise<PlantPage> {
  const params: string[] = []
  const sql = listSql(query, (value) => `$${params.push(String(value))}`, searchSql)
  const total = query.count === undefined ? 'NULL::bigint' : query.count === 'estimated' && sql.matching === 'true' ? ESTIMATED_TOTAL_SQL : `(SELECT count(*) FROM ${sql.from} WHERE ${sql.matching})`
  const limit = `$${params.push(String(sql.possible ? query.limit : 0))}`
  const rows = await db.query<PositionedRow & { total: bigint | null }>(`SELECT pos.position, pos.total, p.* FROM (
      SELECT (${LOG_POSITION_SQL}) AS position, ${total} AS total) pos LEFT JOIN LATERAL (
      SELECT id, name, tag FROM ${sql.from} WHERE ${sql.where} ORDER BY ${sql.order} LIMIT ${limit}) p ON true
    ORDER BY ${sql.order.replace(/\b(name|id)\b/g, 'p.$1')}`, params)
  const { position, total: counted } = rows[0]!
  return {
    plants: rows.filter((row) => row.id !== null).map((row) => plantOfRow(row as PlantRow)),
    position,
    ...(counted !== null && { total: Number(counted) })
  }
}

/** One plant (PlantStore.get), or undefined, with the log position it reflects. */
export async function getPlant (db: PostgresDatabase, id: bigint) {
  const [row] = await db.query<PositionedRow>(`SELECT pos.position, p.id, p.name, p.tag FROM (${POSITION_SQL}) pos
    LEFT JOIN plants p ON p.id = $1`, [id.toString()], 'plants.get')
  return { plant: row!.id === null ? undefined : plantOfRow(row as PlantRow), position: row!.position }
}
