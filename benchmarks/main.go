// Command benchmarks is semcat's benchmark harness (`make bench`).
//
// It generates a realistic catalog deterministically, builds and starts
// semcat the way a user would (managed PostgreSQL, on-disk index), loads the
// catalog over HTTP and measures, side by side in one run, metric discovery
// against the client loop it replaces, search by query kind against
// PostgreSQL full-text search on the same data and the same PostgreSQL,
// write → searchable lag, bulk ingest, full rebuild and peak memory. It
// writes benchmarks/results/results-<size>.{md,json} and latency-<size>.svg
// and prints the table. It exits non-zero if any scenario returns wrong
// results, so speed is never bought with correctness.
//
//	go run ./benchmarks [-size 10k|100k|1m] [-seed 1] [-n 200] ...
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// options are the harness's flags.
type options struct {
	size            string
	seed            uint64
	iterations      int
	warmup          int
	discoveryRounds int
	concurrency     int
	tableBatch      int
	writeRate       float64
	writeDuration   time.Duration
	poll            time.Duration
	out             string
	keep            bool
	profile         time.Duration
	memoryLimit     int64 // bytes; 0: none
	loadMemoryLimit int64 // bytes; the limit until the load is searchable (0: memoryLimit)
	// relevance runs the relevance benchmark (relevance.go) instead.
	relevance bool
	corpus    string // its corpus, an import file
	pool      string // write judging pools here instead of measuring
	poolDepth int    // the depth of each system's list in a pool (0: poolDepth)
	unjudged  bool   // with pool: write only the unjudged documents of each system's top poolDepth
	catalogs  string // the catalogs to run, by name, comma-separated ("": all)
	// breakdown measures where the index's bytes go on a sample of this
	// many entities instead (breakdown.go); 0: off.
	breakdown int
	// dbt runs the dbt import benchmark instead (dbt.go).
	dbt bool
	// pgTables runs the PostgreSQL catalog benchmark (pgsource.go) over a
	// source of this many tables instead; 0: off. pgInterval is its
	// catalog's refresh interval.
	pgTables   int
	pgInterval string
}

func parseFlags() options {
	var o options
	flag.StringVar(&o.size, "size", "10k", "catalog size in entities: 10k, 100k or 1m")
	flag.Uint64Var(&o.seed, "seed", 1, "seed of the catalog generator and the query samplers")
	flag.IntVar(&o.iterations, "n", 200, "measured queries per search kind")
	flag.IntVar(&o.warmup, "warmup", 10, "unmeasured queries per search kind (and rounds of discovery) first")
	flag.IntVar(&o.discoveryRounds, "discovery-rounds", 20, "measured rounds of metric discovery")
	flag.IntVar(&o.concurrency, "concurrency", 6, "concurrent requests during bulk ingest")
	flag.IntVar(&o.tableBatch, "table-batch", 100, "tables per batch create (with their tags) during bulk ingest; 0: one create and one tag association per table")
	flag.Float64Var(&o.writeRate, "write-rate", 0, "writes/s of the write → searchable scenario (default 50 at 10k, 200 otherwise)")
	flag.DurationVar(&o.writeDuration, "write-duration", 10*time.Second, "how long the write → searchable scenario writes")
	flag.DurationVar(&o.poll, "poll", 5*time.Millisecond, "how often the write → searchable poller searches")
	flag.StringVar(&o.out, "out", "", "results directory (default benchmarks/results in the module)")
	flag.BoolVar(&o.keep, "keep", false, "keep the temporary directory (data dir, server log) after the run")
	flag.DurationVar(&o.profile, "profile", 0, "record the server's CPU profile for this long at the start of each phase (ingest, discovery, search, write → searchable, rebuild; and the tag-objects listing on its own server) into the results directory's profiles/; 0: off")
	flag.BoolVar(&o.relevance, "relevance", false, "run the relevance benchmark (nDCG@10 on judged queries over a real catalog, against a BM25 baseline) instead")
	flag.StringVar(&o.corpus, "corpus", "", "the relevance benchmark's GitLab corpus, an import file (default ../shared/data/catalog-corpus.jsonl from the module)")
	flag.StringVar(&o.pool, "pool", "", "with -relevance: write each query's judging pool into this directory instead of measuring")
	flag.IntVar(&o.poolDepth, "pool-depth", 0, "with -pool: the depth of each system's list in a pool (default 20)")
	flag.BoolVar(&o.unjudged, "pool-unjudged", false, "with -pool: write only the documents of each system's top -pool-depth that judgments.tsv has no grade for (a top-up round), each with the systems that ranked it")
	flag.StringVar(&o.catalogs, "catalogs", "", "with -relevance: the catalogs to run, comma-separated (gitlab, tuva, mitol; default all)")
	flag.IntVar(&o.breakdown, "breakdown", 0, "instead of the latency scenarios, load the catalog and measure where the index's bytes and build CPU go, field group by field group, on a sample of this many of its entities (index-breakdown-<size>.md)")
	flag.BoolVar(&o.dbt, "dbt", false, "run the dbt import benchmark (about 2,000 models generated from -corpus, imported, re-imported, changed) instead")
	flag.IntVar(&o.pgTables, "pgsource", 0, "instead of the latency scenarios, run the PostgreSQL catalog benchmark over a source database of this many tables (DESIGN §8.3: 10000); 0: off")
	flag.StringVar(&o.pgInterval, "pg-interval", "10s", "with -pgsource: the catalog's refresh interval")
	memoryLimit := flag.String("memory-limit", "", "serve under this memory limit (e.g. 1GiB): the server joins a memory cgroup of its own once ready (needs permission to make cgroups); empty: none")
	loadMemoryLimit := flag.String("load-memory-limit", "", "with -memory-limit: the limit during the bulk load, lowered to -memory-limit once the load is searchable (to study searches under a limit smaller than the load needs; DESIGN §6's target is measured with one limit from the start); empty: -memory-limit throughout")
	flag.Parse()
	for _, f := range []struct {
		name  string
		value string
		dst   *int64
	}{{"memory-limit", *memoryLimit, &o.memoryLimit}, {"load-memory-limit", *loadMemoryLimit, &o.loadMemoryLimit}} {
		if f.value == "" {
			continue
		}
		var err error
		if *f.dst, err = parseBytes(f.value); err != nil {
			fmt.Fprintf(os.Stderr, "benchmarks: -%s: %v\n", f.name, err)
			os.Exit(2)
		}
	}
	if o.writeRate == 0 {
		o.writeRate = 200
		if o.size == "10k" {
			o.writeRate = 50
		}
	}
	return o
}

