package catalogdb

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// Fences tie an index generation to the database history it followed
// (DESIGN §3): after a failover or a restore that lost what the index
// applied, the fence is gone and the index is rebuilt.

// History identifies the line of WAL a database follows: its cluster's
// system identifier (0 where the role may not read it) and the timeline it
// writes on (0 on a standby). A promoted standby, or a cluster restored to
// a point in time, writes on a new timeline; a cluster restored from a
// plain base backup keeps its timeline, and only a fence tells it apart
// (Fence).
type History struct {
	SystemID uint64
	Timeline uint32
}

// historySQL reads the timeline of the database the transaction runs on,
// whether the role may read its system identifier (pg_control_system() is
// executable by everyone unless revoked, and a revoked one fails the
// statement that names it, CASE or not), and the fence of index $1 (NULL
// if it has none): one round trip of the poll.
const historySQL = `SELECT has_function_privilege('pg_control_system()', 'execute'),
	CASE WHEN pg_is_in_recovery() THEN 0
		ELSE ('x' || substr(pg_walfile_name(pg_current_wal_lsn()), 1, 8))::bit(32)::bigint END,
	f.fence, f.prev_fence
	FROM (SELECT 1) one LEFT JOIN index_fence f ON f.index_id = $1`

// readHistory reads the History of the database tx runs on, and the fence
// of index indexID (nil if it has none) and the one before it.
func readHistory(ctx context.Context, tx pgx.Tx, indexID string) (h History, fence, prev *int64, err error) {
	var readable bool
	var tli int64
	if err := tx.QueryRow(ctx, historySQL, indexID).Scan(&readable, &tli, &fence, &prev); err != nil {
		return h, nil, nil, err
	}
	h.Timeline = uint32(tli)
	if readable {
		var sys int64
		if err := tx.QueryRow(ctx, `SELECT system_identifier FROM pg_control_system()`).Scan(&sys); err != nil {
			return h, nil, nil, err
		}
		h.SystemID = uint64(sys)
	}
	return h, fence, prev, nil
}

// Fence is an index generation's fence (the index_fence table): a random
// value the indexer has committed after the snapshot of the latest poll
// (or build) it applied, and records in its checkpoint. WAL is replayed in
// order, so a database that holds the value — a promoted standby, a
// restored backup, the same server — holds every transaction that poll or
// an earlier one saw; one that lacks it has lost some, and the index may
// show changes the database no longer has and skip new ones whose
// transaction ids were handed out again below its cursor. Neither the
// transaction ids nor the outbox rows can tell: both are handed out again
// after a failover or a restore.
type Fence struct {
	IndexID  string
	Consumer string
	// Current is the fence of the index's checkpoint, which the database
	// must hold (as the row's fence, or as prev_fence after a poll whose
	// batches did not land) for a poll to go on; 0 for a build's scan.
	Current int64
	// Next is committed after the snapshot is taken and before anything
	// is handed to the caller, if the poll read any rows (a scan always
	// writes it). Callers must use a fresh value each time.
	Next int64
	// SystemID is the cluster the index followed (0 if not known): a
	// database in another cluster, which a logical dump can carry the
	// fence to, has its own transaction ids.
	SystemID uint64
}

// HistoryChangedError says the database no longer holds what an index
// applied: it was failed over with commits not yet replicated, restored
// from an older backup, or moved to another cluster. The index must be
// rebuilt.
type HistoryChangedError struct{ Reason string }

func (e *HistoryChangedError) Error() string {
	return "the database's history changed under the index: " + e.Reason
}

// checkFence compares the database's side of a fence (read in tx's
// snapshot) with what the index recorded, and returns the database's
// history.
func checkFence(ctx context.Context, tx pgx.Tx, f *Fence) (History, error) {
	var indexID string
	if f != nil {
		indexID = f.IndexID
	}
	h, fence, prev, err := readHistory(ctx, tx, indexID)
	switch {
	case err != nil:
		return h, err
	case f == nil:
		return h, nil
	case f.SystemID != 0 && h.SystemID != 0 && f.SystemID != h.SystemID:
		return h, &HistoryChangedError{Reason: fmt.Sprintf("the database is in another PostgreSQL cluster (system identifier %d, the index followed %d)", h.SystemID, f.SystemID)}
	case f.Current == 0:
		return h, nil
	case fence == nil:
		return h, &HistoryChangedError{Reason: fmt.Sprintf("it holds no fence of index %s: it was restored from a backup older than the index, or failed over to a standby that had not received it", f.IndexID)}
	case *fence != f.Current && (prev == nil || *prev != f.Current):
		return h, &HistoryChangedError{Reason: fmt.Sprintf("its fence of index %s is %d, the index's is %d: it was restored from an older backup, or failed over to a standby that had not received the index's latest writes", f.IndexID, *fence, f.Current)}
	}
	return h, nil
}

// writeFence commits f.Next as the fence of f's index, on a connection of
// its own, so that it commits after the snapshot the caller has taken.
func (s *Store) writeFence(ctx context.Context, f *Fence) error {
	_, err := s.pool.Exec(ctx, `INSERT INTO index_fence (index_id, consumer_name, fence, prev_fence) VALUES ($1, $2, $3, $4)
		ON CONFLICT (index_id) DO UPDATE SET fence = EXCLUDED.fence, prev_fence = EXCLUDED.prev_fence, updated_at = now()`,
		f.IndexID, f.Consumer, f.Next, f.Current)
	return err
}

// CheckFence tells whether the database holds an index's fence (and is in
// the cluster it followed), returning the reason if not (a
// *HistoryChangedError), and the database's history.
func (s *Store) CheckFence(ctx context.Context, f Fence) (History, error) {
	var h History
	err := s.read(ctx, func(tx pgx.Tx) error {
		var err error
		h, err = checkFence(ctx, tx, &f)
		return err
	})
	return h, err
}

// DropFences deletes the fences of a consumer's index generations other
// than keep: generations replaced by a rebuild, or builds that never
// finished.
func (s *Store) DropFences(ctx context.Context, consumer string, keep ...string) error {
	_, err := s.pool.Exec(ctx, `DELETE FROM index_fence WHERE consumer_name = $1 AND NOT (index_id = ANY($2))`, consumer, keep)
	return translate(err)
}
