package indexer

import (
	"context"
	"testing"

	"github.com/semcat/semcat"
)

// TestRebuildRefusesOverlap: a rebuild asked for while another runs is
// refused as a conflict, before it touches anything.
func TestRebuildRefusesOverlap(t *testing.T) {
	var x Indexer
	x.building.Lock()
	defer x.building.Unlock()
	if err := x.Rebuild(context.Background()); semcat.ErrorCode(err) != semcat.ECONFLICT {
		t.Errorf("Rebuild during a rebuild: %v, want a conflict", err)
	}
}
