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
