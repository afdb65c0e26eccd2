-- Gravitino compatibility (SPEC §2.10): what the official client sends and
-- reads on metalakes, catalogs, tables, tags, roles and groups.

-- A disabled metalake or catalog (inUse false) refuses every operation
-- below it; only an enabled one can be dropped without force.
ALTER TABLE metalake_meta ADD COLUMN in_use boolean NOT NULL DEFAULT true;
ALTER TABLE catalog_meta ADD COLUMN in_use boolean NOT NULL DEFAULT true;
ALTER TABLE catalog_meta ADD COLUMN provider text NOT NULL DEFAULT 'semcat';

-- A table's physical layout as Gravitino describes it: partitioning,
-- distribution, sortOrders and indexes, kept verbatim (validated on the
-- way in). NULL is a table created without any of them.
ALTER TABLE table_meta ADD COLUMN layout jsonb;

-- The values a tag may take when assigned (NULL: any).
ALTER TABLE tag_meta ADD COLUMN allowed_values jsonb;

ALTER TABLE role_meta ADD COLUMN properties jsonb NOT NULL DEFAULT '{}';

CREATE TABLE group_meta (
    group_id    bigserial PRIMARY KEY,
    group_name  text   NOT NULL,
    metalake_id bigint NOT NULL REFERENCES metalake_meta,
    audit_info  jsonb  NOT NULL,
    deleted_at  bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX group_meta_name ON group_meta (metalake_id, group_name) WHERE deleted_at = 0;
CREATE INDEX group_meta_dropped ON group_meta (deleted_at) WHERE deleted_at > 0;

CREATE TABLE group_role (
    group_id bigint NOT NULL REFERENCES group_meta,
    role_id  bigint NOT NULL REFERENCES role_meta,
    PRIMARY KEY (group_id, role_id)
);
CREATE INDEX group_role_role ON group_role (role_id);
