import { createHash } from 'node:crypto'
import { SchemaMismatch } from '../contract/errors.js'
import { toInt64 } from '../contract/validators.js'
import type { Plant, PlantOrder } from '../store/store.js'

/** What a cursor is bound to: a cursor answers only the query that gave it. */
export interface CursorQuery { filter?: string, q?: string, tag?: string, order: PlantOrder }

const bindingOf = (query: CursorQuery) =>
  createHash('sha256').update(JSON.stringify([query.filter ?? null, query.q ?? null, query.tag ?? null, query.order])).digest('base64url').slice(0, 16)

/** The opaque cursor of the page after `last`, in an order other than plain id. */
export function cursorAfter (last: Plant, query: CursorQuery): string {
  return Buffer.from(JSON.stringify({ i: String(last.id), n: last.name, b: bindingOf(query) })).toString('base64url')
}

/** The plant a cursor names, checked against the query it is sent with; 400 (code 1001) otherwise. */
export function readCursor (cursor: string, query: CursorQuery): { id: bigint, name: string } {
  let parsed: unknown
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString())
  } catch {
    parsed = undefined
  }
  const { i, n, b } = (typeof parsed === 'object' && parsed !== null ? parsed : {}) as Record<string, unknown>
  const id = typeof i === 'string' ? toInt64(i) : undefined
  if (id === undefined || typeof n !== 'string' || typeof b !== 'string') throw new SchemaMismatch('query/cursor is not a cursor this server gave; follow the Link header')
  if (b !== bindingOf(query)) throw new SchemaMismatch('query/cursor belongs to another query: send it with the filter, q, tag and order_by it came with')
  return { id, name: n }
}
