package search

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestCostly: many prefixes or many terms make a query costly; everyday
// queries are not.
func TestCostly(t *testing.T) {
	for q, want := range map[string]bool{
		"orders":                    false,
		"cust* ord*":                false,
		"*":                         false,
		"a* b* c* d*":               true,
		"tags:pii owner:finance":    false,
		strings.Repeat("word ", 16): true,
		// Quoted prefixes are prefixes too (SPEC §2.11, revision 3).
		`"a*" "b*" "c*" "d*"`:           true,
		`k:"a*" k:"b c*" "d*" tags:e*`:  true,
		`"a*" "b*" "c*"`:                false,
		`"a b c d e f g h i j k l m n"`: false, // one term
		`"unterminated a* b* c* d*`:     false, // refused before it costs
	} {
		if got := costly(q); got != want {
			t.Errorf("costly(%q) = %v, want %v", q, got, want)
		}
	}
}

// TestSlotsWaitWithinTheDeadline: with every slot taken, a costly search
// waits, and gives up with its context's error when the deadline passes;
// a released slot admits the next.
func TestSlotsWaitWithinTheDeadline(t *testing.T) {
	s := newSlots(1)
	release, err := s.acquire(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.acquire(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("a second search with the only slot taken: %v, want the deadline", err)
	}
	release()
	again, err := s.acquire(t.Context())
	if err != nil {
		t.Fatalf("after the release: %v", err)
	}
	again()
}
