import type { Plant } from './plant.js'
import type { Filter, Operator } from './filter.js'

/**
 * Code point order (UTF-8 byte order), as both stores compare: not JavaScript's UTF-16 order, which puts a
 * surrogate (half of a code point above U+FFFF) below U+E000–U+FFFF. Strings here are well-formed (the
 * validators refuse lone surrogates).
 */
export function compareCodePoints (a: string, b: string): number {
  const length = Math.min(a.length, b.length)
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i)
    const y = b.charCodeAt(i)
    if (x === y) continue
    const xSurrogate = (x & 0xF800) === 0xD800
    return xSurrogate === ((y & 0xF800) === 0xD800) ? x - y : xSurrogate ? 1 : -1
  }
  return a.length - b.length
}

function holds (op: Operator, order: number): boolean {
  switch (op) {
    case '=': return order === 0
    case '!=': return order !== 0
    case '<': return order < 0
    case '<=': return order <= 0
    case '>': return order > 0
    case '>=': return order >= 0
  }
}

/**
 * What a filtered reader (a stream, a subscription) is sent of a change: the event for a plant that
 * matches after a create or update, or matched before a delete; `left` for an update of one that
 * matched before and does not after; nothing otherwise. The plants are asked for only as the rule
 * needs them; `before` answers undefined where the log has none.
 */
export function filteredAs (filter: Filter, type: string, after: () => Plant | undefined, before: () => Plant | undefined): 'event' | 'left' | undefined {
  const test = (plant: () => Plant | undefined) => {
    const value = plant()
    return value !== undefined && matches(filter, value)
  }
  if (type === 'plant.deleted') return test(before) ? 'event' : undefined
  if (test(after)) return 'event'
  return type === 'plant.updated' && test(before) ? 'left' : undefined
}

/** Whether a plant matches a filter, by the same rules as the stores' SQL (a missing tag compares false). */
export function matches (filter: Filter, plant: Plant): boolean {
  switch (filter.kind) {
    case 'and': return filter.terms.every((term) => matches(term, plant))
    case 'or': return filter.terms.some((term) => matches(term, plant))
    case 'not': return !matches(filter.term, plant)
    case 'has-tag': return plant.tag !== undefined
    case 'id': return holds(filter.op, plant.id < filter.value ? -1 : plant.id > filter.value ? 1 : 0)
    case 'name':
    case 'tag': {
      const value = filter.kind === 'name' ? plant.name : plant.tag
      if (value === undefined) return false
      if (filter.prefix) return value.startsWith(filter.value) === (filter.op === '=')
      return holds(filter.op, compareCodePoints(value, filter.value))
    }
  }
}
