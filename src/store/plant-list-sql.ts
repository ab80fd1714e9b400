import type { Filter, Operator } from '../contract/filter.js'
import { compareCodePoints } from '../contract/filter-match.js'
import type { Plant } from '../contract/plant.js'
import { keysetStart } from './plant-store.js'
import type { PlantOrder, PlantQuery } from './plant-store.js'

/** Adds a value to the statement's parameters and answers its placeholder (`?` or `$n`). */
export type Bind = (value: string | bigint) => string
/** The SQL of a name search, each part binding its own parameters as it is placed in the statement. */
export interface Search {
  /** The rows to read: `plants`, or plants joined to the full-text index's matches. */
  from: (bind: Bind) => string
  /** Conditions a plant must also meet, ANDed after the query's own ('' for none). */
  where: (bind: Bind) => string
  /** The column that orders by id: `hit` when the index yields its matches in id order and drives the page. */
  key: string
}

/**
 * A dialect's name search through its full-text index; `inIdOrder` when the page is in id order (either
 * direction); `tag` when the query asks for one tag exactly (the tag parameter, or `tag = "x"` ANDed at
 * the filter's top), whose index yields its plants in id order too.
 */
export type SearchSql = (words: string[], inIdOrder: boolean, tag: string | undefined) => Search

/** The one tag a query asks for exactly, if it does: its tag parameter, or a `tag = "x"` the whole filter needs. */
export function exactTag (query: PlantQuery): string | undefined {
  if (query.tag !== undefined) return query.tag
  const terms = query.filter === undefined ? [] : query.filter.kind === 'and' ? query.filter.terms : [query.filter]
  const tag = terms.find((term) => term.kind === 'tag' && term.op === '=' && !term.prefix)
  return tag?.kind === 'tag' ? tag.value : undefined
}

const SQL_OPERATORS: Record<Operator, string> = { '=': '=', '!=': '<>', '<': '<', '<=': '<=', '>': '>', '>=': '>=' }

/**
 * The least string above every string that starts with `prefix`, in code point order (its last code
 * point raised by one; a last U+10FFFF dropped first); undefined when there is none.
 */
export function prefixEnd (prefix: string): string | undefined {
  const points = [...prefix].map((c) => c.codePointAt(0)!)
  while (points.at(-1) === 0x10FFFF) points.pop()
  if (points.length === 0) return undefined
  let last = points.pop()! + 1
  if (last >= 0xD800 && last <= 0xDFFF) last = 0xE000
  return String.fromCodePoint(...points, last)
}

/** A range on an indexed column for a prefix: `column >= prefix AND column < its end`. */
export function prefixSql (column: string, prefix: string, bind: Bind): string {
  const end = prefixEnd(prefix)
  return end === undefined ? `${column} >= ${bind(prefix)}` : `(${column} >= ${bind(prefix)} AND ${column} < ${bind(end)})`
}

/**
 * A filter as a SQL condition, every value bound as a parameter. A comparison on a plant without a tag is
 * NULL, which WHERE takes as false, as the rules do; NOT takes it as false before negating, so that it is
 * an exact complement. Comparisons carry no `tag IS NOT NULL` of their own: PostgreSQL counted it twice
 * in its estimates and chose a plan 14 times slower for `q` with a tag. Strings compare by code point:
 * SQLite's BINARY collation, and PostgreSQL's columns are `COLLATE "C"` (a migration). `idColumn` is what ids
 * compare on: a search's driving key, so that an id range bounds the search index's reading too.
 */
