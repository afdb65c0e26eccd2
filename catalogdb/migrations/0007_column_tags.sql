-- Tags on a table's top-level columns (Gravitino's COLUMN objects): a
-- column gets an id when it is first tagged, keeps it when renamed, and
-- loses it (and its tags) when deleted. Changes of a table's column ids
-- take the table's row lock, so (table_id, column_name) stays unique
-- without a constraint that renames within one statement would trip.
CREATE TABLE column_meta (
    column_id   bigserial PRIMARY KEY,
    table_id    bigint NOT NULL REFERENCES table_meta,
    column_name text   NOT NULL
);
CREATE INDEX column_meta_table ON column_meta (table_id, column_name);
