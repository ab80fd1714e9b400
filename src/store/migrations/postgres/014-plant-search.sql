-- Word-prefix search in names (q): a tsvector of the name's words, accents removed by the unaccent
-- extension and lower-cased by ICU (so the database's own locale changes nothing), kept in a stored
-- column with a GIN index.
DO $migration$
DECLARE
  extension_schema text;
BEGIN
  BEGIN
    CREATE EXTENSION IF NOT EXISTS unaccent;
  EXCEPTION WHEN OTHERS THEN
    RAISE EXCEPTION 'name search needs the PostgreSQL extension "unaccent" (it ships with PostgreSQL): %', SQLERRM;
  END;
  SELECT n.nspname INTO extension_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent';
  -- Immutable, so that an index may use it: the unaccent dictionary is named, not looked up.
  EXECUTE format($function$
    CREATE FUNCTION plant_search_text (name text) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE AS $body$
      SELECT regexp_replace(lower(%1$I.unaccent(%2$L::regdictionary, name) COLLATE "und-x-icu"), '[^[:alnum:]]+', ' ', 'g')
    $body$
  $function$, extension_schema, format('%I.unaccent', extension_schema));
END
$migration$;
-- Stored, so that a search's recheck reads it instead of folding every candidate's name again.
ALTER TABLE plants ADD COLUMN search tsvector GENERATED ALWAYS AS (to_tsvector('simple', plant_search_text(name))) STORED;
CREATE INDEX plants_search ON plants USING gin (search);
