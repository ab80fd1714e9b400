-- Name search (q) through each word's first three characters, as SQLite's FTS5 prefix index does: one
-- row per plant and distinct prefix, whose primary key yields a prefix's plants in id order. A page in
-- id order walks one prefix's plants and stops at its limit; GIN found every match of a prefix before
-- the first row. The stored tsvector stays, to check each candidate against the whole words.
CREATE TABLE plant_search_prefixes (
  prefix text COLLATE "C" NOT NULL,
  id bigint NOT NULL,
  PRIMARY KEY (prefix, id)
);

-- Kept in step by the statement that writes the plants, whichever it is (one row, a batch, COPY).
CREATE FUNCTION plant_search_prefixes_added () RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO plant_search_prefixes (prefix, id)
  SELECT DISTINCT left(word, 3), n.id FROM added n, unnest(tsvector_to_array(n.search)) word;
  RETURN NULL;
END
$$;

CREATE FUNCTION plant_search_prefixes_removed () RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM plant_search_prefixes p
  USING (SELECT DISTINCT left(word, 3) AS prefix, o.id FROM removed o, unnest(tsvector_to_array(o.search)) word) gone
  WHERE p.prefix = gone.prefix AND p.id = gone.id;
  RETURN NULL;
END
$$;

-- Only the plants whose words changed: their old prefixes out, their new ones in.
CREATE FUNCTION plant_search_prefixes_changed () RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM plant_search_prefixes p
  USING (SELECT DISTINCT left(word, 3) AS prefix, o.id FROM removed o JOIN added n ON n.id = o.id AND n.search <> o.search,
    unnest(tsvector_to_array(o.search)) word) gone
  WHERE p.prefix = gone.prefix AND p.id = gone.id;
  INSERT INTO plant_search_prefixes (prefix, id)
  SELECT DISTINCT left(word, 3), n.id FROM added n JOIN removed o ON o.id = n.id AND n.search <> o.search,
    unnest(tsvector_to_array(n.search)) word;
  RETURN NULL;
END
$$;

CREATE TRIGGER plant_search_prefixes_insert AFTER INSERT ON plants REFERENCING NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION plant_search_prefixes_added();
CREATE TRIGGER plant_search_prefixes_delete AFTER DELETE ON plants REFERENCING OLD TABLE AS removed
  FOR EACH STATEMENT EXECUTE FUNCTION plant_search_prefixes_removed();
CREATE TRIGGER plant_search_prefixes_update AFTER UPDATE ON plants REFERENCING OLD TABLE AS removed NEW TABLE AS added
  FOR EACH STATEMENT EXECUTE FUNCTION plant_search_prefixes_changed();

INSERT INTO plant_search_prefixes (prefix, id)
SELECT DISTINCT left(word, 3), id FROM plants, unnest(tsvector_to_array(search)) word;

-- The GIN index answered q alone; its upkeep is what the prefixes' now costs.
DROP INDEX plants_search;
