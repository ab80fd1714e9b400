-- Filters compare strings by code point (PRODUCT.md, "Finding plants"), whatever the database's own
-- collation; the tag index is rebuilt with it. Pages in name order walk (name, id); both indexes cover
-- the page's columns, so that a page read through them needs no visit to the table.
ALTER TABLE plants ALTER COLUMN name TYPE text COLLATE "C", ALTER COLUMN tag TYPE text COLLATE "C";
CREATE INDEX plants_name_id ON plants (name, id) INCLUDE (tag);
DROP INDEX plants_tag_id;
CREATE INDEX plants_tag_id ON plants (tag, id) INCLUDE (name);
