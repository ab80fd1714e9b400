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

/** A plant change, as the store appends it to the log in the change's own transaction. */
export type PlantChange = (
  | { type: 'plant.created' | 'plant.updated', plant: Plant }
  | { type: 'plant.deleted', plant: Pick<Plant, 'id'> }
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
  /** The W3C traceparent of the request that made it, when traces were on. */
  traceParent: string | null
}

/** An event's data: the plant as `GET /plants/{id}` answers it, or `{"id": …}` for a deletion. */
export function eventData (change: PlantChange): string {
  return change.type === 'plant.deleted' ? `{"id":${change.plant.id}}` : plantJson(change.plant as Plant)
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

/** Parses a `?types=` list: the set, or why it is refused (naming what the stream does not carry, and what it does). */
export function parseEventTypes (text: string): Set<PlantEventType> | { refused: string } {
  const names = text.split(',').map((name) => name.trim()).filter((name) => name !== '')
  const catalog = `the stream's types are ${PLANT_EVENT_TYPES.join(', ')}`
  if (names.length === 0) return { refused: `names no event type; ${catalog}` }
  const unknown = names.filter((name) => !(PLANT_EVENT_TYPES as readonly string[]).includes(name))
  if (unknown.length > 0) return { refused: `names ${unknown.map((name) => JSON.stringify(name)).join(', ')}, not an event type it carries; ${catalog}` }
  return new Set(names as PlantEventType[])
}
