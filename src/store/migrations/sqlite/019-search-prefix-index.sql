-- Prefix terms of 1 to 3 characters in the search index: FTS5 reads one as it reads a word, in id
-- order and a page at a time; a prefix it has no terms for makes it merge the list of every word that
-- starts with it before the first match.
DROP TABLE plant_search;
CREATE VIRTUAL TABLE plant_search USING fts5(name, content = 'plants', content_rowid = 'id', tokenize = 'unicode61 remove_diacritics 2', prefix = '1 2 3');
INSERT INTO plant_search (plant_search) VALUES ('rebuild');
