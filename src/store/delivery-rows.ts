import { signingSecrets } from './store.js'
import type { Delivery, DeliveryReport, Subscription } from './store.js'
import type { AgedDelivery } from './webhook-bookkeeping.js'
import type { DeliveryRow } from './delivery-handoff.js'
import { date, toSubscription } from './rows.js'
import type { SubscriptionRow } from './rows.js'

export type { DeliveryRow } from './delivery-handoff.js'

// Delivery rows, as rows.ts maps the others: integers as bigint, times as Unix milliseconds.

/**
 * Claimed rows (or rows a create handed over) as deliveries, id order, with their subscription read
 * after the claim, so that a secret rotated meanwhile already signs them. None when the subscription was
 * disabled or removed meanwhile: their lease lapses, and claims know what to do with them.
 */
export function toDeliveries (rows: DeliveryRow[], subscription: SubscriptionRow | undefined, leaseUntil: number): Delivery[] {
  if (subscription === undefined || subscription.disabled_at !== null || subscription.removed_at != null) return []
  const current = toSubscription(subscription)
  return rows.map((row) => toDelivery(row, current, leaseUntil)).sort((a, b) => a.id - b.id)
}

function toDelivery (row: DeliveryRow, subscription: Subscription, leaseUntil: number): Delivery {
  const createdAt = new Date(Number(row.created_at))
  return {
    id: Number(row.id),
    messageId: row.message_id,
    subscriptionId: Number(row.subscription_id),
    url: subscription.url,
    secrets: signingSecrets(subscription),
    operator: subscription.operator,
    payload: row.payload,
    attempts: Number(row.attempts),
    createdAt,
    since: row.redelivered_at === null ? createdAt : new Date(Number(row.redelivered_at)),
    traceParent: row.trace_parent,
    leaseUntil
  }
}

export interface DeliveryReportRow {
  id: bigint,
  message_id: string,
  subscription_id: bigint,
  created_at: bigint,
  plant_id: bigint,
  event_type: string | null,
  url: string,
  attempts: bigint,
  last_status: bigint | null,
  last_error: string | null,
  last_attempt_at: bigint | null,
  next_attempt_at: bigint,
  delivered_at: bigint | null,
  failed_at: bigint | null
}

export function toDeliveryReport (row: DeliveryReportRow): DeliveryReport {
  const state = row.delivered_at !== null ? 'delivered' : row.failed_at !== null ? 'given_up' : row.last_error !== null ? 'failed' : 'pending'
  return {
    id: Number(row.id),
    messageId: row.message_id,
    subscriptionId: Number(row.subscription_id),
    createdAt: new Date(Number(row.created_at)),
    type: (row.event_type ?? 'plant.created') as DeliveryReport['type'],
    plantId: row.event_type === 'webhook.disabled' ? null : row.plant_id,
    url: row.url,
    state,
    attempts: Number(row.attempts),
    lastStatus: row.last_status === null ? null : Number(row.last_status),
    lastError: row.last_error,
    lastAttemptAt: date(row.last_attempt_at),
    nextAttemptAt: state === 'pending' || state === 'failed' ? date(row.next_attempt_at) : null
  }
}

/** A delivery record as retention scans it, with its subscription's state (both dialects select these columns). */
export interface AgedDeliveryRow { id: bigint, created_at: bigint, delivered_at: bigint | null, failed_at: bigint | null, disabled_at: bigint | null }

export const toAgedDelivery = (row: AgedDeliveryRow): AgedDelivery => ({
  id: Number(row.id),
  createdAt: Number(row.created_at),
  finishedAt: row.delivered_at !== null ? Number(row.delivered_at) : row.failed_at !== null ? Number(row.failed_at) : null,
  pending: row.delivered_at === null && row.failed_at === null,
  subscriptionDisabled: row.disabled_at !== null
})
