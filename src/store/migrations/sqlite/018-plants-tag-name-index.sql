-- Pages of one tag in name order (`tag = "x"` with order_by name or name desc) walk (tag, name, id)
-- and stop at the page's end; through (tag, id) they sorted every plant of the tag first.
CREATE INDEX plants_tag_name_id ON plants (tag, name, id);
