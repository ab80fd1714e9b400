-- Subscriptions that choose their events (space-separated types; null: the original newPlant body on
-- creates only), throttle their deliveries, and keep their health: the dispatcher disables one that has
-- failed without a success since `failing_since` for longer than --webhook-disable-after.
ALTER TABLE webhook_subscriptions ADD COLUMN event_types TEXT;
ALTER TABLE webhook_subscriptions ADD COLUMN max_per_second INTEGER;
ALTER TABLE webhook_subscriptions ADD COLUMN disabled_at INTEGER;
ALTER TABLE webhook_subscriptions ADD COLUMN last_success_at INTEGER;
ALTER TABLE webhook_subscriptions ADD COLUMN last_error TEXT;
ALTER TABLE webhook_subscriptions ADD COLUMN consecutive_failures INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhook_subscriptions ADD COLUMN failing_since INTEGER;
-- The throttle's window, shared by every dispatcher: the second it counts, and deliveries claimed in it.
ALTER TABLE webhook_subscriptions ADD COLUMN rate_second INTEGER NOT NULL DEFAULT 0;
ALTER TABLE webhook_subscriptions ADD COLUMN rate_used INTEGER NOT NULL DEFAULT 0;
-- A delivery's event type (null before this: plant.created). An operational event (webhook.disabled)
-- has no plant: its plant_id is 0.
ALTER TABLE webhook_deliveries ADD COLUMN event_type TEXT;
-- The health shown until now was the newest attempted delivery's error; carry it over.
UPDATE webhook_subscriptions SET last_error = (SELECT d.last_error FROM webhook_deliveries d
  WHERE d.subscription_id = webhook_subscriptions.id AND d.attempts > 0 ORDER BY d.id DESC LIMIT 1);
