-- When a request last authenticated with each token (Unix milliseconds), written about once a minute
-- from memory (token-usage.ts), never on the request path.
ALTER TABLE tokens ADD COLUMN last_used_at INTEGER;