func main() {
	os.Exit(run(parseFlags()))
}

func logf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
}

// run runs the benchmark and returns the exit code: 1 if anything failed,
// including wrong results, 2 for bad flags.
func run(o options) int {
	n, ok := sizes[strings.ToLower(o.size)]
	if !ok && !o.relevance {
		fmt.Fprintf(os.Stderr, "benchmarks: -size must be 10k, 100k or 1m, got %q\n", o.size)
		return 2
	}
	o.size = strings.ToLower(o.size)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	root, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchmarks:", err)
		return 1
	}
	if o.out == "" {
		o.out = filepath.Join(root, "benchmarks", "results")
	}
	tmp, err := os.MkdirTemp("", "semcat-bench-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchmarks:", err)
		return 1
	}
	var srv *Server
	var clusterDir string
	defer func() {
		if srv != nil {
			logf("stopping semcat (SIGINT)")
			if err := srv.Stop(90 * time.Second); err != nil {
				logf("warning: %v", err)
			}
			if err := srv.stopOrphanedPostgres(60 * time.Second); err != nil {
				logf("warning: %v", err)
			}
			if !o.keep {
				if err := srv.removeOutsideCluster(clusterDir); err != nil {
					logf("warning: %v", err)
				}
			}
		}
		if o.keep {
			logf("kept %s", tmp)
		} else {
			_ = os.RemoveAll(tmp)
		}
	}()

	if o.relevance {
		if err := relevance(ctx, o, root, tmp, &srv, &clusterDir); err != nil {
			fmt.Fprintln(os.Stderr, "benchmarks: FAILED:", err)
			if srv != nil {
				fmt.Fprintf(os.Stderr, "last lines of the server log:\n%s\n", srv.tail(15))
			}
			return 1
		}
		return 0
	}
	if o.dbt {
		res, err := dbtBench(ctx, o, root, tmp, &srv, &clusterDir)
		if err == nil {
			err = res.write(o.out)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchmarks: FAILED:", err)
			return 1
		}
		fmt.Print(res.Markdown())
		if misses := res.check(); len(misses) > 0 {
			fmt.Fprintln(os.Stderr, "benchmarks: FAILED:", strings.Join(misses, "; "))
			return 1
		}
		return 0
	}
	if o.pgTables > 0 {
		res, err := pgSource(ctx, o, root, tmp, &srv, &clusterDir)
		if err == nil {
			err = res.write(o.out)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchmarks: FAILED:", err)
			if srv != nil {
				fmt.Fprintf(os.Stderr, "last lines of the server log:\n%s\n", srv.tail(15))
			}
			return 1
		}
		fmt.Print(res.Markdown())
		if len(res.Failures) > 0 {
			return 1
		}
		return 0
	}
	if o.breakdown > 0 {
		res, err := breakdown(ctx, o, n, root, tmp, &srv, &clusterDir)
		if err == nil {
			err = res.write(o.out)
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "benchmarks: FAILED:", err)
			return 1
		}
		fmt.Print(res.Markdown())
		return 0
	}
	res, err := bench(ctx, o, n, root, tmp, &srv, &clusterDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchmarks: FAILED:", err)
		if srv != nil {
			fmt.Fprintf(os.Stderr, "last lines of the server log:\n%s\n", srv.tail(15))
		}
		return 1
	}
	if err := res.write(o.out); err != nil {
		fmt.Fprintln(os.Stderr, "benchmarks:", err)
		return 1
	}
	if err := writeSVG(res, o.out); err != nil {
		fmt.Fprintln(os.Stderr, "benchmarks:", err)
		return 1
	}
	fmt.Print(res.Markdown())
	logf("wrote %s/results-%s.{md,json} and latency-%s.svg", o.out, res.Name(), res.Name())
	if len(res.Failures) > 0 {
		fmt.Fprintf(os.Stderr, "benchmarks: FAILED: %d failed checks (see FAILED above)\n", len(res.Failures))
		return 1
	}
	return 0
}

