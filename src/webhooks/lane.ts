import type { Log } from './log.js'
import type { Delivery, Subscription, WebhookStore } from '../store/store.js'
import { ConcurrencyLimit } from './concurrency-limit.js'
import type { ConnectionBudget } from './connection-budget.js'
import { Sender } from './sender.js'
import type { DispatcherOptions } from './settings.js'
import { sendTraced } from './delivery-span.js'

const MAX_RETRY_DELAY_MS = 60 * 60 * 1000

/** Exponential backoff with ±25 % jitter, so that a recovering subscriber is not hit by every retry at once. */
export function retryDelay (attempts: number, baseMs: number, random = Math.random): number {
  const exponential = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), MAX_RETRY_DELAY_MS)
  return Math.round(exponential * (0.75 + random() * 0.5))
}

/**
 * One subscriber's deliveries: claims its due events from the outbox a window at a time, keeps as many
 * in flight as its concurrency limit allows, and hands each outcome to the store. Each subscriber has
 * its own lane, connections and limit, so a slow or failing one never holds up another.
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
  readonly #leaseMs: number
  /** The subscriber's host, as its delivery spans name it. */
  readonly #host: string
  readonly #queue: Delivery[] = []
  readonly #attempts = new Set<Promise<void>>()
  #inFlight = 0
  #claiming = false
  /** The outbox may hold due deliveries we have not claimed; cleared when a claim finds fewer than it asked for. */
  #due = true
  #wakes = 0
  #stopped = false
  #retryTimer: NodeJS.Timeout | undefined
  #retryAt = Number.POSITIVE_INFINITY
  /** The subscription's throttle (deliveries a second), or null. */
  #perSecond: number | null
  /** With a throttle: the earliest time the next delivery may start (starts are spaced evenly). */
  #nextStart = 0
  #paceTimer: NodeJS.Timeout | undefined

  constructor (subscription: Subscription, store: WebhookStore, log: Log, options: DispatcherOptions, budget: ConnectionBudget) {
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
    // A claim outlives the attempt (connect, then answer, each within the timeout), so no other
    // dispatcher takes a delivery that is still being sent.
    this.#leaseMs = 3 * options.timeoutMs + 5000
    this.#perSecond = subscription.maxPerSecond
  }

  /** Takes up a change of the subscription read at a poll (its throttle). */
  configure (subscription: Subscription) {
    this.#perSecond = subscription.maxPerSecond
  }

  /** Deliveries this lane lets be in flight now. */
  get concurrency (): number {
    return this.#limit.current
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
    this.#budget.forget(this.#onBudget)
    clearTimeout(this.#retryTimer)
    clearTimeout(this.#paceTimer)
    await Promise.allSettled([...this.#attempts])
    await this.#sender.close()
  }

  #pump () {
    if (this.#stopped) return
    const limit = this.#limit.current
    while (this.#inFlight < limit && this.#queue.length > 0 && this.#paced() && this.#budget.take(this.#onBudget)) this.#start(this.#queue.shift()!)
    // Keep up to one window claimed ahead of the one in flight, so a fast subscriber never waits on a
    // claim; a throttled one at most a second's worth.
    let wanted = 2 * limit - this.#inFlight - this.#queue.length
    if (this.#perSecond !== null) wanted = Math.min(wanted, this.#perSecond - this.#queue.length)
    if (!this.#claiming && this.#due && wanted > 0) this.#claim(wanted).catch(() => {})
  }

  /** Whether a throttled lane may start a delivery now (see #start); else a timer pumps again when it may. */
  #paced (): boolean {
    if (this.#perSecond === null) return true
    const now = Date.now()
    if (now >= this.#nextStart) return true
    if (this.#paceTimer === undefined) {
      this.#paceTimer = setTimeout(() => { this.#paceTimer = undefined; this.#pump() }, Math.ceil(this.#nextStart - now))
      this.#paceTimer.unref()
    }
    return false
  }

  async #claim (max: number) {
    this.#claiming = true
    const wakes = this.#wakes
    try {
      const now = Date.now()
      const claimed = await this.#store.claim({ subscriptionId: this.subscriptionId, now, leaseMs: this.#leaseMs, max, perSecond: this.#perSecond })
      this.#due = claimed.length === max || this.#wakes !== wakes
      this.#queue.push(...claimed)
      // A throttled claim may have found its second's allowance spent: look again in the next second.
      if (this.#perSecond !== null && claimed.length > 0 && claimed.length < max) this.#wakeAt(Math.ceil((now + 1) / 1000) * 1000)
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
    if (this.#perSecond !== null) this.#nextStart = Math.max(Date.now(), this.#nextStart) + 1000 / this.#perSecond
    const attempt = this.#attempt(delivery).finally(() => this.#attempts.delete(attempt))
    this.#attempts.add(attempt)
  }

  async #attempt (delivery: Delivery) {
    const { status, error, latencyMs } = await sendTraced(this.#sender, delivery, this.#options.spans, this.#host)
    this.#inFlight--
    this.#budget.give()
    const delivered = error === null
    if (delivered) this.#limit.succeeded(latencyMs)
    else this.#limit.failed()
    this.#pump()

    const now = Date.now()
    const retryAt = now + retryDelay(delivery.attempts + 1, this.#options.retryBaseMs)
    const givingUp = !delivered && retryAt - delivery.since.getTime() > this.#options.giveUpAfterMs
    try {
      await this.#store.recordAttempt(delivery, { delivered, status, error, nextAttemptAt: delivered || givingUp ? null : new Date(retryAt) })
    } catch (cause) {
      // Its claim lapses and it is sent again: at least once.
      this.#log.warn({ err: cause, deliveryId: delivery.id }, 'webhook attempt could not be recorded; it will be sent again')
    }
    if (!delivered && !givingUp) this.#wakeAt(retryAt)
    this.#options.onAttempt?.(delivered ? 'delivered' : givingUp ? 'given_up' : 'failed', 1)
    if (delivered) this.#options.onDelivered?.((now - delivery.createdAt.getTime()) / 1000)
    const fields = { deliveryId: delivery.id, webhookId: delivery.messageId, subscriptionId: this.subscriptionId, attempt: delivery.attempts + 1, status }
    if (delivered) this.#log.debug(fields, 'webhook delivered')
    else this.#log.warn({ ...fields, error }, givingUp ? 'webhook given up' : 'webhook attempt failed; will retry')
  }

  /** One timer per lane, for the earliest retry due. */
  #wakeAt (time: number) {
    if (this.#stopped || time >= this.#retryAt) return
    clearTimeout(this.#retryTimer)
    this.#retryAt = time
    this.#retryTimer = setTimeout(() => {
      this.#retryAt = Number.POSITIVE_INFINITY
      this.wake()
    }, Math.max(0, time - Date.now()))
    this.#retryTimer.unref()
  }
}
