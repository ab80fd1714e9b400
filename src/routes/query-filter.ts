import { SchemaMismatch } from '../contract/errors.js'
import { FilterError, parseFilter } from '../contract/filter.js'
import type { Filter } from '../contract/filter.js'

/**
 * A filter parameter (or, with `at`, a body member) as a tree; a bad one is 400 (code 1001) naming what
 * is wrong and where.
 */
export function parsedFilter (text: string | null | undefined, at = 'query/filter'): Filter | undefined {
  if (text === undefined || text === null) return undefined
  try {
    return parseFilter(text)
  } catch (error) {
    if (error instanceof FilterError) throw new SchemaMismatch(`${at}: ${error.message}`)
    throw error
  }
}