// bench runs every scenario. It sets *srv as soon as the server runs, so
// the caller stops it whatever happens.
func bench(ctx context.Context, o options, n int, root, tmp string, srv **Server, clusterDir *string) (*Results, error) {
	started := time.Now()
	res := &Results{Size: o.size, Seed: o.seed, Started: started, Machine: machine(), Iterations: o.iterations,
		MemoryLimit: o.memoryLimit, LoadMemoryLimit: o.loadMemoryLimit}
	res.Machine.ReferenceMs = referenceMs()
	logf("reference work: %.0f ms (this machine's speed; see reference.go)", res.Machine.ReferenceMs)

	logf("generating the %s catalog (seed %d)", o.size, o.seed)
	g := NewGenerator(o.seed, n)
	res.Counts, res.Entities = g.Plan.Counts, g.Plan.Counts.Entities()
	c := res.Counts
	logf("  %d entities: %d catalogs, %d schemas, %d tables, %d models, %d metrics",
		res.Entities, c.Catalogs, c.Schemas, c.Tables, c.Models, c.Metrics)

	logf("building ./cmd/semcat")
	bin, err := buildSemcat(ctx, root, tmp)
	if err != nil {
		return nil, err
	}
	logf("starting semcat serve (managed PostgreSQL) in %s", tmp)
	s, err := startServer(ctx, bin, tmp, o.profile > 0)
	*srv = s
	if err != nil {
		return nil, err
	}
	if *clusterDir, err = s.ClusterDir(); err != nil {
		return nil, err
	}
	client := newClient(s.URL)
	logf("  ready at %s", s.URL)
	if o.memoryLimit > 0 {
		limit := o.memoryLimit
		if o.loadMemoryLimit > 0 {
			limit = o.loadMemoryLimit
		}
		if err := s.limitMemory(limit); err != nil {
			return nil, fmt.Errorf("-memory-limit: %w", err)
		}
		logf("  serving under a memory limit of %s (cgroup v%d)", fmtBytes(limit), s.cgroup.version)
	}
	rss := s.sampleRSS(100 * time.Millisecond)
	if o.profile > 0 {
		prof := newProfiler(ctx, s, o.profile, filepath.Join(o.out, "profiles", o.size), logf)
		rss.onPhase = prof.phase
		defer prof.wait()
	}
	defer func() {
		if res.RSSByPhase == nil {
			rss.Stop()
		}
	}()
	rss.Phase("bulk ingest")

	logf("bulk ingest over HTTP, concurrency %d, %s", o.concurrency, tableBatchText(o.tableBatch))
	if res.Load, err = load(ctx, client, g, o.concurrency, o.tableBatch, logf); err != nil {
		return nil, err
	}
	logf("  %d entities in %.1f s: %.0f entities/s end to end (%.0f/s until the last write was answered)",
		res.Load.Entities, res.Load.Seconds, res.Load.Rate, res.Load.HTTPRate)
	res.IndexBytes = dirSize(filepath.Join(s.DataDir, "index"))
	if o.memoryLimit > 0 && o.loadMemoryLimit > 0 {
		// The kernel reclaims the cgroup's pages down to the new limit,
		// the index's cached file pages first.
		if err := s.cgroup.setLimit(o.memoryLimit); err != nil {
			return nil, fmt.Errorf("-memory-limit after the load: %w", err)
		}
		logf("  the load is searchable: memory limit lowered to %s", fmtBytes(o.memoryLimit))
	}
	fail := func(format string, args ...any) {
		res.Failures = append(res.Failures, fmt.Sprintf(format, args...))
		logf("  WRONG: "+format, args...)
	}
	if got, err := countAll(ctx, client, g.Plan.Metalake); err != nil {
		return nil, err
	} else if got != uint64(res.Entities) {
		fail("after the load, search for * counts %d entities; %d were created", got, res.Entities)
	}

	rss.Phase("PostgreSQL comparison build")
	// Discovery right after the load, with whatever statistics autovacuum
	// has gathered so far; then ANALYZE, so that semcat's tables have
	// statistics just as the comparison table (VACUUM ANALYZE) will.
	before, _, err := runDiscovery(ctx, client, g, 5, 1)
	if err != nil {
		return nil, err
	}
	t0 := time.Now()
	if err := s.Analyze(ctx); err != nil {
		return nil, fmt.Errorf("ANALYZE in semcat's database: %w", err)
	}
	logf("  ANALYZE in semcat's database took %.1f s (discovery details=false p50 before it: %s ms)",
		time.Since(t0).Seconds(), fmtMs(before.Identifiers.P50))

	logf("building the PostgreSQL full-text comparison (database %s on semcat's PostgreSQL)", pgDatabase)
	pg, err := openPGFTS(ctx, s)
	if err != nil {
		return nil, err
	}
	defer pg.Close(context.WithoutCancel(ctx))
	res.Machine.Postgres = pg.Version
	if res.PGLoad, err = pg.Load(ctx, g); err != nil {
		return nil, err
	}
	logf("  %d rows in %.1f s", res.PGLoad.Rows, res.PGLoad.Seconds)

	cp := g.Plan.Catalogs[g.Plan.Discovery.Catalog]
	logf("metric discovery: %d models × %d metrics in %s.%s, %d rounds",
		len(cp.Schemas[g.Plan.Discovery.Schema].Metrics), discoveryMetrics, cp.Name, cp.Schemas[g.Plan.Discovery.Schema].Name, o.discoveryRounds)
	// The peak while serving starts here: VmHWM so far (the load's peak)
	// is kept, and the kernel's count starts afresh.
	loadPeak, err := s.PeakRSS()
	if err != nil {
		return nil, err
	}
	servingHWM := s.ResetPeakRSS() == nil
	if !servingHWM {
		logf("  warning: cannot reset the server's VmHWM: its peak while serving is the highest sampled")
	}
	rss.Phase("metric discovery")
	var failures []string
	discoveryWindow := window{from: time.Now()}
	if res.Discovery, failures, err = runDiscovery(ctx, client, g, o.discoveryRounds, discoveryWarmup); err != nil {
		return nil, err
	}
	discoveryWindow.to = time.Now()
	res.Discovery.Agreed = len(failures) == 0
	res.Discovery.BeforeAnalyze = before.Identifiers
	for _, f := range failures {
		fail("%s", f)
	}
	d := res.Discovery
	logf("  as HTTP calls: details=false p50 %s ms, details=true p50 %s ms, loop p50 %s ms", fmtMs(d.Identifiers.P50), fmtMs(d.Details.P50), fmtMs(d.Loop.P50))
	logf("  with encoding/json decoding: details=false p50 %s ms, details=true p50 %s ms, loop p50 %s ms", fmtMs(d.IdentifiersDecoded.P50), fmtMs(d.DetailsDecoded.P50), fmtMs(d.LoopDecoded.P50))

	logf("search by query kind: %d queries each, semcat over HTTP vs PostgreSQL FTS", o.iterations)
	rss.Phase("search")
	if res.Queries, failures, err = runQueries(ctx, client, pg, g, o.iterations, o.warmup, o.seed, s.majorFaults, logf); err != nil {
		return nil, err
	}
	for _, f := range failures {
		fail("%s", f)
	}
	if res.Suggest, err = runSuggest(ctx, client, g, o.iterations, o.warmup, o.seed); err != nil {
		return nil, err
	}
	logf("  %-20s semcat p50 %7.2f ms p99 %8.2f ms | prefix search p50 %8.2f ms p99 %8.2f ms | %.1f suggestions on average, %d prefixes with none",
		"suggest", res.Suggest.Suggest.P50, res.Suggest.Suggest.P99, res.Suggest.Prefix.P50, res.Suggest.Prefix.P99, res.Suggest.MeanSuggested, res.Suggest.Empty)
	if res.Floor, err = runFloor(ctx, client, pg, o.iterations, o.warmup); err != nil {
		return nil, err
	}
	logf("  round trip with no work: semcat GET /healthz p50 %s ms p99 %s ms | PostgreSQL SELECT 1 p50 %s ms p99 %s ms",
		fmtMs(res.Floor.HTTP.P50), fmtMs(res.Floor.HTTP.P99), fmtMs(res.Floor.PG.P50), fmtMs(res.Floor.PG.P99))
	windows := make([]window, len(res.Queries))
	for i, q := range res.Queries {
		windows[i] = q.window
	}
	time.Sleep(200 * time.Millisecond) // the audit listener writes asynchronously
	audit := filepath.Join(s.DataDir, "audit.log")
	if server, err := serverDurations(audit, "search", windows); err != nil {
		logf("  warning: reading the audit log: %v", err)
	} else {
		for i := range res.Queries {
			res.Queries[i].Server = summarize(server[i])
		}
	}
	if server, err := serverDurations(audit, "listSemanticModelMetrics", []window{discoveryWindow}); err != nil {
		logf("  warning: reading the audit log: %v", err)
	} else {
		res.Discovery.ServerIdentifiers, res.Discovery.ServerDetails = splitRounds(server[0], discoveryWarmup)
	}

	logf("write → searchable: %.0f writes/s for %s, polling every %s", o.writeRate, o.writeDuration, o.poll)
	// A quiet moment first: any CPU the server burns here is background
	// work (segment merging after the bulk load) the lag runs alongside.
	rss.Phase("idle (3 s, no requests)")
	time.Sleep(3 * time.Second)
	rss.Phase("write → searchable")
	if res.Lag, err = runLag(ctx, client, g, o.writeRate, o.writeDuration, o.poll); err != nil {
		return nil, err
	}
	logf("  lag p50 %s ms, p99 %s ms (%d searches); write p50 %s ms", fmtMs(res.Lag.Lag.P50), fmtMs(res.Lag.Lag.P99), res.Lag.Searches, fmtMs(res.Lag.Write.P50))
	if res.Lag.NotFound > 0 {
		fail("write → searchable: %d of %d written tables never became searchable", res.Lag.NotFound, res.Lag.Writes)
	}
	indexed := res.Entities + res.Lag.Writes

	logf("hostile load: %d word searches alone, then with %d idle connections, %d slow bodies and %d loops of the costliest query",
		o.iterations, hostileIdleConns, hostileSlowBodies, hostileCostlyLoops)
	rss.Phase("hostile load")
	if res.Hostile, err = runHostile(ctx, client, g, o.iterations, o.seed); err != nil {
		return nil, err
	}
	h := res.Hostile
	logf("  alone p50 %s / p99 %s ms; under the load p50 %s / p99 %s ms (%.1f×), %d failed; %d connections cut; costly queries by status %v",
		fmtMs(h.Idle.P50), fmtMs(h.Idle.P99), fmtMs(h.Hostile.P50), fmtMs(h.Hostile.P99), h.Ratio, h.Errors, h.Cut, h.Costly)
	logf("tag-objects listing: a second semcat with --authorization, %d tables with one tag; %d word searches alone, then beside %d listing loops",
		listingTables, o.iterations, listingLoops)
	if res.Hostile.Listing, err = runListing(ctx, bin, filepath.Join(tmp, "listing"), g, o.iterations, o.seed,
		o.profile, filepath.Join(o.out, "profiles", o.size, "tag-objects-listing.pprof")); err != nil {
		return nil, err
	}
	ls := res.Hostile.Listing
	logf("  %d tables created in %.1f s; listing of %d rows alone p50 %s ms, four at once p50 %s / p99 %s ms (%d answered, %d failed); search alone p50 %s / p99 %s ms, beside the listings p50 %s / p99 %s ms (%.1f×), %d failed",
		ls.Tables, ls.LoadSeconds, ls.Rows, fmtMs(ls.Alone.P50), fmtMs(ls.Listing.P50), fmtMs(ls.Listing.P99), ls.Listings, ls.ListingErrors,
		fmtMs(ls.Idle.P50), fmtMs(ls.Idle.P99), fmtMs(ls.Loaded.P50), fmtMs(ls.Loaded.P99), ls.Ratio, ls.Errors)

	if res.ServingRSS, res.ServingRSSSampled, err = servingPeak(s.PeakRSS, servingHWM, rss.PeakSince("metric discovery"), func() bool { return s.exitedWithin(5 * time.Second) }); err != nil {
		return nil, err
	}
	logf("peak RSS while serving: %s", fmtBytes(res.ServingRSS))

	logf("full rebuild of %d entities", indexed)
	rss.Phase("full rebuild")
	res.Rebuild = runRebuild(ctx, client, indexed)
	if res.Rebuild.Error != "" {
		fail("full rebuild failed: %s", res.Rebuild.Error)
	} else {
		logf("  %.1f s (%.0f entities/s)", res.Rebuild.Seconds, res.Rebuild.Rate)
		if err := afterRebuild(ctx, client, g, o, res, indexed, fail); err != nil {
			if !s.exitedWithin(5 * time.Second) {
				return nil, err
			}
			fail("after the rebuild: %v", err)
		}
	}

	res.RSSByPhase = rss.Stop()
	wholeRun := func() (int64, error) {
		v, err := s.PeakRSS() // since the reset: serving and the rebuild
		return max(v, loadPeak), err
	}
	if res.PeakRSS, res.ServerDied, err = peakRSS(wholeRun, func() bool { return s.exitedWithin(5 * time.Second) }, res.RSSByPhase); err != nil {
		return nil, err
	} else if res.ServerDied {
		fail("semcat exited during the run; its peak RSS is the highest sampled")
	}
	if s.cgroup != nil {
		// A cgroup that cannot say its peak (v2's memory.peak needs Linux
		// 5.19) costs the report that line, not the run.
		if st, err := s.cgroup.Stats(); err != nil {
			logf("warning: reading the server's memory cgroup: %v", err)
		} else {
			res.MemoryCgroup = &st
			logf("memory cgroup: peak usage %s of %s; limit reached %d times; %d OOM kills", fmtBytes(st.PeakBytes), fmtBytes(st.LimitBytes), st.LimitHits, st.OOMKills)
		}
	}
	var phases []string
	for _, p := range res.RSSByPhase {
		phases = append(phases, fmt.Sprintf("%s %s (CPU %.0f s in %.0f s)", p.Phase, fmtBytes(p.PeakBytes), p.CPUSeconds, p.WallSeconds))
	}
	logf("peak RSS of semcat: %s (sampled peaks by phase: %s)", fmtBytes(res.PeakRSS), strings.Join(phases, ", "))

	res.Machine.LoadAvgEnd = loadAvg()
	res.Machine.ReferenceEndMs = referenceMs()
	logf("reference work at the end: %.0f ms", res.Machine.ReferenceEndMs)
	res.ServerLog = s.Errors(10)
	res.Notes = notes(o, g, res)
	res.Seconds = time.Since(started).Seconds()
	res.evaluate()
	return res, nil
}

