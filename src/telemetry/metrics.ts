import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'

/** Every metric the service exports, on a registry of its own (one per app, so tests do not share one). */
export class Metrics {
  readonly registry = new Registry()
  readonly #requestDuration = new Histogram({
    name: 'plantstore_http_request_duration_seconds',
    help: 'Time from receiving a request to answering it, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry]
  })

  /** Each route and method's children by status, found once: prom-client hashes the labels on every labels() call. */
  readonly #answered = new Map<string, Map<number, Histogram.Internal<'method' | 'route' | 'status'>>>()

  readonly #storeDuration = new Histogram({
    name: 'plantstore_store_operation_duration_seconds',
    help: 'Time of each store operation, by operation',
    labelNames: ['operation'] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
    registers: [this.registry]
  })

  /** Requests whose onRequest hooks ran, and of those, the ones answered: their difference is in flight. */
  readonly counts = { received: 0, answered: 0 }

  readonly batchSize = new Histogram({
    name: 'plantstore_group_commit_batch_size',
    help: 'Creates committed together in one transaction (group commit)',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
    registers: [this.registry]
  })

  readonly webhookLag = new Histogram({
    name: 'plantstore_webhook_delivery_lag_seconds',
    help: 'Time from a plant\'s creation to the delivery of its newPlant event (retries included)',
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300, 1800, 3600, 21600, 86400],
    registers: [this.registry]
  })

  readonly webhookDeliveries = new Counter({
    name: 'plantstore_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: delivered, failed (will retry) or given_up',
    labelNames: ['outcome'] as const,
    registers: [this.registry]
  })

  readonly webhooksDisabled = new Counter({
    name: 'plantstore_webhook_subscriptions_disabled_total',
    help: 'Webhook subscriptions disabled for failing without a success longer than --webhook-disable-after',
    registers: [this.registry]
  })

  readonly streamEvents = new Counter({
    name: 'plantstore_stream_events_sent_total',
    help: 'Events written to GET /events streams (one per event per stream)',
    registers: [this.registry]
  })

  readonly streamLag = new Histogram({
    name: 'plantstore_stream_lag_seconds',
    help: 'Time from the commit of the oldest event in a write to a GET /events stream to that write (one per write; catching up included)',
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300],
    registers: [this.registry]
  })

  constructor () {
    const counts = this.counts
    const duration = this.#requestDuration
    // The requests answered are the duration histogram's counts, copied when scraped: no second series to
    // update on every request.
    this.registry.registerMetric(new Counter({
      name: 'plantstore_http_requests_total',
      help: 'HTTP requests answered, by method, route template and status',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [],
      async collect () {
        this.reset()
        for (const { metricName, labels, value } of (await duration.get()).values) {
          if (metricName === 'plantstore_http_request_duration_seconds_count') this.inc(labels, value)
        }
      }
    }))
    this.registry.registerMetric(new Gauge({
      name: 'plantstore_http_requests_in_flight',
      help: 'Requests received and not yet answered',
      registers: [],
      collect () { this.set(counts.received - counts.answered) }
    }))
    collectDefaultMetrics({ register: this.registry, prefix: 'plantstore_' })
  }

  /** Observes one answered request's duration, by method, route template and status. */
  answered (method: string, route: string, status: number, seconds: number) {
    const key = `${method} ${route}`
    let byStatus = this.#answered.get(key)
    if (byStatus === undefined) this.#answered.set(key, byStatus = new Map())
    let child = byStatus.get(status)
    if (child === undefined) byStatus.set(status, child = this.#requestDuration.labels(method, route, String(status)))
    child.observe(seconds)
  }

  /** The duration histogram's child for one store operation (`plants.create`), to keep and observe into. */
  storeOperation (operation: string) {
    return this.#storeDuration.labels(operation)
  }

  /** Streams open now, read from the feed when scraped. */
  observeStreams (open: () => number) {
    this.registry.registerMetric(new Gauge({
      name: 'plantstore_streams_open',
      help: 'GET /events streams open in this process',
      registers: [],
      collect () { this.set(open()) }
    }))
  }

  /** Per-subscriber gauges, read from the outbox and the dispatcher when scraped (not on every change). */
  observeWebhooks (sources: { backlog: () => Promise<Map<number, number>>, concurrency: () => Map<number, number> }) {
    const perSubscription = (gauge: Gauge<'subscription'>, values: Map<number, number>) => {
      gauge.reset()
      for (const [id, value] of values) gauge.set({ subscription: String(id) }, value)
    }
    this.registry.registerMetric(new Gauge({
      name: 'plantstore_webhook_backlog',
      help: 'newPlant events not yet delivered to a subscriber (nor given up), by subscription id',
      labelNames: ['subscription'] as const,
      registers: [],
      async collect () { perSubscription(this, await sources.backlog()) }
    }))
    this.registry.registerMetric(new Gauge({
      name: 'plantstore_webhook_concurrency',
      help: 'Deliveries this process lets be in flight to a subscriber now (its adaptive limit), by subscription id',
      labelNames: ['subscription'] as const,
      registers: [],
      collect () { perSubscription(this, sources.concurrency()) }
    }))
  }
}
