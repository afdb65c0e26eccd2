package search

import (
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/registry"
	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/analyzers"
	q "github.com/semcat/semcat/query"
	"github.com/semcat/semcat/searchdoc"
)

// TestMatches explains hits from the compiled query's terms and the stored
// metadata: only what the entity holds, for exact fields only whole values
// and tags, and nothing for negated terms.
func TestMatches(t *testing.T) {
	a, err := registry.NewCache().AnalyzerNamed(analyzers.AnalyzerSchemaField)
	if err != nil {
		t.Fatal(err)
	}
	fields := tokensOf(a)
	// Longer than analyzers.MaxWholeBytes: indexed cut and hashed.
	longValue := strings.Repeat("Alpha ", 60) + "end"
	longKey := strings.Repeat("鍵", 100)
	clipped := longValue[:255] + "…" // 256 characters
	st := &searchdoc.Payload{
		Entity: semcat.SearchEntity{Type: "table", Namespace: []string{"m", "c", "s"}, Name: "Employees"},
		Metadata: semcat.Metadata{
			User: semcat.MetadataPart{Properties: map[string]string{"owner": "Foo Bar", "Codename": "x-ray", "ddl": longValue, longKey: "v"}, Tags: []string{"tango", "x-tag"}},
			System: semcat.MetadataPart{Properties: map[string]string{"entity-name": "Employees", "schema": "EmpTel integer"},
				Tags: []string{}},
		},
		Fields:   []string{"EmpName:string", "EmpContact:struct", "EmpContact.EmpTel:integer"},
		Comments: []semcat.ColumnText{{Path: "EmpContact.EmpTel", Text: "Work telephone number"}},
	}
	tests := []struct {
		query string
		want  []semcat.Match
	}{
		{"tags:ta*", []semcat.Match{{Key: "tags", Value: "tango"}}},
		{"tags:tag foo", []semcat.Match{{Key: "owner", Value: "Foo Bar"}}},
		{"tango", []semcat.Match{{Key: "tags", Value: "tango"}}},
		{`"foo bar"`, []semcat.Match{{Key: "owner", Value: "Foo Bar"}}},
		{"x", []semcat.Match{{Key: "Codename", Value: "x-ray"}, {Key: "tags", Value: "x-tag"}}},
		{`"x"`, nil},
		{"codename:ray", []semcat.Match{{Key: "Codename", Value: "x-ray"}}},
		{"schema:EmpTel", []semcat.Match{{Key: "column", Field: "EmpContact.EmpTel", Value: "EmpContact.EmpTel", In: "name"}}},
		{"schema:EmpC*", []semcat.Match{{Key: "column", Field: "EmpContact", Value: "EmpContact", In: "name"},
			{Key: "column", Field: "EmpContact.EmpTel", Value: "EmpContact.EmpTel", In: "name"}}},
		// The name once: entity-name repeats it.
		{"employees", []semcat.Match{{Key: "name", Value: "Employees"}}},
		// A column's comment, named by its path; its name before its comment.
		{"telephone", []semcat.Match{{Key: "column", Field: "EmpContact.EmpTel", Value: "Work telephone number", In: "comment"}}},
		{"emptel work", []semcat.Match{{Key: "column", Field: "EmpContact.EmpTel", Value: "EmpContact.EmpTel", In: "name"}}},
		// Tags once, their values together.
		{"tango x-tag", []semcat.Match{{Key: "tags", Value: "tango, x-tag"}}},
		{"foo -tags:tango", []semcat.Match{{Key: "owner", Value: "Foo Bar"}}},
		{"nothing", nil},
		{`"` + longValue + `"`, []semcat.Match{{Key: "ddl", Value: clipped}}},
		{`DDL:"` + strings.ToLower(longValue) + `"`, []semcat.Match{{Key: "ddl", Value: clipped}}},
		{`"` + longValue + `x"`, nil},
		{`"` + longValue[:280] + `*"`, []semcat.Match{{Key: "ddl", Value: clipped}}},
		{`"alpha alpha*"`, []semcat.Match{{Key: "ddl", Value: clipped}}},
		{"properties:" + longKey, []semcat.Match{{Key: longKey, Value: "v"}}},
	}
	for _, tt := range tests {
		parsed, err := q.Parse(tt.query)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.query, err)
		}
		plan, err := q.NewPlan(parsed, q.Options{})
		if err != nil {
			t.Fatal(err)
		}
		got := matches(plan.Leaves(), st, fields)
		if diff := cmp.Diff(tt.want, got, cmpMatchSet); diff != "" {
			t.Errorf("matches of %q (-want +got):\n%s", tt.query, diff)
		}
	}
}

// cmpMatchSet compares matches as sets.
var cmpMatchSet = cmp.Transformer("set", func(ms []semcat.Match) map[semcat.Match]bool {
	out := map[semcat.Match]bool{}
	for _, m := range ms {
		out[m] = true
	}
	return out
})

// TestSquashHoldsEveryTerm: matches skips a value whose squashed text does
// not contain the leaf's, which is sound only if every term the analyzers
// make of a value, squashed, is a substring of the squashed value.
func TestSquashHoldsEveryTerm(t *testing.T) {
	cache := registry.NewCache()
	for _, name := range []string{analyzers.AnalyzerValue, analyzers.AnalyzerExact, analyzers.AnalyzerSchemaField} {
		a, err := cache.AnalyzerNamed(name)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []string{
			"Alpha Tango  Charlie", "  av4_av5 tag12-tag33 ", "a.b:Integer", "EmpContact . EmpTel : integer",
			"Straße ÄÖÜ\u00a0Ünïcode\tTAB", "İstanbul ΣΊΣΥΦΟΣ", "x:", ":y", "struct<EmpTel integer>", "ǅemo ǈj",
		} {
			for _, term := range tokensOf(a)(v) {
				if !strings.Contains(squash(v), squash(term)) {
					t.Errorf("%s: term %q of %q: %q is not in %q", name, term, v, squash(term), squash(v))
				}
			}
		}
	}
}
