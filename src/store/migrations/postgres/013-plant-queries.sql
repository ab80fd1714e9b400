-- Filters compare strings by code point (PRODUCT.md, "Finding plants"), whatever the database's own
-- collation; the tag index is rebuilt with it. Pages in name order walk (name, id).
ALTER TABLE plants ALTER COLUMN name TYPE text COLLATE "C", ALTER COLUMN tag TYPE text COLLATE "C";
CREATE INDEX plants_name_id ON plants (name, id);
