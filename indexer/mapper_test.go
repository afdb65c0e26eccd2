package indexer

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2/document"
	"github.com/blevesearch/bleve/v2/mapping"
	index "github.com/blevesearch/bleve_index_api"
	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/searchdoc"
)

// TestMapperAgreesWithMapping: the documents the indexer writes hold the
// fields, analysed terms and stored values that Bleve's own mapping of the
// same field map gives, field by field; only the property maps' fields
// differ, in keeping no term vectors. A field the mapping does not know is
// an error.
func TestMapperAgreesWithMapping(t *testing.T) {
	im := newMapping().(*mapping.IndexMappingImpl)
	comment := "Who works here"
	desc := "Revenue booked"
	created := time.Date(2026, 11, 30, 6, 5, 12, 345678000, time.UTC)
	records := []*semcat.EntityRecord{
		{Kind: semcat.KindCatalog, ID: 1, MetalakeID: 1, CatalogID: 1, Metalake: "m", Catalog: "rel", Name: "rel",
			CatalogType: semcat.CatalogRelational, Properties: map[string]string{}, Audit: semcat.Audit{Creator: "ann", CreateTime: created}},
		{Kind: semcat.KindTable, ID: 7, MetalakeID: 1, CatalogID: 1, SchemaID: 3, Metalake: "m", Catalog: "rel", Schema: "hr",
			Name: "Employees", Comment: &comment,
			Properties: map[string]string{"Owner": "Alice Smith", "owner": "bob", "released": "2024-01-15", "Codename": "Alpha Tango-Charlie", "empty": ""},
			Tags:       []string{"pii", "Tag22"},
			Audit:      semcat.Audit{Creator: "ann", CreateTime: created},
			Columns: []semcat.Column{
				{Name: "EmpName", Type: &semcat.Type{Name: "string"}},
				{Name: "EmpContact", Type: &semcat.Type{Name: "struct", Fields: []semcat.StructField{
					{Name: "EmpTel", Type: &semcat.Type{Name: "integer"}}, {Name: "EmpAddr", Type: &semcat.Type{Name: "string"}}}}},
			}},
		{Kind: semcat.KindMetric, ID: 9, MetalakeID: 1, CatalogID: 1, SchemaID: 3, ModelID: 8, Metalake: "m", Catalog: "rel", Schema: "hr", Model: "sales",
			Name: "revenue", Audit: semcat.Audit{Creator: "ann", CreateTime: created},
			Metric: &semcat.Metric{Name: "revenue", Description: &desc, Expression: &semcat.Expression{Dialects: []semcat.DialectExpression{
				{Dialect: "ANSI_SQL", Expression: "SUM(amount)"}, {Dialect: "SPARK", Expression: "sum(amount)"}}}}},
	}
	for _, r := range records {
		fields, err := searchdoc.Document(r)
		if err != nil {
			t.Fatal(err)
		}
		id := DocID(r.Kind, r.ID)
		want := document.NewDocument(id)
		if err := im.MapDocument(want, fields); err != nil {
			t.Fatal(err)
		}
		got, err := documents.document(id, fields)
		if err != nil {
			t.Fatal(err)
		}
		gotFields := fieldsOf(got, false)
		if diff := cmp.Diff(fieldsOf(want, true), gotFields); diff != "" {
			t.Errorf("%s (-Bleve's mapping +the indexer's):\n%s", id, diff)
		}
		// Each name's values are one field, analysed once (multiField).
		perName := map[string]int{}
		got.VisitFields(func(f index.Field) { perName[f.Name()]++ })
		for name, n := range perName {
			if n > 1 {
				t.Errorf("%s: %d fields named %s, want their values in one", id, n, name)
			}
		}
		for _, f := range gotFields {
			if strings.Contains(f, "vectors") {
				t.Errorf("%s: %s keeps term vectors", id, f)
			}
		}
		if !slices.ContainsFunc(gotFields, func(f string) bool {
			return strings.HasPrefix(f, "s.creation-time ") && strings.Contains(f, " 2026:1 ")
		}) {
			t.Errorf("%s: creation-time is not indexed as text: %v", id, gotFields)
		}
	}

	if _, err := documents.document("x", map[string]any{"nonsense": "a"}); err == nil {
		t.Error("a field the mapping does not name was accepted")
	}
	if _, err := documents.document("x", map[string]any{"type": 3}); err == nil {
		t.Error("a number was accepted as a field value")
	}
}

// fieldsOf describes each field name of doc after analysis, as a segment
// holds it: "name options length [terms] stored-values", with the terms
// and lengths of the fields of one name summed, as Bleve's segment builder
// sums them; dynamic says to ignore term vectors on the property maps'
// fields, which only Bleve's mapping keeps.
func fieldsOf(doc *document.Document, dynamic bool) []string {
	type field struct {
		flags  string
		length int
		freqs  map[string]int
		stored []string
	}
	byName := map[string]*field{}
	doc.VisitFields(func(f index.Field) {
		opts := f.Options()
		if dynamic && strings.Contains(f.Name(), ".") {
			opts &^= index.IncludeTermVectors
		}
		var flags []string
		for _, o := range []struct {
			bit  index.FieldIndexingOptions
			name string
		}{{index.IndexField, "indexed"}, {index.StoreField, "stored"}, {index.IncludeTermVectors, "vectors"}, {index.DocValues, "docvalues"}, {index.SkipFreqNorm, "nofreqs"}} {
			if opts&o.bit != 0 {
				flags = append(flags, o.name)
			}
		}
		agg := byName[f.Name()]
		if agg == nil {
			agg = &field{flags: strings.Join(flags, ","), freqs: map[string]int{}}
			byName[f.Name()] = agg
		} else if s := strings.Join(flags, ","); s != agg.flags {
			agg.flags += "|" + s
		}
		if opts.IsIndexed() {
			f.Analyze()
			agg.length += f.AnalyzedLength()
			for term, tf := range f.AnalyzedTokenFrequencies() {
				agg.freqs[term] += tf.Frequency()
			}
		}
		if opts.IsStored() {
			agg.stored = append(agg.stored, string(f.Value()))
		}
	})
	var out []string
	for name, f := range byName {
		var terms []string
		for term, n := range f.freqs {
			terms = append(terms, fmt.Sprintf("%s:%d", term, n))
		}
		sort.Strings(terms)
		out = append(out, fmt.Sprintf("%s %s %d [ %s ] %q", name, f.flags, f.length, strings.Join(terms, " "), f.stored))
	}
	sort.Strings(out)
	return out
}

// TestMultiFieldSize: the size a multiField counts while analysing is what
// Bleve's TokenFrequencies.Size would walk its terms to say.
func TestMultiFieldSize(t *testing.T) {
	for _, r := range documents.fields[searchdoc.FieldSchemaFields] {
		f := &multiField{name: r.name, values: []string{"EmpName:string", "EmpContact:struct", "EmpContact.EmpTel:integer", "EmpContact.EmpAddr:string", "Größe:double", "Region:string"}, rule: r}
		f.Analyze()
		if len(f.freqs) < 5 {
			t.Fatalf("%s: %d terms", r.name, len(f.freqs))
		}
		if got, want := f.freqsSize, f.freqs.Size(); got != want {
			t.Errorf("%s: counted %d bytes, TokenFrequencies.Size says %d", r.name, got, want)
		}
	}
}
