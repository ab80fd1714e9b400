-- Idempotency-Key: a request's answer, kept per owner (a token, or a JWT's issuer and subject) with a
-- hash of the request, written in the request's own transaction; retention deletes expired keys.
CREATE TABLE idempotency_keys (
  owner text NOT NULL,
  key text NOT NULL,
  request_hash text NOT NULL,
  status integer NOT NULL,
  body text,
  etag text,
  created_at bigint NOT NULL,
  expires_at bigint NOT NULL,
  PRIMARY KEY (owner, key)
);
CREATE INDEX idempotency_keys_expiry ON idempotency_keys (expires_at);
