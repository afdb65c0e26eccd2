package main

import (
	"math"
	"math/rand/v2"
)

// pairedRandomization is a two-sided paired randomization (permutation)
// test of the mean of diffs, the per-query differences between two
// systems' scores: under the null hypothesis each difference is as likely
// to have either sign, so the test flips the signs at random rounds times
// and counts the rounds whose mean is at least as far from 0 as the
// observed one. With 20 differences or fewer it enumerates every sign
// pattern instead (exact). p is (count + 1) / (rounds + 1) when sampled, so
// it is never 0; the seed is fixed, so a run is repeatable.
func pairedRandomization(diffs []float64, rounds int, seed uint64) (mean, p float64) {
	n := len(diffs)
	if n == 0 {
		return 0, 1
	}
	var sum float64
	for _, d := range diffs {
		sum += d
	}
	mean = sum / float64(n)
	observed := math.Abs(sum) - 1e-12 // a permuted sum equal to the observed one counts
	if n <= 20 {
		hits := 0
		for mask := 0; mask < 1<<n; mask++ {
			var s float64
			for i, d := range diffs {
				if mask&(1<<i) != 0 {
					s -= d
				} else {
					s += d
				}
			}
			if math.Abs(s) >= observed {
				hits++
			}
		}
		return mean, float64(hits) / float64(int(1)<<n)
	}
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	hits := 0
	for range rounds {
		var s float64
		for _, d := range diffs {
			if r.Uint64()&1 == 1 {
				s -= d
			} else {
				s += d
			}
		}
		if math.Abs(s) >= observed {
			hits++
		}
	}
	return mean, float64(hits+1) / float64(rounds+1)
}
