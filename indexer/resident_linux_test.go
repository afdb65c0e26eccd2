package indexer_test

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/semcat/semcat/indexer"
)

// segmentFilesMapped returns the real paths of x's segment files, as the
// kernel names their mappings (the index's generation, not the symlink to
// it).
func segmentFilesMapped(tb testing.TB, x *indexer.Indexer) map[string]bool {
	tb.Helper()
	paths, err := indexer.SegmentFiles(x)
	if err != nil {
		tb.Fatal(err)
	}
	real := map[string]bool{}
	for _, p := range paths {
		r, err := filepath.EvalSymlinks(p)
		if errors.Is(err, os.ErrNotExist) {
			continue // merged away since
		}
		if err != nil {
			tb.Fatal(err)
		}
		real[r] = true
	}
	return real
}

// residentIndexBytes is how much of the mappings of x's segment files is
// resident in this process (the sum of their Rss in /proc/self/smaps).
func residentIndexBytes(tb testing.TB, x *indexer.Indexer) int64 {
	tb.Helper()
	real := segmentFilesMapped(tb, x)
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		tb.Fatal(err)
	}
	var sum int64
	in := false
	for line := range strings.Lines(string(smaps)) {
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-"):
			in = len(fields) >= 6 && real[strings.Join(fields[5:], " ")]
		case in && len(fields) >= 2 && fields[0] == "Rss:":
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			sum += kb << 10
		}
	}
	return sum
}

// TestResidentIndexBound: reading every document through the index leaves
// its segment files' pages resident in the process, and where the
// resident memory of mapped files is above Options.ResidentIndex the
// running indexer unmaps them; the index reads the same afterwards.
func TestResidentIndexBound(t *testing.T) {
	t.Parallel()
	run := func(limit int64) *indexer.Indexer {
		s, x := seededIndexerWith(t, indexer.Options{ResidentIndex: limit})
		for i := range 40 {
			checker(t)(s.CreateTable(ctx, ns, table(fmt.Sprintf("t%02d", i), "id", "name", "amount")))
		}
		catchUp(t, x)
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan error, 1)
		go func() { ran <- x.Run(ctx) }()
		t.Cleanup(func() { cancel(); <-ran })
		return x
	}
	unbounded := run(-1)
	bounded := run(1) // any mapped file is over: the test binary's text is
	indexContents(t, unbounded.Index())
	want := indexContents(t, bounded.Index())
	if len(want) < 40 {
		t.Fatalf("%d documents in the bounded index, want the 40 tables and more", len(want))
	}
	if n := residentIndexBytes(t, unbounded); n == 0 {
		t.Fatal("reading every document left none of the unbounded index resident")
	}
	var n int64
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(10 * time.Millisecond) {
		if n = residentIndexBytes(t, bounded); n == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d bytes of the bounded index still resident after 5 s", n)
		}
	}
	if got := indexContents(t, bounded.Index()); !maps.Equal(got, want) {
		t.Errorf("the bounded index reads differently after its pages were unmapped:\n%v\n%v", got, want)
	}
	if n := residentIndexBytes(t, unbounded); n == 0 {
		t.Error("the unbounded index's pages were unmapped too")
	}

	// Where the index does not fit the memory free for it, the kernel
	// bounds what stays mapped, and the indexer leaves it be.
	indexer.SetFreeMemory(bounded, 0)
	if _, _, _, err := indexer.SweepCache(bounded); err != nil {
		t.Fatal(err)
	}
	indexContents(t, bounded.Index())
	time.Sleep(20 * 25 * time.Millisecond) // twenty checks
	if n := residentIndexBytes(t, bounded); n == 0 {
		t.Error("the index's pages were unmapped where it does not fit the memory free for it")
	}
}
