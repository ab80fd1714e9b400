-- Stream tickets are signed rather than stored (issuing one writes nothing): the key they are signed
-- with, made here once per store, so that every instance checks the same signatures. Two random UUIDs
-- (gen_random_uuid, core since PostgreSQL 13, reads the strong random source) give 244 random bits.
CREATE TABLE ticket_keys (
  id integer PRIMARY KEY CHECK (id = 1),
  key bytea NOT NULL
);
INSERT INTO ticket_keys (id, key)
  VALUES (1, decode(replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', ''), 'hex'));
DROP TABLE event_tickets;
-- Retention purges revoked and expired tokens; it finds them by the later of the two times.
CREATE INDEX tokens_ended ON tokens ((coalesce(revoked_at, expires_at))) WHERE revoked_at IS NOT NULL OR expires_at IS NOT NULL;
