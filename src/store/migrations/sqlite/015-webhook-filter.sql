-- A subscription's filter (GET /plants's grammar, as its owner wrote it): it receives only the events
-- of plants that match, and plant.left when one stops matching. Checked where deliveries are written.
ALTER TABLE webhook_subscriptions ADD COLUMN filter TEXT;
