-- Owners of subscriptions (see the SQLite migration of the same name).
ALTER TABLE webhook_subscriptions ADD COLUMN owner text;
CREATE INDEX webhook_subscriptions_owner ON webhook_subscriptions (owner, id) WHERE removed_at IS NULL;
