package indexer

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	q "github.com/semcat/semcat/query"
)

// TestMergedSegmentsWarmed: while an index is searched, the columns of the
// segment a merge writes are built before any snapshot holds it, so no
// search waits for them; an index nobody searches builds none.
func TestMergedSegmentsWarmed(t *testing.T) {
	ctx := context.Background()
	x := &Indexer{logger: slog.Default(), opts: Options{MaxSegmentDocs: 20}} // batches of 20: no merges but the forced ones
	create := func(name string) bleve.Index {
		idx, err := x.createIndex(filepath.Join(t.TempDir(), name))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { idx.Close() })
		for b := range 5 {
			batch := idx.NewBatch()
			for i := range 20 {
				id := fmt.Sprintf("%s-%d-%d", name, b, i)
				if err := batch.Index(id, map[string]any{q.FieldType: "table", q.FieldSortKey: q.SortKey(id, "m."+id, "table")}); err != nil {
					t.Fatal(err)
				}
			}
			if err := idx.Batch(batch); err != nil {
				t.Fatal(err)
			}
		}
		return idx
	}
	type seg struct {
		id    uint64
		count uint64
		path  string
	}
	segments := func(idx bleve.Index) (index.Index, []seg) {
		adv, snap, err := openSnapshot(idx)
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		var out []seg
		for _, s := range snap.Segments() {
			p, ok := s.Segment().(segment.PersistedSegment)
			if !ok {
				t.Fatalf("segment %d is not persisted", s.Id())
			}
			out = append(out, seg{id: s.Id(), count: s.Count(), path: p.Path()})
		}
		return adv, out
	}
	built := func(owner index.Index, id uint64) bool {
		x.columns.mu.Lock()
		defer x.columns.mu.Unlock()
		e := x.columns.segs[segKey{owner: owner, id: id}]
		return e != nil && e.built.Load() && e.err == nil
	}
	merge := func(idx bleve.Index) {
		adv, err := idx.Advanced()
		if err != nil {
			t.Fatal(err)
		}
		if err := adv.(*scorch.Scorch).ForceMerge(ctx, nil); err != nil {
			t.Fatal(err)
		}
	}

	searched, idle := create("searched"), create("idle")
	if _, err := x.collect(ctx, searched, collectRequest{plan: &q.Plan{All: true}, sort: "name", limit: 1}); err != nil {
		t.Fatal(err)
	}
	_, before := segments(searched)
	if len(before) < 2 {
		t.Fatalf("segments %v: the test wants several to merge", before)
	}
	merge(searched)
	merge(idle)

	owner, after := segments(searched)
	if len(after) != 1 || after[0].count != 100 || after[0].id <= before[len(before)-1].id {
		t.Fatalf("segments after the merge %v (before %v): want one new segment of 100 documents", after, before)
	}
	if id, err := segmentIDOfPath(after[0].path); err != nil || id != after[0].id {
		t.Fatalf("segment file %s: id %d (err %v), want %d", after[0].path, id, err, after[0].id)
	}
	if !built(owner, after[0].id) {
		t.Errorf("the merged segment's columns were not built before a search asked")
	}

	idleOwner, idleSegs := segments(idle)
	for _, s := range idleSegs {
		if built(idleOwner, s.id) {
			t.Errorf("columns built for segment %d of an index nobody searches", s.id)
		}
	}
}
