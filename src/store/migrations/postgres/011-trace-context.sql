-- The W3C traceparent of the request that caused an event, when traces were on (null otherwise): a
-- stream's fan-out and each delivery's span link to it, and each delivery carries it on.
ALTER TABLE events ADD COLUMN trace_parent text;
ALTER TABLE webhook_deliveries ADD COLUMN trace_parent text;
