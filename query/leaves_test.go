package query

import (
	"testing"

	blevequery "github.com/blevesearch/bleve/v2/search/query"
	"github.com/google/go-cmp/cmp"
)

func TestLeaves(t *testing.T) {
	tests := []struct {
		in   string
		opts Options
		want []Leaf
	}{
		{"tags:pii", Options{}, []Leaf{{Field: FieldTagsExact, Text: "pii"}}},
		{"tags:pi*", Options{}, []Leaf{{Field: FieldTagsExact, Text: "pi"}, {Field: FieldTagsExact, Text: "pi", Prefix: true}}},
		{"schema:EmpTel", Options{}, []Leaf{{Field: FieldSchemaFields, Text: "emptel"}}},
		{"schema:EmpTel", Options{Scope: ScopeUser}, nil},
		{"Sales", Options{Scope: ScopeUser}, []Leaf{
			{Field: FieldUserExact, Text: "sales"}, {Field: FieldUserValues, Text: "sales"}}},
		// Negated terms never explain a hit.
		{"tags:pii -tags:gold", Options{}, []Leaf{{Field: FieldTagsExact, Text: "pii"}}},
		{"* -tags:gold", Options{}, nil},
		{"*", Options{}, nil},
	}
	for _, tt := range tests {
		q, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		bq, err := Compile(q, tt.opts)
		if err != nil {
			t.Fatalf("Compile(%q): %v", tt.in, err)
		}
		got := Leaves(bq)
		if diff := cmp.Diff(tt.want, got, cmpLeaves); diff != "" {
			t.Errorf("Leaves(%q, scope %q) (-want +got):\n%s", tt.in, tt.opts.Scope, diff)
		}
	}
}

// cmpLeaves compares leaf lists as sets: their order follows the compiled
// tree, which is not part of the contract.
var cmpLeaves = cmp.Transformer("set", func(ls []Leaf) map[Leaf]bool {
	m := map[Leaf]bool{}
	for _, l := range ls {
		m[l] = true
	}
	return m
})

// TestPrefixUsesPrefixFields: a prefix the prefix fields hold is one term
// there; a longer one, one with a space, or a typed schema entry expands
// over the plain field.
func TestPrefixUsesPrefixFields(t *testing.T) {
	long := "abcdefghi" // MaxPrefixRunes + 1
	tests := []struct {
		field, text string
		want        string // the query's field, "term" or "prefix"
	}{
		{FieldUserValues, "kof", FieldUserValuesPrefix + " term"},
		{FieldSystemValues, "ÄÄÄ", FieldSystemValuesPrefix + " term"},
		{FieldSchemaFields, "emptel", FieldSchemaFieldsPrefix + " term"},
		{FieldSchemaFields, "emp.te", FieldSchemaFields + " prefix"},
		{FieldUserValues, "k", FieldUserValues + " prefix"},
		{FieldSchemaFields, "emptel:int", FieldSchemaFields + " prefix"},
		{FieldUserValues, long, FieldUserValues + " prefix"},
		{FieldUserValues, "alpha ", FieldUserValues + " prefix"},
		{FieldTagsExact, "pi", FieldTagsExact + " prefix"},
	}
	for _, tt := range tests {
		var m match
		m.prefix(prefixMatch, tt.field, tt.text)
		var got string
		switch x := m[prefixMatch][0].(type) {
		case *blevequery.TermQuery:
			got = x.FieldVal + " term"
		case *blevequery.PrefixQuery:
			got = x.FieldVal + " prefix"
		}
		if got != tt.want {
			t.Errorf("prefix(%s, %q) = %s, want %s", tt.field, tt.text, got, tt.want)
		}
	}
}