// afterRebuild times searches right after the rebuild and checks that it
// indexed every entity.
func afterRebuild(ctx context.Context, client *Client, g *Generator, o options, res *Results, indexed int, fail func(string, ...any)) error {
	var err error
	if res.Rebuild.SearchAfter, err = searchAfterRebuild(ctx, client, g, 100, o.seed); err != nil {
		return err
	}
	logf("  word and prefix searches right after it: p50 %s ms, p99 %s ms", fmtMs(res.Rebuild.SearchAfter.P50), fmtMs(res.Rebuild.SearchAfter.P99))
	got, err := countAll(ctx, client, g.Plan.Metalake)
	if err != nil {
		return err
	}
	if got != uint64(indexed) {
		fail("after the rebuild, search for * counts %d entities; %d exist", got, indexed)
	}
	return nil
}

// servingPeak is the server's peak RSS over the serving phases: VmHWM,
// reset when they began (if fromHWM), or else highestSampled, the highest
// RSS sampled in them, and then sampled says so. A server that has exited
// (exited) has no VmHWM left to read: its sampled peak stands, so that the
// phases it finished are still reported.
func servingPeak(hwm func() (int64, error), fromHWM bool, highestSampled int64, exited func() bool) (peak int64, sampled bool, err error) {
	if fromHWM {
		peak, err = hwm()
		if err == nil || !exited() {
			return peak, false, err
		}
	}
	return highestSampled, true, nil
}

