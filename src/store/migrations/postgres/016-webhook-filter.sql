-- A subscription's filter (GET /plants's grammar): as its owner wrote it, and as a tree
-- (contract/filter.ts's filterTreeJson) that plant_matches evaluates where deliveries are written, in the
-- writes' own statements. It receives only the events of plants that match, and plant.left when one
-- stops matching.
ALTER TABLE webhook_subscriptions ADD COLUMN filter text, ADD COLUMN filter_tree jsonb;

-- The rules of contract/filter-match.ts: a comparison on a missing tag is false, NOT is an exact
-- complement, strings compare by code point.
CREATE FUNCTION plant_matches (f jsonb, plant_id bigint, plant_name text, plant_tag text) RETURNS boolean
LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$
DECLARE
  kind text := f->>'k';
  op text := f->>'o';
  term jsonb;
  value text;
  field text;
  prefixed boolean;
BEGIN
  IF kind = 'and' THEN
    FOR term IN SELECT * FROM jsonb_array_elements(f->'t') LOOP
      IF NOT plant_matches(term, plant_id, plant_name, plant_tag) THEN RETURN false; END IF;
    END LOOP;
    RETURN true;
  ELSIF kind = 'or' THEN
    FOR term IN SELECT * FROM jsonb_array_elements(f->'t') LOOP
      IF plant_matches(term, plant_id, plant_name, plant_tag) THEN RETURN true; END IF;
    END LOOP;
    RETURN false;
  ELSIF kind = 'not' THEN
    RETURN NOT plant_matches(f->'t', plant_id, plant_name, plant_tag);
  ELSIF kind = 'has-tag' THEN
    RETURN plant_tag IS NOT NULL;
  ELSIF kind = 'id' THEN
    RETURN CASE op WHEN '=' THEN plant_id = (f->>'v')::bigint WHEN '!=' THEN plant_id <> (f->>'v')::bigint
      WHEN '<' THEN plant_id < (f->>'v')::bigint WHEN '<=' THEN plant_id <= (f->>'v')::bigint
      WHEN '>' THEN plant_id > (f->>'v')::bigint ELSE plant_id >= (f->>'v')::bigint END;
  END IF;
  field := CASE kind WHEN 'name' THEN plant_name ELSE plant_tag END;
  IF field IS NULL THEN RETURN false; END IF;
  value := f->>'v';
  prefixed := (f->>'p')::boolean;
  IF prefixed THEN
    RETURN (left(field, length(value)) = value) = (op = '=');
  END IF;
  RETURN CASE op WHEN '=' THEN field = value WHEN '!=' THEN field <> value
    WHEN '<' THEN field COLLATE "C" < value COLLATE "C" WHEN '<=' THEN field COLLATE "C" <= value COLLATE "C"
    WHEN '>' THEN field COLLATE "C" > value COLLATE "C" ELSE field COLLATE "C" >= value COLLATE "C" END;
END
$$;
