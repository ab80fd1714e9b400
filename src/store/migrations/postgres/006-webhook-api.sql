-- Subscriptions over HTTP (see the SQLite migration of the same name).
ALTER TABLE webhook_subscriptions ADD COLUMN description text;
ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret text;
ALTER TABLE webhook_subscriptions ADD COLUMN previous_secret_expires_at bigint;
ALTER TABLE webhook_subscriptions ADD COLUMN operator boolean NOT NULL DEFAULT true;
ALTER TABLE webhook_deliveries ADD COLUMN redelivered_at bigint;
CREATE INDEX webhook_deliveries_by_subscription ON webhook_deliveries (subscription_id, id);
CREATE INDEX webhook_deliveries_message ON webhook_deliveries (message_id);
