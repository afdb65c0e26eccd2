package main

import (
	"math"
	"testing"
)

func TestRankingMeasures(t *testing.T) {
	grades := map[string]int{"a": 3, "b": 2, "c": 1, "z": 0}
	near := func(got, want float64) bool { return math.Abs(got-want) < 1e-9 }

	// The ideal order scores 1; the reverse less; unjudged documents 0.
	if v, ok := ndcgAt(10, []string{"a", "b", "c"}, grades); !ok || !near(v, 1) {
		t.Errorf("ideal order: nDCG = %v, %v; want 1", v, ok)
	}
	idcg := 7 + 3/math.Log2(3) + 1/math.Log2(4)
	want := (1 + 3/math.Log2(3) + 7/math.Log2(4)) / idcg
	if v, _ := ndcgAt(10, []string{"c", "b", "a"}, grades); !near(v, want) {
		t.Errorf("reversed: nDCG = %v, want %v", v, want)
	}
	if v, _ := ndcgAt(10, []string{"x", "y"}, grades); v != 0 {
		t.Errorf("unjudged only: nDCG = %v, want 0", v)
	}
	// Depth cuts both lists: a perfect first result at depth 1 is 1.
	if v, _ := ndcgAt(1, []string{"a", "z"}, grades); !near(v, 1) {
		t.Errorf("depth 1: nDCG = %v, want 1", v)
	}
	if _, ok := ndcgAt(10, []string{"z"}, map[string]int{"z": 0}); ok {
		t.Error("a query with nothing relevant has an nDCG")
	}

	if rr := reciprocalRankAt(10, []string{"z", "c", "b"}, grades); !near(rr, 1.0/3) {
		t.Errorf("MRR: %v, want 1/3 (grade 1 is not relevant)", rr)
	}
	if rr := reciprocalRankAt(2, []string{"z", "c", "b"}, grades); rr != 0 {
		t.Errorf("MRR@2: %v, want 0", rr)
	}
	if p := precisionAt(5, []string{"a", "b", "c"}, grades); !near(p, 0.4) {
		t.Errorf("P@5 of a short list: %v, want 0.4", p)
	}
}
