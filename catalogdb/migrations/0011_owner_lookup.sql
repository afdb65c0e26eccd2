-- A user's ownerships in a metalake are read for every search it makes
-- (its visibility) and for listings' authorization: by owner, not by a scan
-- of every ownership of every metalake.
CREATE INDEX owner_meta_owner ON owner_meta (metalake_id, owner_name);
