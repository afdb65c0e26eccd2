package indexer_test

import (
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/search"
	"github.com/semcat/semcat/searchdoc"
)

// TestSchemaTextIndexedOnce: a table's schema text does not index its
// field names a second time among the system value words (the schema
// entries hold them), yet every word, prefix and whole-value search of the
// text still finds the table.
func TestSchemaTextIndexedOnce(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	tc := semcat.TableCreate{Name: "staff", Columns: []semcat.Column{
		{Name: "EmpName", Type: &semcat.Type{Name: "string"}},
		{Name: "EmpContact", Type: &semcat.Type{Name: "struct", Fields: []semcat.StructField{
			{Name: "EmpTel", Type: &semcat.Type{Name: "integer"}},
			{Name: "emp_addr", Type: &semcat.Type{Name: "string"}},
		}}},
	}}
	checker(t)(s.CreateTable(ctx, ns, tc))
	catchUp(t, x)

	// The words of the schema text that no entry indexes stay; the names
	// go.
	terms := map[string]bool{}
	dict, err := x.Index().FieldDict(searchdoc.FieldSystemValues)
	if err != nil {
		t.Fatal(err)
	}
	for e, err := dict.Next(); e != nil && err == nil; e, err = dict.Next() {
		terms[e.Term] = true
	}
	dict.Close()
	for _, term := range []string{"struct<emptel", "integer,", "integer", "string>", "emp_addr", "addr"} {
		if !terms[term] {
			t.Errorf("%s lacks the schema word %q", searchdoc.FieldSystemValues, term)
		}
	}
	for _, term := range []string{"empname", "empcontact", "emptel"} {
		if terms[term] {
			t.Errorf("%s holds the field name %q, which the schema entries index", searchdoc.FieldSystemValues, term)
		}
	}

	svc := &search.Service{Index: x, Store: s}
	for _, query := range []string{
		"EmpName", "empcontact", "EmpTel", "Emp*", "empt*", "e*", "emptel*", "emptelx*", "addr", "ad*", "integer", "integ*",
		`"EmpName string, EmpContact struct<EmpTel integer, emp_addr string>"`, `"empname string, empcon*"`,
	} {
		res, err := svc.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: query, Types: []string{"table"}, Limit: 5})
		if err != nil {
			t.Fatal(err)
		}
		want := 1
		if query == "emptelx*" {
			want = 0
		}
		if len(res.Results) != want {
			t.Errorf("search %s: %d tables, want %d", query, len(res.Results), want)
		}
	}
}
