package indexer

import (
	"context"

	"github.com/semcat/semcat"
)

// PayloadEntity decodes the entity of a stored payload, for the external
// tests.
func PayloadEntity(payload string) (semcat.SearchEntity, error) {
	st, err := decodePayload(payload)
	if err != nil {
		return semcat.SearchEntity{}, err
	}
	return st.Entity, nil
}

// ColumnsMissing counts the segments of x's current snapshot whose search
// columns are not built.
func ColumnsMissing(x *Indexer) (missing, segments int, err error) {
	adv, snap, err := openSnapshot(x.Index())
	if err != nil {
		return 0, 0, err
	}
	defer snap.Close()
	x.columns.mu.Lock()
	defer x.columns.mu.Unlock()
	for _, s := range snap.Segments() {
		segments++
		if e := x.columns.segs[segKey{owner: adv, id: s.Id()}]; e == nil || !e.built.Load() {
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

// MergesSettled reports whether the merges of x's index have settled (the
// merge policy plans nothing more), and how many segments it has.
func MergesSettled(x *Indexer) (bool, int, error) {
	opts, err := mergeOptions(x.scorchConfig(nil))
	if err != nil {
		return false, 0, err
	}
	return settled(x.Index(), opts)
}