export function filterSql (filter: Filter, bind: Bind, idColumn = 'id'): string {
  switch (filter.kind) {
    case 'or': {
      // Equalities of one column ORed, as IN: PostgreSQL then reads them from the column's index (an OR
      // of them, counted, read the whole table), and SQLite looks each value up.
      const [first] = filter.terms
      const column = first?.kind === 'id' || first?.kind === 'name' || first?.kind === 'tag' ? first.kind : undefined
      const values = filter.terms.flatMap((term) => term.kind === column && term.op === '=' && !('prefix' in term && term.prefix) ? [term.value] : [])
      if (column !== undefined && values.length === filter.terms.length) return `(${column === 'id' ? idColumn : column} IN (${values.map((value) => bind(value)).join(', ')}))`
      return `(${filter.terms.map((term) => filterSql(term, bind, idColumn)).join(' OR ')})`
    }
    case 'and':
      return `(${filter.terms.map((term) => filterSql(term, bind, idColumn)).join(' AND ')})`
    case 'not':
      return `NOT coalesce(${filterSql(filter.term, bind, idColumn)}, false)`
    case 'has-tag':
      return '(tag IS NOT NULL)'
    case 'id':
      return `(${idColumn} ${SQL_OPERATORS[filter.op]} ${bind(filter.value)})`
    case 'name':
    case 'tag': {
      const column = filter.kind
      const comparison = filter.prefix
        ? `${filter.op === '!=' ? 'NOT ' : ''}${prefixSql(column, filter.value, bind)}`
        : `${column} ${SQL_OPERATORS[filter.op]} ${bind(filter.value)}`
      return `(${comparison})`
    }
  }
}

/** What a page of plants is read with: its conditions (ANDed), its order, and whether any id can follow. */
export interface ListSql {
  /** The rows read: `plants`, or plants joined to a search's matches. */
  from: string
  /** Conditions of the page: the query's, and the keyset's. */
  where: string
  /** The query's conditions alone (for a count of every matching plant). */
  matching: string
  /** How many of the parameters `matching` uses: the first ones bound. */
  matchingParams: number
  order: string
  /** False when no id can follow the cursor: the page is empty. */
  possible: boolean
}

/**
 * Plants in a page's order (`order`, ties by id in the same direction), names by code point as both
 * stores compare them: PostgreSQL's page statement leaves its rows in the order its LATERAL page gave
 * them, which its plan keeps but SQL does not promise, so they are put in order here.
 */
export function inPageOrder (order: PlantOrder = 'id'): (a: Plant, b: Plant) => number {
  const byId = (a: Plant, b: Plant) => a.id < b.id ? -1 : a.id > b.id ? 1 : 0
  const ascending = order.startsWith('name') ? (a: Plant, b: Plant) => compareCodePoints(a.name, b.name) || byId(a, b) : byId
  return order.endsWith(' desc') ? (a, b) => ascending(b, a) : ascending
}

/**
 * The SQL of a page of plants for either store: tag, filter, search and the keyset after the previous page,
 * in the query's order with ties broken by id in the same direction. `table` is what a query without a
 * search reads (SQLite walks an index for it: plant-pages.ts).
 */
export function listSql (query: PlantQuery, bindValue: Bind, searchSql: SearchSql, table: Search['from'] = () => 'plants'): ListSql {
  let bound = 0
  const bind: Bind = (value) => {
    bound++
    return bindValue(value)
  }
  const order = query.order ?? 'id'
  const search: Search = query.search === undefined ? { from: table, where: () => '', key: 'id' } : searchSql(query.search, !order.startsWith('name'), exactTag(query))
  // In the statement's order, as SQLite's parameters are numbered: FROM first, then WHERE.
  const from = search.from(bind)
  const { key } = search
  const conditions: string[] = []
  if (query.tag !== undefined) conditions.push(`tag = ${bind(query.tag)}`)
  if (query.filter !== undefined) conditions.push(filterSql(query.filter, bind, key))
  const searched = search.where(bind)
  if (searched !== '') conditions.push(searched)
  const matching = conditions.length === 0 ? 'true' : conditions.join(' AND ')
  const matchingParams = bound
  let possible = true
  const keyset: string[] = []
  if (order === 'id') {
    const start = keysetStart(query.after)
    if (start === undefined) possible = false
    else if (query.after !== undefined) keyset.push(`${key} >= ${bind(start)}`)
  } else if (query.from !== undefined) {
    const { id, name } = query.from
    if (order === 'id desc') keyset.push(`${key} < ${bind(id)}`)
    else keyset.push(`(name, id) ${order === 'name' ? '>' : '<'} (${bind(name)}, ${bind(id)})`)
  }
  const where = [...conditions, ...keyset].join(' AND ') || 'true'
  const direction = order.endsWith(' desc') ? ' DESC' : ''
  return { from, where, matching, matchingParams, order: order.startsWith('name') ? `name${direction}, id${direction}` : `${key}${direction}`, possible }
}
