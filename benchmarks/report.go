package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/semcat/semcat/searchdoc"
)

// Stats summarise latencies in milliseconds.
type Stats struct {
	N    int     `json:"n"`
	P50  float64 `json:"p50Ms"`
	P99  float64 `json:"p99Ms"`
	Mean float64 `json:"meanMs"`
	Max  float64 `json:"maxMs"`
}

// summarize computes nearest-rank percentiles.
func summarize(ds []time.Duration) Stats {
	if len(ds) == 0 {
		return Stats{}
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	rank := func(p float64) time.Duration { return s[max(0, int(math.Ceil(p*float64(len(s))))-1)] }
	var sum time.Duration
	for _, d := range s {
		sum += d
	}
	return Stats{N: len(s), P50: ms(rank(0.50)), P99: ms(rank(0.99)), Mean: ms(sum) / float64(len(s)), Max: ms(s[len(s)-1])}
}

// Machine describes where the run happened.
type Machine struct {
	LoadAvg    string `json:"loadAverageAtStart"` // 1, 5, 15 minutes: others' work on the machine
	LoadAvgEnd string `json:"loadAverageAtEnd"`
	// ReferenceMs and ReferenceEndMs time the reference work (reference.go)
	// at the start and at the end of the run: lower is a faster machine.
	ReferenceMs    float64 `json:"referenceWorkMs"`
	ReferenceEndMs float64 `json:"referenceWorkMsAtEnd"`
	NProc          int     `json:"nproc"`
	MemoryBytes    int64   `json:"memoryBytes"`
	CPU            string  `json:"cpu"`
	Kernel         string  `json:"kernel"`
	Go             string  `json:"go"`
	Postgres       string  `json:"postgres"`
}

func machine() Machine {
	m := Machine{NProc: runtime.NumCPU(), Go: runtime.Version(), LoadAvg: loadAvg()}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = "Linux " + strings.TrimSpace(string(b))
	}
	scan := func(path string, fn func(k, v string) bool) {
		f, err := os.Open(path)
		if err != nil {
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			k, v, ok := strings.Cut(sc.Text(), ":")
			if ok && fn(strings.TrimSpace(k), strings.TrimSpace(v)) {
				return
			}
		}
	}
	scan("/proc/cpuinfo", func(k, v string) bool {
		if k == "model name" {
			m.CPU = v
			return true
		}
		return false
	})
	scan("/proc/meminfo", func(k, v string) bool {
		if k == "MemTotal" {
			var kb int64
			fmt.Sscanf(v, "%d", &kb)
			m.MemoryBytes = kb * 1024
			return true
		}
		return false
	})
	return m
}

// loadAvg is the 1, 5 and 15 minute load averages.
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// Results is everything one run measured; it is written as JSON as is.
type Results struct {
	Size       string          `json:"size"`
	Seed       uint64          `json:"seed"`
	Started    time.Time       `json:"started"`
	Seconds    float64         `json:"durationSeconds"`
	Machine    Machine         `json:"machine"`
	Counts     Counts          `json:"counts"`
	Entities   int             `json:"entities"`
	Iterations int             `json:"searchIterations"`
	Load       LoadStats       `json:"ingest"`
	IndexBytes int64           `json:"indexBytesAfterLoad"`
	PGLoad     PGLoadStats     `json:"postgresFTS"`
	Discovery  DiscoveryResult `json:"discovery"`
	Queries    []QueryResult   `json:"search"`
	Suggest    SuggestResult   `json:"suggest"`
	Floor      FloorResult     `json:"roundTripFloor"`
	Lag        LagResult       `json:"writeToSearchable"`
	Hostile    HostileResult   `json:"hostileLoad"`
	Rebuild    RebuildResult   `json:"rebuild"`
	// PeakRSS is the server's peak RSS over the whole run, the load and
	// the rebuild with it.
	PeakRSS int64 `json:"peakRSSBytes"`
	// ServingRSS is its peak while serving (DESIGN §6's memory target):
	// from the first discovery call to the end of the hostile load, the
	// kernel's VmHWM reset when it starts, or, if it could not be reset
	// (ServingRSSSampled), the highest RSS sampled then, a lower bound.
	ServingRSS        int64 `json:"servingPeakRSSBytes"`
	ServingRSSSampled bool  `json:"servingPeakRSSSampled,omitempty"`
	// ServerDied says the server exited during the run: PeakRSS is then
	// the highest sampled, a lower bound.
	ServerDied bool       `json:"serverDied,omitempty"`
	RSSByPhase []PhaseRSS `json:"rssByPhase"`
	// MemoryCgroup is set when the server ran under -memory-limit.
	MemoryCgroup *CgroupStats `json:"memoryCgroup,omitempty"`
	// MemoryLimit and LoadMemoryLimit are the -memory-limit and
	// -load-memory-limit asked for (0: none), which name the run's files
	// even where the cgroup's figures could not be read.
	MemoryLimit     int64    `json:"memoryLimitBytes,omitempty"`
	LoadMemoryLimit int64    `json:"loadMemoryLimitBytes,omitempty"`
	Checks          []Check  `json:"targets"`
	Failures        []string `json:"failures"`
	ServerLog       []string `json:"serverLogWarningsAndErrors"` // the last few`
	Notes           []string `json:"notes"`
	ResultsPrefix   string   `json:"-"`
}

