-- Subscriptions over HTTP: a description, a secret's predecessor (valid for a grace period after a
-- rotation), and whether an operator added it (the CLI: any URL) or an integrator (private addresses
-- refused, also at delivery). Subscriptions before this were the CLI's.
ALTER TABLE webhook_subscriptions ADD COLUMN description TEXT;
ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret TEXT;
ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret_expires_at INTEGER;
ALTER TABLE webhook_subscriptions ADD COLUMN operator INTEGER NOT NULL DEFAULT 1;
-- A redelivered event's give-up clock starts again from its redelivery.
ALTER TABLE webhook_deliveries ADD COLUMN redelivered_at INTEGER;
-- A subscription's deliveries, newest first, and an event by its webhook-id.
CREATE INDEX webhook_deliveries_by_subscription ON webhook_deliveries (subscription_id, id);
CREATE INDEX webhook_deliveries_message ON webhook_deliveries (message_id);
