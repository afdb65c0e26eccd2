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
	x := indexerOfTables(t, 20)
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

// TestSweepCacheLeavesAnIndexLargerThanMemory: where the index could not
// be cached whole, a sweep reads nothing (reading every cached page would
// make them all look just used, and the kernel could no longer keep the
// ones searches read); with room for it, the same index is swept.
func TestSweepCacheLeavesAnIndexLargerThanMemory(t *testing.T) {
	t.Parallel()
	x := indexerOfTables(t, 20)
	_, _, size, err := indexer.SweepCache(x)
	if err != nil || size == 0 {
		t.Fatalf("sweep: %d bytes, %v", size, err)
	}
	indexer.SetFreeMemory(x, size/2)
	if files, cached, _, err := indexer.SweepCache(x); err != nil || files != 0 || cached != 0 {
		t.Errorf("sweep with memory for half the index: %d files, %d bytes read, %v; want none", files, cached, err)
	}
	indexer.SetFreeMemory(x, 4*size)
	if files, cached, _, err := indexer.SweepCache(x); err != nil || files == 0 || cached == 0 {
		t.Errorf("sweep with memory for the index: %d files, %d bytes read, %v", files, cached, err)
	}
}

// indexerOfTables returns an indexer that has applied n tables' writes:
// an index of a few segment files, just written and so cached.
func indexerOfTables(tb testing.TB, n int) *indexer.Indexer {
	tb.Helper()
	s, x := seededIndexer(tb)
	for i := range n {
		checker(tb)(s.CreateTable(ctx, ns, table(fmt.Sprintf("t%02d", i), "col")))
	}
	catchUp(tb, x)
	return x
}
