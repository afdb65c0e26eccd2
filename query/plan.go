package query

import blevequery "github.com/blevesearch/bleve/v2/search/query"

// TermPlan is a compiled query that is one term's clauses, each a term of
// one field or the terms of a field that start with a prefix: a bare word,
// a prefix, a whole value, a key:value, a tag, a schema field. Its matches
// and scores follow from the postings of those terms alone, so a search
// can compute them with bitmap operations instead of Bleve's searchers
// (indexer/bitmaps.go). Everything else (several terms, negation, *) has
// no plan and runs through Bleve.
type TermPlan struct {
	// Clauses are the clauses by kind: a document matches kind k when it
	// holds one of Clauses[k].
	Clauses [NumKinds][]FieldTerm
	scores  [1 << numKinds]float64
	mul     float64
	add     float64
}

// NumKinds is the number of kinds of match (rank.go); a document's mask of
// kinds has bit k set when it matched a clause of kind k.
const NumKinds = int(numKinds)

// FieldTerm is a term of a field or, with Prefix, every term of the field
// that starts with Term.
type FieldTerm struct {
	Field, Term string
	Prefix      bool
}

// Score is the score of a document that matched the kinds of mask, equal
// to the bit to the score Bleve's searchers give it.
func (p *TermPlan) Score(mask int) float64 {
	return rescaled(p.scores[mask], p.mul, p.add)
}

// PlanOf returns the plan of a query Compile returned, or false when the
// query is not one term's clauses of terms and prefixes.
func PlanOf(compiled blevequery.Query) (*TermPlan, bool) {
	r, ok := compiled.(*rescored)
	if !ok {
		return nil, false
	}
	t, ok := r.Query.(*termQuery)
	if !ok {
		return nil, false
	}
	p := &TermPlan{scores: t.Clauses.scores(), mul: r.Mul, add: r.Add}
	for k, qs := range t.Clauses {
		for _, q := range qs {
			var ft FieldTerm
			switch q := q.(type) {
			case *blevequery.TermQuery:
				ft = FieldTerm{Field: q.Field(), Term: q.Term}
			case *blevequery.PrefixQuery:
				ft = FieldTerm{Field: q.Field(), Term: q.Prefix, Prefix: true}
			default:
				return nil, false
			}
			if ft.Field == "" {
				return nil, false
			}
			p.Clauses[k] = append(p.Clauses[k], ft)
		}
	}
	return p, true
}
