package search

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	bq "github.com/blevesearch/bleve/v2/search/query"
	"github.com/google/go-cmp/cmp"

	q "github.com/semcat/semcat/query"
	"github.com/semcat/semcat/searchdoc"
)

// manySegments opens an index of ten segments with deleted and rewritten
// documents (merges off), and returns it with a function that writes one
// more batch.
func manySegments(t *testing.T, doc func(i, version int) map[string]any, n int) (bleve.Index, func(from, to, version int)) {
	t.Helper()
	noMerge := map[string]any{"scorchMergePlanOptions": map[string]any{"MaxSegmentsPerTier": 1000, "FloorSegmentSize": 1},
		"scorchPersisterOptions": map[string]any{"MaxSizeInMemoryMergePerWorker": 1}}
	idx, err := bleve.NewUsing(filepath.Join(t.TempDir(), "idx"), searchdoc.NewMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, noMerge)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { idx.Close() })
	per := n / 10
	for b := 0; b < 10; b++ {
		batch := idx.NewBatch()
		for i := b * per; i < (b+1)*per; i++ {
			batch.Index(fmt.Sprint(i), doc(i, 0))
		}
		for i := 0; i < b*per; i += 7 + b {
			if i%2 == 0 {
				batch.Delete(fmt.Sprint(i))
			} else {
				batch.Index(fmt.Sprint(i), doc(i, b))
			}
		}
		if err := idx.Batch(batch); err != nil {
			t.Fatal(err)
		}
	}
	rewrite := func(from, to, version int) {
		batch := idx.NewBatch()
		for i := from; i < to; i++ {
			batch.Index(fmt.Sprint(i), doc(i, version))
		}
		if err := idx.Batch(batch); err != nil {
			t.Fatal(err)
		}
	}
	return idx, rewrite
}

