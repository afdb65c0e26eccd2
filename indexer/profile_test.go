package indexer_test

import (
	"fmt"
	"slices"
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/search"
	"github.com/semcat/semcat/searchdoc"
)

// TestSearchProfile: a search asked for its profile says what it read of
// the index: the stored documents of its page, the postings of its terms
// and filters, the dictionary entries its prefix walked; one not asked
// answers none.
func TestSearchProfile(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	for i := range 12 {
		checker(t)(s.CreateTable(ctx, ns, table(fmt.Sprintf("orders_%02d", i), "amount", "region")))
	}
	catchUp(t, x)
	svc := &search.Service{Index: x, Store: s}
	req := semcat.SearchRequest{Metalake: "m", Query: "orders*", Types: []string{"table"}, Limit: 5, Profile: true}
	res, err := svc.Search(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 12 || len(res.Results) != 5 || res.Profile == nil {
		t.Fatalf("total %d, %d results, profile %v", res.Total, len(res.Results), res.Profile)
	}
	byField := map[string]semcat.FieldRead{}
	for _, f := range res.Profile.Fields {
		byField[f.Field] = f
	}
	if doc := byField[searchdoc.FieldStored]; doc.Lists != 5 || doc.Bytes == 0 {
		t.Errorf("stored documents read: %+v, want the page's 5", doc)
	}
	if ty := byField[searchdoc.FieldType]; ty.Lists == 0 || ty.Bytes == 0 {
		t.Errorf("the type filter's postings: %+v, want read", ty)
	}
	if n := byField[searchdoc.FieldName]; n.Terms == 0 || n.Lists == 0 {
		t.Errorf("the prefix's expansion over names: %+v, want terms walked and their postings read", n)
	}
	if !slices.IsSortedFunc(res.Profile.Fields, func(a, b semcat.FieldRead) int { return int(b.Bytes) - int(a.Bytes) }) {
		t.Errorf("fields not by bytes, the most first: %+v", res.Profile.Fields)
	}
	req.Profile = false
	if res, err := svc.Search(ctx, req); err != nil || res.Profile != nil {
		t.Errorf("a search not asked for its profile: %v, %v", res.Profile, err)
	}
}
