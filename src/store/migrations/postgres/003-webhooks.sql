-- Webhook subscribers and the outbox (see the SQLite migration of the same number).
CREATE TABLE webhook_subscriptions (
  id bigserial PRIMARY KEY,
  url text NOT NULL,
  secret text NOT NULL,
  created_at bigint NOT NULL,
  removed_at bigint
);

CREATE TABLE webhook_deliveries (
  id bigserial PRIMARY KEY,
  message_id text NOT NULL,
  subscription_id bigint NOT NULL REFERENCES webhook_subscriptions (id),
  plant_id bigint NOT NULL,
  payload text NOT NULL,
  created_at bigint NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at bigint NOT NULL,
  locked_until bigint,
  last_status integer,
  last_error text,
  last_attempt_at bigint,
  delivered_at bigint,
  failed_at bigint
);

CREATE INDEX webhook_deliveries_pending ON webhook_deliveries (next_attempt_at, id)
  WHERE delivered_at IS NULL AND failed_at IS NULL;
