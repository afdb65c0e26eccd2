-- Catalog core: every entity table keeps dropped rows (deleted_at > 0, the
-- epoch milliseconds of the drop) so that ids are never reused; live rows
-- have deleted_at = 0 and unique names among their live siblings.

CREATE TABLE metalake_meta (
    metalake_id   bigserial PRIMARY KEY,
    metalake_name text   NOT NULL,
    comment       text,
    properties    jsonb  NOT NULL DEFAULT '{}',
    audit_info    jsonb  NOT NULL,
    deleted_at    bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX metalake_meta_name ON metalake_meta (metalake_name) WHERE deleted_at = 0;

CREATE TABLE catalog_meta (
    catalog_id   bigserial PRIMARY KEY,
    catalog_name text   NOT NULL,
    metalake_id  bigint NOT NULL REFERENCES metalake_meta,
    type         text   NOT NULL,
    comment      text,
    properties   jsonb  NOT NULL DEFAULT '{}',
    audit_info   jsonb  NOT NULL,
    deleted_at   bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX catalog_meta_name ON catalog_meta (metalake_id, catalog_name) WHERE deleted_at = 0;

CREATE TABLE schema_meta (
    schema_id   bigserial PRIMARY KEY,
    schema_name text   NOT NULL,
    metalake_id bigint NOT NULL REFERENCES metalake_meta,
    catalog_id  bigint NOT NULL REFERENCES catalog_meta,
    comment     text,
    properties  jsonb  NOT NULL DEFAULT '{}',
    audit_info  jsonb  NOT NULL,
    deleted_at  bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX schema_meta_name ON schema_meta (catalog_id, schema_name) WHERE deleted_at = 0;
CREATE INDEX schema_meta_metalake ON schema_meta (metalake_id, deleted_at);

CREATE TABLE table_meta (
    table_id    bigserial PRIMARY KEY,
    table_name  text   NOT NULL,
    metalake_id bigint NOT NULL REFERENCES metalake_meta,
    catalog_id  bigint NOT NULL REFERENCES catalog_meta,
    schema_id   bigint NOT NULL REFERENCES schema_meta,
    comment     text,
    columns     jsonb  NOT NULL,
    properties  jsonb  NOT NULL DEFAULT '{}',
    audit_info  jsonb  NOT NULL,
    deleted_at  bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX table_meta_name ON table_meta (schema_id, table_name) WHERE deleted_at = 0;
CREATE INDEX table_meta_catalog ON table_meta (catalog_id, deleted_at);
CREATE INDEX table_meta_metalake ON table_meta (metalake_id, deleted_at);

-- Semantic models in the split-column layout: the meta row names the model
-- and points at its current version; each change writes a complete snapshot
-- into semantic_model_version_info, one JSON column per definition part (SQL
-- NULL for an absent optional part, '[]' for an explicit empty one). The
-- parts are `json`, not `jsonb`, so a definition comes back as it was stored.
CREATE TABLE semantic_model_meta (
    semantic_model_id   bigserial PRIMARY KEY,
    semantic_model_name text   NOT NULL,
    metalake_id         bigint NOT NULL REFERENCES metalake_meta,
    catalog_id          bigint NOT NULL REFERENCES catalog_meta,
    schema_id           bigint NOT NULL REFERENCES schema_meta,
    audit_info          jsonb  NOT NULL,
    current_version     bigint NOT NULL,
    last_version        bigint NOT NULL,
    deleted_at          bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX semantic_model_meta_name ON semantic_model_meta (schema_id, semantic_model_name) WHERE deleted_at = 0;
CREATE INDEX semantic_model_meta_catalog ON semantic_model_meta (catalog_id, deleted_at);
CREATE INDEX semantic_model_meta_metalake ON semantic_model_meta (metalake_id, deleted_at);

CREATE TABLE semantic_model_version_info (
    id                     bigserial PRIMARY KEY,
    metalake_id            bigint NOT NULL,
    catalog_id             bigint NOT NULL,
    schema_id              bigint NOT NULL,
    semantic_model_id      bigint NOT NULL REFERENCES semantic_model_meta,
    version                bigint NOT NULL,
    semantic_model_name    text   NOT NULL,
    semantic_model_comment text,
    datasets               json   NOT NULL,
    relationships          json,
    metrics                json,
    ai_context             json,
    custom_extensions      json,
    properties             jsonb  NOT NULL DEFAULT '{}',
    audit_info             jsonb  NOT NULL,
    deleted_at             bigint NOT NULL DEFAULT 0,
    UNIQUE (semantic_model_id, version)
);

-- Stable metric identities: one live row per metric name of a live model;
-- retired rows keep the epoch milliseconds of their retirement. No payload.
CREATE TABLE semantic_model_metric_meta (
    metric_id         bigserial PRIMARY KEY,
    metalake_id       bigint NOT NULL,
    catalog_id        bigint NOT NULL,
    schema_id         bigint NOT NULL,
    semantic_model_id bigint NOT NULL REFERENCES semantic_model_meta,
    metric_name       text   NOT NULL,
    deleted_at        bigint NOT NULL DEFAULT 0
);
CREATE INDEX semantic_model_metric_meta_model ON semantic_model_metric_meta (semantic_model_id, deleted_at);
CREATE UNIQUE INDEX semantic_model_metric_meta_name ON semantic_model_metric_meta (semantic_model_id, metric_name) WHERE deleted_at = 0;
CREATE INDEX semantic_model_metric_meta_schema ON semantic_model_metric_meta (schema_id, deleted_at);

CREATE TABLE tag_meta (
    tag_id      bigserial PRIMARY KEY,
    tag_name    text   NOT NULL,
    metalake_id bigint NOT NULL REFERENCES metalake_meta,
    comment     text,
    properties  jsonb  NOT NULL DEFAULT '{}',
    audit_info  jsonb  NOT NULL,
    deleted_at  bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX tag_meta_name ON tag_meta (metalake_id, tag_name) WHERE deleted_at = 0;

-- Tag associations point at object ids, which are never reused, so a dropped
-- and recreated object starts with no tags.
CREATE TABLE tag_relation (
    tag_id      bigint NOT NULL REFERENCES tag_meta,
    object_type text   NOT NULL,
    object_id   bigint NOT NULL,
    PRIMARY KEY (object_type, object_id, tag_id)
);
CREATE INDEX tag_relation_tag ON tag_relation (tag_id);

-- Access control (enforced by the authorization layer).
CREATE TABLE user_meta (
    user_id     bigserial PRIMARY KEY,
    user_name   text   NOT NULL,
    metalake_id bigint NOT NULL REFERENCES metalake_meta,
    audit_info  jsonb  NOT NULL,
    deleted_at  bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX user_meta_name ON user_meta (metalake_id, user_name) WHERE deleted_at = 0;

CREATE TABLE role_meta (
    role_id     bigserial PRIMARY KEY,
    role_name   text   NOT NULL,
    metalake_id bigint NOT NULL REFERENCES metalake_meta,
    audit_info  jsonb  NOT NULL,
    deleted_at  bigint NOT NULL DEFAULT 0
);
CREATE UNIQUE INDEX role_meta_name ON role_meta (metalake_id, role_name) WHERE deleted_at = 0;

CREATE TABLE role_privilege (
    role_id     bigint NOT NULL REFERENCES role_meta,
    object_type text   NOT NULL,
    object_id   bigint NOT NULL,
    privilege   text   NOT NULL,
    condition   text   NOT NULL CHECK (condition IN ('ALLOW', 'DENY')),
    PRIMARY KEY (role_id, object_type, object_id, privilege)
);
CREATE INDEX role_privilege_object ON role_privilege (object_type, object_id);

CREATE TABLE user_role (
    user_id bigint NOT NULL REFERENCES user_meta,
    role_id bigint NOT NULL REFERENCES role_meta,
    PRIMARY KEY (user_id, role_id)
);

CREATE TABLE owner_meta (
    metalake_id bigint NOT NULL REFERENCES metalake_meta,
    object_type text   NOT NULL,
    object_id   bigint NOT NULL,
    owner_type  text   NOT NULL,
    owner_name  text   NOT NULL,
    PRIMARY KEY (object_type, object_id)
);

-- The transactional outbox (DESIGN §3). Rows are read in (txid, seq) order
-- below the xmin horizon, so a row can never appear behind a reader's cursor.
CREATE TABLE outbox (
    seq         bigserial,
    txid        xid8   NOT NULL DEFAULT pg_current_xact_id(),
    entity_kind text   NOT NULL,
    entity_id   bigint NOT NULL,
    operation   text   NOT NULL,
    created_at  timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (txid, seq)
);

-- Index consumers report their durable cursors here; outbox pruning keeps
-- every row some live consumer has not yet passed.
CREATE TABLE index_consumer (
    consumer_name text PRIMARY KEY,
    cursor_txid   xid8   NOT NULL,
    cursor_seq    bigint NOT NULL,
    heartbeat_at  timestamptz NOT NULL DEFAULT now()
);
