-- When a request last authenticated with each token (see the SQLite migration of the same name).
ALTER TABLE tokens ADD COLUMN last_used_at bigint;
