package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/semcat/semcat"
)

// pagingSearch answers as many hits as the request's limit asks for, each
// with a 2 KB match, and a cursor naming where the page ended.
type pagingSearch struct {
	fakeSearch
	limits []int
}

func (p *pagingSearch) Search(ctx context.Context, req semcat.SearchRequest) (*semcat.SearchResult, error) {
	p.limits = append(p.limits, req.Limit)
	res := &semcat.SearchResult{Total: 5000, Cursor: fmt.Sprintf("after-%d", req.Limit)}
	for i := range req.Limit {
		res.Results = append(res.Results, semcat.SearchHit{
			Entity:  semcat.SearchEntity{Type: "table", Namespace: []string{"lake", "c", "s"}, Name: fmt.Sprintf("t%d", i)},
			Matches: []semcat.Match{{Key: "comment", Value: strings.Repeat("w", 2048)}}})
	}
	return res, nil
}

// manyCatalogs lists 1,000 catalogs with 64-character names.
type manyCatalogs struct{ semcat.CatalogService }

func (manyCatalogs) ListCatalogs(context.Context, string) ([]*semcat.Catalog, error) {
	var out []*semcat.Catalog
	for i := range 1000 {
		out = append(out, &semcat.Catalog{Name: fmt.Sprintf("c%04d%s", i, strings.Repeat("x", 59))})
	}
	return out, nil
}

// TestResultBudget: search and list_entities answer at most
// MaxResultBytes, with the cursor or next offset of what they left out.
func TestResultBudget(t *testing.T) {
	metrics, _ := newFakes()
	search := &pagingSearch{}
	cs := connect(t, Services{Metrics: metrics, Search: search, Catalogs: manyCatalogs{}}, Config{DefaultMetalake: "lake"}, "alice")

	res := call(t, cs, "search", map[string]any{"query": "x", "limit": 100})
	b, _ := json.Marshal(res)
	var out SearchOutput
	json.Unmarshal([]byte(text(res)), &out)
	if res.IsError || len(b) > MaxResultBytes || len(out.Results) == 0 || len(out.Results) >= 100 {
		t.Fatalf("search of 100 hits of 2 KB: %d bytes, %d results", len(b), len(out.Results))
	}
	if len(search.limits) != 2 || search.limits[1] != len(out.Results) || out.Cursor != fmt.Sprintf("after-%d", len(out.Results)) {
		t.Errorf("searches with limits %v, cursor %q: want the page asked again with the limit that fits, and its cursor", search.limits, out.Cursor)
	}

	res = call(t, cs, "list_entities", map[string]any{"type": "catalog", "limit": 1000})
	b, _ = json.Marshal(res)
	var list ListOutput
	json.Unmarshal([]byte(text(res)), &list)
	if res.IsError || len(b) > MaxResultBytes || len(list.Identifiers) == 0 || list.NextOffset != len(list.Identifiers) || list.Total != 1000 {
		t.Fatalf("list_entities of 1,000 catalogs: %d bytes, %d identifiers, next offset %d", len(b), len(list.Identifiers), list.NextOffset)
	}
	res = call(t, cs, "list_entities", map[string]any{"type": "catalog", "limit": 1000, "offset": list.NextOffset})
	var rest ListOutput
	json.Unmarshal([]byte(text(res)), &rest)
	if len(rest.Identifiers) == 0 || rest.Identifiers[0].Name != fmt.Sprintf("c%04d%s", list.NextOffset, strings.Repeat("x", 59)) {
		t.Errorf("the next page starts at %v", rest.Identifiers[:1])
	}
}
