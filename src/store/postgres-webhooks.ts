/**
 * Claims due deliveries: FOR UPDATE SKIP LOCKED, so two dispatchers (two instances) never claim one
 * row; the claim is a lease (`locked_until`). A subscriber's leased deliveries count against its
 * concurrency. $1 now, $2 lease end, $3 per-subscription limit, $4 most rows.
 */
export const claimSql = `
WITH busy AS (
  SELECT subscription_id, count(*) AS n FROM webhook_deliveries
  WHERE delivered_at IS NULL AND failed_at IS NULL AND locked_until > $1
  GROUP BY subscription_id
), due AS (
  SELECT id, subscription_id, next_attempt_at FROM webhook_deliveries
  WHERE delivered_at IS NULL AND failed_at IS NULL AND next_attempt_at <= $1
    AND (locked_until IS NULL OR locked_until <= $1)
  ORDER BY next_attempt_at, id
  LIMIT 1000
  FOR UPDATE SKIP LOCKED
), chosen AS (
  SELECT id FROM (
    SELECT due.id, coalesce(busy.n, 0) + row_number() OVER (PARTITION BY due.subscription_id ORDER BY due.next_attempt_at, due.id) AS slot
    FROM due LEFT JOIN busy ON busy.subscription_id = due.subscription_id
  ) ranked
  WHERE slot <= $3 ORDER BY id LIMIT $4
)
UPDATE webhook_deliveries d SET locked_until = $2
FROM chosen, webhook_subscriptions s
WHERE d.id = chosen.id AND s.id = d.subscription_id
RETURNING d.id, d.message_id, d.subscription_id, d.payload, d.attempts, d.created_at, s.url, s.secret`
