package catalogdb

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// The transactional outbox (DESIGN §3), in one place: every write names the
// entities it changed in outbox rows of its own transaction (writeTx.emit);
// index consumers poll the rows in (txid, seq) order below the xmin horizon
// (PollOutbox), report their durable cursors (ReportConsumer), and rows every
// live consumer has passed are pruned (PruneOutbox).

// writeTx is a read-write transaction that records the outbox rows it
// writes, so the caller can return the write's position.
type writeTx struct {
	pgx.Tx
	txid  uint64
	watch func(txid uint64) // Store.WatchWrites; nil if none
}

// learnTxID records the transaction's id, read by scan, and tells the
// watcher.
func (t *writeTx) learnTxID(scan func(*uint64) error) error {
	known := t.txid != 0
	if err := scan(&t.txid); err != nil {
		return err
	}
	if !known && t.watch != nil {
		t.watch(t.txid)
	}
	return nil
}

// emit writes one outbox row naming an entity that changed.
func (t *writeTx) emit(ctx context.Context, kind semcat.EntityKind, id int64, op string) error {
	return t.learnTxID(func(txid *uint64) error {
		return t.QueryRow(ctx, `INSERT INTO outbox (entity_kind, entity_id, operation) VALUES ($1, $2, $3)
			RETURNING txid::text::bigint`, string(kind), id, op).Scan(txid)
	})
}

// emitQuery writes one outbox row per id returned by a query, all of the same
// kind, in one statement.
func (t *writeTx) emitQuery(ctx context.Context, kind semcat.EntityKind, op, idQuery string, args ...any) error {
	n := len(args)
	q := fmt.Sprintf(`WITH ids AS (%s)
		INSERT INTO outbox (entity_kind, entity_id, operation) SELECT $%d, id, $%d FROM ids`, idQuery, n+1, n+2)
	if _, err := t.Exec(ctx, q, append(args, string(kind), op)...); err != nil {
		return err
	}
	return t.learnTxID(func(txid *uint64) error {
		return t.QueryRow(ctx, `SELECT pg_current_xact_id()::text::bigint`).Scan(txid)
	})
}

// emitCreated ends every create: it makes user the owner of the new entity
// and writes the entity's outbox row, in one statement.
func (t *writeTx) emitCreated(ctx context.Context, metalakeID int64, kind semcat.EntityKind, id int64, user string) error {
	return t.learnTxID(func(txid *uint64) error {
		return t.QueryRow(ctx, `WITH owner AS (`+setOwnerSQL+`)
			INSERT INTO outbox (entity_kind, entity_id, operation) VALUES ($2, $3, $6)
			RETURNING txid::text::bigint`,
			metalakeID, string(kind), id, ownerTypeUser, user, opUpsert).Scan(txid)
	})
}

// Outbox operations.
const (
	opUpsert = "upsert"
	opDelete = "delete"
)

// OutboxCursor is a position in the outbox's (txid, seq) order.
type OutboxCursor struct {
	TxID uint64
	Seq  int64
}

// String prints the cursor for logs.
func (c OutboxCursor) String() string { return fmt.Sprintf("%d/%d", c.TxID, c.Seq) }

// Less orders cursors.
func (c OutboxCursor) Less(o OutboxCursor) bool {
	return c.TxID < o.TxID || (c.TxID == o.TxID && c.Seq < o.Seq)
}

// OutboxBatch says what one poll of the outbox found: how many rows after
// the cursor below the xmin horizon, and where they end.
type OutboxBatch struct {
	Rows int
	// Next is the cursor after this batch.
	Next OutboxCursor
	// Horizon: once this batch is applied, every transaction with a txid
	// below it is reflected.
	Horizon uint64
	// Next transaction id of the poll's snapshot (its xmax): while
	// Horizon stays below it, a transaction still open holds the index
	// back.
	NextTxID uint64
	// ServerStarted is when the PostgreSQL server started: a change
	// means it restarted, and its crash recovery may have handed out
	// transaction ids again.
	ServerStarted time.Time
	// History is the line of WAL the poll's database follows.
	History History
}

// OutboxChunk is the current state of part of the entities a poll names:
// the live ones to (re)index and the ones that no longer exist. Last marks
// the final chunk of the poll.
type OutboxChunk struct {
	Poll    *OutboxBatch // the rows, cursor and horizon of the poll
	Upserts []*semcat.EntityRecord
	Deletes []EntityRef
	Last    bool
}

// PrunedPastError says the outbox was pruned past a consumer's cursor: rows
// after the cursor that the consumer never applied may be gone, so what it
// built from them must be rebuilt. Reading on would skip them silently.
type PrunedPastError struct {
	Cursor, Watermark OutboxCursor
}

func (e *PrunedPastError) Error() string {
	return fmt.Sprintf("the outbox was pruned to %s, past cursor %s", e.Watermark, e.Cursor)
}

