import fp from 'fastify-plugin'
import { EventFeed } from '../events/feed.js'
import { Retention } from '../events/retention.js'
import { StreamCredentials } from '../events/stream-credentials.js'
import type { Metrics } from '../telemetry/metrics.js'
import type { Spans } from '../lib/trace-context.js'

const HEARTBEAT_MS = 15_000
const RETENTION_EVERY_MS = 60_000

/**
 * Runs the event feed (the log's reader for GET /events) as `app.events`, and the log's retention,
 * beside the server: both start once the app is ready; at close, every stream is ended after its
 * last whole event before the server drains (streams would otherwise hold it open).
 */
interface EventsOptions { retentionMs: number, tokenRetentionMs: number, bufferBytes: number, metrics: Metrics, heartbeatMs?: number, spans?: Spans }

export default fp<EventsOptions>(async (app, { retentionMs, tokenRetentionMs, bufferBytes, metrics, heartbeatMs = HEARTBEAT_MS, spans }) => {
  const credentials: StreamCredentials = new StreamCredentials(() => feed.streams, app.store.tokens, app.store.events)
  const feed: EventFeed = new EventFeed(app.store.events, {
    spans,
    readLog: (query, streams) => credentials.read(query, streams),
    // A reader this far behind is cut after its last whole event and resumes from the log.
    bufferBytes,
    heartbeatMs,
    // Once per write, not per event: a batch's metrics cost what its one socket write does.
    onSent: (count, lagSeconds) => {
      metrics.streamEvents.inc(count)
      metrics.streamLag.observe(lagSeconds)
    }
  })
  const log = app.log.child({ component: 'events' })
  const retention = new Retention(app.store, {
    retentionMs,
    tokenRetentionMs,
    everyMs: RETENTION_EVERY_MS,
    onPruned: (count) => log.debug({ count }, 'events past the retention deleted'),
    onPrunedDeliveries: (count) => log.debug({ count }, 'webhook delivery records past the retention deleted'),
    onError: (error) => { if (!app.storeOutage.failed(error)) log.warn({ err: error }, 'event retention could not run; it tries again later') }
  })
  // Each commit of this process wakes the feed (other processes' are heard through the store's watch).
  const unsubscribe = app.store.commits.subscribe((commit) => { if (commit.kind === 'plants') feed.wake() })
  metrics.observeStreams(() => feed.open)
  app.decorate('events', feed)
  app.addHook('onReady', async () => {
    await feed.start()
    credentials.start()
    retention.start()
  })
  app.addHook('preClose', async () => {
    unsubscribe()
    credentials.stop()
    await feed.stop()
    await retention.stop()
  })
}, { name: 'events', dependencies: ['store'] })
