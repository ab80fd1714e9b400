-- Idempotency-Key: a request's answer, kept per owner (a token, or a JWT's issuer and subject) with a
-- hash of the request, written in the request's own transaction; retention deletes expired keys.
CREATE TABLE idempotency_keys (
  owner TEXT NOT NULL,
  key TEXT NOT NULL,
  request_hash TEXT NOT NULL,
  status INTEGER NOT NULL,
  body TEXT,
  etag TEXT,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL,
  PRIMARY KEY (owner, key)
) WITHOUT ROWID;
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
