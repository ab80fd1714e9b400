import type { Spans } from '../lib/trace-context.js'

/** The dispatcher's settings (config.webhooks): plain data, so they reach its thread. */
export interface DispatcherSettings {
  /** How long one attempt may take to connect, and then to be answered. */
  timeoutMs: number
  /** Deliveries in flight to one subscriber at most (per process); the lane's limit grows toward it. */
  perSubscription: number
  /** The first retry waits about this long; each later one twice as long, up to an hour. */
  retryBaseMs: number
  /** An event still undelivered this long after it was created is given up. */
  giveUpAfterMs: number
  /** A subscription failing without a success for this long is disabled (--webhook-disable-after). */
  disableAfterMs: number
  /** The safety poll: how often to look for new subscribers and due deliveries when nothing wakes us. */
  pollMs: number
  /** Integrators' subscriptions may reach private addresses too (--webhook-allow-private). */
  allowPrivate: boolean
  /** Delivery connections in use at once, all subscribers together (see connection-budget.ts). */
  maxConnections: number
}

export interface DispatcherOptions extends DispatcherSettings {
  /** A span per attempt, under the traceparent stored with its event, when traces are on. */
  spans?: Spans
  /** Told attempts' outcomes (for metrics): `count` attempts came to `outcome`. */
  onAttempt?: (outcome: 'delivered' | 'failed' | 'given_up', count: number) => void
  /** Told, for each delivered event, the seconds from its creation to its delivery (for metrics). */
  onDelivered?: (lagSeconds: number) => void
  /** Told of each subscription this dispatcher disabled (for metrics; the log line is the dispatcher's). */
  onDisabled?: () => void
  /** Told, at each reading of the subscribers, how many there are. */
  onSubscribers?: (count: number) => void
  /** Told the subscriptions whose new deliveries this dispatcher takes straight from creates, each time they change. */
  onAccepting?: (subscriptions: readonly number[]) => void
}

/**
 * How long a claim is the dispatcher's alone. It outlives the attempt (connect, then answer, each within
 * the timeout), so no other dispatcher takes a delivery that is still being sent.
 */
export const leaseMs = (settings: DispatcherSettings) => 3 * settings.timeoutMs + 5000
