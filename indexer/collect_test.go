package indexer

import (
	"context"
	"fmt"
	"log/slog"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	bq "github.com/blevesearch/bleve/v2/search/query"
	"github.com/google/go-cmp/cmp"

	q "github.com/semcat/semcat/query"
)

// TestCollectAgreesWithBleve checks the column-backed search against
// Bleve's own (doc values, bleve.Index.Search) on an index of many
// segments with deleted and updated documents: the same totals, hits in
// the same order with the same sort values, the same cursor pages, and the
// same facet counts. It also checks that the columns follow the index as
// its segments change.
func TestCollectAgreesWithBleve(t *testing.T) {
	types := []string{q.TypeTable, q.TypeMetric, q.TypeSemanticModel}
	doc := func(i, version int) map[string]any {
		// Few distinct names, so the sort key's identifier part decides
		// between most of them, and a few words, so scores tie.
		name := fmt.Sprintf("n%02d", i%13)
		typ := types[i%len(types)]
		ident := fmt.Sprintf("m.c%d.s%d.%s.v%d.%d", i%4, i%6, name, version, i)
		tags := []string{}
		for k := 0; k < i%4; k++ {
			tags = append(tags, fmt.Sprintf("t%d", (i+k)%7))
		}
		return map[string]any{
			q.FieldType: typ, q.FieldCatalog: fmt.Sprintf("c%d", i%4), q.FieldSchema: fmt.Sprintf("s%d", i%6),
			q.FieldTags: tags, q.FieldNameExact: name,
			q.FieldSortKey: q.SortKey(name, ident, typ), q.FieldMetalake: "m",
			q.FieldUserValues: []string{fmt.Sprintf("w%d w%d", i%3, i%5)}, q.FieldCreated: q.CreatedKey(time.Unix(int64(i%17), 0)),
			fieldStored: ident,
		}
	}
	idx, _ := manySegments(t, doc, 400)

	x := &Indexer{}
	ctx := context.Background()
	word := func(w string) bq.Query {
		t := bq.NewTermQuery(w)
		t.SetField(q.FieldUserValues)
		return t
	}
	filter := func(field, value string) bq.Query {
		t := bq.NewTermQuery(value)
		t.SetField(field)
		return t
	}
	queries := map[string]struct {
		query   bq.Query
		filters []bq.Query
	}{
		"w1":       {word("w1"), nil},
		"w1 or w4": {bq.NewDisjunctionQuery([]bq.Query{word("w1"), word("w4")}), nil},
		"all":      {bq.NewMatchAllQuery(), nil},
		// The metalake filter passes every document and is dropped; the
		// catalog filter is not.
		"w1 in m":  {word("w1"), []bq.Query{filter(q.FieldMetalake, "m")}},
		"w1 in c1": {word("w1"), []bq.Query{filter(q.FieldMetalake, "m"), filter(q.FieldCatalog, "c1")}},
	}
	check := func(t *testing.T) {
		for qname, qf := range queries {
			query := bq.NewBooleanQuery([]bq.Query{qf.query}, nil, nil)
			if qf.filters != nil {
				query.AddFilter(bq.NewConjunctionQuery(qf.filters))
			}
			for sortName, order := range sortOrders {
				t.Run(qname+"/"+sortName, func(t *testing.T) {
					var after []string
					for page := 0; ; page++ {
						facets := map[string]int{"type": 10, "catalog": 10, "schema": 3, "tags": 5}
						got, err := x.collect(ctx, idx, collectRequest{query: qf.query, filters: qf.filters, order: order, after: after, limit: 25, facets: facets})
						if err != nil {
							t.Fatal(err)
						}
						sr := bleve.NewSearchRequestOptions(query, 25, 0, false)
						sr.SortBy(order)
						sr.Fields = []string{fieldStored}
						sr.SearchAfter = after
						for name, size := range facets {
							sr.AddFacet(name, bleve.NewFacetRequest(facetFields[name], size))
						}
						want, err := idx.SearchInContext(ctx, sr)
						if err != nil {
							t.Fatal(err)
						}
						if got.total != want.Total {
							t.Fatalf("page %d: total %d, Bleve %d", page, got.total, want.Total)
						}
						var gotHits, wantHits []string
						for _, h := range got.hits {
							gotHits = append(gotHits, fmt.Sprintf("%s %s %g %s", h.id, h.stored, h.score, strings.Join(h.sort[len(h.sort)-1:], "")))
						}
						for _, h := range want.Hits {
							wantHits = append(wantHits, fmt.Sprintf("%s %s %g %s", h.ID, h.Fields[fieldStored], h.Score, strings.Join(h.Sort[len(h.Sort)-1:], "")))
						}
						if diff := cmp.Diff(wantHits, gotHits); diff != "" {
							t.Fatalf("page %d hits (-Bleve +columns):\n%s", page, diff)
						}
						for name, fr := range want.Facets {
							var wantCounts []facetCount
							for _, tf := range fr.Terms.Terms() {
								wantCounts = append(wantCounts, facetCount{term: tf.Term, count: tf.Count})
							}
							if diff := cmp.Diff(wantCounts, got.facets[name], cmp.AllowUnexported(facetCount{})); diff != "" {
								t.Fatalf("page %d facet %s (-Bleve +columns):\n%s", page, name, diff)
							}
						}
						if len(got.hits) < 25 {
							if page == 0 && qname == "all" {
								t.Fatalf("one page of %d hits: the test wants several", len(got.hits))
							}
							return
						}
						after = append([]string(nil), got.hits[len(got.hits)-1].sort...)
						for i, o := range order {
							if strings.TrimPrefix(o, "-") == "_score" {
								after[i] = fmt.Sprint(got.hits[len(got.hits)-1].score)
							}
						}
					}
				})
			}
		}
	}
	check(t)
	segsBefore := len(x.columns.segs)
	if segsBefore < 2 {
		t.Fatalf("%d segments cached: the test wants several", segsBefore)
	}

	// Rewriting everything replaces every segment; the cache must follow
	// and forget the segments that are gone.
	batch := idx.NewBatch()
	for i := 0; i < 400; i++ {
		batch.Index(fmt.Sprint(i), doc(i+1, 99))
	}
	if err := idx.Batch(batch); err != nil {
		t.Fatal(err)
	}
	t.Run("after rewrite", check)
	adv, _ := idx.Advanced()
	reader, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	kept, err := necessary(ctx, reader, queries["w1 in c1"].filters)
	if err != nil || len(kept) != 1 || kept[0].(*bq.TermQuery).Field() != q.FieldCatalog {
		t.Errorf("necessary kept %v (err %v), want the catalog filter alone", kept, err)
	}
	for k := range x.columns.segs {
		if k.owner != adv {
			t.Errorf("cached columns of another index: %v", k)
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
		if err := b.Index(id, map[string]any{q.FieldType: "table", q.FieldSortKey: q.SortKey(id, "m."+id, "table")}); err != nil {
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
	cached := func() map[uint64]bool {
		x.columns.mu.Lock()
		defer x.columns.mu.Unlock()
		ids := map[uint64]bool{}
		for k, e := range x.columns.segs {
			if e.built.Load() {
				ids[k.id] = true
			}
		}
		return ids
	}
	segments := func() []uint64 {
		_, snap, err := openSnapshot(idx)
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

	add("a")
	time.Sleep(100 * time.Millisecond) // twenty intervals
	if n := len(cached()); n != 0 {
		t.Fatalf("%d segments built with no search", n)
	}

	if _, err := x.collect(ctx, idx, collectRequest{query: bq.NewMatchAllQuery(), order: sortOrders["name"], limit: 1}); err != nil {
		t.Fatal(err)
	}
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
