import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client'
import type { Store } from './store/store.js'

/** Every metric the service exports, on a registry of its own (one per app, so tests do not share one). */
export class Metrics {
  readonly registry = new Registry()
  readonly requests = new Counter({
    name: 'plantstore_http_requests_total',
    help: 'HTTP requests answered, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [this.registry]
  })

  readonly requestDuration = new Histogram({
    name: 'plantstore_http_request_duration_seconds',
    help: 'Time from receiving a request to answering it, by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [this.registry]
  })

  readonly inFlight = new Gauge({
    name: 'plantstore_http_requests_in_flight',
    help: 'Requests received and not yet answered',
    registers: [this.registry]
  })

  readonly storeDuration = new Histogram({
    name: 'plantstore_store_operation_duration_seconds',
    help: 'Time of each store operation, by operation',
    labelNames: ['operation'] as const,
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.5, 1],
    registers: [this.registry]
  })

  readonly batchSize = new Histogram({
    name: 'plantstore_group_commit_batch_size',
    help: 'Creates committed together in one transaction (group commit)',
    buckets: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512],
    registers: [this.registry]
  })

  readonly webhookDeliveries = new Counter({
    name: 'plantstore_webhook_deliveries_total',
    help: 'Webhook delivery attempts, by outcome: delivered, failed (will retry) or given_up',
    labelNames: ['outcome'] as const,
    registers: [this.registry]
  })

  constructor () {
    collectDefaultMetrics({ register: this.registry, prefix: 'plantstore_' })
  }
}

/** The store with every method timed into `plantstore_store_operation_duration_seconds`. */
export function instrumentStore (store: Store, metrics: Metrics): Store {
  return new Proxy(store, {
    get (target, property, receiver) {
      const value = Reflect.get(target, property, receiver)
      if (typeof value !== 'function' || typeof property !== 'string') return value
      const timer = metrics.storeDuration.labels(property)
      return async (...args: unknown[]) => {
        const end = timer.startTimer()
        try {
          return await value.apply(target, args)
        } finally {
          end()
        }
      }
    }
  })
}