// Check is one DESIGN §6 target against this run's figure.
type Check struct {
	Scenario string `json:"scenario"`
	Target   string `json:"target"`
	Met      bool   `json:"met"`
	Missed   string `json:"missed,omitempty"` // which part, when not met
}

// searchTargets are DESIGN §6's latency bounds by query kind (0: none);
// every kind must also be 5× faster than PostgreSQL at p99.
var searchTargets = map[string]struct{ p50, p99 float64 }{
	"word":               {5, 50},
	"prefix":             {10, 60},
	"key:value":          {0, 10},
	"key:value (unique)": {0, 10},
	"tag":                {0, 10},
	"schema field":       {0, 10},
	"word + 3 facets":    {0, 150},
}

const (
	targetDiscoveryIDs     = 40.0
	targetDiscoveryDetails = 20.0
	targetVsPostgres       = 5.0
	targetLagP99           = 500.0 // ms, at 200 writes/s
	targetLagRate          = 200.0
	targetIngest           = 2000.0           // entities/s
	targetRebuildRate      = 1_000_000 / 300. // 1M entities in 5 minutes
	targetRSS              = 1 << 30
	targetSuggestP99       = 5.0 // ms
)

// evaluate fills r.Checks.
func (r *Results) evaluate() {
	add := func(scenario, target string, missed []string) {
		r.Checks = append(r.Checks, Check{Scenario: scenario, Target: target, Met: len(missed) == 0, Missed: strings.Join(missed, "; ")})
	}
	d := r.Discovery
	var missed []string
	if d.SpeedupIDsP50 < targetDiscoveryIDs {
		missed = append(missed, fmt.Sprintf("%.1f×", d.SpeedupIDsP50))
	}
	add("discovery details=false", fmt.Sprintf("≥ %.0f× faster than the loop", targetDiscoveryIDs), missed)
	missed = nil
	if d.SpeedupDetP50 < targetDiscoveryDetails {
		missed = append(missed, fmt.Sprintf("%.1f×", d.SpeedupDetP50))
	}
	add("discovery details=true", fmt.Sprintf("≥ %.0f× faster than the loop", targetDiscoveryDetails), missed)

	for _, q := range r.Queries {
		t := searchTargets[q.Kind]
		var parts, missed []string
		if t.p50 > 0 {
			parts = append(parts, fmt.Sprintf("p50 ≤ %g ms", t.p50))
			if q.Semcat.P50 > t.p50 {
				missed = append(missed, fmt.Sprintf("p50 %s ms", fmtMs(q.Semcat.P50)))
			}
		}
		if t.p99 > 0 {
			parts = append(parts, fmt.Sprintf("p99 ≤ %g ms", t.p99))
			if q.Semcat.P99 > t.p99 {
				missed = append(missed, fmt.Sprintf("p99 %s ms", fmtMs(q.Semcat.P99)))
			}
		}
		parts = append(parts, fmt.Sprintf("p99 ≥ %g× faster than PostgreSQL", targetVsPostgres))
		if q.RatioP99 < targetVsPostgres {
			m := fmt.Sprintf("%.1f× at p99", q.RatioP99)
			if need := q.PG.P99 / targetVsPostgres; r.Floor.HTTP.N > 0 && need < r.Floor.HTTP.P99 {
				m += fmt.Sprintf(": it needs p99 ≤ %s ms, below HTTP's floor here (GET /healthz p99 %s ms)", fmtMs(need), fmtMs(r.Floor.HTTP.P99))
			}
			missed = append(missed, m)
		}
		add("search: "+q.Kind, strings.Join(parts, ", "), missed)
	}

	missed = nil
	if r.Suggest.Suggest.P99 > targetSuggestP99 {
		missed = append(missed, fmt.Sprintf("p99 %s ms", fmtMs(r.Suggest.Suggest.P99)))
	}
	if r.Suggest.Empty > 0 {
		missed = append(missed, fmt.Sprintf("%d prefixes of existing names suggested nothing", r.Suggest.Empty))
	}
	add("suggest", fmt.Sprintf("p99 ≤ %g ms", targetSuggestP99), missed)

	missed = nil
	if r.Lag.Lag.P99 > targetLagP99 || r.Lag.NotFound > 0 {
		missed = append(missed, fmt.Sprintf("p99 %s ms", fmtMs(r.Lag.Lag.P99)))
	}
	if r.Lag.TargetRate < targetLagRate {
		missed = append(missed, fmt.Sprintf("measured at %.0f writes/s, not %.0f", r.Lag.TargetRate, targetLagRate))
	}
	add("write → searchable", fmt.Sprintf("p99 ≤ %.0f ms at %.0f writes/s", targetLagP99, targetLagRate), missed)

	missed = nil
	if h := r.Hostile; h.Errors > 0 || h.Ratio > targetHostileRatio {
		missed = append(missed, fmt.Sprintf("p99 %.1f× its idle value, %d failed", h.Ratio, h.Errors))
	}
	add("hostile load", fmt.Sprintf("a normal search's p99 ≤ %.0f× its idle value", targetHostileRatio), missed)

	missed = nil
	if l := r.Hostile.Listing; l.Errors > 0 || l.Ratio > targetHostileRatio || l.ListingErrors > 0 || l.Rows != l.Tables {
		missed = append(missed, fmt.Sprintf("p99 %.1f× its idle value, %d searches and %d listings failed, %d of %d rows", l.Ratio, l.Errors, l.ListingErrors, l.Rows, l.Tables))
	}
	add("tag-objects listing", fmt.Sprintf("every row; a normal search's p99 ≤ %.0f× its idle value", targetHostileRatio), missed)

	missed = nil
	if r.Load.Rate < targetIngest {
		missed = append(missed, fmt.Sprintf("%.0f entities/s", r.Load.Rate))
	}
	add("bulk ingest, end to end", fmt.Sprintf("≥ %.0f entities/s", targetIngest), missed)

	missed = nil
	if r.Rebuild.Error != "" {
		missed = append(missed, "failed")
	} else if r.Rebuild.Rate < targetRebuildRate {
		missed = append(missed, fmt.Sprintf("%.0f entities/s", r.Rebuild.Rate))
	}
	add("full rebuild", fmt.Sprintf("1M entities ≤ 5 min (≥ %.0f entities/s)", targetRebuildRate), missed)

	missed = nil
	switch {
	case r.ServingRSS == 0:
		missed = append(missed, "not measured")
	case r.ServingRSS > targetRSS:
		missed = append(missed, fmtBytes(r.ServingRSS))
	case r.ServingRSSSampled:
		missed = append(missed, "only sampled: a lower bound")
	}
	add("peak RSS while serving", "≤ 1 GiB while serving 1M entities", missed)
}

