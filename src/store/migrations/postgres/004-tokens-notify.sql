-- Every change to tokens (from any instance, the CLI, or plain SQL) notifies the listeners, so instances
-- that cache token lookups drop their cache at once (see postgres/token-cache.ts).
CREATE FUNCTION plantstore_notify_tokens() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM pg_notify('plantstore_tokens', '');
  RETURN NULL;
END
$$;

CREATE TRIGGER tokens_changed AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON tokens
  FOR EACH STATEMENT EXECUTE FUNCTION plantstore_notify_tokens();
