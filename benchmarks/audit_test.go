package main

import (
	"testing"
	"time"
)

// TestSplitRounds: each round's details=false call comes before its
// details=true call, and the warmup rounds are left out.
func TestSplitRounds(t *testing.T) {
	var ds []time.Duration
	for i := 1; i <= 8; i++ {
		ds = append(ds, time.Duration(i)*time.Millisecond)
	}
	ids, det := splitRounds(ds, 1)
	if ids.N != 3 || det.N != 3 || ids.P50 != 5 || det.P50 != 6 || ids.Max != 7 || det.Max != 8 {
		t.Errorf("splitRounds = %+v, %+v; want 3 rounds each, identifiers 3, 5, 7 ms and details 4, 6, 8 ms", ids, det)
	}
}
