import type { Log } from './log.js'
import type { Delivery, HandedDeliveries, Subscription, WebhookStore } from '../store/store.js'
import { ConcurrencyLimit } from './concurrency-limit.js'
import { DeliveryQueue } from './delivery-queue.js'
import type { ConnectionBudget } from './connection-budget.js'
import { Pacer } from './pacer.js'
import { RetryTimer } from './retry.js'
import { recordOutcome } from './attempt-outcome.js'
import { Sender } from './sender.js'
import { leaseMs } from './settings.js'
import type { DispatcherOptions } from './settings.js'
import { sendTraced } from './delivery-span.js'

/**
 * One subscriber's deliveries: claims its due events from the outbox a window at a time (or takes them
 * from creates, already claimed, while it keeps up), keeps as many in flight as its concurrency limit
 * allows, and hands each outcome to the store. Each subscriber has its own lane, connections and
 * limit, so a slow or failing one never holds up another.
 */
export class SubscriberLane {
  readonly subscriptionId: number
  readonly #store: WebhookStore
  readonly #log: Log
  readonly #options: DispatcherOptions
  readonly #sender: Sender
  readonly #limit: ConcurrencyLimit
  readonly #budget: ConnectionBudget
  readonly #onBudget = () => this.#pump()
  /** The subscriber's host, as its delivery spans name it. */
  readonly #host: string
  readonly #queue = new DeliveryQueue()
  readonly #attempts = new Set<Promise<void>>()
  #inFlight = 0
  #claiming = false
  /** The outbox may hold due deliveries we have not claimed; cleared when a claim finds fewer than it asked for. */
  #due = true
  #wakes = 0
  #stopped = false
  readonly #retries = new RetryTimer(() => this.wake())
  /** Spaces the starts of a throttled subscription (its deliveries a second, or null). */
  readonly #pacer: Pacer
  #accepting = false
  readonly #onAccepting: () => void

