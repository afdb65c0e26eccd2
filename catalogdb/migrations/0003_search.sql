-- The database's identity: an index remembers which database it follows and
-- is rebuilt if pointed at another one.
CREATE TABLE semcat_instance (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    database_id text   NOT NULL DEFAULT md5(random()::text || clock_timestamp()::text)
);
INSERT INTO semcat_instance DEFAULT VALUES;

-- The highest outbox position pruned so far: a consumer whose cursor is
-- below it has missed rows and must rebuild.
CREATE TABLE outbox_watermark (
    singleton  boolean PRIMARY KEY DEFAULT true CHECK (singleton),
    txid       xid8   NOT NULL DEFAULT '0',
    seq        bigint NOT NULL DEFAULT 0
);
INSERT INTO outbox_watermark DEFAULT VALUES;
