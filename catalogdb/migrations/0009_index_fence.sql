-- Each index generation's fence (catalogdb.Fence, DESIGN §3): before it
-- applies what a poll of the outbox read, the indexer commits a fresh
-- random value here, after the poll's snapshot, and records it in the
-- index's checkpoint. A database that holds the value holds every
-- transaction the index has applied: WAL is replayed in order, so a standby
-- promoted, or a backup restored, with that commit has every commit before
-- it. One that lacks it was failed over or restored to an earlier state,
-- and the index is rebuilt. prev_fence is the value the index's checkpoint
-- held when fence was written, which a crash may leave it holding.
CREATE TABLE index_fence (
    index_id      text        PRIMARY KEY,
    consumer_name text        NOT NULL,
    fence         bigint      NOT NULL,
    prev_fence    bigint      NOT NULL DEFAULT 0,
    updated_at    timestamptz NOT NULL DEFAULT now()
);
