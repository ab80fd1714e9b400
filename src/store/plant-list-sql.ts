import type { Filter, Operator } from '../contract/filter.js'
import { keysetStart } from './plant-store.js'
import type { PlantQuery } from './plant-store.js'

/** Adds a value to the statement's parameters and answers its placeholder (`?` or `$n`). */
export type Bind = (value: string | bigint) => string
/** A dialect's condition for a name search through its full-text index. */
export type SearchSql = (words: string[], bind: Bind) => string

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
function prefixSql (column: string, prefix: string, bind: Bind): string {
  const end = prefixEnd(prefix)
  return end === undefined ? `${column} >= ${bind(prefix)}` : `(${column} >= ${bind(prefix)} AND ${column} < ${bind(end)})`
}

/**
 * A filter as a SQL condition, every value bound as a parameter. A comparison on tag is false, never
 * NULL, for a plant without one, so that NOT is an exact complement. Strings compare by code point:
 * SQLite's BINARY collation, and PostgreSQL's columns are `COLLATE "C"` (a migration).
 */
export function filterSql (filter: Filter, bind: Bind): string {
  switch (filter.kind) {
    case 'and':
    case 'or':
      return `(${filter.terms.map((term) => filterSql(term, bind)).join(filter.kind === 'and' ? ' AND ' : ' OR ')})`
    case 'not':
      return `NOT ${filterSql(filter.term, bind)}`
    case 'has-tag':
      return '(tag IS NOT NULL)'
    case 'id':
      return `(id ${SQL_OPERATORS[filter.op]} ${bind(filter.value)})`
    case 'name':
    case 'tag': {
      const column = filter.kind
      const comparison = filter.prefix
        ? `${filter.op === '!=' ? 'NOT ' : ''}${prefixSql(column, filter.value, bind)}`
        : `${column} ${SQL_OPERATORS[filter.op]} ${bind(filter.value)}`
      return column === 'tag' ? `(tag IS NOT NULL AND ${comparison})` : `(${comparison})`
    }
  }
}

/** What a page of plants is read with: its conditions (ANDed), its order, and whether any id can follow. */
export interface ListSql {
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
 * The SQL of a page of plants for either store: tag, filter, search and the keyset after the previous page,
 * in the query's order with ties broken by id in the same direction.
 */
export function listSql (query: PlantQuery, bindValue: Bind, searchSql: SearchSql): ListSql {
  let bound = 0
  const bind: Bind = (value) => {
    bound++
    return bindValue(value)
  }
  const conditions: string[] = []
  if (query.tag !== undefined) conditions.push(`tag = ${bind(query.tag)}`)
  if (query.filter !== undefined) conditions.push(filterSql(query.filter, bind))
  if (query.search !== undefined) conditions.push(searchSql(query.search, bind))
  const matching = conditions.length === 0 ? 'true' : conditions.join(' AND ')
  const matchingParams = bound
  const order = query.order ?? 'id'
  let possible = true
  const keyset: string[] = []
  if (order === 'id') {
    const from = keysetStart(query.after)
    if (from === undefined) possible = false
    else if (query.after !== undefined) keyset.push(`id >= ${bind(from)}`)
  } else if (query.from !== undefined) {
    const { id, name } = query.from
    if (order === 'id desc') keyset.push(`id < ${bind(id)}`)
    else keyset.push(`(name, id) ${order === 'name' ? '>' : '<'} (${bind(name)}, ${bind(id)})`)
  }
  const where = [...conditions, ...keyset].join(' AND ') || 'true'
  const direction = order.endsWith(' desc') ? ' DESC' : ''
  return { where, matching, matchingParams, order: order.startsWith('name') ? `name${direction}, id${direction}` : `id${direction}`, possible }
}
