-- A metalake's synonym sets (SPEC §2.6), applied at query time: one row per
-- metalake that has any, the sets as the API wrote them. A change writes
-- an outbox row of kind 'synonyms' (entity_id: the metalake), which every
-- index consumer passes over and every semcat server takes as the sign to
-- drop its cached sets.
CREATE TABLE metalake_synonyms (
    metalake_id bigint PRIMARY KEY REFERENCES metalake_meta,
    synonyms    jsonb  NOT NULL,
    audit_info  jsonb  NOT NULL
);