// peakRSS is the server's peak RSS as the kernel counts it (VmHWM), or,
// if the server has died (a failed phase says where), the highest RSS
// sampled, so that the figures of the phases it finished are still
// written down.
func peakRSS(hwm func() (int64, error), exited func() bool, phases []PhaseRSS) (peak int64, died bool, err error) {
	peak, err = hwm()
	if err == nil || !exited() {
		return peak, false, err
	}
	for _, p := range phases {
		peak = max(peak, p.PeakBytes)
	}
	return peak, true, nil
}

// notes say how this run differs from the targets' conditions.
func notes(o options, g *Generator, r *Results) []string {
	var out []string
	if r.Discovery.Models < maxDiscovery {
		out = append(out, fmt.Sprintf("At %s, metric discovery is scaled to %d models × %d metrics (the target is stated for 1,000 × 20).",
			o.size, r.Discovery.Models, discoveryMetrics))
	}
	out = append(out, fmt.Sprintf("After the load the harness runs ANALYZE in semcat's database (what autovacuum does within minutes), so both engines plan with statistics. "+
		"Right before it, metric discovery details=false took %s ms at p50 (%d rounds) against %s ms after it.",
		fmtMs(r.Discovery.BeforeAnalyze.P50), r.Discovery.BeforeAnalyze.N, fmtMs(r.Discovery.Identifiers.P50)))
	if o.writeRate < targetLagRate {
		out = append(out, fmt.Sprintf("Write → searchable was measured at %.0f writes/s; the target is stated at %.0f writes/s (-write-rate).",
			o.writeRate, targetLagRate))
	}
	out = append(out,
		"Lag is measured from a write's response to the first poll (one search for every pending value, without minPosition) that returns it, so it includes up to one poll interval.",
		"Everything shares one 2-core machine: the harness (generating, encoding, timing), semcat, and PostgreSQL, which serves both semcat and the comparison.",
		"semcat is timed over HTTP with JSON and returns each hit's complete system and user metadata; PostgreSQL is timed over pgx on its Unix socket and returns each hit's id and user metadata (jsonb).",
		"PostgreSQL FTS rows index the same text semcat matches for vocabulary terms: names, property values, tags, schema field names, dataset names and metric descriptions. Non-exact kinds may differ slightly (a phrase is a whole value in semcat but adjacent words in PostgreSQL).",
		fmt.Sprintf("Query terms are drawn with the data's own Zipf skew (s=%g over %d words), so p99 includes the most frequent words.", zipfS, len(g.Words)),
	)
	if o.size != "1m" {
		out = append(out, "The targets are stated for 1,000,000 entities; at this size met/missed is indicative only.")
	}
	if c := r.MemoryCgroup; c != nil {
		joined := "joined once it was ready"
		if r.LoadMemoryLimit > 0 {
			joined = fmt.Sprintf("joined once it was ready, with a limit of %s during the bulk load (-load-memory-limit), lowered once the load was searchable", fmtBytes(r.LoadMemoryLimit))
		}
		out = append(out, fmt.Sprintf("The server ran under a memory limit of %s (a cgroup v%d of its own, %s; its PostgreSQL outside it): "+
			"the cgroup's peak usage, its heap and the page cache charged to it, was %s; usage reached the limit %d times (each time the kernel reclaimed the cgroup's pages, the index's cached file pages first); %d processes were killed for want of memory.",
			fmtBytes(c.LimitBytes), c.Version, joined, fmtBytes(c.PeakBytes), c.LimitHits, c.OOMKills))
	}
	return out
}
