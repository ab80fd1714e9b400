-- The event log: every change of a plant, appended in the change's own transaction. The sequence is
-- the rowid; SQLite runs one write transaction at a time, so it grows in commit order. AUTOINCREMENT:
-- a number is never used twice, even after retention deleted the newest rows.
CREATE TABLE events (
  sequence INTEGER PRIMARY KEY AUTOINCREMENT,
  type TEXT NOT NULL,
  -- The Standard Webhooks message id, which the event's webhook deliveries carry as webhook-id.
  message_id TEXT NOT NULL,
  data TEXT NOT NULL,
  created_at INTEGER NOT NULL
) STRICT;

-- Retention deletes a prefix of the log; resuming from below what it deleted is told to re-list.
CREATE TABLE event_log (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  deleted_through INTEGER NOT NULL
) STRICT;
INSERT INTO event_log (id, deleted_through) VALUES (1, 0);

-- Short-lived stream tickets for EventSource, which cannot send an Authorization header: only the
-- ticket's hash is kept, with the token (or JWT subject) and scopes it stands for.
CREATE TABLE event_tickets (
  hash BLOB PRIMARY KEY,
  token_id INTEGER,
  principal TEXT NOT NULL,
  scopes TEXT NOT NULL,
  expires_at INTEGER NOT NULL
) STRICT;
