import { LRUCache } from 'lru-cache'
import type { PlantChange } from '../contract/events.js'
import { parseFilter } from '../contract/filter.js'
import type { Filter } from '../contract/filter.js'
import { matches } from '../contract/filter-match.js'

/**
 * What a filtered subscription is sent of a change (the rules of filtered streams, events/filtered.ts):
 * the event for a plant that matches after a create or update, or matched before a delete; `left` for
 * an update of one that matched before and does not after. Filters are parsed once per text (bounded).
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
    if (change.type === 'plant.deleted') return matches(filter, change.plant) ? 'event' : undefined
    if (matches(filter, change.plant)) return 'event'
    return change.type === 'plant.updated' && matches(filter, change.before) ? 'left' : undefined
  }
}
