-- Gravitino's custom table statistics (SPEC §2.10): named JSON values a
-- caller sets on a table.
CREATE TABLE table_statistic (
    table_id       bigint NOT NULL REFERENCES table_meta,
    statistic_name text   NOT NULL,
    value          jsonb  NOT NULL,
    audit_info     jsonb  NOT NULL,
    PRIMARY KEY (table_id, statistic_name)
);