// PollOutbox reads up to limit outbox rows after cursor whose transactions
// are below the snapshot's xmin horizon — every such transaction is
// committed or aborted, so no row can later appear behind the cursor
// (DESIGN §3) — and re-reads the current state of the entities they name in
// the same repeatable-read snapshot, handing it to fn in chunks of at most
// chunk entities. A container row (a renamed or dropped metalake, catalog,
// schema or model) names its whole subtree, so chunking keeps memory bounded
// whatever the subtree's size. fn is not called when the rows name nothing
// searchable.
//
// With a fence, the poll first checks that the database holds the fence's
// Current value (a *HistoryChangedError if not), and, if it read rows,
// commits Next before handing anything to fn (Fence).
func (s *Store) PollOutbox(ctx context.Context, after OutboxCursor, limit, chunk int, fence *Fence, fn func(OutboxChunk) error) (*OutboxBatch, error) {
	b := &OutboxBatch{Next: after}
	err := s.read(ctx, func(tx pgx.Tx) error {
		// Pruning deletes rows and raises the watermark in one
		// transaction, so in this snapshot a cursor below the watermark
		// means rows after it may be gone.
		var xmin uint64
		var watermark OutboxCursor
		if err := tx.QueryRow(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint, pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
			txid::text::bigint, seq, pg_postmaster_start_time() FROM outbox_watermark`).Scan(&xmin, &b.NextTxID, &watermark.TxID, &watermark.Seq, &b.ServerStarted); err != nil {
			return err
		}
		var err error
		if b.History, err = checkFence(ctx, tx, fence); err != nil {
			return err
		}
		if after.Less(watermark) {
			return &PrunedPastError{Cursor: after, Watermark: watermark}
		}
		rows, err := tx.Query(ctx, pollOutboxSQL,
			strconv.FormatUint(after.TxID, 10), after.Seq, strconv.FormatUint(xmin, 10), limit)
		if err != nil {
			return err
		}
		refs := map[EntityRef]bool{}
		var containers []EntityRef
		for rows.Next() {
			var ref EntityRef
			var kind string
			if err := rows.Scan(&b.Next.TxID, &b.Next.Seq, &kind, &ref.ID); err != nil {
				rows.Close()
				return err
			}
			b.Rows++
			ref.Kind = semcat.EntityKind(kind)
			if ref.Kind == KindSynonyms || ref.Kind == semcat.KindMetalake {
				s.synonymsChanged() // another server's write, or a metalake made or dropped
			}
			switch ref.Kind {
			case semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema, semcat.KindSemanticModel:
				containers = append(containers, ref)
			}
			if ref.Kind != semcat.KindMetalake && searchable(ref.Kind) {
				refs[ref] = true
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		if b.Rows > 0 && fence != nil {
			if err := s.writeFence(ctx, fence); err != nil {
				return err
			}
		}
		b.Horizon = xmin
		if b.Rows == limit {
			// More rows may follow in this transaction: only the ones
			// before it are known to be complete.
			b.Horizon = b.Next.TxID
		}
		for _, c := range containers {
			if err := expand(ctx, tx, c, refs); err != nil {
				return err
			}
		}
		all := make([]EntityRef, 0, len(refs))
		for r := range refs {
			all = append(all, r)
		}
		sort.Slice(all, func(i, j int) bool {
			return all[i].Kind < all[j].Kind || all[i].Kind == all[j].Kind && all[i].ID < all[j].ID
		})
		for start := 0; start < len(all); start += chunk {
			part := all[start:min(start+chunk, len(all))]
			set := make(map[EntityRef]bool, len(part))
			for _, r := range part {
				set[r] = true
			}
			upserts, deletes, err := loadRecords(ctx, tx, set)
			if err != nil {
				return err
			}
			if err := fn(OutboxChunk{Poll: b, Upserts: upserts, Deletes: deletes, Last: start+chunk >= len(all)}); err != nil {
				return err
			}
		}
		return nil
	})
	return b, err
}

// pollOutboxSQL reads the next outbox rows after a cursor ($1, $2) and
// below a horizon ($3), at most $4 of them. Its ORDER BY names the table's
// columns: an unqualified "txid" would be the output column (the bigint it
// is cast to), which the primary key cannot deliver in order, so PostgreSQL
// would read and sort every row after the cursor on each poll. With a
// backlog of 100,000 rows that took 32 ms a poll instead of 0.6 ms, and
// during a bulk load, whose backlog grows while the tail polls, it was most
// of PostgreSQL's work (TestPollReadsTheOutboxInKeyOrder).
const pollOutboxSQL = `SELECT o.txid::text::bigint, o.seq, o.entity_kind, o.entity_id FROM outbox o
	WHERE (o.txid, o.seq) > ($1::text::xid8, $2) AND o.txid < $3::text::xid8
	ORDER BY o.txid, o.seq LIMIT $4`

// PendingRefs lists the entities that outbox rows after the cursor name:
// changes a consumer at that cursor has yet to apply.
func (s *Store) PendingRefs(ctx context.Context, after OutboxCursor) (map[EntityRef]bool, error) {
	pending := map[EntityRef]bool{}
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT DISTINCT entity_kind, entity_id FROM outbox WHERE (txid, seq) > ($1::text::xid8, $2)`,
			strconv.FormatUint(after.TxID, 10), after.Seq)
		if err != nil {
			return err
		}
		var r EntityRef
		_, err = pgx.ForEachRow(rows, []any{&r.Kind, &r.ID}, func() error {
			pending[r] = true
			return nil
		})
		return err
	})
	return pending, err
}

