package query

import (
	blevequery "github.com/blevesearch/bleve/v2/search/query"
)

// prefixFieldBase maps each prefix field back to its field.
var prefixFieldBase = func() map[string]string {
	m := map[string]string{}
	for f, p := range PrefixFields {
		m[p] = f
	}
	return m
}()

// Leaf is one term of a compiled query that a matching document can
// contain: a term of Field, or with Prefix any term of Field starting with
// Text.
type Leaf struct {
	Field  string
	Text   string
	Prefix bool
}

// Leaves lists the terms of a query compiled by Compile that can make a
// document match, leaving out negated parts. Search uses them to explain
// each hit of a page ("matches") from the hit's stored metadata, so that
// neither the index nor the search has to carry term locations.
func Leaves(bq blevequery.Query) []Leaf {
	var out []Leaf
	var walk func(blevequery.Query)
	walk = func(bq blevequery.Query) {
		switch x := bq.(type) {
		case *rescored:
			walk(x.Query)
		case *termQuery:
			for _, qs := range x.Clauses {
				for _, q := range qs {
					walk(q)
				}
			}
		case *blevequery.BooleanQuery:
			if x.Must != nil {
				walk(x.Must)
			}
			if x.Should != nil {
				walk(x.Should)
			}
		case *blevequery.ConjunctionQuery:
			for _, c := range x.Conjuncts {
				walk(c)
			}
		case *blevequery.DisjunctionQuery:
			for _, d := range x.Disjuncts {
				walk(d)
			}
		case *blevequery.TermQuery:
			if base, ok := prefixFieldBase[x.FieldVal]; ok {
				out = append(out, Leaf{Field: base, Text: x.Term, Prefix: true})
				break
			}
			out = append(out, Leaf{Field: x.FieldVal, Text: x.Term})
		case *blevequery.PrefixQuery:
			out = append(out, Leaf{Field: x.FieldVal, Text: x.Prefix, Prefix: true})
		}
	}
	walk(bq)
	return out
}
