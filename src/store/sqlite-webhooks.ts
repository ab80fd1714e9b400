import type { Delivery, DeliveryReport } from './store.js'

/**
 * Claims due deliveries in one statement (SQLite runs it under its write lock, so two dispatchers never
 * claim one row). A subscriber's deliveries still leased count against its concurrency, so that at most
 * `perSubscription` are in flight to it across every dispatcher.
 */
export const claimSql = `
WITH pending AS (
  SELECT id, subscription_id, next_attempt_at, locked_until FROM webhook_deliveries
  WHERE delivered_at IS NULL AND failed_at IS NULL
), busy AS (
  SELECT subscription_id, count(*) AS n FROM pending WHERE locked_until > :now GROUP BY subscription_id
), ranked AS (
  SELECT p.id, coalesce(b.n, 0) + row_number() OVER (PARTITION BY p.subscription_id ORDER BY p.next_attempt_at, p.id) AS slot
  FROM pending p LEFT JOIN busy b ON b.subscription_id = p.subscription_id
  WHERE p.next_attempt_at <= :now AND (p.locked_until IS NULL OR p.locked_until <= :now)
)
UPDATE webhook_deliveries SET locked_until = :lease
WHERE id IN (SELECT id FROM ranked WHERE slot <= :perSubscription ORDER BY id LIMIT :max)
RETURNING id, message_id, subscription_id, payload, attempts, created_at,
  (SELECT url FROM webhook_subscriptions s WHERE s.id = subscription_id) AS url,
  (SELECT secret FROM webhook_subscriptions s WHERE s.id = subscription_id) AS secret`

export interface DeliveryRow {
  id: bigint,
  message_id: string,
  subscription_id: bigint,
  payload: string,
  attempts: bigint,
  created_at: bigint,
  url: string,
  secret: string
}

export function toDelivery (row: DeliveryRow): Delivery {
  return {
    id: Number(row.id),
    messageId: row.message_id,
    subscriptionId: Number(row.subscription_id),
    url: row.url,
    secret: row.secret,
    payload: row.payload,
    attempts: Number(row.attempts),
    createdAt: new Date(Number(row.created_at))
  }
}

export interface DeliveryReportRow {
  id: bigint,
  message_id: string,
  plant_id: bigint,
  url: string,
  attempts: bigint,
  last_status: bigint | null,
  last_error: string | null,
  last_attempt_at: bigint | null,
  next_attempt_at: bigint,
  delivered_at: bigint | null,
  failed_at: bigint | null
}

const date = (ms: bigint | null) => (ms === null ? null : new Date(Number(ms)))

export function toDeliveryReport (row: DeliveryReportRow): DeliveryReport {
  const state = row.delivered_at !== null ? 'delivered' : row.failed_at !== null ? 'failed' : 'pending'
  return {
    id: Number(row.id),
    messageId: row.message_id,
    plantId: row.plant_id,
    url: row.url,
    state,
    attempts: Number(row.attempts),
    lastStatus: row.last_status === null ? null : Number(row.last_status),
    lastError: row.last_error,
    lastAttemptAt: date(row.last_attempt_at),
    nextAttemptAt: state === 'pending' ? date(row.next_attempt_at) : null
  }
}
