package indexer

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/blevesearch/bleve/v2"
)

// TestRandomWindow: a window is n live documents in a row (all of them
// when the index has no more), and over many windows every live document
// is seen, the first and the last included, and no deleted one.
func TestRandomWindow(t *testing.T) {
	// Segments of 10 documents, at the merge cap: a merge would reorder
	// the documents between windows.
	config := map[string]any{"scorchMergePlanOptions": map[string]any{"MaxSegmentSize": 10}}
	idx, err := bleve.NewUsing(filepath.Join(t.TempDir(), "idx"), newMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, config)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	live := map[string]bool{}
	for seg := range 5 { // one segment per batch
		b := idx.NewBatch()
		for i := range 10 {
			id := fmt.Sprintf("table:%d", seg*10+i)
			if err := b.Index(id, map[string]any{"type": "table"}); err != nil {
				t.Fatal(err)
			}
			live[id] = true
		}
		if err := idx.Batch(b); err != nil {
			t.Fatal(err)
		}
	}
	for _, id := range []string{"table:0", "table:17", "table:49"} {
		if err := idx.Delete(id); err != nil {
			t.Fatal(err)
		}
		delete(live, id)
	}

	all, err := randomWindow(idx, 100)
	if err != nil {
		t.Fatal(err)
	}
	if len(all) != len(live) {
		t.Fatalf("a window larger than the index: %d documents, want all %d", len(all), len(live))
	}
	seen := map[string]bool{}
	for range 300 {
		w, err := randomWindow(idx, 7)
		if err != nil {
			t.Fatal(err)
		}
		if len(w) != 7 {
			t.Fatalf("window %v: want 7 documents", w)
		}
		i := slices.Index(all, w[0])
		if i < 0 || i+7 > len(all) || !slices.Equal(all[i:i+7], w) {
			t.Fatalf("window %v is not 7 documents in a row of %v", w, all)
		}
		for _, id := range w {
			seen[id] = true
		}
	}
	for id := range live {
		if !seen[id] {
			t.Errorf("%s never in a window", id)
		}
	}
	for id := range seen {
		if !live[id] {
			t.Errorf("deleted %s in a window", id)
		}
	}
}
