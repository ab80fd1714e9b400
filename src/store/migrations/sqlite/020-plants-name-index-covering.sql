-- (name, id) with the tag too, so a page found by a name range is read from the index alone: a prefix
-- in id order sorts every plant of the range, and through (name, id) each one was also read from the
-- table for its tag. PostgreSQL's index has INCLUDE (tag) for the same reason.
DROP INDEX plants_name_id;
CREATE INDEX plants_name_id_tag ON plants (name, id, tag);
