import { sseEvent } from '../contract/events.js'
import type { LoggedEvent } from '../contract/events.js'
import { PlantsOfBatch } from './filtered.js'

/**
 * A batch of the log, formatted once for every stream it goes to: each event's SSE text and size,
 * and the whole batch as one text, which a stream that takes every event writes in one go.
 */
export interface EventBatch {
  events: readonly LoggedEvent[]
  texts: string[]
  bytes: number[]
  whole: string
  wholeBytes: number
  /** The oldest event's commit time (Unix ms): a write's lag is measured from it. */
  oldestAt: number
  /** The events' plants, for filtered streams (parsed when one first asks). */
  plants: PlantsOfBatch
}

export function formatBatch (events: readonly LoggedEvent[]): EventBatch {
  const texts = events.map(sseEvent)
  const bytes = texts.map((text) => Buffer.byteLength(text))
  return {
    events,
    texts,
    bytes,
    whole: texts.join(''),
    wholeBytes: bytes.reduce((sum, size) => sum + size, 0),
    oldestAt: Math.min(...events.map((event) => event.createdAt)),
    plants: new PlantsOfBatch(events)
  }
}
