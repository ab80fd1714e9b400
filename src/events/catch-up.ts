import { sseReset } from '../contract/events.js'
import type { EventQuery, EventStore, LoggedEvent } from '../store/store.js'
import { formatBatch } from './batch.js'
import type { EventStream } from './stream.js'
import type { CatchUpTurns } from './catch-up-turns.js'

/**
 * Reads a page of the log for `streams`, ending those whose credential has ended before the page is
 * written (StreamCredentials.read), so nothing committed after a revocation reaches its streams.
 */
export type ReadLog = (query: EventQuery, streams: () => Iterable<EventStream>) => Promise<LoggedEvent[]>

/**
 * One step of a stream catching up: the page of the log after its cursor, written to it. Retention may
 * have deleted past the cursor since the stream began (a slow reader catching up sits at the log's old
 * end). A page that starts right after the cursor lacks nothing, since retention deletes only a prefix;
 * otherwise the bounds are read after the page, and when they show events after the cursor deleted, the
 * reader is told with `event: reset`, as on a resume from below them. Answers false when the log had
 * nothing after the cursor. A stream whose credential has ended by then is ended instead (its writes do nothing).
 */
export async function catchUp (store: EventStore, stream: EventStream, limit: number, readLog: ReadLog): Promise<boolean> {
  // The stream's credential may have ended since the page's events were committed: readLog ends it then.
  const events = await readLog({ after: stream.cursor, limit }, () => [stream])
  const deletedThrough = events[0]?.sequence === stream.cursor + 1n ? undefined : (await store.bounds()).deletedThrough
  if (deletedThrough !== undefined && deletedThrough > stream.cursor) {
    stream.raw(sseReset(deletedThrough))
    stream.cursor = deletedThrough
    return true
  }
  if (events.length === 0) return false
  stream.write(formatBatch(events))
  return true
}

/**
 * One step of catching up, in the stream's turn (catch-up-turns.ts): a page, or nothing for a stream
 * that ended while it waited. Answers false when the log had nothing after its cursor.
 */
export async function catchUpInTurn (store: EventStore, stream: EventStream, limit: number, turns: CatchUpTurns, readLog: ReadLog) {
  const done = await turns.take(stream.owner.key)
  try {
    return stream.ended || await catchUp(store, stream, limit, readLog)
  } finally {
    done()
  }
}
