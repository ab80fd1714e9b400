import type { Delivery, WebhookStore } from '../store/store.js'
import type { Log } from './log.js'
import { retryDelay } from './retry.js'
import type { AttemptOutcome } from './sender.js'
import type { DispatcherOptions } from './settings.js'

/**
 * What one attempt came to, decided and kept: delivered, failed (to be retried with backoff) or given
 * up (past giveUpAfterMs since the event or its redelivery), recorded in the store with the
 * subscription's health, counted and logged. Answers when to try again, if it will be.
 */
export async function recordOutcome (delivery: Delivery, { status, error }: AttemptOutcome, store: WebhookStore, log: Log, options: DispatcherOptions): Promise<number | undefined> {
  const delivered = error === null
  const now = Date.now()
  const retryAt = now + retryDelay(delivery.attempts + 1, options.retryBaseMs)
  const givingUp = !delivered && retryAt - delivery.since.getTime() > options.giveUpAfterMs
  try {
    await store.recordAttempt(delivery, { delivered, status, error, nextAttemptAt: delivered || givingUp ? null : new Date(retryAt) })
  } catch (cause) {
    // Its claim lapses and it is sent again: at least once.
    log.warn({ err: cause, deliveryId: delivery.id }, 'webhook attempt could not be recorded; it will be sent again')
  }
  options.onAttempt?.(delivered ? 'delivered' : givingUp ? 'given_up' : 'failed', 1)
  if (delivered) options.onDelivered?.((now - delivery.createdAt.getTime()) / 1000)
  const fields = { deliveryId: delivery.id, webhookId: delivery.messageId, subscriptionId: delivery.subscriptionId, attempt: delivery.attempts + 1, status }
  if (delivered) log.debug(fields, 'webhook delivered')
  else log.warn({ ...fields, error }, givingUp ? 'webhook given up' : 'webhook attempt failed; will retry')
  return delivered || givingUp ? undefined : retryAt
}
