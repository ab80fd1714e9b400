import type { LoggedEvent } from '../contract/events.js'
import type { Spans } from '../lib/trace-context.js'
import { formatBatch } from './batch.js'
import type { EventStream } from './stream.js'

// A span keeps at most this many links by default (OTEL_SPAN_LINK_COUNT_LIMIT).
const MAX_LINKS = 128

/**
 * Hands a batch of the log to every live stream, formatted once; a stream that cannot keep up was cut
 * and leaves the live set. With traces on, one span per batch, linked to its events' requests.
 */
export function fanOut (events: LoggedEvent[], live: Set<EventStream>, spans: Spans | undefined) {
  const write = () => {
    const batch = formatBatch(events)
    for (const stream of live) {
      if (!stream.write(batch)) live.delete(stream)
    }
  }
  if (spans === undefined || live.size === 0) return write()
  spans.run('events fan-out', {
    kind: 'producer',
    links: events.slice(0, MAX_LINKS).map((event) => event.traceParent),
    attributes: { 'plantstore.events.count': events.length, 'plantstore.streams.count': live.size }
  }, write)
}
