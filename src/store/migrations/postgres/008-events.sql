-- The event log: every change of a plant, appended in the change's own transaction. A writer takes
-- the transaction-level advisory lock EVENT_LOG_LOCK (postgres/outbox.ts) before it draws sequence
-- numbers and holds it until it commits, so numbers become visible in the order they were drawn: a
-- reader at N never later sees an event below N commit.
CREATE TABLE events (
  sequence bigserial PRIMARY KEY,
  type text NOT NULL,
  message_id text NOT NULL,
  data text NOT NULL,
  created_at bigint NOT NULL
);

CREATE TABLE event_log (
  id integer PRIMARY KEY CHECK (id = 1),
  deleted_through bigint NOT NULL
);
INSERT INTO event_log (id, deleted_through) VALUES (1, 0);

CREATE TABLE event_tickets (
  hash bytea PRIMARY KEY,
  token_id bigint,
  principal text NOT NULL,
  scopes text NOT NULL,
  expires_at bigint NOT NULL
);

-- Every instance's streams wake on a commit anywhere (they then read the table, in sequence order).
CREATE FUNCTION plantstore_notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('plantstore_events', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER events_appended AFTER INSERT ON events
  FOR EACH STATEMENT EXECUTE FUNCTION plantstore_notify_events();
