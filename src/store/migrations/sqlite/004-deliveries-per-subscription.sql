-- The dispatcher claims each subscriber's due deliveries on its own (a slow subscriber's backlog never
-- stands in front of another's), in due order: one partial index per (subscriber, due time).
DROP INDEX webhook_deliveries_pending;
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (subscription_id, next_attempt_at, id)
  WHERE delivered_at IS NULL AND failed_at IS NULL;
-- The rowid already gives the newest first; this index only cost every insert a write.
DROP INDEX webhook_deliveries_recent;
