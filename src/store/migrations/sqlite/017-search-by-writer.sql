-- The search index is written by the writer beside each plant write (store/sqlite/search-index.ts), in
-- the same transaction, no longer by triggers: a trigger's statement savepoint made FTS5 flush its
-- pending terms for every row, more than doubling what a create cost.
DROP TRIGGER plant_search_insert;
DROP TRIGGER plant_search_delete;
DROP TRIGGER plant_search_update;
