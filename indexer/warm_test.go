package indexer

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/semcat/semcat/search"
	"github.com/semcat/semcat/searchdoc"
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
				if err := batch.Index(id, map[string]any{searchdoc.FieldType: "table", searchdoc.FieldSortKey: searchdoc.SortKey(id, "m."+id, "table")}); err != nil {
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
		adv, snap, err := search.OpenSnapshot(idx)
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
	built := x.columns.Built
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
	if adv, err := searched.Advanced(); err != nil {
		t.Fatal(err)
	} else {
		x.columns.SearchedBy(adv) // as a search does
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

// TestWarmColumns: while searches run, the columns of new segments are
// built without a search asking; with no search in the last minute,
// nothing is built.
func TestWarmColumns(t *testing.T) {
	idx, err := bleve.New(filepath.Join(t.TempDir(), "idx"), newMapping())
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	add := func(id string) {
		b := idx.NewBatch()
		if err := b.Index(id, map[string]any{searchdoc.FieldType: "table", searchdoc.FieldSortKey: searchdoc.SortKey(id, "m."+id, "table")}); err != nil {
			t.Fatal(err)
		}
		if err := idx.Batch(b); err != nil {
			t.Fatal(err)
		}
	}
	x := &Indexer{logger: slog.Default()}
	x.h.idx = idx
	ctx, cancel := context.WithCancel(context.Background())
	var warming sync.WaitGroup
	warming.Go(func() { x.warmColumns(ctx, 5*time.Millisecond) })
	defer func() {
		cancel()
		warming.Wait()
	}()
	owner, err := idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	segments := func() []uint64 {
		_, snap, err := search.OpenSnapshot(idx)
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		var ids []uint64
		for _, s := range snap.Segments() {
			ids = append(ids, s.Id())
		}
		return ids
	}
	cached := func() map[uint64]bool {
		ids := map[uint64]bool{}
		for _, id := range segments() {
			if x.columns.Built(owner, id) {
				ids[id] = true
			}
		}
		return ids
	}

	add("a")
	time.Sleep(100 * time.Millisecond) // twenty intervals
	if n := len(cached()); n != 0 {
		t.Fatalf("%d segments built with no search", n)
	}

	x.columns.SearchedBy(owner) // as a search does
	add("b")
	deadline := time.Now().Add(10 * time.Second)
	for {
		want, got := segments(), cached()
		missing := 0
		for _, id := range want {
			if !got[id] {
				missing++
			}
		}
		if missing == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("segments %v, columns built for %v", want, got)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
