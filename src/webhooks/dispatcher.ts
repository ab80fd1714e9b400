import type { FastifyBaseLogger } from 'fastify'
import type { Delivery, Store } from '../store/store.js'
import { sign } from './signature.js'

export interface DispatcherOptions {
  /** How long one attempt may take. */
  timeoutMs: number
  /** Deliveries in flight to one subscriber at most. */
  perSubscription: number
  /** The first retry waits about this long; each later one twice as long, up to an hour. */
  retryBaseMs: number
  /** An event still undelivered this long after it was created is given up. */
  giveUpAfterMs: number
  /** How often to look for due deliveries when nothing wakes the dispatcher. */
  pollMs: number
  /** Told each attempt's outcome (for metrics). */
  onAttempt?: (outcome: 'delivered' | 'failed' | 'given_up') => void
}

const MAX_DELAY_MS = 60 * 60 * 1000

/** Exponential backoff with ±25 % jitter, so that a recovering subscriber is not hit by every retry at once. */
export function retryDelay (attempts: number, baseMs: number, random = Math.random): number {
  const exponential = Math.min(baseMs * 2 ** Math.max(0, attempts - 1), MAX_DELAY_MS)
  return Math.round(exponential * (0.75 + random() * 0.5))
}

/**
 * Sends the outbox's due deliveries, off the request path: each a signed POST (Standard Webhooks), any
 * 2xx acknowledging it; anything else (status, timeout, refused connection) is retried with backoff.
 * Claims are leases in the store, so after a crash a delivery is taken up again: at least once.
 */
export class WebhookDispatcher {
  readonly #store: Store
  readonly #log: FastifyBaseLogger
  readonly #options: DispatcherOptions
  readonly #inFlight = new Set<Promise<void>>()
  #timer: NodeJS.Timeout | undefined
  #polling = false
  #pollAgain = false
  #stopped = true

  constructor (store: Store, log: FastifyBaseLogger, options: DispatcherOptions) {
    this.#store = store
    this.#log = log
    this.#options = options
  }

  start () {
    this.#stopped = false
    this.#timer = setInterval(() => this.wake(), this.#options.pollMs)
    this.#timer.unref()
    this.wake()
  }

  /** Looks for due deliveries now (a plant was created, or a slot came free). */
  wake () {
    if (this.#stopped) return
    if (this.#polling) {
      this.#pollAgain = true
      return
    }
    this.#polling = true
    this.#poll().catch((error: unknown) => this.#log.warn({ err: error }, 'webhook dispatcher could not read the outbox'))
      .finally(() => { this.#polling = false })
  }

  /** Stops claiming and waits for the attempts in flight (each bounded by the timeout). */
  async stop () {
    this.#stopped = true
    clearInterval(this.#timer)
    await Promise.allSettled([...this.#inFlight])
  }

  async #poll () {
    do {
      this.#pollAgain = false
      const claimed = await this.#store.claimDeliveries({
        now: new Date(),
        // A lease outlives the attempt, so no other dispatcher takes a delivery that is still being sent.
        leaseMs: this.#options.timeoutMs + 5000,
        perSubscription: this.#options.perSubscription,
        max: 64
      })
      for (const delivery of claimed) {
        const attempt = this.#attempt(delivery).finally(() => {
          this.#inFlight.delete(attempt)
          this.wake()
        })
        this.#inFlight.add(attempt)
      }
    } while (this.#pollAgain && !this.#stopped)
  }

  async #attempt (delivery: Delivery) {
    const timestamp = Math.floor(Date.now() / 1000)
    let status: number | null = null
    let error: string | null = null
    try {
      const response = await fetch(delivery.url, {
        method: 'POST',
        redirect: 'manual',
        signal: AbortSignal.timeout(this.#options.timeoutMs),
        headers: {
          'content-type': 'application/json',
          'user-agent': 'plantstore-webhooks',
          'webhook-id': delivery.messageId,
          'webhook-timestamp': String(timestamp),
          'webhook-signature': sign(delivery.secret, delivery.messageId, timestamp, delivery.payload)
        },
        body: delivery.payload
      })
      status = response.status
      await response.body?.cancel()
      if (status < 200 || status > 299) error = `HTTP ${status}`
    } catch (cause) {
      const reason = (cause as { cause?: { code?: string } }).cause?.code ?? (cause as Error).name
      error = reason === 'TimeoutError' ? `no answer within ${this.#options.timeoutMs} ms` : `request failed: ${reason}`
    }
    const delivered = error === null
    const retryAt = Date.now() + retryDelay(delivery.attempts + 1, this.#options.retryBaseMs)
    const givingUp = !delivered && retryAt - delivery.createdAt.getTime() > this.#options.giveUpAfterMs
    await this.#store.recordAttempt(delivery.id, {
      delivered, status, error, nextAttemptAt: delivered || givingUp ? null : new Date(retryAt)
    })
    // Wake for the retry itself when it is due before the next poll.
    if (!delivered && !givingUp) setTimeout(() => this.wake(), retryAt - Date.now()).unref()
    this.#options.onAttempt?.(delivered ? 'delivered' : givingUp ? 'given_up' : 'failed')
    const fields = { deliveryId: delivery.id, webhookId: delivery.messageId, url: delivery.url, attempt: delivery.attempts + 1, status }
    if (delivered) this.#log.info(fields, 'webhook delivered')
    else this.#log.warn({ ...fields, error }, givingUp ? 'webhook given up' : 'webhook attempt failed; will retry')
  }
}
