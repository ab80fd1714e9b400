-- One index fewer in name order, as on PostgreSQL: each create wrote a page of (tag, name, id) at a
-- place its name chose, as it does of (name, id, tag). A page of one tag in name order now sorts the
-- tag's plants when they are few, from (tag, id, name) alone, and walks (name, id, tag) when they are
-- many (store/sqlite/plant-pages.ts). A tag's plants in id order are read from that index alone too.
DROP INDEX plants_tag_name_id;
DROP INDEX plants_tag_id;
CREATE INDEX plants_tag_id_name ON plants (tag, id, name);
