package main

import (
	"errors"
	"strings"
	"testing"

	"github.com/semcat/semcat/query"
	"github.com/semcat/semcat/searchdoc"
)

// TestMarkdownNamesTheMemoryLimit: a run under -memory-limit says so in
// its title, so its figures are not taken for an unlimited run's.
func TestMarkdownNamesTheMemoryLimit(t *testing.T) {
	limited := &Results{Size: "100k", MemoryLimit: 1 << 30, MemoryCgroup: &CgroupStats{Version: 1, LimitBytes: 1 << 30}}
	if md := limited.Markdown(); !strings.HasPrefix(md, "# semcat benchmark — 100k entities, served under a 1.00 GiB memory limit\n") {
		t.Errorf("title: %q", strings.SplitN(md, "\n", 2)[0])
	}
	afterLoad := &Results{Size: "100k", MemoryLimit: 192 << 20, LoadMemoryLimit: 1 << 30, MemoryCgroup: &CgroupStats{Version: 1, LimitBytes: 192 << 20}}
	if md := afterLoad.Markdown(); !strings.HasPrefix(md, "# semcat benchmark — 100k entities, served under a 192 MiB memory limit (1.00 GiB during the load)\n") {
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

	// The report says where the whole run's figure comes from.
	r := &Results{Size: "1m", PeakRSS: peak, ServerDied: died}
	r.evaluate()
	if md := r.Markdown(); !strings.Contains(md, "the load and the rebuild with it (highest sampled: semcat died)") {
		t.Errorf("the report does not say the peak RSS was sampled:\n%s", md)
	}
}

// TestServingPeakRSS: the memory target is the peak while serving, met by
// a VmHWM reset when serving began, whatever the load and the rebuild
// took; a sampled peak (VmHWM could not be reset) is a lower bound and
// does not count as met.
func TestServingPeakRSS(t *testing.T) {
	hwm := func() (int64, error) { return 900 << 20, nil }
	gone := func() (int64, error) { return 0, errors.New("no such process") }
	running := func() bool { return false }
	exited := func() bool { return true }
	peak, sampled, err := servingPeak(hwm, true, 700<<20, running)
	if peak != 900<<20 || sampled || err != nil {
		t.Errorf("from VmHWM: %d, %v, %v; want %d, false, nil", peak, sampled, err, 900<<20)
	}
	if peak, sampled, _ = servingPeak(hwm, false, 700<<20, running); peak != 700<<20 || !sampled {
		t.Errorf("without a reset: %d, %v; want the highest sampled, %d, true", peak, sampled, 700<<20)
	}
	if _, _, err = servingPeak(gone, true, 700<<20, running); err == nil {
		t.Error("a live server's unreadable VmHWM did not fail")
	}
	if peak, sampled, err = servingPeak(gone, true, 700<<20, exited); peak != 700<<20 || !sampled || err != nil {
		t.Errorf("a server that died while serving: %d, %v, %v; want the highest sampled, %d, true, nil", peak, sampled, err, 700<<20)
	}
	for _, c := range []struct {
		serving int64
		sampled bool
		met     bool
	}{
		{900 << 20, false, true},
		{900 << 20, true, false},
		{1<<30 + 1, false, false},
		{0, false, false},
	} {
		r := &Results{Size: "1m", PeakRSS: 5 << 30, ServingRSS: c.serving, ServingRSSSampled: c.sampled}
		r.evaluate()
		if ck := r.check("peak RSS while serving"); ck.Met != c.met {
			t.Errorf("serving %d bytes (sampled %v), whole run 5 GiB: met %v, want %v", c.serving, c.sampled, ck.Met, c.met)
		}
		if md := r.Markdown(); !strings.Contains(md, "| peak RSS of the server over the whole run, the load and the rebuild with it (VmHWM) | 5.00 GiB |") {
			t.Errorf("the whole run's peak is not reported:\n%s", md)
		}
	}
}

// TestMissBelowTheHTTPFloor: a search kind that misses the PostgreSQL
// ratio because the ratio asks for less than an HTTP round trip with no
// work says so, and one the floor does not explain does not; the floor
// gets its row.
func TestMissBelowTheHTTPFloor(t *testing.T) {
	r := &Results{Size: "1m",
		Floor: FloorResult{HTTP: Stats{N: 200, P50: 0.12, P99: 0.25, Mean: 0.13}, PG: Stats{N: 200, P50: 0.05, P99: 0.09, Mean: 0.06}},
		Queries: []QueryResult{
			{Kind: "key:value (unique)", Semcat: Stats{P50: 0.33, P99: 0.71}, PG: Stats{P50: 0.19, P99: 0.38}, RatioP99: 0.38 / 0.71},
			{Kind: "tag", Semcat: Stats{P50: 1.6, P99: 5.75}, PG: Stats{P50: 3.5, P99: 24.9}, RatioP99: 24.9 / 5.75},
		}}
	r.evaluate()
	ck := r.check("search: key:value (unique)")
	if ck.Met || !strings.Contains(ck.Missed, "it needs p99 ≤ 0.08 ms, below HTTP's floor here (GET /healthz p99 0.25 ms)") {
		t.Errorf("unique key:value: %+v", ck)
	}
	if ck := r.check("search: tag"); ck.Met || strings.Contains(ck.Missed, "floor") {
		t.Errorf("tag (4.3×, PostgreSQL p99 24.9 ms): %+v", ck)
	}
	if md := r.Markdown(); !strings.Contains(md, "| round trip with no work: `GET /healthz` | 0.12 / 0.25 / 0.13 | PostgreSQL `SELECT 1` | 0.05 / 0.09 / 0.06 | 0.4× / 0.4× | | |") {
		t.Errorf("no floor row:\n%s", md)
	}
}

// TestHostileLoadCheck: the hostile-load row compares the loaded p99 with
// the idle one, and misses the target above 2× or when a search failed.
func TestHostileLoadCheck(t *testing.T) {
	for _, c := range []struct {
		h   HostileResult
		met bool
	}{
		{HostileResult{Idle: Stats{N: 10, P99: 3}, Hostile: Stats{N: 10, P99: 5}, Ratio: 5.0 / 3}, true},
		{HostileResult{Idle: Stats{N: 10, P99: 3}, Hostile: Stats{N: 10, P99: 75}, Ratio: 25}, false},
		{HostileResult{Idle: Stats{N: 10, P99: 3}, Hostile: Stats{N: 9, P99: 4}, Ratio: 4.0 / 3, Errors: 1}, false},
	} {
		r := &Results{Size: "10k", Hostile: c.h}
		r.evaluate()
		if ck := r.check("hostile load"); ck.Met != c.met {
			t.Errorf("%+v: met %v, want %v (%s)", c.h, ck.Met, c.met, ck.Missed)
		}
		if md := r.Markdown(); !strings.Contains(md, "| word search under hostile load:") {
			t.Error("no hostile-load row in the report")
		}
	}
	if md := (&Results{Size: "10k"}).Markdown(); strings.Contains(md, "under hostile load") {
		t.Error("a hostile-load row for a run without it")
	}
}

// TestCostlyQueryIsAllowed: the hostile scenario's costliest query is one
// the server accepts: at the term limit, within the length limit.
func TestCostlyQueryIsAllowed(t *testing.T) {
	q := costlyQuery()
	if n := len(strings.Fields(q)); n != query.MaxTerms {
		t.Errorf("%d terms, want the limit %d", n, query.MaxTerms)
	}
	if _, err := query.Parse(q); err != nil {
		t.Errorf("the costliest query does not parse: %v", err)
	}
}

// TestMarkdownShowsWhatSearchesRead: a run with search profiles gets a
// row per kind with its postings, expansions and stored documents, and a
// run without them no table.
func TestMarkdownShowsWhatSearchesRead(t *testing.T) {
	r := &Results{Size: "10k", Queries: []QueryResult{{Kind: "prefix", Reads: []FieldRead{
		{Field: searchdoc.FieldStored, Lists: 20, Bytes: 20480}, {Field: "sv", Lists: 2, Bytes: 8192}, {Field: "n", Lists: 3, Bytes: 2048, Terms: 40},
	}}}}
	want := "| prefix | 10 KiB in 5 lists | 40 | 20.0 KiB | `doc` 20.0, `sv` 8.0, `n` 2.0; 40 |"
	if md := r.Markdown(); !strings.Contains(md, want) {
		t.Errorf("no row %q in\n%s", want, md)
	}
	if md := (&Results{Size: "10k", Queries: []QueryResult{{Kind: "prefix"}}}).Markdown(); strings.Contains(md, "What a search reads") {
		t.Error("a reads table without profiles")
	}
}

func TestResultsName(t *testing.T) {
	for _, tt := range []struct {
		limit, load int64
		want        string
	}{
		{0, 0, "1m"},
		{1 << 30, 0, "1m-limit-1GiB"},
		{192 << 20, 2 << 30, "1m-limit-192MiB-after-load"},
		{512 << 10, 0, "1m-limit-512KiB"},
		{1<<30 + 1, 0, "1m-limit-1073741825B"},
	} {
		r := &Results{Size: "1m", MemoryLimit: tt.limit, LoadMemoryLimit: tt.load}
		if got := r.Name(); got != tt.want {
			t.Errorf("limit %d, load %d: Name() = %q, want %q", tt.limit, tt.load, got, tt.want)
		}
	}
}
