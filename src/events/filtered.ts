import { filteredAs } from '../contract/filter-match.js'
import type { Filter } from '../contract/filter.js'
import { parseExactJson } from '../contract/exact-json.js'
import { toPlant } from '../contract/plant.js'
import type { Plant } from '../contract/plant.js'
import type { LoggedEvent } from '../contract/events.js'

/** What a filtered stream is sent for one event: the event itself, `plant.left`, or nothing. */
export type Filtered = 'event' | 'left' | undefined

/** A plant from its JSON in the log (an event's data, or the plant before it). */
function plantOf (json: string): Plant {
  const value = parseExactJson(json) as { id: number | bigint, name: string, tag?: string }
  return toPlant(BigInt(value.id), value.name, value.tag)
}

/**
 * A filter compiled once per stream to what it is sent of each event (filteredAs); the plants are
 * parsed once per batch (`PlantsOfBatch`), and only as far as the rule asks.
 */
export function filteredBy (filter: Filter) {
  return (plants: PlantsOfBatch, i: number): Filtered => filteredAs(filter, plants.events[i]!.type, () => plants.after(i), () => plants.before(i))
}

/** The plants of a batch's events, after and before each change, parsed when a filter first asks. */
export class PlantsOfBatch {
  readonly events: readonly LoggedEvent[]
  readonly #after: Array<Plant | undefined> = []
  readonly #before: Array<Plant | undefined> = []

  constructor (events: readonly LoggedEvent[]) {
    this.events = events
  }

  after (i: number): Plant | undefined {
    const event = this.events[i]!
    if (event.type === 'plant.deleted') return undefined
    return (this.#after[i] ??= plantOf(event.data))
  }

  /** Undefined for a create, and for events logged before the log kept it. */
  before (i: number): Plant | undefined {
    const before = this.events[i]!.before
    return before === null ? undefined : (this.#before[i] ??= plantOf(before))
  }
}

/** The `plant.left` event for an update, under the update's own sequence (so a resume stays exact). */
export function leftEvent (event: LoggedEvent): string {
  const id = /"id":(-?\d+)/.exec(event.data)![1]
  return `id: ${event.sequence}\nevent: plant.left\ndata: {"id":${id}}\n\n`
}
