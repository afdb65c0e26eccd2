package indexer_test

import (
	"fmt"
	"testing"

	"github.com/semcat/semcat/indexer"
)

// TestSweepCacheReadsTheSearchedIndex: a sweep reads every segment file of
// the searched index, and the files the tail just wrote are cached.
func TestSweepCacheReadsTheSearchedIndex(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	for i := range 20 {
		checker(t)(s.CreateTable(ctx, ns, table(fmt.Sprintf("t%02d", i), "col")))
	}
	catchUp(t, x)
	_, segments, err := indexer.ColumnsMissing(x)
	if err != nil {
		t.Fatal(err)
	}
	files, cached, size, err := indexer.SweepCache(x)
	if err != nil {
		t.Fatal(err)
	}
	if files == 0 || files != segments || size == 0 || cached == 0 || cached > size {
		t.Errorf("sweep: %d files (the index has %d segments), %d of %d bytes cached", files, segments, cached, size)
	}
}
