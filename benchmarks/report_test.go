package main

import (
	"errors"
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

// TestPeakRSSOfADeadServer: a live server's VmHWM is its peak, and an
// error reading it fails the run; a server that died (say, killed for
// want of memory in the rebuild) leaves the highest sampled RSS, so the
// phases it finished are still reported.
func TestPeakRSSOfADeadServer(t *testing.T) {
	phases := []PhaseRSS{{Phase: "ingest", PeakBytes: 300}, {Phase: "rebuild", PeakBytes: 900}, {Phase: "search", PeakBytes: 500}}
	gone := func() (int64, error) { return 0, errors.New("no such process") }
	running := func() bool { return false }
	exited := func() bool { return true }
	if peak, died, err := peakRSS(func() (int64, error) { return 1000, nil }, running, phases); peak != 1000 || died || err != nil {
		t.Errorf("live: %d, %v, %v; want 1000, false, nil", peak, died, err)
	}
	if _, _, err := peakRSS(gone, running, phases); err == nil {
		t.Error("a live server's unreadable VmHWM did not fail")
	}
	peak, died, err := peakRSS(gone, exited, phases)
	if peak != 900 || !died || err != nil {
		t.Errorf("dead: %d, %v, %v; want 900, true, nil", peak, died, err)
	}

	// The report says where the figure comes from, and a sampled peak
	// below the target does not count as met.
	r := &Results{Size: "1m", PeakRSS: peak, ServerDied: died}
	r.evaluate()
	if ck := r.check("peak RSS of the server"); ck.Met {
		t.Errorf("a dead server's sampled peak of %d bytes met the RSS target", peak)
	}
	if md := r.Markdown(); !strings.Contains(md, "peak RSS of the server (highest sampled: semcat died)") {
		t.Errorf("the report does not say the peak RSS was sampled:\n%s", md)
	}
}
