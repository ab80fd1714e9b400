-- Plants keyed by the client's int64 id. Times are Unix milliseconds, as in the SQLite store.
CREATE TABLE plants (
  id bigint PRIMARY KEY,
  name text NOT NULL,
  tag text,
  created_at bigint NOT NULL
);

-- Bearer tokens: only the SHA-256 of the token is kept.
CREATE TABLE tokens (
  id bigserial PRIMARY KEY,
  name text NOT NULL UNIQUE,
  hash bytea NOT NULL UNIQUE,
  scopes text NOT NULL,
  created_at bigint NOT NULL,
  expires_at bigint,
  revoked_at bigint
);
