package indexer

import (
	"context"
	"encoding/json"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/semcat/semcat/search"
)

// Letting a build's merges settle.
//
// A build applies its batches faster than Bleve's merger, on its one
// goroutine, merges their segments: rebuilding 100k entities, the last
// batch landed with 110-120 segments in the index, which the merger took
// the next 10-30 s (5-6 s of CPU) to bring down to 7-8. A search costs a
// few lookups per segment, and right after the swap it would have paid
// them over the whole backlog (with 21 segments instead of 7, searches
// took 1.3-2.9 times as long). So a build waits, before its generation
// is published, until the merger would merge nothing more, and the old
// generation serves meanwhile: the rebuild's time includes the compaction
// its index needs. It waits twice: under the build's wider merges
// (buildConfig), then, reopened, under the serving policy (scorchConfig).

// mergeOptions is the merge policy of an index opened with config, as
// Scorch reads it: its defaults overlaid with config's
// scorchMergePlanOptions (and no file-size budget, Scorch's default).
func mergeOptions(config map[string]any) (*mergeplan.MergePlanOptions, error) {
	o := mergeplan.DefaultMergePlanOptions
	if v, ok := config["scorchMergePlanOptions"]; ok {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if err := json.Unmarshal(b, &o); err != nil {
			return nil, err
		}
	}
	return &o, mergeplan.ValidateMergePlannerOptions(&o)
}

// settled reports whether idx's merger has nothing left to do: every
// segment is persisted and the merge policy plans no merge of them.
func settled(idx bleve.Index, opts *mergeplan.MergePlanOptions) (bool, int, error) {
	_, snap, err := search.OpenSnapshot(idx)
	if err != nil {
		return false, 0, err
	}
	defer snap.Close()
	segs := snap.Segments()
	planned := make([]mergeplan.Segment, 0, len(segs))
	for _, s := range segs {
		if _, ok := s.Segment().(segment.PersistedSegment); !ok {
			return false, len(segs), nil
		}
		planned = append(planned, s)
	}
	plan, err := mergeplan.Plan(planned, opts)
	if err != nil {
		return false, len(segs), err
	}
	return plan == nil || len(plan.Tasks) == 0, len(segs), nil
}

// settleMerges waits until the merges of idx, opened with config, have
// settled (settled), polling every poll, for at most limit.
func (x *Indexer) settleMerges(ctx context.Context, idx bleve.Index, config map[string]any, poll, limit time.Duration) error {
	opts, err := mergeOptions(config)
	if err != nil {
		return err
	}
	started := time.Now()
	for {
		done, segments, err := settled(idx, opts)
		if err != nil || done {
			return err
		}
		if time.Since(started) > limit {
			x.logger.Warn("indexer: the built index's merges have not settled; publishing it anyway", "segments", segments, "waited", time.Since(started).String())
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}
