package catalogdb

import (
	"context"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
)

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