// DatabaseID returns the identity of this database, which an index records
// so that it notices being pointed at another database.
func (s *Store) DatabaseID(ctx context.Context) (string, error) {
	var id string
	err := s.pool.QueryRow(ctx, `SELECT database_id FROM semcat_instance`).Scan(&id)
	return id, translate(err)
}

// ReportConsumer registers an index consumer or records its durable cursor
// and a heartbeat. Outbox pruning keeps every row a live consumer has not
// passed.
func (s *Store) ReportConsumer(ctx context.Context, name string, cursor OutboxCursor) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO index_consumer (consumer_name, cursor_txid, cursor_seq, heartbeat_at)
		VALUES ($1, $2::text::xid8, $3, now())
		ON CONFLICT (consumer_name) DO UPDATE SET cursor_txid = EXCLUDED.cursor_txid, cursor_seq = EXCLUDED.cursor_seq, heartbeat_at = now()`,
		name, strconv.FormatUint(cursor.TxID, 10), cursor.Seq)
	return translate(err)
}

// RemoveConsumer forgets a consumer, so it no longer holds back pruning.
func (s *Store) RemoveConsumer(ctx context.Context, name string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM index_consumer WHERE consumer_name = $1`, name)
	return translate(err)
}

// OutboxWatermark returns the highest position pruned so far.
func (s *Store) OutboxWatermark(ctx context.Context) (OutboxCursor, error) {
	var c OutboxCursor
	err := s.pool.QueryRow(ctx, `SELECT txid::text::bigint, seq FROM outbox_watermark`).Scan(&c.TxID, &c.Seq)
	return c, translate(err)
}

// PruneOutbox deletes the outbox rows every consumer that reported within
// liveWithin has durably passed, and raises the watermark to the lowest
// such cursor. Consumers silent for longer no longer hold rows back; if they
// come back below the watermark they rebuild. With no live consumer nothing
// is pruned.
func (s *Store) PruneOutbox(ctx context.Context, liveWithin time.Duration) (int64, error) {
	var deleted int64
	_, err := s.write(ctx, func(tx *writeTx) error {
		var txid *string
		var seq *int64
		err := tx.QueryRow(ctx, `SELECT c.cursor_txid::text, c.cursor_seq FROM index_consumer c
			WHERE c.heartbeat_at > now() - make_interval(secs => $1)
			ORDER BY c.cursor_txid, c.cursor_seq LIMIT 1`, liveWithin.Seconds()).Scan(&txid, &seq)
		if err == pgx.ErrNoRows || txid == nil {
			return nil
		} else if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM outbox WHERE (txid, seq) <= ($1::xid8, $2)`, *txid, *seq)
		if err != nil {
			return err
		}
		deleted = tag.RowsAffected()
		_, err = tx.Exec(ctx, `UPDATE outbox_watermark SET txid = $1::xid8, seq = $2
			WHERE (txid, seq) < ($1::xid8, $2)`, *txid, *seq)
		return err
	})
	return deleted, err
}

// NextTxID returns the id the next transaction will get: once an index's
// horizon reaches it, every transaction begun so far is reflected.
func (s *Store) NextTxID(ctx context.Context) (uint64, error) {
	var x uint64
	err := s.pool.QueryRow(ctx, `SELECT pg_snapshot_xmax(pg_current_snapshot())::text::bigint`).Scan(&x)
	return x, translate(err)
}

// CountEntities returns how many live catalogs, schemas, tables, semantic
// models and metrics there are: the documents a rebuild writes.
func (s *Store) CountEntities(ctx context.Context) (int64, error) {
	var n int64
	err := s.pool.QueryRow(ctx, `SELECT
		(SELECT count(*) FROM catalog_meta WHERE deleted_at = 0) +
		(SELECT count(*) FROM schema_meta WHERE deleted_at = 0) +
		(SELECT count(*) FROM table_meta WHERE deleted_at = 0) +
		(SELECT count(*) FROM semantic_model_meta WHERE deleted_at = 0) +
		(SELECT count(*) FROM semantic_model_metric_meta WHERE deleted_at = 0)`).Scan(&n)
	return n, translate(err)
}
