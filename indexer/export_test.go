package indexer

import (
	"context"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/search"
	"github.com/semcat/semcat/searchdoc"
)

// PayloadEntity decodes the entity of a stored payload, for the external
// tests.
func PayloadEntity(payload string) (semcat.SearchEntity, error) {
	st, err := searchdoc.DecodePayload(payload)
	if err != nil {
		return semcat.SearchEntity{}, err
	}
	return st.Entity, nil
}

// ColumnsMissing counts the segments of x's current snapshot whose search
// columns are not built.
func ColumnsMissing(x *Indexer) (missing, segments int, err error) {
	adv, snap, err := search.OpenSnapshot(x.Index())
	if err != nil {
		return 0, 0, err
	}
	defer snap.Close()
	for _, s := range snap.Segments() {
		segments++
		if !x.columns.Built(adv, s.Id()) {
			missing++
		}
	}
	return missing, segments, nil
}

// SweepCache runs one page cache sweep at once and returns how many
// segment files it read, their cached bytes and their size.
func SweepCache(x *Indexer) (files int, cached, size int64, err error) {
	st, err := x.sweepCache(context.Background(), 0)
	return st.files, st.cached, st.size, err
}

// SetFreeMemory makes x see free bytes of memory where it asks whether
// there is room (roomFor: free at least twice what it asks for).
func SetFreeMemory(x *Indexer, free int64) { x.room = func(size int64) bool { return free >= 2*size } }

// MergesSettled reports whether the merges of x's index have settled (the
// merge policy plans nothing more), and how many segments it has.
func MergesSettled(x *Indexer) (bool, int, error) {
	opts, err := mergeOptions(x.scorchConfig(nil))
	if err != nil {
		return false, 0, err
	}
	return settled(x.Index(), opts)
}

// SetAfterScan makes x's builds call fn once they have indexed their
// snapshot, before catching up with the outbox.
func SetAfterScan(x *Indexer, fn func()) { x.afterScan = fn }

// MoveCheckpoint rewrites the checkpoint of x's index to cursor txid,
// horizon txid: what an index built on a later state of the database
// holds once the database is restored to an earlier one.
func MoveCheckpoint(x *Indexer, txid uint64) error {
	idx := x.Index()
	cp, _, err := readCheckpoint(idx)
	if err != nil {
		return err
	}
	cp.Cursor.TxID, cp.Cursor.Seq, cp.Horizon = txid, 0, txid
	b := idx.NewBatch()
	setCheckpoint(b, cp)
	return idx.Batch(b)
}

// DropHandle closes x's index and leaves no index open, as a failed
// batch whose recovery could not rebuild leaves it.
func DropHandle(x *Indexer) error {
	x.loop.Lock()
	defer x.loop.Unlock()
	if idx := x.h.swap(nil); idx != nil {
		return idx.Close()
	}
	return nil
}

// SegmentFiles lists the segment files of x's searched index.
func SegmentFiles(x *Indexer) ([]string, error) { return segmentPaths(x.Index()) }
