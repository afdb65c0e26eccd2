package indexer

import "testing"

// TestOverBound: above the bound, the indexer unmaps when the resident
// memory has grown by a quarter of the bound over the least since its last
// unmapping, not while something other than the searched index (a
// rebuild's generation) holds it up.
func TestOverBound(t *testing.T) {
	const mib, limit = 1 << 20, 384 << 20
	for _, c := range []struct {
		resident, floor int64
		want            bool
	}{
		{300 * mib, 0, false},         // under the bound
		{500 * mib, 0, true},          // over it, nothing unmapped yet
		{500 * mib, 450 * mib, false}, // an unmapping left 450 MiB: not ours to drop
		{547 * mib, 450 * mib, true},  // the index has grown back by more than 96 MiB
		{500 * mib, 100 * mib, true},  // the other mapping is gone
	} {
		if got := overBound(c.resident, c.floor, limit); got != c.want {
			t.Errorf("overBound(%d MiB, floor %d MiB, limit 384 MiB) = %v, want %v", c.resident/mib, c.floor/mib, got, c.want)
		}
	}
}
