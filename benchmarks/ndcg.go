package main

import (
	"math"
	"slices"
)

// Measures of a ranked list against graded judgments (0 not relevant, 1
// marginal, 2 relevant, 3 what the searcher meant). Unjudged documents
// count as 0.

// relevantGrade is the least grade counted as relevant by MRR and P@k.
const relevantGrade = 2

// ndcgAt is the normalized discounted cumulative gain of ranked at depth k,
// with gains 2^grade - 1 and log2(rank+1) discounts; the ideal list is the
// query's judged grades, best first. A query with no grade above 0 has no
// nDCG: ok is false.
func ndcgAt(k int, ranked []string, grades map[string]int) (v float64, ok bool) {
	ideal := make([]int, 0, len(grades))
	for _, g := range grades {
		ideal = append(ideal, g)
	}
	slices.Sort(ideal)
	slices.Reverse(ideal)
	idcg := dcg(k, ideal)
	if idcg == 0 {
		return 0, false
	}
	got := make([]int, len(ranked))
	for i, key := range ranked {
		got[i] = grades[key]
	}
	return dcg(k, got) / idcg, true
}

func dcg(k int, grades []int) float64 {
	var sum float64
	for i, g := range grades[:min(k, len(grades))] {
		sum += (math.Pow(2, float64(g)) - 1) / math.Log2(float64(i)+2)
	}
	return sum
}

// reciprocalRankAt is 1/rank of the first relevant document in the top k,
// or 0.
func reciprocalRankAt(k int, ranked []string, grades map[string]int) float64 {
	for i, key := range ranked[:min(k, len(ranked))] {
		if grades[key] >= relevantGrade {
			return 1 / float64(i+1)
		}
	}
	return 0
}

// precisionAt is the share of relevant documents in the top k (a shorter
// list counts its missing places as not relevant).
func precisionAt(k int, ranked []string, grades map[string]int) float64 {
	n := 0
	for _, key := range ranked[:min(k, len(ranked))] {
		if grades[key] >= relevantGrade {
			n++
		}
	}
	return float64(n) / float64(k)
}
