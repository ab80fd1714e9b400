-- plant_search_text again, with the same result, in PL/pgSQL: as SQL it cannot be inlined (unaccent is
-- STABLE, the function IMMUTABLE), so each stored search column set up an executor of its own for every
-- plant written. PL/pgSQL evaluates the expression on its fast path. Stored columns keep their values.
DO $migration$
DECLARE
  extension_schema text;
BEGIN
  SELECT n.nspname INTO extension_schema FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace WHERE e.extname = 'unaccent';
  EXECUTE format($function$
    CREATE OR REPLACE FUNCTION plant_search_text (name text) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE AS $body$
    BEGIN
      RETURN regexp_replace(lower(%1$I.unaccent(%2$L::regdictionary, name) COLLATE "und-x-icu"), '[^[:alnum:]]+', ' ', 'g');
    END
    $body$
  $function$, extension_schema, format('%I.unaccent', extension_schema));
END
$migration$;
