import { SchemaMismatch } from '../contract/errors.js'
import { FilterError, parseFilter } from '../contract/filter.js'
import type { Filter } from '../contract/filter.js'

/** The filter parameter as a tree; a bad one is 400 (code 1001) naming what is wrong and where. */
export function parsedFilter (text: string | undefined): Filter | undefined {
  if (text === undefined) return undefined
  try {
    return parseFilter(text)
  } catch (error) {
    if (error instanceof FilterError) throw new SchemaMismatch(`query/filter: ${error.message}`)
    throw error
  }
}
