package search

import "math"

// The scoring side of the ranking of package query (query/rank.go, SPEC
// §5.4), which weighs each way a term matches: a document's score is the
// sum, over the query's terms it matches, of
//
//	idf(term) × ((1 - alsoShare) × best + alsoShare × sum)
//
// with a name match scaled by the name's length in parts (nameNorm).

// alsoShare is the share of the other ways a term matched in its score
// (tuned with query's weights, query/rank.go).
const alsoShare = 0.2

// idf is BM25's inverse document frequency of a term matching df of n
// documents.
func idf(df, n uint64) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// minNameNorm and maxNameNorm bound nameNorm.
const (
	minNameNorm = 0.75
	maxNameNorm = 1.25
)

// nameNorm scales a match in a name of parts parts: 1.25 for a one-part
// name, 1 for two, towards 0.75 for long ones.
func nameNorm(parts int) float64 {
	if parts < 1 {
		parts = 1
	}
	return minNameNorm + (maxNameNorm-minNameNorm)/float64(parts)
}

// nameNorms holds nameNorm of 0 to 255 parts.
var nameNorms = func() (out [256]float64) {
	for i := range out {
		out[i] = nameNorm(i)
	}
	return out
}()
