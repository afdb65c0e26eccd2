package indexer

import (
	"context"
	"fmt"
	"math"
	"sync"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/index/scorch/mergeplan"
)

// A build fills a new generation with one segment per batch, and merges
// those segments itself instead of letting Bleve's tiered merges run.
// Tiered merges rewrite a document at every tier: at 1,000,000 entities,
// batches of 1,000 became segments of 10,000, then 100,000, then 200,000,
// so each document was rewritten about three times, and merging was much
// of a rebuild's CPU. A builtMerger merges only segments the build wrote,
// each once, into segments just under MaxSegmentDocs: while the build goes
// on whenever the built segments add up to a full one (on the other core),
// and what is left when it is done.

// buildConfig is the configuration of a generation while a build fills it:
// a tier plan whose floor is one document and whose tiers hold any number
// of segments never has more segments than its budget, so Bleve merges
// nothing of its own accord.
func (x *Indexer) buildConfig() map[string]any {
	return map[string]any{
		"scorchMergePlanOptions": map[string]any{
			"MaxSegmentSize":     x.opts.MaxSegmentDocs,
			"MaxSegmentsPerTier": math.MaxInt32,
			"FloorSegmentSize":   1,
		},
	}
}

// builtMerger merges the segments of a generation being built.
type builtMerger struct {
	idx   bleve.Index
	s     *scorch.Scorch
	limit int64 // MaxSegmentDocs

	mu      sync.Mutex // held by whoever merges
	running sync.WaitGroup
	errMu   sync.Mutex
	err     error // of a merge in the background
}

func newBuiltMerger(idx bleve.Index, limit int) (*builtMerger, error) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, err
	}
	s, ok := adv.(*scorch.Scorch)
	if !ok {
		return nil, fmt.Errorf("index %T is not a scorch index", adv)
	}
	return &builtMerger{idx: idx, s: s, limit: int64(limit)}, nil
}

// afterBatch starts a merge in the background when the built segments
// not yet merged hold a full segment's documents and no merge is running.
func (m *builtMerger) afterBatch(ctx context.Context) {
	if !m.mu.TryLock() {
		return
	}
	st, err := m.segments()
	if err != nil || st.mergeable < 2 || st.mergeableDocs < m.limit {
		m.mu.Unlock()
		m.setErr(err)
		return
	}
	m.running.Go(func() {
		defer m.mu.Unlock()
		_, err := m.mergeOnce(ctx, st)
		m.setErr(err)
	})
}

// finish waits for a merge in the background, then merges what is left,
// one merge at a time: Bleve maps every source segment of a merge plan
// until the whole plan is done, and one plan for a 1,000,000-entity build
// would map all of it.
func (m *builtMerger) finish(ctx context.Context) error {
	m.running.Wait()
	if err := m.takeErr(); err != nil {
		return err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	for {
		st, err := m.segments()
		if err != nil {
			return err
		}
		if st.mergeable < 2 {
			return nil
		}
		merged, err := m.mergeOnce(ctx, st)
		if err != nil || !merged {
			return err
		}
	}
}

// mergeOnce asks Bleve for its single best merge of the mergeable
// segments: up to limit documents from segments of similar size. merged
// is false if Bleve found none.
func (m *builtMerger) mergeOnce(ctx context.Context, st segmentStats) (merged bool, err error) {
	opts := mergeplan.DefaultMergePlanOptions
	opts.MaxSegmentSize = m.limit
	opts.SegmentsPerMergeTask = st.mergeable
	// A budget of one segment less than there are mergeable ones makes
	// the planner stop after its first merge.
	opts.CalcBudget = func(int64, int64, *mergeplan.MergePlanOptions) int { return st.mergeable - 1 }
	if err := m.s.ForceMerge(ctx, &opts); err != nil {
		return false, err
	}
	if err := ctx.Err(); err != nil {
		return false, err
	}
	after, err := m.segments()
	return after.segments < st.segments, err
}

// segmentStats counts an index's segments, and those Bleve's planner would
// merge under the limit (below half of it) and their live documents.
type segmentStats struct {
	segments, mergeable int
	mergeableDocs       int64
}

func (m *builtMerger) segments() (segmentStats, error) {
	var st segmentStats
	_, snap, err := openSnapshot(m.idx)
	if err != nil {
		return st, err
	}
	defer snap.Close()
	for _, seg := range snap.Segments() {
		st.segments++
		if live := seg.LiveSize(); live < m.limit/2 {
			st.mergeable++
			st.mergeableDocs += live
		}
	}
	return st, nil
}

func (m *builtMerger) setErr(err error) {
	if err == nil {
		return
	}
	m.errMu.Lock()
	defer m.errMu.Unlock()
	if m.err == nil {
		m.err = err
	}
}

func (m *builtMerger) takeErr() error {
	m.errMu.Lock()
	defer m.errMu.Unlock()
	return m.err
}
