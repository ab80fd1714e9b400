-- The search index keeps which plants hold each term, not where in the name (detail=none) nor each
-- name's length in tokens (columnsize=0). Search asks for terms only, ANDed, and checks whole words
-- on the name itself, so it needs neither; each commit of creates writes fewer pages without them.
DROP TABLE plant_search;
CREATE VIRTUAL TABLE plant_search USING fts5(name, content = 'plants', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3', detail = none, columnsize = 0);
INSERT INTO plant_search (plant_search) VALUES ('rebuild');