// check finds the Check of a scenario.
func (r *Results) check(scenario string) Check {
	for _, c := range r.Checks {
		if c.Scenario == scenario {
			return c
		}
	}
	return Check{}
}

func fmtMs(ms float64) string {
	switch {
	case ms < 10:
		return fmt.Sprintf("%.2f", ms)
	case ms < 100:
		return fmt.Sprintf("%.1f", ms)
	}
	return fmt.Sprintf("%.0f", ms)
}

func fmtStats(s Stats) string {
	return fmtMs(s.P50) + " / " + fmtMs(s.P99) + " / " + fmtMs(s.Mean)
}

func fmtBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.2f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.0f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.0f KiB", float64(n)/(1<<10))
}

func metText(c Check) string {
	if c.Met {
		return "met"
	}
	return "**missed** (" + c.Missed + ")"
}

// Markdown renders the results.
func (r *Results) Markdown() string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format, args...) }
	m := r.Machine
	if r.MemoryLimit > 0 {
		after := ""
		if r.LoadMemoryLimit > 0 {
			after = fmt.Sprintf(" (%s during the load)", fmtBytes(r.LoadMemoryLimit))
		}
		p("# semcat benchmark — %s entities, served under a %s memory limit%s\n\n", r.Size, fmtBytes(r.MemoryLimit), after)
	} else {
		p("# semcat benchmark — %s entities\n\n", r.Size)
	}
	p("Run %s, %s, seed %d. Machine: %d CPUs (%s), %s RAM, %s; %s; PostgreSQL %s. "+
		"Load average (1/5/15 min) %s at the start, %s at the end. "+
		"Speed of this machine: the reference work (reference.go: %d keys formatted, mapped and sorted on one goroutine; it does not depend on semcat's code) took %.0f ms at the start and %.0f ms at the end; "+
		"compare runs through it, since machines of this kind differ.\n\n",
		r.Started.UTC().Format("2006-01-02 15:04 UTC"), (time.Duration(r.Seconds) * time.Second).String(), r.Seed,
		m.NProc, m.CPU, fmtBytes(m.MemoryBytes), m.Kernel, m.Go, m.Postgres, m.LoadAvg, m.LoadAvgEnd,
		referenceKeys, m.ReferenceMs, m.ReferenceEndMs)
	c := r.Counts
	p("Catalog: %d entities — %d catalogs, %d schemas, %d tables, %d semantic models, %d metrics — plus %d tags; "+
		"Bleve index %s on disk after the load (%.0f bytes per entity; where they go, field group by field group, is `-breakdown N`'s `index-breakdown-<size>.md`); "+
		"the PostgreSQL FTS table %s + %s of indexes (built in %.1f s).\n\n",
		r.Entities, c.Catalogs, c.Schemas, c.Tables, c.Models, c.Metrics, tagVocabulary,
		fmtBytes(r.IndexBytes), float64(r.IndexBytes)/float64(max(r.Entities, 1)),
		fmtBytes(r.PGLoad.TableBytes), fmtBytes(r.PGLoad.IndexBytes), r.PGLoad.Seconds)
	p("Latencies are client-side in ms, p50 / p99 / mean, %d queries per search kind (each drawn afresh), "+
		"%d rounds of discovery (timed as HTTP calls: from the first request until the last response is wholly read; "+
		"the rows after them add the client's decoding of the JSON with encoding/json). Ratio = comparison ÷ semcat (> 1: semcat is faster). "+
		"Targets are DESIGN §6's, stated for 1,000,000 entities on this machine type.\n\n",
		r.Iterations, r.Discovery.Identifiers.N)

	p("| scenario | semcat p50 / p99 / mean | comparison | comparison p50 / p99 / mean | ratio p50 / p99 | target (DESIGN §6) | met? |\n")
	p("|---|---|---|---|---|---|---|\n")
	d := r.Discovery
	loop := fmt.Sprintf("client loop (%d requests)", d.LoopRequests)
	ck := r.check("discovery details=false")
	p("| discovery, %d models × %d metrics, details=false | %s | %s | %s | %.1f× / %.1f× | %s | %s |\n",
		d.Models, d.Metrics/max(1, d.Models), fmtStats(d.Identifiers), loop, fmtStats(d.Loop),
		d.SpeedupIDsP50, d.Loop.P99/d.Identifiers.P99, ck.Target, metText(ck))
	ck = r.check("discovery details=true")
	p("| discovery, details=true | %s | %s | %s | %.1f× / %.1f× | %s | %s |\n",
		fmtStats(d.Details), loop, fmtStats(d.Loop), d.SpeedupDetP50, d.Loop.P99/d.Details.P99, ck.Target, metText(ck))
	if d.IdentifiersDecoded.N > 0 {
		p("| the same with encoding/json decoding the responses, details=false (%s) | %s | client loop, decoded | %s | %.1f× / %.1f× | | |\n",
			fmtBytes(int64(d.IdentifiersBytes)), fmtStats(d.IdentifiersDecoded), fmtStats(d.LoopDecoded), d.SpeedupIDsDecodedP50, d.LoopDecoded.P99/d.IdentifiersDecoded.P99)
		p("| the same, details=true (%s) | %s | client loop, decoded | %s | %.1f× / %.1f× | | |\n",
			fmtBytes(int64(d.DetailsBytes)), fmtStats(d.DetailsDecoded), fmtStats(d.LoopDecoded), d.SpeedupDetDecodedP50, d.LoopDecoded.P99/d.DetailsDecoded.P99)
	}
	for _, q := range r.Queries {
		ck := r.check("search: " + q.Kind)
		p("| search: %s `%s` | %s | PostgreSQL FTS | %s | %.1f× / %.1f× | %s | %s |\n",
			q.Kind, q.Example, fmtStats(q.Semcat), fmtStats(q.PG), q.RatioP50, q.RatioP99, ck.Target, metText(ck))
	}
	if sg := r.Suggest; sg.Suggest.N > 0 {
		ck := r.check("suggest")
		p("| type-ahead `GET …/suggest?prefix=%s&limit=%d` (2–4 letters of a name part; %.1f suggestions on average) | %s | prefix search `%s*`, limit %d | %s | %.1f× / %.1f× | %s | %s |\n",
			sg.Example, suggestLimit, sg.MeanSuggested, fmtStats(sg.Suggest), sg.Example, suggestLimit, fmtStats(sg.Prefix),
			sg.Prefix.P50/sg.Suggest.P50, sg.Prefix.P99/sg.Suggest.P99, ck.Target, metText(ck))
	}
	if f := r.Floor; f.HTTP.N > 0 {
		p("| round trip with no work: `GET /healthz` | %s | PostgreSQL `SELECT 1` | %s | %.1f× / %.1f× | | |\n",
			fmtStats(f.HTTP), fmtStats(f.PG), f.PG.P50/f.HTTP.P50, f.PG.P99/f.HTTP.P99)
	}
	l := r.Lag
	ck = r.check("write → searchable")
	p("| write → searchable at %.0f writes/s (%d writes, achieved %.0f/s; poll every %g ms) | %s | | | | %s | %s |\n",
		l.TargetRate, l.Writes, l.AchievedRate, l.PollMs, fmtStats(l.Lag), ck.Target, metText(ck))
	p("| write latency during that | %s | | | | | |\n", fmtStats(l.Write))
	if h := r.Hostile; h.Idle.N > 0 {
		ck = r.check("hostile load")
		p("| word search under hostile load: %d idle connections, %d slow bodies, %d loops of the costliest query (%d cut; costly answers by status %v; %d searches failed) | %s | the same search alone | %s | %.1f× at p99 | %s | %s |\n",
			h.IdleConns, h.SlowBodies, hostileCostlyLoops, h.Cut, h.Costly, h.Errors, fmtStats(h.Hostile), fmtStats(h.Idle), h.Ratio, ck.Target, metText(ck))
	}
	if l := r.Hostile.Listing; l.Idle.N > 0 {
		ck = r.check("tag-objects listing")
		p("| word search beside %d loops of `GET …/tags/{t}/objects` on a tag of %d tables, on a second semcat with `--authorization` holding only those (%d searches failed) | %s | the same search alone | %s | %.1f× at p99 | %s | %s |\n",
			l.Loops, l.Tables, l.Errors, fmtStats(l.Loaded), fmtStats(l.Idle), l.Ratio, ck.Target, metText(ck))
		p("| that listing, %d rows, alone (%d, a second apart) | %s | | | | | |\n", l.Tables, l.Alone.N, fmtStats(l.Alone))
		p("| that listing under its own load (%d answered, %d failed; the server rests a listing slot 9× as long as each listing worked) | %s | | | | | |\n", l.Listings, l.ListingErrors, fmtStats(l.Listing))
	}
	ck = r.check("bulk ingest, end to end")
	p("| bulk ingest, end to end (concurrency %d, %d requests, %s) | %.0f entities/s (%.1f s; HTTP alone %.0f/s) | | | | %s | %s |\n",
		r.Load.Concurrency, r.Load.Requests, tableBatchText(r.Load.TableBatch), r.Load.Rate, r.Load.Seconds, r.Load.HTTPRate, ck.Target, metText(ck))
	ck = r.check("full rebuild")
	rebuild := fmt.Sprintf("%.1f s for %d entities (%.0f entities/s)", r.Rebuild.Seconds, r.Rebuild.Entities, r.Rebuild.Rate)
	if r.Rebuild.Error != "" {
		rebuild = "failed after " + fmt.Sprintf("%.1f s: %s", r.Rebuild.Seconds, r.Rebuild.Error)
	}
	p("| full rebuild (POST /api/admin/reindex) | %s | | | | %s | %s |\n", rebuild, ck.Target, metText(ck))
	if a := r.Rebuild.SearchAfter; a.N > 0 {
		p("| word and prefix searches right after the rebuild (%d) | %s | | | | | |\n", a.N, fmtStats(a))
	}
	ck = r.check("peak RSS while serving")
	rssSource := "VmHWM from the first discovery call to the end of the hostile load"
	if r.ServingRSSSampled {
		rssSource = "highest sampled in those phases: VmHWM could not be reset"
	}
	p("| peak RSS while serving (%s) | %s | | | | %s | %s |\n", rssSource, fmtBytes(r.ServingRSS), ck.Target, metText(ck))
	rssSource = "VmHWM"
	if r.ServerDied {
		rssSource = "highest sampled: semcat died"
	}
	p("| peak RSS of the server over the whole run, the load and the rebuild with it (%s) | %s | | | | | |\n", rssSource, fmtBytes(r.PeakRSS))

	p("\n**The server process by phase** (RSS sampled every 100 ms; the rest of RSS beyond the anonymous part is file-backed, mostly the index's memory-mapped segments), and the CPU time of the three parties sharing the machine's %d CPUs: semcat, its PostgreSQL (which also answers the comparison queries) and this harness:\n\n", r.Machine.NProc)
	p("| phase | peak RSS | of it anonymous (heap) | semcat CPU | PostgreSQL CPU | harness CPU | wall | semcat CPU ÷ wall |\n|---|---|---|---|---|---|---|---|\n")
	for _, ph := range r.RSSByPhase {
		p("| %s | %s | %s | %.1f s | %.1f s | %.1f s | %.1f s | %.2f |\n", ph.Phase, fmtBytes(ph.PeakBytes), fmtBytes(ph.PeakAnonBytes),
			ph.CPUSeconds, ph.PostgresCPUSeconds, ph.HarnessCPUSeconds, ph.WallSeconds, ph.CPUSeconds/max(ph.WallSeconds, 1e-9))
	}

	p("\n**Where semcat's time goes**: semcat's own duration per call (from its audit log) against the client's, which adds HTTP and decoding the JSON:\n\n")
	p("| kind | client p50 / p99 | server p50 / p99 | HTTP + JSON share of p50 | searches with major page faults (faults; their client p50 / max) |\n|---|---|---|---|---|\n")
	d = r.Discovery
	for _, row := range []struct {
		kind           string
		client, server Stats
	}{{"discovery, details=false", d.IdentifiersDecoded, d.ServerIdentifiers}, {"discovery, details=true", d.DetailsDecoded, d.ServerDetails}} {
		if row.server.N > 0 {
			p("| %s | %s / %s | %s / %s (n=%d) | %.0f%% | |\n", row.kind, fmtMs(row.client.P50), fmtMs(row.client.P99),
				fmtMs(row.server.P50), fmtMs(row.server.P99), row.server.N, 100*(row.client.P50-row.server.P50)/row.client.P50)
		}
	}
	for _, q := range r.Queries {
		share := 0.0
		if q.Semcat.P50 > 0 {
			share = 100 * (q.Semcat.P50 - q.Server.P50) / q.Semcat.P50
		}
		faulted := "0"
		if q.Faulted > 0 {
			faulted = fmt.Sprintf("%d (%d; %s / %s ms)", q.Faulted, q.MajorFaults, fmtMs(q.FaultedP50), fmtMs(q.FaultedMax))
		}
		p("| %s | %s / %s | %s / %s (n=%d) | %.0f%% | %s |\n", q.Kind, fmtMs(q.Semcat.P50), fmtMs(q.Semcat.P99),
			fmtMs(q.Server.P50), fmtMs(q.Server.P99), q.Server.N, share, faulted)
	}

	r.writeReads(p)

	p("\n**Result agreement** (totals equal in both engines, of %d queries; exact kinds must agree or the run fails):\n\n", r.Iterations)
	p("| kind | exact | totals agree | mean total semcat | mean total PostgreSQL |\n|---|---|---|---|---|\n")
	for _, q := range r.Queries {
		p("| %s | %v | %d | %.1f | %.1f |\n", q.Kind, q.Exact, q.Agree, q.MeanSemcatTotal, q.MeanPGTotal)
	}
	for _, q := range r.Queries {
		if len(q.Disagreements) > 0 {
			p("\nExamples of differing totals, %s: %s.\n", q.Kind, strings.Join(q.Disagreements, "; "))
		}
	}
	if d.Agreed {
		p("\nMetric discovery returned the same %d metrics, in the same order and with the same definitions, as the client loop in every round.\n",
			d.Metrics)
	}
	if len(r.Failures) > 0 {
		p("\n## FAILED\n\n")
		for _, f := range r.Failures {
			p("- %s\n", f)
		}
	}
	if len(r.ServerLog) > 0 {
		p("\nThe server logged these warnings and errors (the last %d):\n\n```\n%s\n```\n", len(r.ServerLog), strings.Join(r.ServerLog, "\n"))
	}
	if len(r.Notes) > 0 {
		p("\nNotes:\n\n")
		for _, n := range r.Notes {
			p("- %s\n", n)
		}
	}
	met := 0
	for _, c := range r.Checks {
		if c.Met {
			met++
		}
	}
	p("\nTargets met: %d of %d.\n", met, len(r.Checks))
	return b.String()
}

