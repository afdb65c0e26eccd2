-- Gravitino's tag values (SPEC §2.10): an object may carry a tag with one
-- or more values, or once without a value ('' here: a value is never blank).
ALTER TABLE tag_relation ADD COLUMN assignment_value text NOT NULL DEFAULT '';
ALTER TABLE tag_relation DROP CONSTRAINT tag_relation_pkey;
ALTER TABLE tag_relation ADD PRIMARY KEY (object_type, object_id, tag_id, assignment_value);
