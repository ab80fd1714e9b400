-- Plants keyed by the client's int64 id; INTEGER PRIMARY KEY is the rowid, which covers the whole range.
CREATE TABLE plants (
  id INTEGER PRIMARY KEY,
  name TEXT NOT NULL,
  tag TEXT,
  created_at INTEGER NOT NULL
) STRICT;

-- Bearer tokens: only the SHA-256 of the token is kept. Times are Unix milliseconds.
CREATE TABLE tokens (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL UNIQUE,
  hash BLOB NOT NULL UNIQUE,
  scopes TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  expires_at INTEGER,
  revoked_at INTEGER
) STRICT;
