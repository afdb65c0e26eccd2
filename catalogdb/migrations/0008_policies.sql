-- Policies (Gravitino 1.0, SPEC §2.10): named rules of a metalake attached
-- to catalogs, schemas, tables and semantic models, stored as tags are.
-- content holds customRules (NULL: none), supportedObjectTypes and
-- properties as Gravitino's CustomContentDTO writes them.
CREATE TABLE policy_meta (
    policy_id   bigserial PRIMARY KEY,
    policy_name text    NOT NULL,
    metalake_id bigint  NOT NULL REFERENCES metalake_meta,
    comment     text,
    policy_type text    NOT NULL,
    enabled     boolean NOT NULL DEFAULT true,
    content     jsonb   NOT NULL,
    audit_info  jsonb   NOT NULL,
    deleted_at  bigint  NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX policy_meta_name ON policy_meta (metalake_id, policy_name) WHERE deleted_at = 0;

-- Policy associations point at object ids, which are never reused, so a
-- dropped and recreated object starts with no policies.
CREATE TABLE policy_relation (
    policy_id   bigint NOT NULL REFERENCES policy_meta,
    object_type text   NOT NULL,
    object_id   bigint NOT NULL,
    PRIMARY KEY (object_type, object_id, policy_id)
);
CREATE INDEX policy_relation_policy ON policy_relation (policy_id);
