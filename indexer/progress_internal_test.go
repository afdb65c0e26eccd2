package indexer

import (
	"context"
	"testing"
	"time"
)

// TestProgressLower: a horizon brought down by a reissued transaction id
// makes a search for that id wait again, and a poll read before the
// lowering cannot raise it back.
func TestProgressLower(t *testing.T) {
	p := newProgress()
	p.advance(100)
	_, token := p.since() // a poll starts, before the crash
	if from, lowered := p.lower(40); !lowered || from != 100 {
		t.Fatalf("lower(40) from 100: %d %v", from, lowered)
	}
	if _, lowered := p.lower(60); lowered {
		t.Error("lower(60) raised a horizon of 40")
	}
	p.advanceSince(token, 100) // that poll ends: its horizon is stale
	if h := p.get(); h != 40 {
		t.Fatalf("a poll from before the lowering moved the horizon to %d", h)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := p.wait(ctx, 50); err == nil {
		t.Error("a wait for 50 ended with the horizon at 40")
	}
	_, token = p.since()
	done := make(chan error, 1)
	go func() { done <- p.wait(t.Context(), 50) }()
	p.advanceSince(token, 51)
	if err := <-done; err != nil || p.get() != 51 {
		t.Errorf("after a poll at 51: horizon %d, wait %v", p.get(), err)
	}
}
