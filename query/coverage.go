package query

import (
	"context"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// How much matched comes first (SPEC §5.4, revision 3). As Meilisearch's
// first ranking rule, *words*, a document that matches more of a query's
// words ranks above one that matches fewer, whatever else: `refunded
// orders` puts the tables that match both words above the table named
// orders. A word counts as matched when any term covering it (Term.Covers:
// the word itself in any of its forms or typos, or a compound, acronym or
// synonym standing for it with others) matched the document. Stop words
// and an identifier's parts cover nothing.
//
// The rule is a bucket sort folded into the one score that the order is
// sorted by (SPEC §5.4: "score is the value the order is sorted by"): each
// covered word adds coverageStep, a constant of the evaluation larger than
// every score the terms can add together (the sum of each term's bound),
// so that the buckets never overlap and within one the terms' scores
// order as before.

// addCoverage adds each hit's coverage to its score, when the query has
// two words or more to cover.
func addCoverage(ctx context.Context, out *Evaluation, scoring []*termRun, idfs []float64) error {
	var words []int // the words some document matched: the others tell none apart
	for _, r := range scoring {
		if r.df == 0 {
			continue
		}
		for _, w := range r.term.Covers {
			if !slices.Contains(words, w) {
				words = append(words, w)
			}
		}
	}
	if len(words) < 2 {
		return nil
	}
	var step float64
	for i, r := range scoring {
		if len(r.groups) > 0 {
			step += r.bounds(idfs[i])[0]
		}
	}
	step = max(1, 2*step)
	inc := float32(step)
	buf := make([]uint32, checkEvery)
	for i := range out.Segments {
		sr := &out.Segments[i]
		if sr.Scores == nil || sr.Hits.IsEmpty() {
			continue
		}
		for _, w := range words {
			var covering []*roaring.Bitmap
			for _, r := range scoring {
				if slices.Contains(r.term.Covers, w) && r.hits[i] != nil {
					covering = append(covering, r.hits[i])
				}
			}
			matched := roaring.FastOr(covering...)
			matched.And(sr.Hits)
			it := matched.ManyIterator()
			for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
				if err := ctx.Err(); err != nil {
					return err
				}
				for _, d := range buf[:n] {
					sr.Scores[d] += inc
				}
			}
		}
	}
	return nil
}
