package indexer

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	bq "github.com/blevesearch/bleve/v2/search/query"
	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	q "github.com/semcat/semcat/query"
)

// manySegments opens an index of ten segments with deleted and rewritten
// documents (merges off), and returns it with a function that writes one
// more batch.
func manySegments(t *testing.T, doc func(i, version int) map[string]any, n int) (bleve.Index, func(from, to, version int)) {
	t.Helper()
	noMerge := map[string]any{"scorchMergePlanOptions": map[string]any{"MaxSegmentsPerTier": 1000, "FloorSegmentSize": 1},
		"scorchPersisterOptions": map[string]any{"MaxSizeInMemoryMergePerWorker": 1}}
	idx, err := bleve.NewUsing(filepath.Join(t.TempDir(), "idx"), newMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, noMerge)
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

// TestBitmapsAgreeWithSearchers checks that searches answered from postings
// bitmaps (bitmaps.go) equal those of Bleve's searchers, which
// TestCollectAgreesWithBleve checks in turn: every query kind with a plan,
// under the filters search builds (including a caller's visibility), in
// every sort, page by page by cursor and by offset, with facets, over many
// segments with deleted documents. Names repeat and values are few, so
// scores tie and the sort key decides, and the same key occurs in two
// metalakes, so that document order breaks ties too.
func TestBitmapsAgreeWithSearchers(t *testing.T) {
	words := []string{"alpha", "beta", "gamma", "delta", "epsilon", "zeta", "alphabet"}
	types := []string{q.TypeTable, q.TypeMetric, q.TypeSemanticModel, q.TypeSchema}
	doc := func(i, version int) map[string]any {
		name := words[i%len(words)]
		if i%5 == 0 {
			name = fmt.Sprintf("n%02d", i%11)
		}
		typ := types[i%len(types)]
		metalake := "m"
		ident := fmt.Sprintf("c%d.s%d.%s", i%4, i%6, name)
		if i%9 == 0 {
			metalake = "other" // same key as a document of m
			ident = fmt.Sprintf("c%d.s%d.%s", (i+1)%4, (i+1)%6, words[(i+1)%len(words)])
			name = words[(i+1)%len(words)]
			typ = types[(i+1)%len(types)]
		}
		value := words[(i+version)%5] + " " + words[i%3+4]
		owner := []string{"bob", "alice smith", "carol"}[i%3]
		var tags []string
		for k := 0; k < i%4; k++ {
			tags = append(tags, fmt.Sprintf("t%d", (i+k)%7))
		}
		d := map[string]any{
			q.FieldType: typ, q.FieldMetalake: metalake, q.FieldCatalog: fmt.Sprintf("c%d", i%4), q.FieldSchema: fmt.Sprintf("s%d", i%6),
			q.FieldCatalogID: fmt.Sprint(10 + i%4), q.FieldSchemaID: fmt.Sprint(20 + i%6), q.FieldTableID: fmt.Sprint(1000 + i),
			q.FieldTags: tags, q.FieldTagsExact: tags, q.FieldNameExact: name,
			q.FieldSortKey: q.SortKey(name, metalake+"."+ident, typ), q.FieldCreated: q.CreatedKey(time.Unix(int64(i%17), 0)),
			q.FieldUserValues: []string{value, owner}, q.FieldUserExact: []string{value, owner},
			q.FieldSystemValues: []string{"sys " + words[i%6]}, q.FieldSystemExact: []string{"sys " + words[i%6]},
			q.FieldUserKeys: []string{"owner"},
			"u":             map[string]any{"owner": owner}, "ux": map[string]any{"owner": owner},
			fieldStored: fmt.Sprintf("%s v%d", ident, version),
		}
		if i%2 == 0 {
			d[q.FieldSchemaFields] = []string{"id:int", "emp.tel:string", fmt.Sprintf("%s_%d:int", words[i%4], i%3)}
			d[q.FieldHas] = []string{"schema"}
		}
		return d
	}
	idx, rewrite := manySegments(t, doc, 600)

	planned := []string{"alpha", "alp*", "gamma", "alphabet", "n03", "owner:bob", "owner:alice", "owner:ali*", `"alice smith"`, `"alice sm*"`,
		"tags:t3", "tags:t*", "a*", "schema:emp.tel", "schema:emp*", "schema:*", "id:int", "sys", "nothing"}
	unplanned := []string{"alpha beta", "alpha OR n03", "gamma -alpha", "*"}
	grants := &catalogdb.Grants{
		Bindings: []catalogdb.Grant{
			{Kind: semcat.KindCatalog, ID: 11, Privilege: semcat.UseCatalog, Condition: semcat.Allow},
			{Kind: semcat.KindCatalog, ID: 12, Privilege: semcat.UseCatalog, Condition: semcat.Allow},
			{Kind: semcat.KindCatalog, ID: 11, Privilege: semcat.UseSchema, Condition: semcat.Allow},
			{Kind: semcat.KindSchema, ID: 23, Privilege: semcat.UseSchema, Condition: semcat.Allow},
			{Kind: semcat.KindCatalog, ID: 11, Privilege: semcat.SelectTable, Condition: semcat.Allow},
			{Kind: semcat.KindSchema, ID: 21, Privilege: semcat.SelectTable, Condition: semcat.Deny},
		},
		Owned: map[semcat.EntityKind][]int64{semcat.KindSchema: {22}},
	}
	filterSets := map[string][]bq.Query{
		"none":       nil,
		"metalake":   {filterTerm(q.FieldMetalake, "m")},
		"types":      {filterTerm(q.FieldMetalake, "m"), bq.NewDisjunctionQuery([]bq.Query{filterTerm(q.FieldType, q.TypeTable), filterTerm(q.FieldType, q.TypeMetric)})},
		"catalog":    {filterTerm(q.FieldCatalog, "c1"), filterTerm(q.FieldTags, "t2")},
		"visibility": {filterTerm(q.FieldMetalake, "m"), Visibility(grants)},
	}

	fast := &Indexer{}
	slow := &Indexer{searchersOnly: true}
	ctx := context.Background()
	describe := func(c *collected) []string {
		var out []string
		for _, h := range c.hits {
			out = append(out, fmt.Sprintf("%s %s %x %q", h.id, h.stored, math.Float64bits(h.score), h.sort))
		}
		return out
	}
	facets := map[string]int{"type": 10, "catalog": 10, "schema": 3, "tags": 5}
	compare := func(t *testing.T, text string, filters []bq.Query, order []string, after []string, limit, offset int) *collected {
		t.Helper()
		parsed, err := q.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		compiled, err := q.Compile(parsed, q.Options{})
		if err != nil {
			t.Fatal(err)
		}
		req := collectRequest{query: compiled, filters: filters, order: order, after: after, limit: limit, offset: offset, facets: facets}
		got, err := fast.collect(ctx, idx, req)
		if err != nil {
			t.Fatal(err)
		}
		want, err := slow.collect(ctx, idx, req)
		if err != nil {
			t.Fatal(err)
		}
		if want.bitmaps {
			t.Fatal("the reference search ran on bitmaps")
		}
		if got.total != want.total {
			t.Fatalf("total %d, searchers %d", got.total, want.total)
		}
		if diff := cmp.Diff(describe(want), describe(got)); diff != "" {
			t.Fatalf("hits (-searchers +bitmaps):\n%s", diff)
		}
		if diff := cmp.Diff(want.facets, got.facets, cmp.AllowUnexported(facetCount{})); diff != "" {
			t.Fatalf("facets (-searchers +bitmaps):\n%s", diff)
		}
		return got
	}
	check := func(t *testing.T) {
		for _, text := range append(planned, unplanned...) {
			for fname, filters := range filterSets {
				for sortName, order := range sortOrders {
					if _, ok := bitmapOrderOf(order); !ok {
						continue // both run on searchers
					}
					t.Run(text+"/"+fname+"/"+sortName, func(t *testing.T) {
						var after []string
						pages := 0
						for {
							got := compare(t, text, filters, order, after, 7, 0)
							if wantPlan := !slices.Contains(unplanned, text); got.bitmaps != wantPlan {
								t.Fatalf("answered from bitmaps: %v, want %v", got.bitmaps, wantPlan)
							}
							pages++
							if len(got.hits) < 7 {
								break
							}
							last := got.hits[len(got.hits)-1]
							after = append([]string(nil), last.sort...)
							for i, o := range order {
								if strings.TrimPrefix(o, "-") == "_score" {
									after[i] = fmt.Sprint(last.score)
								}
							}
						}
						for _, offset := range []int{0, 3, 7 * (pages - 1), 7*pages + 5} {
							compare(t, text, filters, order, nil, 7, offset)
						}
						compare(t, text, filters, order, nil, 0, 0) // count and facets alone
					})
				}
			}
		}
	}
	check(t)
	// Rewriting a third of the documents deletes them from their
	// segments and writes a new one.
	rewrite(0, 200, 50)
	t.Run("after rewrite", check)
}
