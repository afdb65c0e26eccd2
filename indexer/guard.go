package indexer

import (
	"fmt"
	"runtime/debug"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	zapv17 "github.com/blevesearch/zapx/v17"
)

// Panics inside Bleve's own goroutines.
//
// When the index's disk fills, Scorch can go on using a segment it has
// closed: zap clears a closed segment's caches (a nil map) and unmaps its
// file, and the next merge that reads it panics ("assignment to entry in
// nil map") or faults. Those merges run in Scorch's merger and persister
// goroutines, where no recover of the indexer's can reach, so the process
// died. Every segment Scorch builds, merges, persists or opens goes
// through the segment plugin (warm.go) or the in-memory segments it
// returns (memSegment), so these turn a panic, or a fault on an unmapped
// file, into an error: Scorch's merger and persister log it and retry, a
// batch waiting for its persist gets the error, and the tail loop reopens
// the index from disk (Indexer.recover) once there is room. A search that
// meets one answers 503 (Indexer.Read). And the segment Scorch closed
// while still using it, the cause, is no longer cleared (memSegment).

// memSegment is a segment zap built in memory from a batch. Its Close does
// nothing. Scorch closes a batch's segment when the batch fails, also when
// the failure is its persist (a full disk) and the segment is already in
// the index's snapshot: zap's Close of an in-memory segment only drops its
// caches (sets the maps to nil), and searches and merges that go on using
// the segment then raced with it (go test -race) and panicked on the nil
// map. The caches go with the segment once nothing references it, so
// nothing is lost by not clearing them.
type memSegment struct{ *zapv17.SegmentBase }

func (memSegment) Close() error { return nil }

// Persist writes the segment to a file (Scorch's persister), a panic
// turned into an error as in the plugin's methods.
func (m memSegment) Persist(path string) error {
	return guard("persist", func() error { return m.SegmentBase.Persist(path) })
}

// wrapNew wraps an in-memory segment zap built.
func wrapNew(seg segment.Segment) segment.Segment {
	if sb, ok := seg.(*zapv17.SegmentBase); ok && sb != nil {
		return memSegment{sb}
	}
	return seg
}

// unwrap hands zap's merge the segments it knows (it panics on others).
func unwrap(segments []segment.Segment) []segment.Segment {
	var out []segment.Segment
	for i, seg := range segments {
		if m, ok := seg.(memSegment); ok {
			if out == nil {
				out = slices.Clone(segments)
			}
			out[i] = m.SegmentBase
		}
	}
	if out == nil {
		return segments
	}
	return out
}

// errPanicked is what a recovered panic becomes.
type errPanicked struct {
	op  string
	val any
}

func (e errPanicked) Error() string { return fmt.Sprintf("bleve %s: panic: %v", e.op, e.val) }

// guard runs fn with faults on unmapped memory turned into panics, and a
// panic turned into an error naming op.
func guard(op string, fn func() error) (err error) {
	defer debug.SetPanicOnFault(debug.SetPanicOnFault(true))
	defer func() {
		if p := recover(); p != nil {
			err = errPanicked{op, p}
		}
	}()
	return fn()
}

func (p warmingPlugin) New(results []index.Document) (seg segment.Segment, n uint64, err error) {
	err = guard("new segment", func() (err error) {
		seg, n, err = p.SegmentPlugin.New(results)
		seg = wrapNew(seg)
		return err
	})
	return seg, n, err
}

func (p warmingPlugin) NewUsing(results []index.Document, config map[string]any) (seg segment.Segment, n uint64, err error) {
	err = guard("new segment", func() (err error) {
		seg, n, err = p.SegmentPlugin.NewUsing(results, config)
		seg = wrapNew(seg)
		return err
	})
	return seg, n, err
}

func (p warmingPlugin) Merge(segments []segment.Segment, drops []*roaring.Bitmap, path string,
	closeCh chan struct{}, s segment.StatsReporter) (nums [][]uint64, n uint64, err error) {
	err = guard("merge", func() (err error) {
		nums, n, err = p.SegmentPlugin.Merge(unwrap(segments), drops, path, closeCh, s)
		return err
	})
	return nums, n, err
}

func (p warmingPlugin) MergeUsing(segments []segment.Segment, drops []*roaring.Bitmap, path string,
	closeCh chan struct{}, s segment.StatsReporter, config map[string]any) (nums [][]uint64, n uint64, err error) {
	err = guard("merge", func() (err error) {
		nums, n, err = p.SegmentPlugin.MergeUsing(unwrap(segments), drops, path, closeCh, s, config)
		return err
	})
	return nums, n, err
}

func (p warmingPlugin) Open(path string) (seg segment.Segment, err error) {
	err = guard("open segment", func() (err error) {
		seg, err = p.SegmentPlugin.Open(path)
		return err
	})
	return seg, err
}