// TestCollectAgreesWithBleve checks the column-backed search against
// Bleve's own (doc values, bleve.Index.Search) on an index of many
// segments with deleted and updated documents: the same totals, hits in
// the same order with the same sort values, the same cursor pages, and the
// same facet counts. It also checks that the columns follow the index as
// its segments change.
func TestCollectAgreesWithBleve(t *testing.T) {
	types := []string{searchdoc.TypeTable, searchdoc.TypeMetric, searchdoc.TypeSemanticModel}
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
			searchdoc.FieldType: typ, searchdoc.FieldCatalog: fmt.Sprintf("c%d", i%4), searchdoc.FieldSchema: fmt.Sprintf("s%d", i%6),
			searchdoc.FieldTags: tags, searchdoc.FieldNameExact: name,
			searchdoc.FieldSortKey: searchdoc.SortKey(name, ident, typ), searchdoc.FieldMetalake: "m",
			searchdoc.FieldUserValues: []string{fmt.Sprintf("w%d w%d", i%3, i%5)}, searchdoc.FieldCreated: searchdoc.CreatedKey(time.Unix(int64(i%17), 0)),
			searchdoc.FieldStored: ident,
		}
	}
	idx, _ := manySegments(t, doc, 400)

	x := &ColumnCache{}
	ctx := context.Background()
	word := func(w string) bq.Query {
		t := bq.NewTermQuery(w)
		t.SetField(searchdoc.FieldUserValues)
		return t
	}
	filter := func(field, value string) bq.Query {
		t := bq.NewTermQuery(value)
		t.SetField(field)
		return t
	}
	// Each query as the API runs it (a plan) and as Bleve would.
	queries := map[string]struct {
		text    string
		bleve   bq.Query
		filters []bq.Query
	}{
		"w1":       {"w1", word("w1"), nil},
		"w1 or w4": {"w1 w4", bq.NewDisjunctionQuery([]bq.Query{word("w1"), word("w4")}), nil},
		"all":      {"*", bq.NewMatchAllQuery(), nil},
		// The metalake filter passes every document and is dropped; the
		// catalog filter is not.
		"w1 in m":  {"w1", word("w1"), []bq.Query{filter(searchdoc.FieldMetalake, "m")}},
		"w1 in c1": {"w1", word("w1"), []bq.Query{filter(searchdoc.FieldMetalake, "m"), filter(searchdoc.FieldCatalog, "c1")}},
	}
	// Bleve's order for each sort; relevance has none to compare with
	// (Bleve scores otherwise), so its pages are checked for order and
	// coverage instead.
	bleveOrders := map[string][]string{
		"relevance": nil,
		"name":      {searchdoc.FieldSortKey},
		"-name":     {"-" + searchdoc.FieldSortKey},
		"created":   {searchdoc.FieldCreated, searchdoc.FieldSortKey},
		"-created":  {"-" + searchdoc.FieldCreated, "-" + searchdoc.FieldSortKey},
	}
	check := func(t *testing.T) {
		for qname, qf := range queries {
			query := bq.NewBooleanQuery([]bq.Query{qf.bleve}, nil, nil)
			if qf.filters != nil {
				query.AddFilter(bq.NewConjunctionQuery(qf.filters))
			}
			parsed, err := q.Parse(qf.text)
			if err != nil {
				t.Fatal(err)
			}
			plan, err := q.NewPlan(parsed, q.Options{})
			if err != nil {
				t.Fatal(err)
			}
			for sortName, order := range bleveOrders {
				t.Run(qname+"/"+sortName, func(t *testing.T) {
					var after []string
					seen := map[string]bool{}
					var last *collectedHit
					var wantTotal uint64
					for page := 0; ; page++ {
						facets := map[string]int{"type": 10, "catalog": 10, "schema": 3, "tags": 5}
						got, err := collect(ctx, x, idx, collectRequest{plan: plan, filters: qf.filters, sort: sortName, after: after, limit: 25, facets: facets, tagFields: []string{searchdoc.FieldTags}})
						if err != nil {
							t.Fatal(err)
						}
						sr := bleve.NewSearchRequestOptions(query, 25, 0, false)
						if order == nil {
							sr = bleve.NewSearchRequestOptions(query, 10000, 0, false)
							sr.SortBy([]string{searchdoc.FieldSortKey})
						} else {
							sr.SortBy(order)
							if after != nil {
								sr.SearchAfter = after
							}
						}
						sr.Fields = []string{searchdoc.FieldStored}
						for name, size := range facets {
							sr.AddFacet(name, bleve.NewFacetRequest(facetFields[name], size))
						}
						want, err := idx.SearchInContext(ctx, sr)
						if err != nil {
							t.Fatal(err)
						}
						wantTotal = want.Total
						if got.total != want.Total {
							t.Fatalf("page %d: total %d, Bleve %d", page, got.total, want.Total)
						}
						if order != nil {
							var gotHits, wantHits []string
							for _, h := range got.hits {
								gotHits = append(gotHits, fmt.Sprintf("%s %s %s", h.id, h.stored, strings.Join(h.sort, " ")))
							}
							for _, h := range want.Hits {
								wantHits = append(wantHits, fmt.Sprintf("%s %s %s", h.ID, h.Fields[searchdoc.FieldStored], strings.Join(h.Sort, " ")))
							}
							if diff := cmp.Diff(wantHits, gotHits); diff != "" {
								t.Fatalf("page %d hits (-Bleve +columns):\n%s", page, diff)
							}
						} else {
							for i := range got.hits {
								h := &got.hits[i]
								if seen[h.id] {
									t.Fatalf("page %d: %s again", page, h.id)
								}
								seen[h.id] = true
								if last != nil && (h.score > last.score || h.score == last.score && h.sort[1] <= last.sort[1]) {
									t.Fatalf("page %d: %s (%g, %q) after %s (%g, %q)", page, h.id, h.score, h.sort[1], last.id, last.score, last.sort[1])
								}
								last = h
							}
						}
						for name, fr := range want.Facets {
							var wantCounts []facetCount
							for _, tf := range fr.Terms.Terms() {
								fc := facetCount{term: tf.Term, count: tf.Count}
								if name == "tags" {
									fc.scope = "user"
								}
								wantCounts = append(wantCounts, fc)
							}
							if diff := cmp.Diff(wantCounts, got.facets[name], cmp.AllowUnexported(facetCount{})); diff != "" {
								t.Fatalf("page %d facet %s (-Bleve +columns):\n%s", page, name, diff)
							}
						}
						if len(got.hits) < 25 {
							if page == 0 && qname == "all" {
								t.Fatalf("one page of %d hits: the test wants several", len(got.hits))
							}
							if order == nil && uint64(len(seen)) != wantTotal {
								t.Fatalf("relevance pages held %d hits, total %d", len(seen), wantTotal)
							}
							return
						}
						after = got.hits[len(got.hits)-1].sort
					}
				})
			}
		}
	}
	check(t)
	segsBefore := len(x.segs)
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
	if err != nil || len(kept) != 1 || kept[0].(*bq.TermQuery).Field() != searchdoc.FieldCatalog {
		t.Errorf("necessary kept %v (err %v), want the catalog filter alone", kept, err)
	}
	for k := range x.segs {
		if k.owner != adv {
			t.Errorf("cached columns of another index: %v", k)
		}
	}
}
