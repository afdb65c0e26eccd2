package indexer

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	index "github.com/blevesearch/bleve_index_api"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/searchdoc"
)

// breakdownRecords are n tables with properties, tags and nested columns.
func breakdownRecords(n int) []*semcat.EntityRecord {
	created := time.Date(2026, 11, 30, 6, 5, 12, 0, time.UTC)
	var out []*semcat.EntityRecord
	for i := range n {
		comment := fmt.Sprintf("orders of region %d, booked daily", i%17)
		out = append(out, &semcat.EntityRecord{Kind: semcat.KindTable, ID: int64(i + 1), MetalakeID: 1, CatalogID: 1, SchemaID: 3,
			Metalake: "m", Catalog: "rel", Schema: "sales", Name: fmt.Sprintf("orders_%d", i), Comment: &comment,
			Properties: map[string]string{"owner": fmt.Sprintf("team%d", i%5), "tier": "gold"}, Tags: []string{"pii"},
			Audit: semcat.Audit{Creator: "ann", CreateTime: created},
			Columns: []semcat.Column{{Name: "OrderID", Type: &semcat.Type{Name: "long"}}, {Name: "Customer", Type: &semcat.Type{Name: "struct", Fields: []semcat.StructField{
				{Name: "Email", Type: &semcat.Type{Name: "string"}}}}}}})
	}
	return out
}

// TestMapperWithout: a breakdown's mapper leaves out exactly the fields
// of its group, property maps included, and maps the rest as before.
func TestMapperWithout(t *testing.T) {
	r := breakdownRecords(1)[0]
	fields, err := searchdoc.Document(r)
	if err != nil {
		t.Fatal(err)
	}
	names := func(m *mapper) []string {
		doc, err := m.document("t", fields)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		doc.VisitFields(func(f index.Field) { out = append(out, f.Name()) })
		slices.Sort(out)
		return slices.Compact(out)
	}
	all := names(documents)
	for _, g := range BreakdownGroups {
		got := names(documents.without(g.Fields))
		var want []string
		for _, name := range all {
			key, _, _ := strings.Cut(name, ".")
			if !slices.Contains(g.Fields, name) && !slices.Contains(g.Fields, key) {
				want = append(want, name)
			}
		}
		if !slices.Equal(got, want) {
			t.Errorf("without %s: fields %v, want %v", g.Name, got, want)
		}
		if len(got) == len(all) && g.Name != "ids and metalake" {
			t.Errorf("without %s: nothing left out of a table's document", g.Name)
		}
	}
	// Every field of the document is in a group.
	for _, name := range all {
		key, _, _ := strings.Cut(name, ".")
		if !slices.ContainsFunc(BreakdownGroups, func(g FieldGroup) bool {
			return slices.Contains(g.Fields, name) || slices.Contains(g.Fields, key)
		}) {
			t.Errorf("field %s is in no breakdown group", name)
		}
	}
}

// TestMeasureBreakdown: each group costs bytes, the stored payloads the
// most of these tables' groups but none larger than the whole.
func TestMeasureBreakdown(t *testing.T) {
	b, err := MeasureBreakdown(context.Background(), breakdownRecords(300), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if b.Docs != 300 || b.Whole.Bytes <= 0 || b.Whole.Segments != 1 || len(b.Groups) != len(BreakdownGroups) {
		t.Fatalf("breakdown %+v", b)
	}
	for _, g := range b.Groups {
		if g.Without.Bytes <= 0 || g.Without.Bytes >= b.Whole.Bytes {
			t.Errorf("without %s: %d bytes, the whole index %d", g.Group.Name, g.Without.Bytes, b.Whole.Bytes)
		}
	}
	if g := b.Groups[0]; g.Group.Fields[0] != searchdoc.FieldStored || g.Bytes < b.Whole.Bytes/10 {
		t.Errorf("the stored payloads cost %d of %d bytes", g.Bytes, b.Whole.Bytes)
	}
}
