-- Word-prefix search in names (q): FTS5 over plants.name as external content, case- and
-- accent-insensitive, kept in step by triggers in the same transactions as the plants.
CREATE VIRTUAL TABLE plant_search USING fts5(name, content = 'plants', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2');
INSERT INTO plant_search (plant_search) VALUES ('rebuild');
CREATE TRIGGER plant_search_insert AFTER INSERT ON plants BEGIN
  INSERT INTO plant_search (rowid, name) VALUES (new.id, new.name);
END;
CREATE TRIGGER plant_search_delete AFTER DELETE ON plants BEGIN
  INSERT INTO plant_search (plant_search, rowid, name) VALUES ('delete', old.id, old.name);
END;
CREATE TRIGGER plant_search_update AFTER UPDATE OF name ON plants BEGIN
  INSERT INTO plant_search (plant_search, rowid, name) VALUES ('delete', old.id, old.name);
  INSERT INTO plant_search (rowid, name) VALUES (new.id, new.name);
END;
