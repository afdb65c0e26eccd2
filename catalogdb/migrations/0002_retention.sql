-- Retention (Store.Purge) hard-deletes rows dropped longer ago than the
-- retention period, children before parents.

-- Finding expired rows: partial indexes hold only dropped rows, so they stay
-- small however large the live catalog is, and a purge reads just the rows it
-- deletes. (Purge's candidate queries repeat the predicate deleted_at > 0.)
CREATE INDEX semantic_model_metric_meta_dropped ON semantic_model_metric_meta (deleted_at) WHERE deleted_at > 0;
CREATE INDEX semantic_model_version_info_dropped ON semantic_model_version_info (deleted_at) WHERE deleted_at > 0;
CREATE INDEX semantic_model_meta_dropped ON semantic_model_meta (deleted_at) WHERE deleted_at > 0;
CREATE INDEX table_meta_dropped ON table_meta (deleted_at) WHERE deleted_at > 0;
CREATE INDEX schema_meta_dropped ON schema_meta (deleted_at) WHERE deleted_at > 0;

-- Deleting a parent row makes PostgreSQL look for referencing rows, and so
-- does Purge's own "no child left" check. These foreign keys had only
-- partial (live-row) indexes or none, so each deleted schema or catalog
-- would scan its whole child table.
CREATE INDEX table_meta_schema ON table_meta (schema_id, deleted_at);
CREATE INDEX semantic_model_meta_schema ON semantic_model_meta (schema_id, deleted_at);
CREATE INDEX schema_meta_catalog ON schema_meta (catalog_id, deleted_at);
CREATE INDEX user_role_role ON user_role (role_id);
