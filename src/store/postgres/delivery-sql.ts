import { choseType } from './outbox.js'

/**
 * Claims one subscriber's due deliveries: FOR UPDATE SKIP LOCKED, so two dispatchers (two instances)
 * never claim one row; the claim is a lease (`locked_until`), and the subscriber's URL and current
 * secret come with it. $1 subscription, $2 now, $3 lease end, $4 most rows.
 */
export const claimSql = `
WITH due AS (
  SELECT id FROM webhook_deliveries
  WHERE subscription_id = $1 AND delivered_at IS NULL AND failed_at IS NULL
    AND next_attempt_at <= $2 AND (locked_until IS NULL OR locked_until <= $2)
    AND (SELECT disabled_at FROM webhook_subscriptions WHERE id = $1) IS NULL
  ORDER BY next_attempt_at, id
  LIMIT $4
  FOR UPDATE SKIP LOCKED
)
UPDATE webhook_deliveries d SET locked_until = $3
FROM due WHERE d.id = due.id
RETURNING d.id, d.message_id, d.subscription_id, d.payload, d.attempts, d.created_at, d.redelivered_at, d.trace_parent`

/**
 * Many attempts' outcomes, and their effect on each subscription's health (see healthChanges), in one
 * statement and one commit; a give-up made while the attempt was in flight (the subscription removed,
 * retention) stays. $1 ids, $2 statuses, $3 errors, $4 times, $5 delivered, $6 given up, $7 next
 * attempts; $8 subscriptions, $9 last successes, $10 failures, $11 first failures, $12 errors.
 */
export const attemptsSql = `
WITH attempts AS (
UPDATE webhook_deliveries d SET attempts = d.attempts + 1, locked_until = NULL, last_status = o.status,
  last_error = o.error, last_attempt_at = o.at,
  delivered_at = CASE WHEN o.delivered THEN o.at ELSE d.delivered_at END,
  failed_at = CASE WHEN o.given_up THEN o.at ELSE d.failed_at END,
  next_attempt_at = coalesce(o.next_at, d.next_attempt_at)
FROM unnest($1::bigint[], $2::int[], $3::text[], $4::bigint[], $5::bool[], $6::bool[], $7::bigint[])
  AS o (id, status, error, at, delivered, given_up, next_at)
WHERE d.id = o.id
)
UPDATE webhook_subscriptions s SET last_success_at = coalesce(h.success, s.last_success_at),
  consecutive_failures = CASE WHEN h.success IS NOT NULL THEN h.failures ELSE s.consecutive_failures + h.failures END,
  failing_since = CASE WHEN h.failures = 0 THEN NULL WHEN h.success IS NOT NULL THEN h.first_failure
    ELSE coalesce(s.failing_since, h.first_failure) END,
  last_error = CASE WHEN s.disabled_at IS NOT NULL THEN s.last_error ELSE h.error END
FROM unnest($8::bigint[], $9::bigint[], $10::int[], $11::bigint[], $12::text[]) AS h (id, success, failures, first_failure, error)
WHERE s.id = h.id`

/** Gives back leases still ours (one lapsed and taken by another dispatcher stays): $1 ids, $2 their lease ends. */
export const releaseSql = `
UPDATE webhook_deliveries d SET locked_until = NULL FROM unnest($1::bigint[], $2::bigint[]) AS r (id, lease_until)
WHERE d.id = r.id AND d.locked_until = r.lease_until AND d.delivered_at IS NULL AND d.failed_at IS NULL`

/** The throttle's window (see throttleAllowance), its row locked until the claim commits: $1 subscription. */
export const quotaSql = 'SELECT rate_second, rate_used FROM webhook_subscriptions WHERE id = $1 FOR UPDATE'

/** Sends webhook.disabled for subscription $4 (owner $5) to the subscriptions that chose it: $1 message id, $2 payload, $3 now. */
export const disabledNoticeSql = `INSERT INTO webhook_deliveries (message_id, subscription_id, plant_id, payload, created_at, next_attempt_at, event_type)
  SELECT $1, s.id, 0, $2, $3, $3, 'webhook.disabled' FROM webhook_subscriptions s
  WHERE s.removed_at IS NULL AND s.id <> $4 AND (s.owner IS NULL OR s.owner = $5) AND ${choseType("'webhook.disabled'")}`

/** Retention's look at up to $2 delivery records after id $1, oldest first. */
export const retentionScanSql = `SELECT d.id, d.created_at, d.delivered_at, d.failed_at, s.disabled_at FROM webhook_deliveries d
  JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.id > $1 ORDER BY d.id LIMIT $2`
