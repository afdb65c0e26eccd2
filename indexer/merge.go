package indexer

import (
	"context"
	"fmt"
	"math"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// A build fills a new generation with one segment per batch and merges
// them once it is done, instead of letting Bleve merge while it writes.
// Bleve's tiered merges rewrite a document at every tier: at 1,000,000
// entities, batches of 1,000 became segments of 10,000, then 100,000, then
// 200,000, so each document was rewritten about three times, and merging
// was much of a rebuild's CPU. Merged afterwards, each document is
// rewritten once, by mergeBuilt.

// buildConfig is the configuration of a generation while a build fills it:
// a tier plan whose floor is one document and whose tiers hold any number
// of segments never has more segments than its budget, so Bleve merges
// nothing.
func (x *Indexer) buildConfig() map[string]any {
	return map[string]any{
		"scorchMergePlanOptions": map[string]any{
			"MaxSegmentSize":     x.opts.MaxSegmentDocs,
			"MaxSegmentsPerTier": math.MaxInt32,
			"FloorSegmentSize":   1,
		},
	}
}

// mergeBuilt merges the segments of a finished build into segments of up
// to MaxSegmentDocs documents, one merge at a time: Bleve maps every source
// segment of a merge plan until the whole plan is done, and a plan that
// merged a 1,000,000-entity build at once would map all of it.
func (x *Indexer) mergeBuilt(ctx context.Context, idx bleve.Index) error {
	adv, err := idx.Advanced()
	if err != nil {
		return err
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return fmt.Errorf("index %T is not a scorch index", adv)
	}
	limit := int64(x.opts.MaxSegmentDocs)
	for {
		segments, mergeable, err := segmentCounts(idx, limit)
		if err != nil {
			return err
		}
		if mergeable < 2 {
			return nil
		}
		// A budget of one segment less than there are mergeable ones
		// makes the planner pick its single best merge: up to limit
		// documents from segments of similar size.
		opts := mergeplan.DefaultMergePlanOptions
		opts.MaxSegmentSize = limit
		opts.SegmentsPerMergeTask = mergeable
		opts.CalcBudget = func(int64, int64, *mergeplan.MergePlanOptions) int { return mergeable - 1 }
		if err := s.ForceMerge(ctx, &opts); err != nil {
			return err
		}
		if err := ctx.Err(); err != nil {
			return err
		}
		after, _, err := segmentCounts(idx, limit)
		if err != nil {
			return err
		}
		if after >= segments {
			return nil // the planner found nothing to merge
		}
	}
}

// segmentCounts returns how many segments idx has, and how many of them
// Bleve's planner would merge under a limit of limit documents (those
// below half of it).
func segmentCounts(idx bleve.Index, limit int64) (segments, mergeable int, err error) {
	_, snap, err := openSnapshot(idx)
	if err != nil {
		return 0, 0, err
	}
	defer snap.Close()
	for _, seg := range snap.Segments() {
		segments++
		if seg.LiveSize() < limit/2 {
			mergeable++
		}
	}
	return segments, mergeable, nil
}
