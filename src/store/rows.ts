import { eventTypesOf } from '../contract/webhook.js'
import { signingSecrets } from './store.js'
import type { AgedDelivery } from './webhook-bookkeeping.js'
import type { Delivery, DeliveryReport, LoggedEvent, Scope, Subscription, TokenRecord } from './store.js'
import type { DeliveryRow } from './delivery-handoff.js'

export type { DeliveryRow } from './delivery-handoff.js'

// Rows as both drivers give them: integers as bigint (better-sqlite3's safeIntegers, pg's int8 parser
// set in postgres/database.ts), times as Unix milliseconds. Each API shape is mapped from its row here only.

const date = (ms: bigint | null) => (ms === null ? null : new Date(Number(ms)))

export interface TokenRow {
  id: bigint,
  name: string,
  hash: Buffer,
  scopes: string,
  created_at: bigint,
  expires_at: bigint | null,
  revoked_at: bigint | null
  last_used_at: bigint | null
}

export interface SubscriptionRow {
  id: bigint,
  url: string,
  description: string | null,
  secret: string,
  previous_secret: string | null,
  previous_secret_expires_at: bigint | null,
  created_at: bigint,
  /** 1/0 in SQLite, a boolean in PostgreSQL. */
  operator: bigint | boolean
  owner: string | null
  event_types: string | null
  filter: string | null
  max_per_second: bigint | number | null
  disabled_at: bigint | null
  /** Read where a delivery is claimed or handed over (SELECT *). */
  removed_at?: bigint | null
  last_success_at: bigint | null
  last_error: string | null
  consecutive_failures: bigint | number
  failing_since: bigint | null
  /** Selected with the subscription where it is shown (see subscriptionColumns). */
  backlog?: bigint | null
}

/** A subscription's columns, for `FROM webhook_subscriptions s`, with its backlog when asked (counted on the pending deliveries' index). */
export const subscriptionColumns = (withBacklog = true) => withBacklog
  ? `s.*, (SELECT count(*) FROM webhook_deliveries d
    WHERE d.subscription_id = s.id AND d.delivered_at IS NULL AND d.failed_at IS NULL) AS backlog`
  : 's.*'

export function toSubscription (row: SubscriptionRow): Subscription {
  return {
    id: Number(row.id),
    url: row.url,
    description: row.description,
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: date(row.previous_secret_expires_at),
    createdAt: new Date(Number(row.created_at)),
    operator: row.operator === true || row.operator === 1n,
    owner: row.owner,
    events: eventTypesOf(row.event_types),
    filter: row.filter,
    maxPerSecond: row.max_per_second === null ? null : Number(row.max_per_second),
    state: row.disabled_at === null ? 'enabled' : 'disabled',
    disabledAt: date(row.disabled_at),
    lastSuccessAt: date(row.last_success_at),
    consecutiveFailures: Number(row.consecutive_failures),
    failingSince: date(row.failing_since),
    lastError: row.last_error,
    backlog: row.backlog === undefined || row.backlog === null ? null : Number(row.backlog)
  }
}

/** A token as the store answers it: never its hash. */
export function toToken (row: TokenRow): TokenRecord {
  return {
    id: Number(row.id),
    name: row.name,
    scopes: row.scopes.split(' ') as Scope[],
    createdAt: new Date(Number(row.created_at)),
    expiresAt: date(row.expires_at),
    revokedAt: date(row.revoked_at),
    lastUsedAt: date(row.last_used_at)
  }
}

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

export interface EventRow { sequence: bigint, type: LoggedEvent['type'], message_id: string, data: string, before: string | null, created_at: bigint, trace_parent: string | null }

export const toLoggedEvent = (row: EventRow): LoggedEvent =>
  ({ sequence: row.sequence, type: row.type, messageId: row.message_id, data: row.data, before: row.before, createdAt: Number(row.created_at), traceParent: row.trace_parent })
