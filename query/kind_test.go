package query

import (
	"testing"

	blevequery "github.com/blevesearch/bleve/v2/search/query"
	"github.com/google/go-cmp/cmp"
)

// nested rewrites every termQuery of a compiled query into the Bleve
// queries it stands for (see termQuery): per kind, a disjunction of its
// clauses rescored to the kind's constant; over the kinds, a disjunction
// rescored to add termScore.
func nested(q blevequery.Query) blevequery.Query {
	switch x := q.(type) {
	case *termQuery:
		kinds := 0
		for _, qs := range x.Clauses {
			if len(qs) > 0 {
				kinds++
			}
		}
		var byKind []blevequery.Query
		for k, qs := range x.Clauses {
			if len(qs) > 0 {
				byKind = append(byKind, rescore(disjunction(qs), 0, kindWeight[k]*float64(kinds)))
			}
		}
		return rescore(disjunction(byKind), 1, termScore)
	case *rescored:
		return rescore(nested(x.Query), x.Mul, x.Add)
	case *blevequery.BooleanQuery:
		b := blevequery.NewBooleanQuery(nil, nil, nil)
		if x.Must != nil {
			b.Must = nested(x.Must)
		}
		if x.Should != nil {
			b.Should = nested(x.Should)
		}
		if x.MustNot != nil {
			b.MustNot = nested(x.MustNot)
		}
		return b
	case *blevequery.ConjunctionQuery:
		var cs []blevequery.Query
		for _, c := range x.Conjuncts {
			cs = append(cs, nested(c))
		}
		return blevequery.NewConjunctionQuery(cs)
	case *blevequery.DisjunctionQuery:
		var ds []blevequery.Query
		for _, d := range x.Disjuncts {
			ds = append(ds, nested(d))
		}
		d := blevequery.NewDisjunctionQuery(ds)
		d.Min = x.Min
		return d
	}
	return q
}

// TestTermQueryAsNested checks the one-pass term searcher against the
// nested Bleve queries it replaces: the same hits with the same scores, to
// the bit, for single terms (next), required and excluded terms (advance),
// and every scope.
func TestTermQueryAsNested(t *testing.T) {
	idx := mustOpenIndex(t, corpus)
	queries := []string{
		"alpha", "alp*", "a*", `"alpha tango charlie"`, `"alpha tan*"`, "codename:alpha", "codename:alp*",
		`codename:"alpha tango charlie"`, "tags:tag1", "tags:ta*", "tag12", "av4", "schema:EmpTel", "schema:Emp*",
		"EmpTel:integer", "schema:EmpContact.EmpTel", "schema:*", "properties:codename", "codename:*", "*", "nothing",
		"alpha orders", "alpha orders reports alphabet employees", "+alpha -orders", "+alp* +tag*", "alpha +employees",
		"+e* -reports", "+a* +t*", "orders_ds", "schema:orders_ds.amount",
	}
	for _, scope := range []string{"", ScopeUser, ScopeSystem} {
		for _, in := range queries {
			parsed, err := Parse(in)
			if err != nil {
				t.Fatalf("Parse(%q): %v", in, err)
			}
			compiled, err := Compile(parsed, Options{Scope: scope})
			if err != nil {
				t.Fatalf("Compile(%q): %v", in, err)
			}
			got := run(t, idx, compiled)
			want := run(t, idx, nested(compiled))
			if diff := cmp.Diff(want, got, cmp.AllowUnexported(hit{})); diff != "" {
				t.Errorf("%q (scope %q) (-nested +term searcher):\n%s", in, scope, diff)
			}
			if in != "nothing" && len(want) == 0 && scope == "" {
				t.Errorf("%q finds nothing: the test wants hits", in)
			}
		}
	}
}
