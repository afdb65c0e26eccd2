package indexer

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/semcat/semcat/search"
)

// Keeping the index in the page cache.
//
// Searches read the index through memory-mapped segment files, so a page
// the kernel has dropped from its page cache costs a disk read inside a
// search. Some machines drop idle file pages on their own, without memory
// pressure: a DAMON pageout scheme (this project's benchmark machine: pages
// unread for about a minute), or proactive reclaim in a memory cgroup. At
// 1,000,000 entities, 105 of 200 word searches then waited for the disk
// (benchmarks: "searches with major page faults"); the slowest took 90 ms
// against a median of 4.9 ms.
//
// So every CacheSweep the indexer reads the searched index's segment files,
// the pages the page cache holds: reading a page marks it used, which keeps
// it from looking idle. The pages are read with pread into a small buffer,
// not touched through the mapping, so they do not become part of the
// process's resident memory.
//
// Pages dropped before a sweep first read them (those of segments written
// during a long bulk load, say) are read back from disk too, but only while
// the machine has room to spare (roomFor: free memory of at least twice
// the index, in the machine and in semcat's memory cgroup). A page dropped
// for want of memory stays dropped. Without this, 54 of 200 word searches
// at 1,000,000 entities still waited for the disk.
//
// Where the index cannot be cached whole (roomFor half its size: less
// free memory than the index, as in a container whose limit is below it),
// there is no sweep at all, and the segment files are read without
// read-ahead (adviseRandom). Reading every cached page marks each as just
// used, so the kernel, which must then drop some, can no longer tell the
// pages searches read from those nothing reads: it drops the pages a
// search has just brought in (new pages start on its inactive list, below
// the swept ones) and the next search reads them from disk again.

// sweepStats is what one sweep read.
type sweepStats struct {
	files  int
	cached int64 // bytes read that the page cache held
	loaded int64 // bytes read back from disk: pages that had been dropped
	size   int64 // the files' total size
	// skipped: the index does not fit the memory there is, so nothing
	// was read.
	skipped bool
}

// keepCached sweeps the searched index every interval until ctx ends.
func (x *Indexer) keepCached(ctx context.Context, interval time.Duration) {
	skipping := false
	every(ctx, interval, func() bool {
		// Spread the reading over half the interval, so that a sweep of a
		// large index does not take a core away from searches at once.
		st, err := x.sweepCache(ctx, interval/2)
		if err == nil && st.skipped != skipping {
			skipping = st.skipped
			if skipping {
				x.logger.Info("indexer: the index is larger than the memory free for it: its pages are left to the kernel, not kept in the page cache", "indexBytes", st.size)
			} else {
				x.logger.Info("indexer: the index fits the memory free for it again: keeping it in the page cache", "indexBytes", st.size)
			}
		}
		switch {
		case err == nil && st.loaded > 0:
			// During a bulk load each sweep finds a few MiB dropped (3-5
			// MiB of 2 GB at 1M entities); a sixteenth of the index or
			// more is news.
			level := slog.LevelDebug
			if st.loaded >= st.size/16 {
				level = slog.LevelInfo
			}
			x.logger.Log(ctx, level, "indexer: read dropped index pages back into the page cache", "bytes", st.loaded, "indexBytes", st.size)
		case err == nil || ctx.Err() != nil:
		case errors.Is(err, errNoCacheSweep):
			x.logger.Warn("indexer: cannot keep the index in the page cache on this system", "err", err)
			return false
		default:
			x.logger.Warn("indexer: keeping the index in the page cache", "err", err)
		}
		return true
	})
}

// sweepCache reads the cached pages of the searched index's segment files,
// taking at least spread to do it.
func (x *Indexer) sweepCache(ctx context.Context, spread time.Duration) (sweepStats, error) {
	var paths []string
	err := x.h.read(func(idx bleve.Index) error {
		var err error
		paths, err = segmentPaths(idx)
		return err
	})
	if err != nil {
		return sweepStats{}, err
	}
	var st sweepStats
	sizes := make([]int64, len(paths))
	for i, p := range paths {
		if fi, err := os.Stat(p); err == nil {
			sizes[i] = fi.Size()
			st.size += fi.Size()
		}
	}
	if !x.room(st.size / 2) {
		st.skipped = true
		// Read the segments without read-ahead (adviseRandom), those
		// merged in since the last sweep too.
		if err := adviseRandom(paths, true); err != nil {
			return st, err
		}
		x.advisedRandom.Store(true)
		return st, nil
	}
	if x.advisedRandom.Load() {
		if err := adviseRandom(paths, false); err != nil {
			return st, err
		}
		x.advisedRandom.Store(false)
	}
	load := x.room(st.size)
	start := time.Now()
	buf := make([]byte, 1<<20)
	var done int64 // bytes of the files swept so far, for pacing
	for i, p := range paths {
		cached, loaded, err := readCached(p, buf, load)
		if errors.Is(err, os.ErrNotExist) {
			continue // merged away since the snapshot
		}
		if err != nil {
			return st, err
		}
		st.files++
		st.cached += cached
		st.loaded += loaded
		done += sizes[i]
		if st.size > 0 {
			due := time.Duration(float64(spread) * float64(done) / float64(st.size))
			select {
			case <-ctx.Done():
				return st, ctx.Err()
			case <-time.After(due - time.Since(start)):
			}
		}
	}
	return st, nil
}

// segmentPaths lists the files of the segments of idx's current snapshot.
func segmentPaths(idx bleve.Index) ([]string, error) {
	_, snap, err := search.OpenSnapshot(idx)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	var paths []string
	for _, s := range snap.Segments() {
		if p, ok := s.Segment().(interface{ Path() string }); ok && p.Path() != "" {
			paths = append(paths, p.Path())
		}
	}
	return paths, nil
}
