package search

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/searchdoc"
)

// TestWarmBuildsSuggestWhileTypeAheadsRun: warming a snapshot builds its
// segments' type-ahead indexes only once a type-ahead has run, so that a
// merged segment's is not built by the first type-ahead that reads it.
func TestWarmBuildsSuggestWhileTypeAheadsRun(t *testing.T) {
	idx, rewrite := manySegments(t, func(i, version int) map[string]any {
		name := fmt.Sprintf("orders_%d_v%d", i, version)
		return map[string]any{searchdoc.FieldType: "table", searchdoc.FieldSortKey: searchdoc.SortKey(name, "m.c.s."+name, "table")}
	}, 100)
	var cc ColumnCache
	warm := func() (built, segments int) {
		t.Helper()
		adv, snap, err := OpenSnapshot(idx)
		if err != nil {
			t.Fatal(err)
		}
		defer snap.Close()
		if err := cc.WarmSnapshot(adv, snap); err != nil {
			t.Fatal(err)
		}
		cols, err := cc.forSnapshot(adv, snap)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cols.segs {
			if c.suggest != nil {
				built++
			}
		}
		return built, len(cols.segs)
	}
	if built, n := warm(); built != 0 || n == 0 {
		t.Fatalf("before any type-ahead: %d of %d segments have a type-ahead index, want 0 of some", built, n)
	}
	adv, err := idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	cc.suggestedBy(adv)
	rewrite(0, 20, 9) // a new segment
	if built, n := warm(); built != n {
		t.Fatalf("while type-aheads run: %d of %d segments have a type-ahead index, want all", built, n)
	}
}

// TestEntityOfKey: a suggestion's entity comes from its sort key, as the
// indexer writes it; anything else is not taken for one.
func TestEntityOfKey(t *testing.T) {
	for _, e := range []semcat.SearchEntity{
		{Type: "table", Namespace: []string{"m", "c", "s"}, Name: "orders"},
		{Type: "metric", Namespace: []string{"m", "c", "s", "model"}, Name: "revenue"},
		{Type: "catalog", Namespace: []string{"m"}, Name: "c"},
	} {
		key := searchdoc.SortKey(e.Name, strings.Join(append(slices.Clone(e.Namespace), e.Name), "."), e.Type)
		got, ok := entityOfKey(key)
		if !ok || !reflect.DeepEqual(got, e) {
			t.Errorf("key %q: %+v, %v; want %+v", key, got, ok, e)
		}
	}
	for _, key := range []string{"", "orders", "orders\x00m.c.s.orders", "orders\x00orders\x00table", "orders\x00m.c.s.other\x00table", "orders\x00m.c.s.orders\x00"} {
		if got, ok := entityOfKey(key); ok {
			t.Errorf("key %q taken for %+v", key, got)
		}
	}
}
