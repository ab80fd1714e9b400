import type { Plant } from './plant.js'
import { plantJson } from './plant.js'

/**
 * The event catalog: dotted, lower-case names that never change meaning (new ones may be added).
 * `webhook.disabled` is operational: it is never in the plant event log's stream.
 */
export const EVENT_TYPES = ['plant.created', 'plant.updated', 'plant.deleted', 'webhook.disabled'] as const
export type EventType = typeof EVENT_TYPES[number]
/** The types a plant change appends to the log, and the only ones `GET /events` streams. */
export const PLANT_EVENT_TYPES = ['plant.created', 'plant.updated', 'plant.deleted'] as const satisfies readonly EventType[]
export type PlantEventType = typeof PLANT_EVENT_TYPES[number]
/** What a stream may carry: the log's types, and `plant.left`, which only filtered readers get. */
export type StreamEventType = PlantEventType | 'plant.left'
/** What a delivery may carry: the catalog's types, and `plant.left`, which only filtered subscriptions get. */
export type DeliveredType = EventType | 'plant.left'

/**
 * A plant change, as the store appends it to the log in the change's own transaction: the plant after
 * it (for a delete, the plant deleted) and, for a replace, the plant before it, which filtered readers
 * need (see `eventBefore`).
 */
export type PlantChange = (
  | { type: 'plant.created' | 'plant.deleted', plant: Plant }
  | { type: 'plant.updated', plant: Plant, before: Plant }
) & {
  /** The W3C traceparent of the request that made it, when traces are on. */
  trace?: string
}

/** An event of the log, as readers get it: its data is JSON text, ids with every digit. */
export interface LoggedEvent {
  sequence: bigint
  type: PlantEventType
  /** Its Standard Webhooks message id, the `webhook-id` of its deliveries. */
  messageId: string
  /** Unix milliseconds of the commit that appended it. */
  createdAt: number
  data: string
  /** The plant before the change (an update's, a delete's), as JSON; readers never see it, filters read it. */
  before: string | null
  /** The W3C traceparent of the request that made it, when traces were on. */
  traceParent: string | null
}

/** An event's data: the plant as `GET /plants/{id}` answers it, or `{"id": …}` for a deletion. */
export function eventData (change: PlantChange): string {
  return change.type === 'plant.deleted' ? `{"id":${change.plant.id}}` : plantJson(change.plant as Plant)
}

/** The plant as it was before a change, for the log: what a filtered reader decides `left` and deletes by. */
export function eventBefore (change: PlantChange): string | null {
  return change.type === 'plant.created' ? null : plantJson(change.type === 'plant.updated' ? change.before : change.plant)
}

/** One Server-Sent Event: `id:` the sequence, `event:` the type, `data:` the JSON (one line, as JSON text is). */
export function sseEvent (event: Pick<LoggedEvent, 'sequence' | 'type' | 'data'>): string {
  return `id: ${event.sequence}\nevent: ${event.type}\ndata: ${event.data}\n\n`
}

/**
 * What a stream gets when events after its cursor were deleted by retention: the oldest one kept, and
 * where to list again. It has no `id:`, so a reconnect still resumes from the last event received.
 */
export function sseReset (deletedThrough: bigint): string {
  return `event: reset\ndata: {"oldest":${deletedThrough + 1n},"relist":"/plants"}\n\n`
}

/**
 * Parses a `?types=` list: the set, or why it is refused (naming what the stream does not carry, and
 * what it does). `plant.left` is a type of filtered streams only.
 */
export function parseEventTypes (text: string, filtered = false): Set<StreamEventType> | { refused: string } {
  const carried: readonly string[] = filtered ? [...PLANT_EVENT_TYPES, 'plant.left'] : PLANT_EVENT_TYPES
  const names = text.split(',').map((name) => name.trim()).filter((name) => name !== '')
  const catalog = `the stream's types are ${carried.join(', ')}${filtered ? '' : ' (and plant.left, with a filter)'}`
  if (names.length === 0) return { refused: `names no event type; ${catalog}` }
  const unknown = names.filter((name) => !carried.includes(name))
  if (unknown.length > 0) return { refused: `names ${unknown.map((name) => JSON.stringify(name)).join(', ')}, not an event type it carries; ${catalog}` }
  return new Set(names as StreamEventType[])
}
