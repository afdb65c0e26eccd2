package query

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	blevequery "github.com/blevesearch/bleve/v2/search/query"
	"github.com/blevesearch/bleve/v2/search/searcher"
	index "github.com/blevesearch/bleve_index_api"
)

// termQuery is one term's query: its clauses by kind of match (rank.go),
// merged in one pass. A document scores
//
//	termScore + (number of kinds it matched) × (sum of their kindWeight)
//
// the score that rescored disjunctions of the clauses, one per kind, under
// a rescored disjunction of the kinds would give (see termScore). It is one
// searcher instead of three levels of them: a bare word has six clauses,
// and on a frequent word the nesting cost more per hit than the postings.
type termQuery struct {
	Clauses match
}

// Searcher implements blevequery.Query.
func (t *termQuery) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options search.SearcherOptions) (search.Searcher, error) {
	child := options
	child.Score = "none" // scores come from the kinds alone
	s := &termSearcher{explain: options.Explain, scores: t.Clauses.scores()}
	for k, qs := range t.Clauses {
		for _, q := range qs {
			sub, err := q.Searcher(ctx, i, m, child)
			if err != nil {
				s.Close()
				return nil, err
			}
			if _, none := sub.(*searcher.MatchNoneSearcher); none {
				sub.Close()
				continue
			}
			s.subs = append(s.subs, sub)
			s.kinds = append(s.kinds, kind(k))
		}
	}
	if len(s.subs) == 0 {
		return searcher.NewMatchNoneSearcher(i)
	}
	s.currs = make([]*search.DocumentMatch, len(s.subs))
	return s, nil
}

// scores returns the score of a document by the mask of kinds it matched
// (bit k set: it matched a clause of kind k). Kinds count when they have
// clauses, whether or not the index holds their terms.
func (m match) scores() (out [1 << numKinds]float64) {
	kinds := 0
	for _, qs := range m {
		if len(qs) > 0 {
			kinds++
		}
	}
	for mask := range out {
		matched, sum := 0.0, 0.0
		for k := range numKinds {
			if mask&(1<<k) != 0 {
				matched++
				sum += kindWeight[k] * float64(kinds)
			}
		}
		// As a rescored kind disjunction: each matched kind's constant,
		// times Bleve's coordination factor matched/kinds, computed as
		// Bleve computes it so that scores stay equal to the bit.
		out[mask] = sum*(matched/float64(kinds)) + termScore
	}
	return out
}

// MarshalJSON shows the query in Bleve's JSON dumps (logs, debugging).
func (t *termQuery) MarshalJSON() ([]byte, error) {
	clauses := map[string][]blevequery.Query{}
	for k, qs := range t.Clauses {
		if len(qs) > 0 {
			clauses[kindNames[k]] = qs
		}
	}
	return json.Marshal(map[string]any{"semcat_term": clauses})
}

var kindNames = [numKinds]string{prefixMatch: "prefix", tokenMatch: "token", wholeMatch: "whole", nameMatch: "name"}

// termSearcher merges its clauses' searchers in document order.
type termSearcher struct {
	subs        []search.Searcher
	kinds       []kind                  // of each sub
	currs       []*search.DocumentMatch // each sub's current match; nil when done
	scores      [1 << numKinds]float64  // by the mask of kinds matched
	initialized bool
	explain     bool
}

func (s *termSearcher) init(ctx *search.SearchContext) error {
	for i, sub := range s.subs {
		d, err := sub.Next(ctx)
		if err != nil {
			return err
		}
		s.currs[i] = d
	}
	s.initialized = true
	return nil
}

func (s *termSearcher) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	if !s.initialized {
		if err := s.init(ctx); err != nil {
			return nil, err
		}
	}
	return s.emit(ctx)
}

func (s *termSearcher) Advance(ctx *search.SearchContext, id index.IndexInternalID) (*search.DocumentMatch, error) {
	if !s.initialized {
		if err := s.init(ctx); err != nil {
			return nil, err
		}
	}
	for i, d := range s.currs {
		if d == nil || d.IndexInternalID.Compare(id) >= 0 {
			continue
		}
		ctx.DocumentMatchPool.Put(d)
		next, err := s.subs[i].Advance(ctx, id)
		if err != nil {
			return nil, err
		}
		s.currs[i] = next
	}
	return s.emit(ctx)
}

// emit returns the match of the lowest current document, scored by the
// kinds of the subs on it, and moves those subs on.
func (s *termSearcher) emit(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	var lowest index.IndexInternalID
	for _, d := range s.currs {
		if d != nil && (lowest == nil || d.IndexInternalID.Compare(lowest) < 0) {
			lowest = d.IndexInternalID
		}
	}
	if lowest == nil {
		return nil, nil
	}
	var out *search.DocumentMatch
	mask := 0
	for i, d := range s.currs {
		if d == nil || !d.IndexInternalID.Equals(lowest) {
			continue
		}
		mask |= 1 << s.kinds[i]
		if out == nil {
			out = d
		} else {
			ctx.DocumentMatchPool.Put(d)
		}
		next, err := s.subs[i].Next(ctx)
		if err != nil {
			return nil, err
		}
		s.currs[i] = next
	}
	out.Score = s.scores[mask]
	if s.explain {
		out.Expl = &search.Explanation{Value: out.Score, Message: fmt.Sprintf("semcat term: matched kinds %04b (name, whole, token, prefix)", mask)}
	}
	return out, nil
}

func (s *termSearcher) Close() error {
	var first error
	for _, sub := range s.subs {
		if err := sub.Close(); err != nil && first == nil {
			first = err
		}
	}
	return first
}

func (s *termSearcher) Weight() float64 {
	var w float64
	for _, sub := range s.subs {
		w += sub.Weight()
	}
	return w
}

func (s *termSearcher) SetQueryNorm(n float64) {
	for _, sub := range s.subs {
		sub.SetQueryNorm(n)
	}
}

func (s *termSearcher) Count() uint64 {
	var n uint64
	for _, sub := range s.subs {
		n += sub.Count()
	}
	return n
}

func (s *termSearcher) Min() int { return 0 }

func (s *termSearcher) Size() int {
	n := 0
	for _, sub := range s.subs {
		n += sub.Size()
	}
	return n
}

func (s *termSearcher) DocumentMatchPoolSize() int {
	n := len(s.subs)
	for _, sub := range s.subs {
		n += sub.DocumentMatchPoolSize()
	}
	return n
}
