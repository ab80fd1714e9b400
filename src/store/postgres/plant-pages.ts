import { LRUCache } from 'lru-cache'
import { plantOfRow } from '../../contract/plant.js'
import type { PlantRow } from '../../contract/plant.js'
import { inPageOrder, listSql, prefixSql } from '../plant-list-sql.js'
import type { Bind, SearchSql } from '../plant-list-sql.js'
import { isPlainList, keysetStart } from '../store.js'
import type { PlantOrder, PlantPage, PlantQuery } from '../store.js'
import type { PostgresDatabase } from './database.js'
import { LOG_POSITION_SQL } from './outbox.js'

const POSITION_SQL = `SELECT (${LOG_POSITION_SQL}) AS position`

/** How many characters of a word the prefix table holds (migration 019). */
const INDEXED_PREFIX = 3

/** The lexemes shorter than the prefix table's prefixes: each is found through a range of them. */
const shortLexemes = (lexemes: string[]) => lexemes.filter((lexeme) => [...lexeme].length < INDEXED_PREFIX)

/** The words as names are folded (plant_search_text, a migration): a prefix query, null when none is left. */
const wordsQuery = (bind: Bind, words: string[]) =>
  `to_tsquery('simple', nullif(regexp_replace(btrim(plant_search_text(${bind(words.join(' '))})), ' +', ':* & ', 'g'), '') || ':*')`

/**
 * A name search with `lexemes`, q's words as the stored tsvector holds them (searchLexemes): each plant
 * whose words start with every lexeme has a row in plant_search_prefixes for each lexeme's first three
 * characters, so those rows find the candidates and the tsvector checks each against the whole words.
 * In id order one prefix's rows (the longest lexeme's) drive the page in id order through their primary
 * key, merged with each other prefix's rows, and with the tag index's when the query needs one tag,
 * before any plant is read; the page stops at its limit. The plant is read in a LATERAL subquery kept
 * apart from the join (OFFSET 0): PostgreSQL, estimating the tsvector check far too selective, otherwise
 * joined every candidate and sorted them. In name order the same merge finds the candidates of two
 * prefixes or more, or of one and the query's one tag, which are then sorted.
 * In name order with one prefix, and for a lexeme under three characters, the prefixes are conditions
 * on id; not in id order behind a driving prefix, whose candidates the tsvector checks anyway, nor when
 * `shortRanges` is false (page() found them too wide: the page then reads plants in id order and checks each).
 * Words the folding erases (² or ʼ) are left out, as they are from names; when none is left nothing
 * matches.
 */
export const searchSql = (lexemes: string[], shortRanges = true): SearchSql => (words, inIdOrder, tag) => {
  const characters = lexemes.map((lexeme) => [...lexeme]).sort((a, b) => b.length - a.length)
  const keys = [...new Set(characters.filter((c) => c.length >= INDEXED_PREFIX).map((c) => c.slice(0, INDEXED_PREFIX).join('')))]
  const short = shortLexemes(lexemes)
  // The plants with a prefix in plant_search_prefixes that meets `condition`, as column `as`.
  const withPrefix = (condition: string, as = 'id') => `SELECT id AS ${as} FROM plant_search_prefixes WHERE ${condition}`
  // Each short lexeme's range of prefixes (unless `ranges` is false), then the whole words against the tsvector.
  const checks = (bind: Bind, ranges = shortRanges) => [
    ...ranges ? short.map((lexeme) => `id IN (${withPrefix(prefixSql('prefix', lexeme, bind))})`) : [],
    `search @@ ${wordsQuery(bind, words)}`
  ]
  // In name order too when two prefixes or more meet: their rows' intersection is found in id order and
  // sorted, where walking the name index passed every name before the matches, which sit together there
  // ("golden fern" in name desc: 540 ms alone, 30 ms so; "orchid" with a tag: 500, 122 ms). One prefix's
  // rows alone are many: that walk stays.
  if (keys.length > 1 || ((inIdOrder || tag !== undefined) && keys.length > 0)) {
    const [driver, ...others] = keys
    return {
      from: (bind) => [
        `(${withPrefix(`prefix = ${bind(driver!)}`, 'hit')}) hits`,
        ...others.map((key, i) => `JOIN (${withPrefix(`prefix = ${bind(key)}`, `also${i}`)}) prefix${i} ON also${i} = hit`),
        ...tag === undefined ? [] : [`JOIN (SELECT id AS tagged FROM plants WHERE tag = ${bind(tag)}) tagged ON tagged = hit`],
        'CROSS JOIN LATERAL (SELECT id, name, tag, search FROM plants WHERE plants.id = hits.hit OFFSET 0) plants'
      ].join('\n        '),
      where: (bind) => checks(bind, false).join(' AND '),
      key: inIdOrder ? 'hit' : 'id'
    }
  }
  return {
    from: () => 'plants',
    where: (bind) => [...keys.map((key) => `id IN (${withPrefix(`prefix = ${bind(key)}`)})`), ...checks(bind)].join(' AND '),
    key: 'id'
  }
}

/**
 * Past this many rows of the prefix table, a word under three characters is not found through its
 * range of prefixes (all of whose plants PostgreSQL gathers first, 0.8 to 2.7 s at 10 connections for
 * `ro` or `go fe` on 1,000,000 plants): a page in id order reads plants in id order and checks each,
 * about limit × plants ÷ matches rows. Below it, a rare word (`zq`) is found through its range at once,
 * where reading plants would pass the whole table.
 */
