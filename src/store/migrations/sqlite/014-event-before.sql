-- The plant as it was before an update or a delete: filtered readers decide plant.left, and which
-- deletes concern them, by it. Readers never see it. Older events have none.
ALTER TABLE events ADD COLUMN before TEXT;
