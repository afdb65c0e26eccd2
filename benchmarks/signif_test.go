package main

import (
	"math"
	"testing"
)

func TestPairedRandomization(t *testing.T) {
	// Exact: of the 8 sign patterns of three equal differences, 2 have a
	// sum as far from 0 as the observed one.
	if mean, p := pairedRandomization([]float64{1, 1, 1}, 0, 1); mean != 1 || math.Abs(p-0.25) > 1e-12 {
		t.Errorf("three equal differences: mean %v, p %v; want 1, 0.25", mean, p)
	}
	if _, p := pairedRandomization([]float64{0, 0, 0, 0}, 0, 1); p != 1 {
		t.Errorf("no differences: p %v, want 1", p)
	}
	// Sampled: 30 equal gains are significant, 15 gains and 15 equal losses
	// are not.
	gains := make([]float64, 30)
	mixed := make([]float64, 30)
	for i := range gains {
		gains[i] = 0.1
		mixed[i] = 0.1
		if i%2 == 1 {
			mixed[i] = -0.1
		}
	}
	if _, p := pairedRandomization(gains, 10000, 1); p > 0.001 {
		t.Errorf("30 equal gains: p %v, want ≤ 0.001", p)
	}
	if mean, p := pairedRandomization(mixed, 10000, 1); mean != 0 || p < 0.9 {
		t.Errorf("balanced gains and losses: mean %v, p %v; want 0, ~1", mean, p)
	}
}

func TestLuceneBM25(t *testing.T) {
	docs := []corpusDoc{
		{Key: "table:c.s.orders", Name: "orders"},
		{Key: "table:c.s.refunds", Name: "refunds", Description: "refunded orders and their orders lines with many more words here"},
		{Key: "table:c.s.order_lines", Name: "order_lines", Description: "orders"},
		{Key: "table:c.s.customers", Name: "customers", Columns: []column{{Path: "zip_code", Comment: "postal code"}}},
	}
	l := newLuceneBM25(docs)
	// The name (boost 3) outweighs the description (2); a short
	// description outweighs a long one with the word twice.
	got := l.Search("orders", 10)
	want := []string{"table:c.s.orders", "table:c.s.order_lines", "table:c.s.refunds"}
	if len(got) != len(want) {
		t.Fatalf("orders: got %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("orders: got %v, want %v", got, want)
		}
	}
	// Columns' names are split into words.
	if got := l.Search("zip", 10); len(got) != 1 || got[0] != "table:c.s.customers" {
		t.Errorf("zip: got %v", got)
	}
	if got := l.Search("nothing", 10); len(got) != 0 {
		t.Errorf("nothing: got %v", got)
	}
}
