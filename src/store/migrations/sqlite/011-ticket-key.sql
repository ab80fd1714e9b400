-- Stream tickets are signed rather than stored (issuing one writes nothing): the key they are signed
-- with, made here once per store, so that every process on the file checks the same signatures.
CREATE TABLE ticket_keys (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  key BLOB NOT NULL
) STRICT;
INSERT INTO ticket_keys (id, key) VALUES (1, randomblob(32));
DROP TABLE event_tickets;
-- Retention purges revoked and expired tokens; it finds them by the later of the two times.
CREATE INDEX tokens_ended ON tokens (coalesce(revoked_at, expires_at)) WHERE revoked_at IS NOT NULL OR expires_at IS NOT NULL;
