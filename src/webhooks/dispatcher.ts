import type { Log } from './log.js'
import type { DeliveryHandoff, HandedDeliveries, WebhookStore } from '../store/store.js'
import { ConnectionBudget } from './connection-budget.js'
import { SubscriberLane } from './lane.js'
import { leaseMs } from './settings.js'
import type { DispatcherOptions } from './settings.js'

export { retryDelay } from './retry.js'
export type { DispatcherOptions, DispatcherSettings } from './settings.js'

/**
 * What the app knows of its dispatcher, whether it runs on the event loop or in a thread of its own.
 * Creates hand it their deliveries straight away where it takes them (DeliveryHandoff).
 */
export interface Dispatcher extends DeliveryHandoff {
  start (): void
  /** Due deliveries may be waiting: a plant was created. */
  wake (): void
  /** Reads the subscribers again (one was added or removed here). */
  refresh (): Promise<void>
  /** Each subscriber's concurrency limit now: subscription id → deliveries in flight allowed. */
  concurrency (): Map<number, number>
  /** Stops claiming and waits for the attempts in flight (each bounded by the timeout). */
  stop (): Promise<void>
}

/**
 * Sends the outbox's due deliveries, off the request path: one lane per subscriber (lane.ts), woken when
 * a create commits and by a safety poll that also picks up subscribers added elsewhere (the CLI,
 * another instance). Claims are leases in the store, so after a crash a delivery is taken up again:
 * at least once.
 */
export class WebhookDispatcher implements Dispatcher {
  readonly #store: WebhookStore
  readonly #log: Log
  readonly #options: DispatcherOptions
  readonly #lanes = new Map<number, SubscriberLane>()
  readonly #budget: ConnectionBudget
  #timer: NodeJS.Timeout | undefined
  #stopped = true
  #refreshing: Promise<void> | undefined
  readonly leaseMs: number
  subscriptions: readonly number[] = []

  constructor (store: WebhookStore, log: Log, options: DispatcherOptions) {
    this.#store = store
    this.#log = log
    this.#options = options
    this.#budget = new ConnectionBudget(options.maxConnections)
    this.leaseMs = leaseMs(options)
  }

  /** Deliveries a create wrote already claimed for this dispatcher; a lane gone since leaves them to a claim once their lease lapses. */
  take (handed: HandedDeliveries) {
    const bySubscription = Map.groupBy(handed.rows, (row) => Number(row.subscription_id))
    for (const [id, rows] of bySubscription) this.#lanes.get(id)?.take({ leaseUntil: handed.leaseUntil, rows })
  }

  /** A lane began or ceased to take deliveries from creates: the list of those that do is told again. */
  #acceptingChanged = () => {
    this.subscriptions = [...this.#lanes.values()].filter((lane) => lane.accepting).map((lane) => lane.subscriptionId)
    this.#options.onAccepting?.(this.subscriptions)
  }

  start () {
    this.#stopped = false
    this.#timer = setInterval(() => this.#poll(), this.#options.pollMs)
    this.#timer.unref()
    this.#poll()
  }

  /** Due deliveries may be waiting: a plant was created. */
  wake () {
    if (this.#stopped) return
    for (const lane of this.#lanes.values()) lane.wake()
  }

  /** Each subscriber's concurrency limit now: subscription id → deliveries in flight allowed. */
  concurrency (): Map<number, number> {
    return new Map([...this.#lanes].map(([id, lane]) => [id, lane.concurrency]))
  }

  /** Reads the subscribers again: lanes for new ones, and none for removed ones. */
  async refresh () {
    this.#refreshing ??= this.#refresh().finally(() => { this.#refreshing = undefined })
    return this.#refreshing
  }

  /** Stops claiming and waits for the attempts in flight (each bounded by the timeout). */
  async stop () {
    this.#stopped = true
    clearInterval(this.#timer)
    await this.#refreshing?.catch(() => {})
    await Promise.all([...this.#lanes.values()].map((lane) => lane.stop()))
    this.#lanes.clear()
  }

  /** The safety poll: disables what failed too long, reads the subscribers again, and wakes every lane. */
  #poll () {
    this.#disableFailing()
      .catch((error: unknown) => this.#log.warn({ err: error }, 'webhook dispatcher could not look for failing subscriptions'))
      .then(() => this.refresh())
      .then(() => this.wake(), (error: unknown) => {
        this.#log.warn({ err: error }, 'webhook dispatcher could not read the subscribers')
      })
  }

  async #refresh () {
    const subscriptions = await this.#store.listSubscriptions()
    if (this.#stopped) return
    this.#options.onSubscribers?.(subscriptions.length)
    // A disabled subscription has no lane: nothing is sent to it, its events wait in the outbox.
    const enabled = new Map(subscriptions.filter((s) => s.state === 'enabled').map((subscription) => [subscription.id, subscription]))
    for (const [id, lane] of this.#lanes) {
      const subscription = enabled.get(id)
      if (subscription !== undefined) {
        lane.configure(subscription)
        continue
      }
      this.#lanes.delete(id)
      // Its stop tells #acceptingChanged, if it was taking deliveries; else the list is unchanged.
      lane.stop().catch(() => {})
    }
    for (const subscription of enabled.values()) {
      if (this.#lanes.has(subscription.id)) continue
      const lane = new SubscriberLane(subscription, this.#store, this.#log, this.#options, this.#budget, this.#acceptingChanged)
      this.#lanes.set(subscription.id, lane)
      lane.wake()
    }
  }

  /**
   * Disables the subscriptions failing for too long (in the store, so of several dispatchers one does
   * each); the poll's refresh then stops their lanes, and its wake sends their webhook.disabled notices.
   */
  async #disableFailing () {
    const now = Date.now()
    const disabled = await this.#store.disableFailing(now - this.#options.disableAfterMs, now)
    for (const subscription of disabled) {
      this.#options.onDisabled?.()
      this.#log.warn({
        subscriptionId: subscription.id,
        url: subscription.url,
        failingSince: subscription.failingSince?.toISOString(),
        consecutiveFailures: subscription.consecutiveFailures,
        lastError: subscription.lastError
      }, 'webhook subscription disabled: it failed without a success for longer than --webhook-disable-after; its events are kept until it is enabled again')
    }
  }
}