// Name names a run's files: its size, and the memory limit it was served
// under, if any ("1m-limit-1GiB"; "-after-load" when the load had a
// higher limit), so that runs with and without a limit do not overwrite
// each other's results.
func (r *Results) Name() string {
	if r.MemoryLimit == 0 {
		return r.Size
	}
	name := r.Size + "-limit-" + compactBytes(r.MemoryLimit)
	if r.LoadMemoryLimit > 0 {
		name += "-after-load"
	}
	return name
}

// compactBytes writes n as a -memory-limit flag would (parseBytes): 1GiB,
// 192MiB.
func compactBytes(n int64) string {
	for _, u := range slices.Backward(byteUnits) {
		if n >= 1<<u.shift && n%(1<<u.shift) == 0 {
			return fmt.Sprintf("%d%s", n>>u.shift, u.suffix)
		}
	}
	return fmt.Sprintf("%dB", n)
}

// write stores results-<name>.md and .json under dir.
func (r *Results) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	js, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "results-"+r.Name()+".json"), append(js, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "results-"+r.Name()+".md"), []byte(r.Markdown()), 0o644)
}

// tableBatchText says how the ingest created tables.
func tableBatchText(n int) string {
	if n == 0 {
		return "tables one by one, each with a tag association"
	}
	return fmt.Sprintf("tables %d per batch create, with their tags", n)
}

