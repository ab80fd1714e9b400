-- Event filters, throttles and health of subscriptions (see the SQLite migration of the same name).
ALTER TABLE webhook_subscriptions ADD COLUMN event_types text;
ALTER TABLE webhook_subscriptions ADD COLUMN max_per_second integer;
ALTER TABLE webhook_subscriptions ADD COLUMN disabled_at bigint;
ALTER TABLE webhook_subscriptions ADD COLUMN last_success_at bigint;
ALTER TABLE webhook_subscriptions ADD COLUMN last_error text;
ALTER TABLE webhook_subscriptions ADD COLUMN consecutive_failures integer NOT NULL DEFAULT 0;
ALTER TABLE webhook_subscriptions ADD COLUMN failing_since bigint;
ALTER TABLE webhook_subscriptions ADD COLUMN rate_second bigint NOT NULL DEFAULT 0;
ALTER TABLE webhook_subscriptions ADD COLUMN rate_used integer NOT NULL DEFAULT 0;
ALTER TABLE webhook_deliveries ADD COLUMN event_type text;
UPDATE webhook_subscriptions s SET last_error = (SELECT d.last_error FROM webhook_deliveries d
  WHERE d.subscription_id = s.id AND d.attempts > 0 ORDER BY d.id DESC LIMIT 1);
