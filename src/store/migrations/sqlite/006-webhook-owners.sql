-- A subscription belongs to the token (or JWT subject) that made it over HTTP; an operator's (the CLI's)
-- has none. Subscriptions made over HTTP before owners existed have none either: only a webhooks:admin
-- token sees them.
ALTER TABLE webhook_subscriptions ADD COLUMN owner TEXT;
CREATE INDEX webhook_subscriptions_owner ON webhook_subscriptions (owner, id) WHERE removed_at IS NULL;
