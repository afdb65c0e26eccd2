package query

import blevequery "github.com/blevesearch/bleve/v2/search/query"

// TermPlan is a compiled query that is one term's clauses, each one exact
// term of one field: a bare word, a whole value, a key:value, a tag, a
// schema field, an indexed prefix. Its matches and scores follow from the
// postings of those terms alone, so a search can compute them with bitmap
// operations instead of Bleve's searchers (indexer/bitmaps.go). Everything
// else (phrases spanning terms, and, or, not, prefixes the index has no
// n-grams for) has no plan and runs through Bleve.
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

// FieldTerm is an exact term of a field.
type FieldTerm struct{ Field, Term string }

// Score is the score of a document that matched the kinds of mask, equal
// to the bit to the score Bleve's searchers give it.
func (p *TermPlan) Score(mask int) float64 {
	return rescaled(p.scores[mask], p.mul, p.add)
}

// PlanOf returns the plan of a query Compile returned, or false when the
// query is not one term's exact clauses.
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
			tq, ok := q.(*blevequery.TermQuery)
			if !ok || tq.Field() == "" || tq.BoostVal != nil {
				return nil, false
			}
			p.Clauses[k] = append(p.Clauses[k], FieldTerm{Field: tq.Field(), Term: tq.Term})
		}
	}
	return p, true
}
