import { setTimeout as sleep } from 'node:timers/promises'
import type { EventStore, PlantStore, TokenStore, WebhookStore } from '../store/store.js'

// Small batches, each its own short transaction, with a pause between: writes never wait long.
const BATCH = 500
const PAUSE_MS = 50

export interface RetentionSettings {
  /** Events older than this are deleted (unless a webhook delivery of theirs is pending), and delivery records finished longer ago. */
  retentionMs: number
  /** Tokens revoked or expired longer ago than this are deleted. */
  tokenRetentionMs: number
  /** How often the task runs. */
  everyMs: number
  onPruned?: (count: number) => void
  onPrunedDeliveries?: (count: number) => void
  onError?: (error: unknown) => void
}

/**
 * The event log's retention, in the background: every `everyMs`, the oldest events past the retention
 * go, batch by batch; then the webhook delivery records delivered
 * or given up longer ago (never a pending one; those of a subscription disabled that long are given
 * up); then the tokens revoked or expired longer than the token retention ago; then expired Idempotency-Keys. On several instances each runs it; the deletes are idempotent, so they only share the work.
 */
export class Retention {
  readonly #store: { events: EventStore, webhooks: WebhookStore, tokens: TokenStore, plants: PlantStore }
  readonly #settings: RetentionSettings
  #timer: NodeJS.Timeout | undefined
  #running: Promise<void> | undefined
  #stopped = false

  constructor (store: { events: EventStore, webhooks: WebhookStore, tokens: TokenStore, plants: PlantStore }, settings: RetentionSettings) {
    this.#store = store
    this.#settings = settings
  }

  start () {
    this.#timer = setInterval(() => { this.#running ??= this.run().finally(() => { this.#running = undefined }) }, this.#settings.everyMs)
    this.#timer.unref()
  }

  /** One pass: prunes until nothing more may go (or the task is stopped). */
  async run () {
    try {
      const before = Date.now() - this.#settings.retentionMs
      for (;;) {
        if (this.#stopped) return
        const pruned = await this.#store.events.prune(before, BATCH)
        if (pruned > 0) this.#settings.onPruned?.(pruned)
        if (pruned < BATCH) break
        await sleep(PAUSE_MS)
      }
      for (let after: number | undefined = 0; after !== undefined && !this.#stopped;) {
        const { deleted, next } = await this.#store.webhooks.pruneDeliveries(before, BATCH, after)
        if (deleted > 0) this.#settings.onPrunedDeliveries?.(deleted)
        after = next
        if (after !== undefined) await sleep(PAUSE_MS)
      }
      const tokensBefore = Date.now() - this.#settings.tokenRetentionMs
      while (!this.#stopped && await this.#store.tokens.purgeEnded(tokensBefore, BATCH) === BATCH) await sleep(PAUSE_MS)
      // Idempotency-Keys carry their own expiry (--idempotency-retention).
      while (!this.#stopped && await this.#store.plants.purgeKeys(Date.now(), BATCH) === BATCH) await sleep(PAUSE_MS)
    } catch (error) {
      this.#settings.onError?.(error)
    }
  }

  async stop () {
    this.#stopped = true
    clearInterval(this.#timer)
    await this.#running
  }
}
