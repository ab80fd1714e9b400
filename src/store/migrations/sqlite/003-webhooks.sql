-- Webhook subscribers and the outbox: one delivery row per (new plant, subscriber), written in the
-- plant's own transaction, so a 200 to the creator means the event will be sent.
CREATE TABLE webhook_subscriptions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  url TEXT NOT NULL,
  secret TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  removed_at INTEGER
) STRICT;

CREATE TABLE webhook_deliveries (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  -- Standard Webhooks' webhook-id: one per event, the same on every retry, so receivers can de-duplicate.
  message_id TEXT NOT NULL,
  subscription_id INTEGER NOT NULL REFERENCES webhook_subscriptions (id),
  plant_id INTEGER NOT NULL,
  payload TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  attempts INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  -- A dispatcher's claim: until this time no other dispatcher sends this delivery.
  locked_until INTEGER,
  last_status INTEGER,
  last_error TEXT,
  last_attempt_at INTEGER,
  delivered_at INTEGER,
  failed_at INTEGER
) STRICT;

CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at)
  WHERE delivered_at IS NULL AND failed_at IS NULL;
CREATE INDEX webhook_deliveries_recent ON webhook_deliveries (id DESC);
