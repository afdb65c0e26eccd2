package indexer_test

import (
	"fmt"
	"testing"

	"github.com/semcat/semcat/indexer"
)

// TestSweepCacheReadsTheSearchedIndex: a sweep reads the segment files of
// the searched index, which the tail just wrote and so are cached.
func TestSweepCacheReadsTheSearchedIndex(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	for i := range 20 {
		checker(t)(s.CreateTable(ctx, ns, table(fmt.Sprintf("t%02d", i), "col")))
	}
	catchUp(t, x)
	// (A merge may replace segments at any time, so the count of files is
	// not compared with a count taken apart from the sweep.)
	files, cached, size, err := indexer.SweepCache(x)
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 || size == 0 || cached == 0 || cached > size {
		t.Errorf("sweep: %d files, %d of %d bytes cached", files, cached, size)
	}
}