  constructor (subscription: Subscription, store: WebhookStore, log: Log, options: DispatcherOptions, budget: ConnectionBudget, onAccepting: () => void) {
    this.subscriptionId = subscription.id
    this.#budget = budget
    this.#store = store
    this.#log = log
    this.#options = options
    this.#host = new URL(subscription.url).hostname
    this.#sender = new Sender(subscription.url, {
      timeoutMs: options.timeoutMs,
      connections: options.perSubscription,
      publicOnly: !subscription.operator && !options.allowPrivate
    })
    this.#limit = new ConcurrencyLimit(4, options.perSubscription)
    this.#pacer = new Pacer(subscription.maxPerSecond, () => this.#pump())
    this.#onAccepting = onAccepting
  }

  /** Takes up a change of the subscription read at a poll (its throttle). */
  configure (subscription: Subscription) {
    this.#pacer.perSecond = subscription.maxPerSecond
    this.#updateAccepting()
  }

  /** Deliveries this lane lets be in flight now. */
  get concurrency (): number {
    return this.#limit.current
  }

  /** Whether creates may hand this lane their deliveries (DeliveryHandoff; see #updateAccepting). */
  get accepting (): boolean { return this.#accepting }

  /** Deliveries a create wrote already claimed for this lane: sent like claimed ones. */
  take (handed: HandedDeliveries) {
    const adopted = this.#queue.adopting(handed.rows.map((row) => Number(row.id)))
    this.#store.adopt(this.subscriptionId, handed).then((deliveries) => {
      this.#queue.add(deliveries)
    }, (error: unknown) => {
      // Their lease lapses and a claim takes them.
      this.#log.warn({ err: error, subscriptionId: this.subscriptionId }, 'webhook dispatcher could not read the subscription of handed deliveries')
    }).finally(() => {
      adopted()
      this.#pump()
    })
  }

  /** Due deliveries may be waiting (a plant was created, a retry is due, or the safety poll). */
  wake () {
    this.#due = true
    this.#wakes++
    this.#pump()
  }

  /** Stops claiming and sending; waits for the attempts in flight (each bounded by the timeout) and their records. */
  async stop () {
    this.#stopped = true
    this.#updateAccepting()
    this.#budget.forget(this.#onBudget)
    this.#retries.stop()
    this.#pacer.stop()
    // What it claimed or was handed but did not start goes back to the outbox now, not when its lease lapses.
    const release = this.#store.release(this.#queue.drain()).catch((error: unknown) => {
      this.#log.warn({ err: error, subscriptionId: this.subscriptionId }, 'webhook dispatcher could not give back unsent deliveries; their lease lapses')
    })
    await Promise.allSettled([...this.#attempts, release])
    await this.#sender.close()
  }

  #pump () {
    if (this.#stopped) return
    const limit = this.#limit.current
    while (this.#inFlight < limit && this.#queue.startable && this.#pacer.ready() && this.#budget.take(this.#onBudget)) this.#start(this.#queue.shift())
    // Keep up to one window claimed ahead of the one in flight, so a fast subscriber never waits on a
    // claim; a throttled one at most a second's worth.
    let wanted = 2 * limit - this.#inFlight - this.#queue.length
    const perSecond = this.#pacer.perSecond
    if (perSecond !== null) wanted = Math.min(wanted, perSecond - this.#queue.length)
    if (!this.#claiming && this.#due && wanted > 0) this.#claim(wanted).catch(() => {})
    this.#updateAccepting()
  }

  /**
   * A lane takes deliveries from creates while it is unthrottled (a throttle counts in the store),
   * nothing older waits in the outbox (it would be sent after newer events), and it has room: for a few
   * create batches whatever its limit, as a batch hands over many at once, already claimed.
   */
  #updateAccepting () {
    const accepting = !this.#stopped && this.#pacer.perSecond === null && !this.#due && !this.#claiming &&
      this.#queue.pending < 2 * this.#options.perSubscription
    if (accepting === this.#accepting) return
    this.#accepting = accepting
    this.#onAccepting()
  }

  async #claim (max: number) {
    this.#claiming = true
    const wakes = this.#wakes
    const perSecond = this.#pacer.perSecond
    try {
      const now = Date.now()
      const claimed = await this.#store.claim({ subscriptionId: this.subscriptionId, now, leaseMs: leaseMs(this.#options), max, perSecond })
      this.#due = claimed.length === max || this.#wakes !== wakes
      this.#queue.add(claimed)
      // A throttled claim may have found its second's allowance spent: look again in the next second.
      if (perSecond !== null && claimed.length > 0 && claimed.length < max) this.#wakeAt(Math.ceil((now + 1) / 1000) * 1000)
    } catch (error) {
      // The safety poll wakes this lane again.
      this.#due = false
      this.#log.warn({ err: error, subscriptionId: this.subscriptionId }, 'webhook dispatcher could not read the outbox')
    } finally {
      this.#claiming = false
    }
    this.#pump()
  }

  #start (delivery: Delivery) {
    // A claim about to lapse is left for a later claim rather than sent twice.
    if (delivery.leaseUntil - Date.now() < 2 * this.#options.timeoutMs + 1000) {
      this.#budget.give()
      return
    }
    this.#inFlight++
    this.#pacer.started()
    const attempt = this.#attempt(delivery).finally(() => this.#attempts.delete(attempt))
    this.#attempts.add(attempt)
  }

  async #attempt (delivery: Delivery) {
    const sent = await sendTraced(this.#sender, delivery, this.#options.spans, this.#host)
    this.#inFlight--
    this.#budget.give()
    if (sent.error === null) this.#limit.succeeded(sent.latencyMs)
    else this.#limit.failed()
    this.#pump()
    const retryAt = await recordOutcome(delivery, sent, this.#store, this.#log, this.#options)
    if (retryAt !== undefined) this.#wakeAt(retryAt)
  }

  #wakeAt (time: number) {
    if (!this.#stopped) this.#retries.at(time)
  }
}
