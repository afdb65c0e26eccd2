-- Catalogs mirrored from an external source (SPEC §2.12, DESIGN §8.2): a
-- jdbc-postgresql catalog keeps its secret here, never among the catalog's
-- properties (which are returned, indexed and put in events), with the state
-- of its last refresh.
CREATE TABLE source_catalog (
    catalog_id     bigint PRIMARY KEY REFERENCES catalog_meta ON DELETE CASCADE,
    secret         text   NOT NULL DEFAULT '',
    last_refresh   bigint NOT NULL DEFAULT 0,
    last_error     text   NOT NULL DEFAULT '',
    refresh_errors bigint NOT NULL DEFAULT 0
);

-- Each mirrored table by the source's object id: the semcat table it is
-- (kept across renames in the source), the fingerprint of what was
-- mirrored last, so that a refresh writes only the differences, and the
-- stamp of the source's catalog rows it was read from, so that a refresh
-- reads again only the tables whose rows changed.
CREATE TABLE source_table (
    catalog_id  bigint NOT NULL REFERENCES catalog_meta ON DELETE CASCADE,
    source_oid  bigint NOT NULL,
    table_id    bigint NOT NULL REFERENCES table_meta ON DELETE CASCADE,
    fingerprint text   NOT NULL,
    stamp       text   NOT NULL DEFAULT '',
    -- the source's number (attnum) of each column, in the mirror's order:
    -- a column renamed in the source keeps its tags
    attnums     smallint[] NOT NULL DEFAULT '{}',
    PRIMARY KEY (catalog_id, source_oid)
);
CREATE INDEX source_table_table ON source_table (table_id);
-- (ON DELETE CASCADE: the retention job's purge of dropped catalogs and
-- tables takes their rows here with them.)
