package main

import (
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"time"
)

// The machine's speed, measured.
//
// Machines of the same kind are not equally fast: the same code, run a day
// apart, measured 2.2–2.5× slower per core on the second machine (one word
// through the value analyzer: 174–206 ns, then 400–506 ns). Without a
// figure for that, a slower run reads as a regression. So each run times a
// fixed piece of work that does not depend on semcat's code, at its start
// and at its end; runs compare through it.

// referenceKeys is how many keys the reference work makes, maps and sorts.
const referenceKeys = 300_000

// referenceWork does the reference work once, on one goroutine: it formats
// referenceKeys pseudo-random keys, puts them in a map, sorts them and
// looks each up, the kinds of work a Go server's requests do. It returns a
// checksum, so that none of the work can be left out.
func referenceWork() uint64 {
	r := rand.New(rand.NewPCG(1, 2))
	keys := make([]string, referenceKeys)
	m := make(map[string]int, referenceKeys)
	for i := range keys {
		keys[i] = "k" + strconv.FormatUint(r.Uint64(), 36)
		m[keys[i]] = i
	}
	slices.Sort(keys)
	var sum uint64
	for i, k := range keys {
		sum = sum*31 + uint64(m[k]^i)
	}
	return sum
}

// referenceMs is the fastest of three runs of referenceWork, the least
// disturbed by other work on the machine, in milliseconds.
func referenceMs() float64 {
	best := time.Duration(math.MaxInt64)
	for range 3 {
		start := time.Now()
		referenceWork()
		best = min(best, time.Since(start))
	}
	return float64(best) / float64(time.Millisecond)
}
