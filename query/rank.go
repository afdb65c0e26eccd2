package query

import (
	"context"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	blevequery "github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/semcat/semcat/analyzers"
)

// Ranking (SPEC §5.4). Bleve's own term scores (tf-idf, field-length norms)
// would let a rare token in a short field outrank an exact name, and would
// almost never tie, so the name/identifier tie-break would never apply. So
// every score is set here, and depends only on which terms an entity matched
// and how:
//
//   - Each kind of match a term makes — exact name, whole value, token,
//     prefix — scores a constant (kindWeight), however many fields made it.
//   - A term scores termScore plus its kinds' sum times how many kinds
//     matched. With the weights 1000/100/10/1 the best kind decides: a term
//     that matched the name exactly (≥ 1000) beats any without a name match
//     (≤ 3×111), and so on down.
//   - Terms combine with Bleve's sums: an and adds its terms; an or adds its
//     matched terms and multiplies by matched/total. termScore is so much
//     larger than any term's quality (at most 4,444) that matching one
//     more term outweighs any difference of quality: always without
//     required terms, and with them while required × optional terms stay
//     under 22,000 (termScore / 4,444: the required terms' qualities can
//     differ by 4,444 each, one more optional term adds termScore/optional).
//   - Compile divides the total by termScore, so a score is about the number
//     of terms matched, and entities that matched the same way tie exactly.
const termScore = 1e8

// kind is the kind of match a term clause makes, from weakest to strongest.
type kind int

const (
	prefixMatch kind = iota // a token or value starting with the term
	tokenMatch              // a token equal to the term
	wholeMatch              // a whole value, tag, key or schema entry equal to the term
	nameMatch               // the entity's name equal to the term
	numKinds
)

var kindWeight = [numKinds]float64{prefixMatch: 1, tokenMatch: 10, wholeMatch: 100, nameMatch: 1000}

// match collects one term's clauses by the kind of match they make.
type match [numKinds][]blevequery.Query

// term adds a term: text is a normalized value (exact), which on a field
// of whole values becomes the term AnalyzerExact makes of it.
func (m *match) term(k kind, field, text string) {
	if isWholeField(field) {
		text = analyzers.WholeTerm(text)
	}
	q := blevequery.NewTermQuery(text)
	q.SetField(field)
	m[k] = append(m[k], q)
}

// prefix adds a prefix term: one term of field's prefix field when the
// index holds that prefix there (edge n-grams), else a PrefixQuery, which
// Bleve expands over every term of field that starts with text.
func (m *match) prefix(k kind, field, text string) {
	if pf, ok := PrefixFields[field]; ok && prefixIndexed(field, text) {
		m.term(k, pf, text)
		return
	}
	if isWholeField(field) {
		text = analyzers.WholePrefix(text)
	}
	q := blevequery.NewPrefixQuery(text)
	q.SetField(field)
	m[k] = append(m[k], q)
}

// prefixIndexed reports whether field's prefix field holds the prefix text
// (see analyzers.AnalyzerValuePrefix and AnalyzerSchemaFieldPrefix).
func prefixIndexed(field, text string) bool {
	if n := utf8.RuneCountInString(text); n < analyzers.MinPrefixRunes || n > analyzers.MaxPrefixRunes || strings.ContainsRune(text, ' ') {
		return false
	}
	return field != FieldSchemaFields || !strings.ContainsAny(text, ".:")
}

// query is the term's Bleve query, scored as the comment on termScore says;
// a match-none query when it has no clauses.
func (m *match) query() blevequery.Query {
	for _, qs := range m {
		if len(qs) > 0 {
			return &termQuery{Clauses: *m}
		}
	}
	return blevequery.NewMatchNoneQuery()
}

// disjunction is the Bleve disjunction of qs, or qs[0] alone.
func disjunction(qs []blevequery.Query) blevequery.Query {
	if len(qs) == 1 {
		return qs[0]
	}
	return blevequery.NewDisjunctionQuery(qs)
}

// rescored matches what Query matches and scores each match
// Mul × (its score under Query) + Add.
type rescored struct {
	Query    blevequery.Query
	Mul, Add float64
}

func rescore(q blevequery.Query, mul, add float64) *rescored {
	return &rescored{Query: q, Mul: mul, Add: add}
}

// Searcher implements blevequery.Query.
func (r *rescored) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	child := options
	if r.Mul == 0 {
		// The child's scores are discarded: let Bleve skip computing
		// them (and merge its term postings unscored).
		child.Score = "none"
	}
	s, err := r.Query.Searcher(ctx, i, m, child)
	if err != nil {
		return nil, err
	}
	if _, none := s.(*searcher.MatchNoneSearcher); none {
		// Kept as it is: Bleve drops match-none clauses it recognises.
		return s, nil
	}
	return &rescoredSearcher{Searcher: s, mul: r.Mul, add: r.Add, explain: options.Explain}, nil
}

// MarshalJSON shows the query in Bleve's JSON dumps (logs, debugging).
func (r *rescored) MarshalJSON() ([]byte, error) {
	type body rescored // without the method
	return json.Marshal(map[string]*body{"semcat_rescore": (*body)(r)})
}

// rescaled is a score rescored by mul and add: one function, so that a
// score computed without the searchers (PlanOf) is equal to the bit.
func rescaled(score, mul, add float64) float64 { return mul*score + add }

// rescoredSearcher is rescored's searcher: the child's, with each match's
// score rewritten.
type rescoredSearcher struct {
	search.Searcher
	mul, add float64
	explain  bool
}

func (s *rescoredSearcher) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	d, err := s.Searcher.Next(ctx)
	s.apply(d)
	return d, err
}

func (s *rescoredSearcher) Advance(ctx *search.SearchContext, id index.IndexInternalID) (*search.DocumentMatch, error) {
	d, err := s.Searcher.Advance(ctx, id)
	s.apply(d)
	return d, err
}

func (s *rescoredSearcher) apply(d *search.DocumentMatch) {
	if d == nil {
		return
	}
	d.Score = rescaled(d.Score, s.mul, s.add)
	if s.explain {
		children := []*search.Explanation{}
		if d.Expl != nil && s.mul != 0 {
			children = append(children, d.Expl)
		}
		d.Expl = &search.Explanation{Value: d.Score, Message: "semcat rescore", Children: children}
	}
}
