package search

import (
	"context"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"

	q "github.com/semcat/semcat/query"
)

// How much matched comes first (SPEC §5.4, revision 3). As Meilisearch's
// first ranking rule, *words*, a document that matches more of a query's
// words ranks above one that matches fewer, whatever else: `refunded
// orders` puts the tables that match both words above the table named
// orders. A word counts as matched when any term covering it (Term.Covers:
// the word itself in any of its forms or typos, or a compound, acronym or
// synonym standing for it with others) matched the document outside its
// columns, or together with other words anywhere (coveredWords). Stop
// words and an identifier's parts cover nothing.
//
// The rule is a bucket sort folded into the one score that the order is
// sorted by (SPEC §5.4: "score is the value the order is sorted by"): each
// covered word adds coverageStep, a constant of the evaluation larger than
// every score the terms can add together (the sum of each term's bound),
// so that the buckets never overlap and within one the terms' scores
// order as before.
//
// Not every word tells documents apart, though: a word that most of the
// catalog's documents match (`table` in a catalog of tables) would split
// the hits into buckets by chance. Such common words are optional for
// coverage, as in Lucene's common-terms query (Elasticsearch's
// cutoff_frequency): the informative words' coverage orders the hits
// first, and the common words' coverage only within each of its buckets
// (commonWords). A document that matches every word still ranks first.

// addCoverage adds each hit's coverage to its score, when the query has
// two words or more to cover; docs is the number of documents in the
// index.
func addCoverage(ctx context.Context, out *Evaluation, scoring []*termRun, idfs []float64, docs uint64) error {
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
	// Each common word adds a step, each informative one a step more
	// than all the common words together: one informative word more
	// outweighs every common word (with none common, or all, every word
	// adds a step, the buckets of plain coverage).
	common := commonWords(words, scoring, docs)
	var nCommon int
	for _, c := range common {
		if c {
			nCommon++
		}
	}
	incs := make([]float32, len(words))
	for wi := range words {
		incs[wi] = float32(step)
		if !common[wi] {
			incs[wi] = float32(step * float64(nCommon+1))
		}
	}
	buf := make([]uint32, checkEvery)
	for i := range out.Segments {
		sr := &out.Segments[i]
		if sr.Scores == nil || sr.Hits.IsEmpty() {
			continue
		}
		covered := coveredWords(i, words, scoring, sr.Hits)
		for wi, matched := range covered {
			inc := incs[wi]
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

// commonWords reports, for each of words, whether it is common in this
// index: its own term (the one that stands for it alone, in any of its
// forms; the broadest when several do) matches more than half of the
// index's docs documents. The threshold is where the Robertson–Spärck
// Jones inverse document frequency, log((N - df + 0.5) / (df + 0.5)),
// turns negative: from there on, in the probabilistic model BM25 comes
// from, a document holding the word is no likelier to be relevant than
// one without it (BM25 as Lucene scores it adds 1 inside the logarithm
// only to keep such words from scoring below zero). It is a share of the
// catalog at hand, so it holds for a catalog of any size or subject. (On
// the GitLab catalog's tuning queries, lower shares demoted words that
// say what is asked for: `users` in `users deleted on a given day`, 13%
// of the documents, and `accounts` in `which accounts are likely to
// churn soon`, 12%: nDCG@10 of the tuning half 0.868 at a tenth against
// 0.875; at a fifth and at a half it did not move.) A word no term of its
// own stands for is informative.
func commonWords(words []int, scoring []*termRun, docs uint64) []bool {
	out := make([]bool, len(words))
	for wi, w := range words {
		var df uint64
		for _, r := range scoring {
			if !r.term.BoostOnly && len(r.term.Covers) == 1 && r.term.Covers[0] == w {
				df = max(df, r.df)
			}
		}
		out[wi] = 2*df > docs
	}
	return out
}

// coveredWords returns, for each word, the hits of segment i that count
// it as matched: those that match it outside their columns (in the name,
// the description, a tag or value, or the context), or together with
// other words of the query (a compound such as a column zip_code, an
// acronym, a synonym of several words) anywhere. A word found only among
// a table's columns adds to its score, not to its coverage: what a table
// holds says less of what it is than its own description, and a wide
// table (hundreds of columns) holds most words of a sentence somewhere
// among them. (Counting column words for tables that match some word
// outside their columns ranked such tables first for most sentences of
// the GitLab catalog: nDCG@10 0.801 against 0.819.)
func coveredWords(i int, words []int, scoring []*termRun, hits *roaring.Bitmap) []*roaring.Bitmap {
	out := make([]*roaring.Bitmap, len(words))
	for wi, w := range words {
		var found []*roaring.Bitmap
		for _, r := range scoring {
			if !slices.Contains(r.term.Covers, w) || r.hits[i] == nil {
				continue
			}
			if len(r.term.Covers) > 1 {
				found = append(found, r.hits[i])
				continue
			}
			for k, g := range r.groups {
				if bm := r.bms[i][k]; bm != nil && g.Where != q.InColumns {
					found = append(found, bm)
				}
			}
		}
		out[wi] = roaring.FastOr(found...)
		out[wi].And(hits)
	}
	return out
}

// restrictTogether keeps, of each boost-only term of words together, the
// documents that match every word of its run (by any term covering it):
// a document with the words' initials side by side but not the words
// holds another phrase.
func restrictTogether(scoring []*termRun) {
	for _, t := range scoring {
		if !t.term.BoostOnly || len(t.term.Together) == 0 {
			continue
		}
		t.df = 0
		for i := range t.hits {
			var all *roaring.Bitmap
			for _, w := range t.term.Together {
				var found []*roaring.Bitmap
				for _, r := range scoring {
					if slices.Contains(r.term.Covers, w) && r.hits[i] != nil {
						found = append(found, r.hits[i])
					}
				}
				if len(found) == 0 {
					continue // a stop word, which nothing covers
				}
				bm := roaring.FastOr(found...)
				if all == nil {
					all = bm
				} else {
					all.And(bm)
				}
			}
			if all == nil {
				all = roaring.New()
			}
			for k, bm := range t.bms[i] {
				if bm != nil {
					bm = roaring.And(bm, all)
					if bm.IsEmpty() {
						bm = nil
					}
					t.bms[i][k] = bm
				}
			}
			t.hits[i] = roaring.And(t.hits[i], all)
			t.df += t.hits[i].GetCardinality()
		}
	}
}