// writeReads writes what a search of each kind read of the index (its
// profile), when the run has it.
func (r *Results) writeReads(p func(string, ...any)) {
	have := false
	for _, q := range r.Queries {
		have = have || len(q.Reads) > 0
	}
	if !have {
		return
	}
	p("\n**What a search reads** (`profile=true`, %d more queries of each kind, on average per search): the postings lists of its terms and filters with their size on disk, the dictionary entries its expansions walked, and the stored documents of its page (`doc`, decoded). What a search reads is what must stay in memory for it to be fast; fields by the most bytes:\n\n", profileQueries)
	p("| kind | postings read | dictionary entries walked | stored documents | fields (KiB; entries walked) |\n|---|---|---|---|---|\n")
	for _, q := range r.Queries {
		if len(q.Reads) == 0 {
			continue
		}
		var postings, terms, lists, stored float64
		var fields []string
		for _, f := range q.Reads {
			if f.Field == searchdoc.FieldStored {
				stored = f.Bytes
			} else {
				postings += f.Bytes
				lists += f.Lists
			}
			terms += f.Terms
			if len(fields) < 6 && (f.Bytes >= 512 || f.Terms >= 1) {
				part := fmt.Sprintf("`%s` %.1f", f.Field, f.Bytes/1024)
				if f.Terms >= 1 {
					part += fmt.Sprintf("; %.0f", f.Terms)
				}
				fields = append(fields, part)
			}
		}
		p("| %s | %.0f KiB in %.0f lists | %.0f | %.1f KiB | %s |\n", q.Kind, postings/1024, lists, terms, stored/1024, strings.Join(fields, ", "))
	}
}
