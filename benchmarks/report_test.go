package main

import (
	"strings"
	"testing"
)

// TestMarkdownNamesTheMemoryLimit: a run under -memory-limit says so in
// its title, so its figures are not taken for an unlimited run's.
func TestMarkdownNamesTheMemoryLimit(t *testing.T) {
	limited := &Results{Size: "100k", MemoryCgroup: &CgroupStats{Version: 1, LimitBytes: 1 << 30}}
	if md := limited.Markdown(); !strings.HasPrefix(md, "# semcat benchmark — 100k entities, served under a 1.00 GiB memory limit\n") {
		t.Errorf("title: %q", strings.SplitN(md, "\n", 2)[0])
	}
	if md := (&Results{Size: "100k"}).Markdown(); !strings.HasPrefix(md, "# semcat benchmark — 100k entities\n") {
		t.Errorf("title: %q", strings.SplitN(md, "\n", 2)[0])
	}
}

// TestMarkdownShowsSearchesAfterTheRebuild: the searches timed right
// after the rebuild get their row, and a run without them none.
func TestMarkdownShowsSearchesAfterTheRebuild(t *testing.T) {
	r := &Results{Size: "10k", Rebuild: RebuildResult{SearchAfter: Stats{N: 100, P50: 2.7, P99: 6.44, Mean: 2.88}}}
	if md := r.Markdown(); !strings.Contains(md, "| word and prefix searches right after the rebuild (100) | 2.70 / 6.44 / 2.88 |") {
		t.Error("no row for the searches right after the rebuild")
	}
	if md := (&Results{Size: "10k"}).Markdown(); strings.Contains(md, "right after the rebuild") {
		t.Error("a row for searches that were not run")
	}
}
