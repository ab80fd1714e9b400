-- Pages in name order walk (name, id); BINARY collation compares by code point already.
CREATE INDEX plants_name_id ON plants (name, id);
