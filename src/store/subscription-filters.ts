import { LRUCache } from 'lru-cache'
import type { PlantChange } from '../contract/events.js'
import { parseFilter } from '../contract/filter.js'
import type { Filter } from '../contract/filter.js'
import { filteredAs } from '../contract/filter-match.js'

/**
 * What a filtered subscription is sent of a change (filteredAs, the rule filtered streams follow too).
 * Filters are parsed once per text (bounded).
 */
export class SubscriptionFilters {
  readonly #parsed = new LRUCache<string, { filter: Filter | undefined }>({ max: 1000 })

  decide (text: string, change: PlantChange): 'event' | 'left' | undefined {
    let entry = this.#parsed.get(text)
    if (entry === undefined) {
      entry = { filter: parseFilter(text) }
      this.#parsed.set(text, entry)
    }
    const { filter } = entry
    if (filter === undefined) return 'event'
    const after = change.type === 'plant.deleted' ? undefined : change.plant
    const before = change.type === 'plant.created' ? undefined : change.type === 'plant.updated' ? change.before : change.plant
    return filteredAs(filter, change.type, () => after, () => before)
  }
}