const SHORT_RANGE_BOUND = 5000

/** Whether every short lexeme's range of prefixes holds at least the bound's rows (each counted up to it), in one statement. */
async function shortRangesWide (db: PostgresDatabase, lexemes: string[]): Promise<boolean> {
  const params: string[] = []
  const bind: Bind = (value) => `$${params.push(String(value))}`
  const counts = lexemes.map((lexeme) => `SELECT count(*) AS n FROM (SELECT 1 FROM plant_search_prefixes WHERE ${prefixSql('prefix', lexeme, bind)} LIMIT ${SHORT_RANGE_BOUND}) r`)
  const [row] = await db.query<{ wide: boolean }>(`SELECT bool_and(n >= ${SHORT_RANGE_BOUND}) AS wide FROM (${counts.join(' UNION ALL ')}) c`, params)
  return row!.wide
}

/** q's words as the stored tsvector holds them: PostgreSQL folds them as it folds names. Immutable, so kept. */
const lexemesOf = new LRUCache<string, string[]>({ max: 1000 })

async function searchLexemes (db: PostgresDatabase, words: string[]): Promise<string[]> {
  const text = words.join(' ')
  let lexemes = lexemesOf.get(text)
  if (lexemes === undefined) {
    const [row] = await db.query<{ lexemes: string[] }>('SELECT tsvector_to_array(to_tsvector(\'simple\', plant_search_text($1))) AS lexemes', [text], 'plants.search-lexemes')
    lexemes = row!.lexemes
    lexemesOf.set(text, lexemes)
  }
  return lexemes
}

// The table's row count from PostgreSQL's statistics, when it has any (-1 before the first ANALYZE).
const ESTIMATED_TOTAL_SQL = `(SELECT CASE WHEN c.reltuples >= 0 THEN c.reltuples::bigint ELSE (SELECT count(*) FROM plants) END
  FROM pg_class c WHERE c.oid = 'plants'::regclass)`

type PositionedRow = { position: bigint, id: bigint | null, name: string | null, tag: string | null }

/**
 * The page's plants from its rows (none when the page is empty: one row, the position's), in its order.
 * The rows come in order from the LATERAL page, and a sort above it cost PostgreSQL a share of its
 * throughput on pages that sort their matches; sorting them here makes the order a promise.
 */
const plantsOf = (rows: PositionedRow[], order: PlantOrder | undefined) =>
  rows.filter((row) => row.id !== null).map((row) => plantOfRow(row as PlantRow)).sort(inPageOrder(order))

/** A page of plants (PlantStore.list) with the log position it reflects, in one statement. */
export async function listPlants (db: PostgresDatabase, query: PlantQuery): Promise<PlantPage> {
  const { limit, after, tag } = query
  if (!isPlainList(query)) return page(db, query)
  // No id can follow the cursor: an empty page, still with its position.
  const from = keysetStart(after)
  const rows = tag === undefined
    ? await db.query<PositionedRow>(`SELECT pos.position, p.* FROM (${POSITION_SQL}) pos LEFT JOIN LATERAL (
        SELECT id, name, tag FROM plants WHERE id >= $1 ORDER BY id LIMIT $2) p ON true`,
    [(from ?? 0n).toString(), from === undefined ? 0 : limit], 'plants.list')
    : await db.query<PositionedRow>(`SELECT pos.position, p.* FROM (${POSITION_SQL}) pos LEFT JOIN LATERAL (
        SELECT id, name, tag FROM plants WHERE tag = $1 AND id >= $2 ORDER BY id LIMIT $3) p ON true`,
    [tag, (from ?? 0n).toString(), from === undefined ? 0 : limit], 'plants.list-by-tag')
  return { plants: plantsOf(rows, 'id'), position: rows[0]!.position }
}

/**
 * A page beyond the plain id-ordered list (a filter, another order, a count): one statement, so the
 * page, its count and the log position come from one snapshot.
 */
async function page (db: PostgresDatabase, query: PlantQuery): Promise<PlantPage> {
  const params: string[] = []
  const lexemes = query.search === undefined ? [] : await searchLexemes(db, query.search)
  // In id order with only short words, their ranges decide the plan (SHORT_RANGE_BOUND).
  const short = shortLexemes(lexemes)
  const idOrder = !(query.order ?? 'id').startsWith('name')
  const shortRanges = !(idOrder && short.length === lexemes.length && short.length > 0 && await shortRangesWide(db, short))
  const sql = listSql(query, (value) => `$${params.push(String(value))}`, searchSql(lexemes, shortRanges))
  const total = query.count === undefined ? 'NULL::bigint' : query.count === 'estimated' && sql.matching === 'true' ? ESTIMATED_TOTAL_SQL : `(SELECT count(*) FROM ${sql.from} WHERE ${sql.matching})`
  const limit = `$${params.push(String(sql.possible ? query.limit : 0))}`
  const rows = await db.query<PositionedRow & { total: bigint | null }>(`SELECT pos.position, pos.total, p.* FROM (
      SELECT (${LOG_POSITION_SQL}) AS position, ${total} AS total) pos LEFT JOIN LATERAL (
      SELECT id, name, tag FROM ${sql.from} WHERE ${sql.where} ORDER BY ${sql.order} LIMIT ${limit}) p ON true`, params)
  const { position, total: counted } = rows[0]!
  return {
    plants: plantsOf(rows, query.order),
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
