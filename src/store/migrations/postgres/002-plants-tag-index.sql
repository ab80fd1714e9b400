-- Listing by tag walks (tag, id) in id order, the same keyset as the unfiltered list.
CREATE INDEX plants_tag_id ON plants (tag, id);
