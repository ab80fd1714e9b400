// The webhook dispatcher's own thread: sending deliveries (HTTP, signatures, claims and outcomes)
// costs about as much as serving the create that caused them, so it runs beside the event loop that
// serves requests rather than on it. It tells the main thread its metrics and log lines.
import { parentPort, workerData } from 'node:worker_threads'
import type { MessagePort } from 'node:worker_threads'
import type { DatabaseUrl } from '../../config/config.js'
import { openWebhookStore } from '../../store/open-store.js'
import { WebhookDispatcher } from '../dispatcher.js'
import type { DispatcherSettings } from '../dispatcher.js'
import { plainError } from '../log.js'
import type { Log, LogLevel } from '../log.js'
import type { Spans } from '../../lib/trace-context.js'
import type { ToThread } from './messages.js'

const { database, settings, writerPort, levels, tracing: tracingModule } = workerData as {
  database: DatabaseUrl, settings: DispatcherSettings, writerPort?: MessagePort, levels: LogLevel[], tracing?: string
}
const port = parentPort!

const relay = (level: LogLevel) => levels.includes(level)
  ? (fields: object, msg: string) => {
      const { err, ...rest } = fields as { err?: unknown }
      port.postMessage({ log: { level, fields: err === undefined ? rest : { ...rest, err: plainError(err) }, msg } })
    }
  : () => {}
const log: Log = { debug: relay('debug'), info: relay('info'), warn: relay('warn'), error: relay('error') }

// Metrics are sent in small batches rather than one message per delivery.
let outcomes = { delivered: 0, failed: 0, given_up: 0 }
let lags: number[] = []
let disabled = 0
function sendMetrics () {
  port.postMessage({ metrics: { outcomes, lags, disabled, concurrency: [...dispatcher.concurrency()] } })
  outcomes = { delivered: 0, failed: 0, given_up: 0 }
  lags = []
  disabled = 0
}

// An isolate has its own OpenTelemetry globals: the thread starts its own SDK (before pg loads), and
// flushes it when it stops.
const tracing = tracingModule === undefined
  ? undefined
  : await (await import(tracingModule) as { startOtel: (store: { postgres: boolean }) => Promise<{ spans: Spans, shutdown: () => Promise<void> }> }).startOtel({ postgres: database.kind === 'postgres' })
/** The main thread's wakes seen: it heeds a list of lanes taking deliveries only once that list has seen its latest. */
let wakes = 0
const store = await openWebhookStore(database, writerPort)
const dispatcher = new WebhookDispatcher(store.webhooks, log, {
  ...settings,
  spans: tracing?.spans,
  onAttempt: (outcome) => { outcomes[outcome]++ },
  onDelivered: (lagSeconds) => { lags.push(lagSeconds) },
  onDisabled: () => { disabled++ },
  // The main thread reads the subscribers only while no thread runs; this one tells it when none are left.
  onSubscribers: (count) => { if (count === 0) port.postMessage({ unsubscribed: true }) },
  onAccepting: (subscriptions) => { port.postMessage({ accepting: { subscriptions, wakes } }) }
})
setInterval(sendMetrics, 250).unref()

port.on('message', async (message: ToThread) => {
  for (const handed of message.handed ?? []) dispatcher.take(handed)
  if (message.wake !== undefined && message.wake > 0) {
    wakes = message.wake
    dispatcher.wake()
  }
  if (message.refresh !== undefined) {
    await dispatcher.refresh().catch((error: unknown) => log.warn({ err: error }, 'webhook dispatcher could not read the subscribers'))
    port.postMessage({ refreshed: message.refresh })
  }
  if (message.stop === true) {
    await dispatcher.stop()
    sendMetrics()
    await store.close()
    await tracing?.shutdown().catch(() => {})
    port.postMessage({ stopped: true })
    process.exit(0)
  }
})
dispatcher.start()
