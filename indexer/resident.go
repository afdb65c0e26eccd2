package indexer

import (
	"context"
	"errors"
	"time"

	"github.com/blevesearch/bleve/v2"
	zapv17 "github.com/blevesearch/zapx/v17"

	"github.com/semcat/semcat/search"
)

// Bounding how much of the index stays in semcat's resident memory.
//
// Searches read the index through memory-mapped segment files, and each
// page a search touches stays mapped, counted in the process's RSS, until
// the file is closed: at 1,000,000 entities a benchmark's searches left
// most of the 1.92 GiB index resident, though each reads a few hundred KiB.
// A database bounds its buffer pool and leaves the rest to the operating
// system's cache; semcat does the same with the mapping: when its
// file-backed resident memory passes Options.ResidentIndex, it unmaps the
// searched index's pages (MADV_DONTNEED). They stay in the page cache, so
// the next search that reads one maps it again at the cost of a minor page
// fault (no disk read), and the kernel, which reclaims unmapped cache
// pages more readily than mapped ones, can make room for others from them.
// The page cache, not semcat's heap, then holds the index, as under a
// memory limit the kernel would make it do anyway.
//
// Where the index does not fit the memory free for it (the cache sweep's
// judgement: advisedRandom), the kernel's reclaim already bounds what
// stays mapped, and knows better which pages searches read; unmapped
// pages are the first it reclaims, so unmapping there sends the pages
// searches need back to the disk. At 1M entities under a 1 GiB limit, a
// word search's p99 under the hostile load went from 1.5× to 2.9× its
// idle value with the bound applied there. So there it is not.

// residentCheck is how often the file-backed resident memory is read
// (one read of /proc/self/statm).
const residentCheck = 25 * time.Millisecond

// boundResident keeps the file-backed resident memory of the process at
// most limit bytes, checking every interval, until ctx ends.
//
// Only the searched index's current segments are unmapped; other mapped
// files (a rebuild's generation, whose merges read their segments through
// their mappings; a snapshot a long search still holds) can keep the
// process above limit. So after an unmapping the indexer unmaps again only
// once the resident memory has grown by a quarter of limit over the least
// it has been since, not every check while something else holds it up.
func (x *Indexer) boundResident(ctx context.Context, interval time.Duration, limit int64) {
	floor := int64(0) // the least resident memory since the last unmapping
	every(ctx, interval, func() bool {
		resident, err := fileResident()
		if err != nil {
			x.logger.Warn("indexer: cannot read the resident memory; not bounding the index's share of it", "err", err)
			return false
		}
		floor = min(floor, resident)
		if !overBound(resident, floor, limit) || x.advisedRandom.Load() {
			return true
		}
		if err := x.h.read(unmapIndex); err != nil && ctx.Err() == nil {
			if errors.Is(err, errNoUnmap) {
				x.logger.Warn("indexer: cannot bound the index's resident memory on this system", "err", err)
				return false
			}
			x.logger.Warn("indexer: unmapping the index's resident pages", "err", err)
		}
		if floor, err = fileResident(); err != nil {
			floor = resident
		}
		return true
	})
}

// overBound reports whether resident bytes of mapped files call for an
// unmapping: above limit, and a quarter of limit above floor, the least
// since the last one.
func overBound(resident, floor, limit int64) bool {
	return resident > limit && resident > floor+limit/4
}

// unmapIndex unmaps the resident pages of the segment files of idx's
// current snapshot. The snapshot holds a reference to each segment, so
// none is closed (its mapping removed, the addresses reused) meanwhile.
// Only segments read from files count: a segment still in memory is Go
// heap, not a mapping.
func unmapIndex(idx bleve.Index) error {
	_, snap, err := search.OpenSnapshot(idx)
	if err != nil {
		return err
	}
	defer snap.Close()
	for _, s := range snap.Segments() {
		if seg, ok := s.Segment().(*zapv17.Segment); ok {
			if err := unmapPages(seg.Data()); err != nil {
				return err
			}
		}
	}
	return nil
}
