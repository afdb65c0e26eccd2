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

// wideTables answers tables of n columns, each with a 100-character
// comment; tags answers none.
type wideTables struct{ semcat.TableService }

func (wideTables) GetTable(_ context.Context, _ semcat.Namespace, name string) (*semcat.Table, error) {
	n := map[string]int{"wide": 2000, "narrow": 3}[name]
	t := &semcat.Table{Name: name, Properties: map[string]string{}}
	for i := range n {
		comment := fmt.Sprintf("c%04d %s", i, strings.Repeat("z", 94))
		t.Columns = append(t.Columns, semcat.Column{Name: fmt.Sprintf("col%04d", i), Type: &semcat.Type{Name: "string"}, Comment: &comment})
	}
	return t, nil
}

type noTags struct{ semcat.TagService }

func (noTags) ListObjectTags(context.Context, string, semcat.ObjectRef) ([]string, error) {
	return []string{}, nil
}

// TestEntityInParts: get_entity of a table too wide for one result gives
// its columns in parts of at most MaxResultBytes, each with the offset of
// the next, which together are the whole table in order; a table that
// fits comes whole, and an offset past the columns is refused.
func TestEntityInParts(t *testing.T) {
	cs := connect(t, Services{Tables: wideTables{}, Tags: noTags{}}, Config{DefaultMetalake: "lake"}, "alice")
	var names []string
	parts := 0
	for offset := 0; ; parts++ {
		res := call(t, cs, "get_entity", map[string]any{"type": "table", "fullName": "c.s.wide", "offset": offset})
		b, _ := json.Marshal(res)
		var out EntityOutput
		if res.IsError || json.Unmarshal([]byte(text(res)), &out) != nil {
			t.Fatalf("get_entity at offset %d: %s", offset, text(res))
		}
		if len(b) > MaxResultBytes || out.Part != "columns" || out.Total != 2000 {
			t.Fatalf("part at offset %d: %d bytes, part %q of %d", offset, len(b), out.Part, out.Total)
		}
		var table semcat.Table
		if err := json.Unmarshal(out.Entity, &table); err != nil || len(table.Columns) == 0 {
			t.Fatalf("part at offset %d holds no columns: %v", offset, err)
		}
		for _, c := range table.Columns {
			names = append(names, c.Name)
		}
		if out.NextOffset == 0 {
			break
		}
		if out.NextOffset != offset+len(table.Columns) {
			t.Fatalf("next offset %d after %d columns from %d", out.NextOffset, len(table.Columns), offset)
		}
		offset = out.NextOffset
	}
	if len(names) != 2000 || names[0] != "col0000" || names[1999] != "col1999" || parts < 3 {
		t.Errorf("the parts hold %d columns in %d parts (%v … %v), want all 2,000 in order", len(names), parts+1, names[:1], names[len(names)-1:])
	}
	for i := 1; i < len(names); i++ {
		if names[i] <= names[i-1] {
			t.Fatalf("columns out of order at %d: %s after %s", i, names[i], names[i-1])
		}
	}

	res := call(t, cs, "get_entity", map[string]any{"type": "table", "fullName": "c.s.narrow"})
	var out EntityOutput
	json.Unmarshal([]byte(text(res)), &out)
	if res.IsError || out.Part != "" || out.NextOffset != 0 || !strings.Contains(string(out.Entity), "col0002") {
		t.Errorf("a narrow table is not given whole: %s", text(res))
	}
	res = call(t, cs, "get_entity", map[string]any{"type": "table", "fullName": "c.s.narrow", "offset": 3})
	if !res.IsError || !strings.Contains(text(res), "offset") {
		t.Errorf("an offset past the columns: %s, want an error naming offset", text(res))
	}
}
