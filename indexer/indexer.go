package indexer

import (
	"context"
	crand "crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"
	"golang.org/x/sync/errgroup"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/search"
)

// Options configure an Indexer.
type Options struct {
	// Dir holds the index generations (<data-dir>/index).
	Dir   string
	Store *catalogdb.Store
	// Consumer is the name under which this index reports its cursor to
	// PostgreSQL; every node needs its own.
	Consumer string
	Logger   *slog.Logger
	// DatabaseWatched says that the server logs the database's outages
	// itself (once as it goes, once as it is back): the indexer's own lines
	// about an unreadable database go to debug, so that an outage is one
	// line each way in the server's log (SPEC §9). A full disk is still the
	// indexer's to log.
	DatabaseWatched bool
	// PollInterval is the longest wait between polls (default 100ms);
	// Wake, when it delivers, starts a poll at once.
	PollInterval time.Duration
	Wake         <-chan struct{}
	// BatchDelay is how long the tail waits after applying changes before
	// it polls again (default 200ms), so that under a stream of writes the
	// commits of that interval land in one Bleve batch: every batch becomes
	// a segment the index must later merge, and one batch per commit spent
	// half the server's CPU on merging during a bulk load. Bleve's merge
	// planner, replayed on segments of 60 documents (about what 50ms
	// gathered during a load) up to 1,000,000, rewrites each document 5.5
	// times; on segments of 150, 3.4 times. At 100k entities, 200ms against
	// 50ms: ingest 608 against 484 entities/s, with 25% less CPU; write →
	// searchable at 200 writes/s 133/238 against 36/66 ms (p50/p99). An
	// idle index still polls as soon as a commit wakes it.
	BatchDelay time.Duration
	// BatchSize is the most outbox rows read per poll (default 2000); a
	// Bleve batch holds at most BatchSize and at most 500 entities
	// (tailChunk, buildBatch). A poll ends with all its chunks applied, so
	// larger polls leave the second worker idle less often: bulk ingest of
	// 100k entities, runs alternated, 1,181 and 1,194 entities/s with 2000
	// against 1,121 and 1,137 with 1000, the phase's peak heap 505-526
	// against 440-448 MiB.
	BatchSize int
	// TailWorkers is how many Bleve batches of one poll the tail applies
	// at once (default: two where memory allows, as a build).
	TailWorkers int
	// MaxSegmentDocs caps the documents of a segment Bleve's merges make
	// (default 200,000). Without a cap (Bleve's is 5,000,000) the last
	// merges of a large load rewrite the whole index once more into one
	// segment: at 1,000,000 entities about a quarter of the merge work,
	// and the memory peak of the load, while a search gains little from
	// one segment over five (the bitmap search costs a few dictionary
	// lookups per segment).
	MaxSegmentDocs int
	// CacheSweep is how often the searched index's cached pages are read
	// to keep them in the page cache (pagecache.go; default 20s, below the
	// minute after which this project's benchmark machine drops idle file
	// pages). Negative turns it off.
	CacheSweep time.Duration
	// ResidentIndex is the most bytes of mapped files, the index's
	// segments above all, semcat keeps in its resident memory
	// (resident.go; default 384 MiB). Negative: no bound.
	ResidentIndex int64
	// StallAfter is how long the horizon may stay put behind a
	// transaction still open before the tail loop logs it (default 30 s).
	StallAfter time.Duration
}

// Indexer follows the outbox into a Bleve index and serves searches from it.
type Indexer struct {
	opts     Options
	store    *catalogdb.Store
	logger   *slog.Logger
	disk     store
	h        handle
	columns  search.ColumnCache // the sort and facet values of the index's segments, for searches
	prog     *progress
	database string

	// loop serialises everything that writes the index or moves the
	// cursor: the tail loop, a rebuild's catch-up and swap, and the scrub.
	loop       sync.Mutex
	cursor     catalogdb.OutboxCursor
	fence      fenceState
	lastReport time.Time
	// hold, while holding, is the cursor a rebuild in progress still
	// needs the outbox from: reported instead of cursor when lower, so
	// that pruning, which follows the tail loop's cursor, cannot delete
	// rows the new generation's catch-up will read. Guarded by loop.
	hold    catalogdb.OutboxCursor
	holding bool
	// serverStarted is when the PostgreSQL server the last poll read had
	// started (guarded by loop).
	serverStarted time.Time
	// afterScan, if set (by tests), runs once a build has scanned and
	// indexed its snapshot, before it catches up.
	afterScan func()
	// room is roomFor, but for tests that play a machine short of memory.
	room func(size int64) bool
	// advisedRandom: the last cache sweep found the index larger than the
	// memory free for it and advised reading its segment files without
	// read-ahead. Only sweepCache writes it; searches read it
	// (LargerThanMemory).
	advisedRandom atomic.Bool
	// damaged: a search met a panic inside Bleve (Read); the tail loop
	// reopens the index.
	damaged atomic.Bool

	// building is held by whoever builds a new generation while the index
	// serves, so that two rebuilds never overlap.
	building sync.Mutex
	// stall follows a horizon held back by a transaction left open.
	stall stall
	// outage follows the tail loop's failures, for one log line when the
	// database goes away and one when it is back, and for the metrics.
	outage outage
	// rebuild is the progress of the latest build of a generation;
	// rebuilt counts its documents.
	rebuildMu sync.Mutex
	rebuild   semcat.RebuildProgress
	rebuilt   atomic.Int64
	// stopping ends with Stop: a rebuild in progress gives up (its
	// caller's context ignores shutdown, since a client going away must
	// not stop it).
	stopping context.Context
	stop     context.CancelFunc
}

// Read calls fn with the index searches read now, which stays open until
// fn returns.
// A panic inside Bleve (a segment a failed persist left closed, guard.go)
// answers EUNAVAILABLE rather than failing the request as a bug, and has
// the tail loop reopen the index from disk.
func (x *Indexer) Read(fn func(bleve.Index) error) error {
	return x.h.read(func(idx bleve.Index) error {
		err := guard("search", func() error { return fn(idx) })
		var p errPanicked
		if errors.As(err, &p) {
			if !x.damaged.Swap(true) {
				x.logger.Error("indexer: a search met a damaged index segment; reopening the index", "err", err)
			}
			return semcat.Errorf(semcat.EUNAVAILABLE, "the search index is being reopened after a failed write; try again")
		}
		return err
	})
}

// Columns is the search columns of x's index, which x warms as it opens,
// merges and swaps indexes.
func (x *Indexer) Columns() *search.ColumnCache { return &x.columns }

// LargerThanMemory reports whether the last cache sweep found the index
// larger than the memory free for it (pagecache.go), so that searches
// read much of it from disk.
func (x *Indexer) LargerThanMemory() bool { return x.advisedRandom.Load() }

// RebuildProgress reports how far the latest rebuild (or the build at
// start) got.
func (x *Indexer) RebuildProgress() semcat.RebuildProgress {
	x.rebuildMu.Lock()
	defer x.rebuildMu.Unlock()
	p := x.rebuild
	p.Indexed = x.rebuilt.Load()
	return p
}

// rebuildStarted and rebuildFinished record a build's progress.
func (x *Indexer) rebuildStarted(ctx context.Context) {
	total, err := x.store.CountEntities(ctx)
	if err != nil {
		x.logger.Warn("indexer: counting entities for the rebuild progress", "err", err)
	}
	now := time.Now()
	x.rebuildMu.Lock()
	defer x.rebuildMu.Unlock()
	x.rebuild = semcat.RebuildProgress{Running: true, Total: total, StartedAt: &now}
	x.rebuilt.Store(0)
}

func (x *Indexer) rebuildFinished() {
	now := time.Now()
	x.rebuildMu.Lock()
	defer x.rebuildMu.Unlock()
	x.rebuild.Running = false
	x.rebuild.FinishedAt = &now
}

// Open opens the index under opts.Dir, or builds it from PostgreSQL when it
// is missing, unreadable, from another database, or behind the pruned
// outbox watermark.
func Open(ctx context.Context, opts Options) (*Indexer, error) {
	if opts.Logger == nil {
		opts.Logger = slog.Default()
	}
	if opts.PollInterval <= 0 {
		opts.PollInterval = 100 * time.Millisecond
	}
	if opts.BatchSize <= 0 {
		opts.BatchSize = 2000
	}
	if opts.BatchDelay <= 0 {
		opts.BatchDelay = 200 * time.Millisecond
	}
	if opts.MaxSegmentDocs <= 0 {
		opts.MaxSegmentDocs = 200_000
	}
	if opts.CacheSweep == 0 {
		opts.CacheSweep = 20 * time.Second
	}
	if opts.ResidentIndex == 0 {
		opts.ResidentIndex = 384 << 20
	}
	if opts.Consumer == "" {
		return nil, errors.New("indexer: a consumer name is required")
	}
	if opts.StallAfter == 0 {
		opts.StallAfter = 30 * time.Second
	}
	x := &Indexer{opts: opts, store: opts.Store, logger: opts.Logger, disk: store{dir: opts.Dir}, prog: newProgress(), room: roomFor}
	x.stopping, x.stop = context.WithCancel(context.Background())
	x.stall.after = opts.StallAfter
	var err error
	if x.database, err = x.store.DatabaseID(ctx); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return nil, fmt.Errorf("indexer: %w", err)
	}
	x.disk.cleanup()
	idx, cp, reason := x.openCurrent(ctx)
	if reason != "" {
		x.logger.Warn("building the search index from PostgreSQL", "reason", reason)
		// Hold the outbox from the watermark while building: other
		// nodes' cursors would otherwise let pruning delete rows this
		// build's catch-up needs.
		watermark, err := x.store.OutboxWatermark(ctx)
		if err != nil {
			return nil, err
		}
		if err := x.store.ReportConsumer(ctx, opts.Consumer, watermark); err != nil {
			return nil, err
		}
		if idx, cp, err = x.build(ctx); err != nil {
			return nil, err
		}
	}
	x.h.swap(idx)
	x.adopt(cp)
	x.prog.reset(cp.Horizon)
	x.dropOtherFences(ctx)
	x.store.WatchWrites(x.noteWrite)
	if err := x.store.ReportConsumer(ctx, opts.Consumer, x.cursor); err != nil {
		return nil, err
	}
	return x, nil
}

// openCurrent opens the current generation and checks it is usable; reason
// says why not.
func (x *Indexer) openCurrent(ctx context.Context) (bleve.Index, checkpoint, string) {
	dir := x.disk.currentDir()
	if dir == "" {
		return nil, checkpoint{}, "no index yet"
	}
	idx, err := x.openIndex(dir)
	if err != nil {
		moved := x.disk.quarantine(dir)
		return nil, checkpoint{}, fmt.Sprintf("the index cannot be opened (%v); moved to %s", err, moved)
	}
	cp, ok, err := readCheckpoint(idx)
	switch {
	case err != nil || !ok:
		idx.Close()
		moved := x.disk.quarantine(dir)
		return nil, checkpoint{}, fmt.Sprintf("the index has no readable checkpoint (%v); moved to %s", err, moved)
	case cp.Database != x.database:
		idx.Close()
		os.RemoveAll(dir)
		return nil, checkpoint{}, "the index follows another database"
	case cp.Layout != layout:
		idx.Close()
		os.RemoveAll(dir)
		return nil, checkpoint{}, fmt.Sprintf("the index has document layout %q; this version writes %q", cp.Layout, layout)
	}
	watermark, err := x.store.OutboxWatermark(ctx)
	if err != nil {
		idx.Close()
		return nil, checkpoint{}, fmt.Sprintf("cannot read the outbox watermark: %v", err)
	}
	if cp.Cursor.Less(watermark) {
		idx.Close()
		return nil, checkpoint{}, fmt.Sprintf("the index is at %s, below the pruned outbox watermark %s", cp.Cursor, watermark)
	}
	// The database must still hold every transaction the index applied:
	// not so after a failover to a standby that had not received them, or
	// a restore from an older backup, whatever happened since.
	if cp.IndexID == "" || cp.Fence == 0 {
		idx.Close()
		return nil, checkpoint{}, "the index records no fence of the database's history (it was written by an earlier version)"
	}
	if _, err := x.store.CheckFence(ctx, cp.fence(x.opts.Consumer)); err != nil {
		idx.Close()
		var changed *catalogdb.HistoryChangedError
		if errors.As(err, &changed) {
			return nil, checkpoint{}, changed.Error()
		}
		return nil, checkpoint{}, fmt.Sprintf("cannot read the index's fence: %v", err)
	}
	// An index that has seen transactions the database has not yet
	// started was built on a later state of it: the database was
	// restored from a backup or to an earlier point in time. Its new
	// transactions would sort below the index's cursor and be skipped.
	next, err := x.store.NextTxID(ctx)
	if err != nil {
		idx.Close()
		return nil, checkpoint{}, fmt.Sprintf("cannot read the next transaction id: %v", err)
	}
	if cp.Cursor.TxID >= next || cp.Horizon > next {
		idx.Close()
		return nil, checkpoint{}, fmt.Sprintf("the index is at %s (horizon %d), ahead of the database, whose next transaction is %d: was it restored from a backup?", cp.Cursor, cp.Horizon, next)
	}
	return idx, cp, ""
}

// build creates a new generation from a snapshot of every live entity and
// publishes it; the returned checkpoint starts just below the snapshot's
// xmin, so the tail loop replays whatever the snapshot may have missed.
func (x *Indexer) build(ctx context.Context) (bleve.Index, checkpoint, error) {
	idx, cp, gen, err := x.buildGeneration(ctx)
	if err != nil {
		return nil, cp, err
	}
	old, err := x.disk.publish(gen)
	if err != nil {
		idx.Close()
		return nil, cp, err
	}
	if old != "" {
		os.RemoveAll(old)
	}
	return idx, cp, nil
}

// buildBatch is the most entities a build applies as one Bleve batch. The
// analysis of a whole batch is held in memory while its segment is built:
// rebuilding 100k entities with batches of 1000, 500 and 250 took 76-80,
// 75-76 and 78 s, with 119-125, 120-121 and 129 s of CPU, and a peak RSS
// of 0.94, 0.62-0.65 and 0.47 GB. (Batches of 5000: 86 s and 3.1 GB.)
const buildBatch = 500

// buildWorkers returns how many batches a build applies at once. Bleve
// analyses a batch's documents in parallel but builds its segment on one
// core, and a batch then waits for the persister: with two workers one
// builds while the other waits. But each worker holds its batch's
// analysis, so the second runs only when the machine, and semcat's memory
// cgroup if it has a limit, have memory to spare (roomFor).
//
// Rebuilding on 2 cores, one worker against two (wall, CPU, peak RSS of a
// freshly started server):
//
//	100k entities: 75-83 s, 117-128 s, 0.63-0.65 GB against 60-65 s, 115-123 s, 0.98-1.0 GB
//	1M entities:   829 s, 1266 s against 674 s, 1277 s; heap 901 MiB against 1.29 GiB
//
// (At 100k, two workers with batches of 250 took 71 s and 0.65 GB, and
// with batches of 350, 69 s and 0.76 GB. Bleve's unsafe batches, persisted
// once at the end, saved 4-9% with one worker: not worth a second way to
// open an index.)
func buildWorkers() int {
	if roomFor(secondWorkerBytes) {
		return 2
	}
	return 1
}

// secondWorkerBytes is half the memory a build's second worker needs free
// (roomFor asks for twice it): at 1M entities it added 0.4 GiB of heap.
const secondWorkerBytes = 1 << 30

// buildGC lets the garbage collector run less often during a build, when
// memory allows, and returns what restores it. A build allocates fast
// (Bleve's analysis and segments) while its live heap stays small, so Go's
// default (collect when the heap has grown 100% over the live heap) spends
// much of a build's CPU collecting: in a profile of a 100k rebuild, Go's
// background mark workers alone took 10%. With a looser percent the heap
// may grow two or four times its live size instead, where the memory free
// allows (looseGCTiers): at 200%, about the live heap more memory (0.4 GB
// at 100k entities).
// GOGC or GOMEMLIMIT set by the operator are left in force: a GOGC setting
// is theirs to choose, and a memory limit still bounds the heap.
//
// Rebuilding 100k entities with two workers (wall, CPU, peak RSS of a
// freshly started server, runs alternated, on a machine 2.2-2.5x slower per
// core than the one buildWorkers' figures come from):
//
//	GC percent 100 (4 runs): 143-165 s, 270-311 s, 0.98-1.04 GB
//	GC percent 200 (5 runs): 122-145 s, 228-269 s, 1.28-1.45 GB
//
// (three of the latter set by GOGC=200, two by buildGC).
//
// The setting is the process's: builds of several indexes (tests run many)
// may overlap, so the first to start sets it and the last to end restores
// it.
func buildGC() (restore func()) {
	if os.Getenv("GOGC") != "" {
		return func() {}
	}
	looseGC.Lock()
	defer looseGC.Unlock()
	if looseGC.builds == 0 {
		p := looseGCPercent()
		if p == 0 {
			return func() {}
		}
		looseGC.was = debug.SetGCPercent(p)
	}
	looseGC.builds++
	return func() {
		looseGC.Lock()
		defer looseGC.Unlock()
		if looseGC.builds--; looseGC.builds == 0 {
			debug.SetGCPercent(looseGC.was)
		}
	}
}

// loadGC runs the tail with a build's looser garbage collector (buildGC)
// while a load arrives: polls of loadRows rows or more, one after
// another. Applying a load builds segments as a rebuild does, and pays
// as much for collecting: in a profile of the first 30 s of a bulk load
// of 1,000,000 entities, Go's background mark workers alone took 10% of
// semcat's CPU. Once no poll has brought that many for loadGCQuiet, the
// setting from before is back (Go's default, unless a limit changed it),
// and a trickle of writes never loosens it. (Whether memory allows is asked
// when a load starts, not again during it.)
type loadGC struct {
	restore func() // nil: the default collector
	last    time.Time
}

// loadRows is the least rows a poll of a load brings: 500 writes a
// second arrive at the tail's default BatchDelay (200 ms) as polls of
// about 100. loadGCQuiet is how long after a load's last such poll the
// tail keeps the looser collector.
const (
	loadRows    = 100
	loadGCQuiet = 5 * time.Second
)

// polled is told how many rows each poll read.
func (g *loadGC) polled(rows int) {
	switch {
	case rows >= loadRows:
		g.last = time.Now()
		if g.restore == nil {
			g.restore = buildGC()
		}
	case g.restore != nil && time.Since(g.last) > loadGCQuiet:
		g.end()
	}
}

// end restores the collector.
func (g *loadGC) end() {
	if g.restore != nil {
		g.restore()
		g.restore = nil
	}
}

// settlePoll and settleLimit are how often a build checks whether its
// merges have settled, and for how long at most (settle.go).
const (
	settlePoll  = 50 * time.Millisecond
	settleLimit = 10 * time.Minute
)

// looseGCTiers are the GC percents a build or load runs with, the
// loosest first, each where roomFor(bytes) (twice bytes free): a live heap
// of about 0.6 GiB at 1M entities grows to 1.8 GiB at 200%, 3 GiB at 400%.
var looseGCTiers = []struct {
	percent int
	bytes   int64
}{{400, 2 * looseGCBytes}, {200, looseGCBytes}}

const looseGCBytes = 2 << 30

// looseGCPercent is the GC percent of the loosest tier the memory free
// allows; 0 for none.
func looseGCPercent() int {
	for _, t := range looseGCTiers {
		if roomFor(t.bytes) {
			return t.percent
		}
	}
	return 0
}

// looseGC counts the builds running with a looser percent, and holds the
// setting from before the first.
var looseGC struct {
	sync.Mutex
	builds int
	was    int
}

func (x *Indexer) buildGeneration(ctx context.Context) (bleve.Index, checkpoint, string, error) {
	gen, err := x.disk.newGeneration()
	if err != nil {
		return nil, checkpoint{}, "", err
	}
	os.Remove(gen) // bleve.New wants to create it
	idx, err := x.createIndex(gen)
	if err != nil {
		return nil, checkpoint{}, "", fmt.Errorf("indexer: create index: %w", err)
	}
	fail := func(err error) (bleve.Index, checkpoint, string, error) {
		idx.Close()
		os.RemoveAll(gen)
		return nil, checkpoint{}, "", err
	}
	x.rebuildStarted(ctx)
	defer x.rebuildFinished()
	defer buildGC()()
	started := time.Now()
	// Reading PostgreSQL and building segments overlap: the scan hands each
	// chunk to one of buildWorkers' workers, which applies it as one Bleve
	// batch while the next chunks are read. The checkpoint is written once
	// every chunk has landed; a generation is published only when complete.
	g, gctx := errgroup.WithContext(ctx)
	chunks := make(chan []*semcat.EntityRecord, 1)
	var n atomic.Int64
	for range buildWorkers() {
		g.Go(func() error {
			for recs := range chunks {
				b := idx.NewBatch()
				for _, r := range recs {
					if err := addDocument(b, r); err != nil {
						return err
					}
				}
				if err := idx.Batch(b); err != nil {
					return err
				}
				n.Add(int64(len(recs)))
				x.rebuilt.Add(int64(len(recs)))
			}
			return nil
		})
	}
	var start catalogdb.OutboxCursor
	var horizon uint64
	var history catalogdb.History
	fence := catalogdb.Fence{IndexID: newIndexID(), Consumer: x.opts.Consumer, Next: newFence()}
	g.Go(func() error {
		defer close(chunks)
		var err error
		start, horizon, history, err = x.store.ScanEntitiesFenced(gctx, min(x.opts.BatchSize, buildBatch), &fence, func(recs []*semcat.EntityRecord) error {
			select {
			case chunks <- recs:
				return nil
			case <-gctx.Done():
				return gctx.Err()
			}
		})
		return err
	})
	err = g.Wait()
	if err != nil {
		return fail(fmt.Errorf("indexer: build: %w", err))
	}
	if x.afterScan != nil {
		x.afterScan()
	}
	cp := checkpoint{Cursor: start, Horizon: 0, Database: x.database,
		IndexID: fence.IndexID, Fence: fence.Next, SystemID: history.SystemID, Timeline: history.Timeline}
	b := idx.NewBatch()
	setCheckpoint(b, cp)
	if err := idx.Batch(b); err != nil {
		return fail(fmt.Errorf("indexer: build: %w", err))
	}
	applied := time.Since(started)
	if err := x.settleMerges(ctx, idx, x.buildConfig(nil), settlePoll, settleLimit); err != nil {
		return fail(fmt.Errorf("indexer: build: waiting for merges: %w", err))
	}
	// Reopened with the merge policy of an index that serves, whose
	// narrower merges take the tiers the build's left fuller.
	// (Neither failure leaves an index open for fail to close: Scorch's
	// Close must not run twice.)
	if err := idx.Close(); err != nil {
		os.RemoveAll(gen)
		return nil, checkpoint{}, "", fmt.Errorf("indexer: build: %w", err)
	}
	if idx, err = x.openIndex(gen); err != nil {
		os.RemoveAll(gen)
		return nil, checkpoint{}, "", fmt.Errorf("indexer: build: reopen: %w", err)
	}
	if err := x.settleMerges(ctx, idx, x.scorchConfig(nil), settlePoll, settleLimit); err != nil {
		return fail(fmt.Errorf("indexer: build: waiting for merges: %w", err))
	}
	x.logger.Info("built the search index", "documents", n.Load(), "took", time.Since(started).String(),
		"merging after the last batch", (time.Since(started) - applied).String(), "horizon", horizon)
	return idx, cp, gen, nil
}

// Index returns the open Bleve index.
func (x *Indexer) Index() bleve.Index { return x.h.get() }

// Ready reports whether searches can be answered: an error (EUNAVAILABLE)
// while no index is open, as after Close or a failed reopen, and while the
// index's disk is full (indexing stopped).
func (x *Indexer) Ready() error {
	if x.h.get() == nil {
		return semcat.Errorf(semcat.EUNAVAILABLE, "the search index is closed")
	}
	x.outage.mu.Lock()
	full := x.outage.failures > 0 && x.outage.diskFull
	x.outage.mu.Unlock()
	if full {
		return semcat.Errorf(semcat.EUNAVAILABLE, "the search index's disk is full: indexing has stopped until there is space")
	}
	return nil
}

// noteWrite is told each write's transaction id while the write is still
// open (catalogdb.Store.WatchWrites). No snapshot taken while a transaction
// runs has an xmin above its id, so an id below the horizon means
// PostgreSQL handed ids out again: crash recovery (an immediate stop, a
// killed server) reissues ids that were assigned but never reached the WAL.
// The horizon comes down to the id, so that a search waiting for this write
// waits for the poll that applies it instead of answering without it.
func (x *Indexer) noteWrite(txid uint64) {
	if from, lowered := x.prog.lower(txid); lowered {
		x.logger.Warn("indexer: a write's transaction id is below the index's horizon: PostgreSQL handed out ids again after a crash; lowering the horizon",
			"txid", txid, "horizon", from)
	}
}

// Position returns how far the index has applied: every write whose
// transaction id is below it is searchable.
func (x *Indexer) Position() semcat.Position { return semcat.Position{TxID: x.prog.get()} }

// WaitFor blocks until the index covers the write at pos, or ctx ends.
func (x *Indexer) WaitFor(ctx context.Context, pos semcat.Position) error {
	return x.prog.wait(ctx, pos.TxID)
}

// Run tails the outbox until ctx ends.
func (x *Indexer) Run(ctx context.Context) error {
	warmCtx, stopWarming := context.WithCancel(ctx)
	var warming sync.WaitGroup
	warming.Go(func() { x.warmColumns(warmCtx, time.Second) })
	if x.opts.CacheSweep > 0 {
		warming.Go(func() { x.keepCached(warmCtx, x.opts.CacheSweep) })
	}
	if x.opts.ResidentIndex > 0 {
		warming.Go(func() { x.boundResident(warmCtx, residentCheck, x.opts.ResidentIndex) })
	}
	defer func() {
		stopWarming()
		warming.Wait()
	}()
	timer := time.NewTimer(0)
	defer timer.Stop()
	var gc loadGC
	defer gc.end()
	for {
		rows, err := x.step(ctx)
		if ctx.Err() != nil {
			return nil
		}
		gc.polled(rows)
		x.outage.record(x.logger, err, x.opts.DatabaseWatched)
		// While the database cannot be read, a search waiting for a write
		// waits: it may come back failed over or restored, with another
		// node's write at an id below the horizon, which only the next
		// poll's fence check can tell. (A full disk is no such doubt.)
		x.prog.setDoubt(err != nil && !diskFull(err))
		if err != nil {
			// Retry with growing waits while it keeps failing.
			timer.Reset(x.outage.retryDelay(x.opts.PollInterval))
			select {
			case <-ctx.Done():
				return nil
			case <-timer.C:
			}
			continue
		}
		if rows == x.opts.BatchSize {
			continue // a backlog: the next batch is already full
		}
		if rows > 0 {
			// Busy: let the next commits gather into one batch. A commit
			// that woke us meanwhile is still pending in Wake, which is
			// drained below or by the next select.
			timer.Reset(x.opts.BatchDelay)
			select {
			case <-ctx.Done():
				return nil
			case <-timer.C:
			}
			continue
		}
		timer.Reset(x.opts.PollInterval)
		select {
		case <-ctx.Done():
			return nil
		case <-x.opts.Wake:
		case <-timer.C:
		}
	}
}

// CatchUp applies every transaction begun before the call: it polls until
// the horizon passes the next transaction id as of the call. (A transaction
// still open anywhere in the cluster holds the horizon back, so this waits
// for it.) Tests and tools use it.
func (x *Indexer) CatchUp(ctx context.Context) error {
	target, err := x.store.NextTxID(ctx)
	if err != nil {
		return err
	}
	for x.prog.get() < target {
		rows, err := x.step(ctx)
		if err != nil {
			return err
		}
		if rows < x.opts.BatchSize && x.prog.get() < target {
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(5 * time.Millisecond):
			}
		}
	}
	return nil
}

// PollOnce polls the outbox once and applies what it finds.
func (x *Indexer) PollOnce(ctx context.Context) error {
	_, err := x.step(ctx)
	return err
}

// step polls once and applies what it found; rows is how many outbox rows
// it read (BatchSize: more are likely waiting).
func (x *Indexer) step(ctx context.Context) (rows int, err error) {
	x.loop.Lock()
	defer x.loop.Unlock()
	if !x.disk.room() {
		return 0, errDiskFull
	}
	if x.damaged.Swap(false) {
		x.recover(ctx, errors.New("a search met a damaged index segment"))
	}
	idx := x.h.get()
	if idx == nil {
		// A failed batch whose recovery could not rebuild: try again.
		x.recover(ctx, errNoIndex)
		if idx = x.h.get(); idx == nil {
			return 0, errNoIndex
		}
	}
	horizon, token := x.prog.since()
	b, err := x.poll(ctx, idx, x.cursor, horizon, &x.fence)
	if err != nil {
		var pruned *catalogdb.PrunedPastError
		var changed *catalogdb.HistoryChangedError
		switch {
		case errors.As(err, &pruned):
			x.logger.Warn("indexer: the outbox was pruned past this index; rebuilding", "cursor", x.cursor.String(), "watermark", pruned.Watermark.String())
			return 0, x.rebuildNow(ctx, false)
		case errors.As(err, &changed):
			// Searches waiting for a write wait for the rebuilt index:
			// this one's horizon says nothing about the new history.
			x.prog.lower(0)
			x.logger.Warn("indexer: the database no longer holds what the index applied (a failover or a restore); rebuilding the index from it, searches answer 503 until it is in",
				"reason", changed.Reason, "cursor", x.cursor.String())
			return 0, x.rebuildNow(ctx, true)
		case isBatchError(err) && diskFull(err):
			// Bleve met the full disk after all (a batch larger
			// than the reserve): the handle may use a segment it
			// closed. Close it, and reopen from disk once there is
			// room (above); searches answer 503 meanwhile.
			x.logger.Error("indexer: the search index's disk filled under a batch; closing the index until there is room", "err", err)
			if old := x.h.swap(nil); old != nil {
				old.Close()
			}
		case isBatchError(err):
			x.recover(ctx, err)
		}
		return 0, err
	}
	if b.Rows > 0 {
		x.cursor = b.Next
	}
	// Report the durable cursor (and so a heartbeat) often while busy and
	// now and then while idle, so that pruning never outruns this node.
	if since := time.Since(x.lastReport); b.Rows > 0 && since > time.Second || since > 10*time.Second {
		if err := x.report(ctx); err != nil {
			return 0, err
		}
	}
	if !x.serverStarted.IsZero() && !b.ServerStarted.Equal(x.serverStarted) {
		// Another node's write may hold a reissued id noteWrite never
		// saw: take the horizon from this poll.
		if from, lowered := x.prog.lower(b.Horizon); lowered {
			x.logger.Warn("indexer: PostgreSQL restarted and its transaction ids are below the index's horizon; lowering the horizon",
				"horizon", from, "now", b.Horizon)
		}
	}
	x.serverStarted = b.ServerStarted
	if b.History.Timeline != 0 && x.fence.timeline != 0 && b.History.Timeline != x.fence.timeline {
		x.logger.Info("indexer: PostgreSQL writes on a new timeline (a standby promoted or a point-in-time recovery); the database still holds everything the index applied",
			"timeline", b.History.Timeline, "was", x.fence.timeline)
	}
	if b.History.Timeline != 0 {
		x.fence.timeline = b.History.Timeline
	}
	x.prog.advanceSince(token, b.Horizon)
	x.stall.record(x.logger, b.Horizon, b.NextTxID)
	return b.Rows, nil
}

// report records the cursor in PostgreSQL, or a rebuild's hold if that is
// lower (loop held).
func (x *Indexer) report(ctx context.Context) error {
	reported := x.cursor
	if x.holding && x.hold.Less(reported) {
		reported = x.hold
	}
	if err := x.store.ReportConsumer(ctx, x.opts.Consumer, reported); err != nil {
		return err
	}
	x.lastReport = time.Now()
	return nil
}

// rebuildNow rebuilds the index from PostgreSQL: its cursor the outbox was
// pruned past (the old index serves meanwhile), or the database's history
// changed under it (no index serves meanwhile: the old one shows what the
// database lost). Loop held.
func (x *Indexer) rebuildNow(ctx context.Context, historyChanged bool) error {
	// Not while a rebuild runs: it holds building and, to swap, waits for
	// the loop this heartbeat runs in. Its index will be current (or its
	// catch-up fails the same way); check again at the next heartbeat.
	if !x.building.TryLock() {
		return nil
	}
	defer x.building.Unlock()
	// A fresh heartbeat keeps pruning where it is while this node builds:
	// at the old cursor, or, where that cursor belongs to a history the
	// database no longer has (and may lie above rows the build's catch-up
	// needs), at the watermark.
	if historyChanged {
		watermark, err := x.store.OutboxWatermark(ctx)
		if err == nil {
			err = x.store.ReportConsumer(ctx, x.opts.Consumer, watermark)
		}
		if err != nil {
			return err
		}
	} else if err := x.report(ctx); err != nil {
		return err
	}
	if historyChanged {
		// The index shows changes the database no longer has: searches
		// answer 503 until the rebuilt one is in, as while PostgreSQL
		// fails over (SPEC §9). (If the build fails, the next poll finds
		// no index open and builds again.)
		if old := x.h.close("the database failed over or was restored from a backup; the search index is being rebuilt from it"); old != nil {
			old.Close()
		}
	}
	idx, cp, err := x.build(ctx)
	if err != nil {
		return err
	}
	x.prepareSwap(idx)
	old := x.h.swap(idx)
	x.commitSwap(old, idx)
	if old != nil {
		old.Close()
	}
	x.adopt(cp)
	x.prog.reset(cp.Horizon)
	x.dropOtherFences(ctx)
	return nil
}

// fenceState is the fence of an index being polled (catalogdb.Fence): its
// generation, the fence value its checkpoint holds, and the history it
// follows.
type fenceState struct {
	indexID  string
	current  int64
	systemID uint64
	timeline uint32
}

// fence is the catalogdb.Fence a checkpoint asks the database for.
func (cp checkpoint) fence(consumer string) catalogdb.Fence {
	return catalogdb.Fence{IndexID: cp.IndexID, Consumer: consumer, Current: cp.Fence, SystemID: cp.SystemID}
}

func fenceOf(cp checkpoint) fenceState {
	return fenceState{indexID: cp.IndexID, current: cp.Fence, systemID: cp.SystemID, timeline: cp.Timeline}
}

// adopt makes cp's cursor and fence the tail loop's (loop held, or not
// yet running).
func (x *Indexer) adopt(cp checkpoint) {
	x.cursor = cp.Cursor
	x.fence = fenceOf(cp)
}

// dropOtherFences deletes the fences of this consumer's other generations,
// which nothing reads any more.
func (x *Indexer) dropOtherFences(ctx context.Context) {
	if x.holding {
		return // a rebuild's generation has a fence too; its swap drops the rest
	}
	if err := x.store.DropFences(ctx, x.opts.Consumer, x.fence.indexID); err != nil {
		x.logger.Warn("indexer: deleting the fences of replaced index generations", "err", err)
	}
}

// newIndexID names a new generation's fence.
func newIndexID() string {
	var b [12]byte
	_, _ = crand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// newFence returns a fresh, non-zero fence value.
func newFence() int64 {
	var b [8]byte
	_, _ = crand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:])>>1) | 1
}

// errNoIndex says no index is open: a failed batch's recovery could not
// reopen or rebuild one.
var errNoIndex = errors.New("indexer: no search index is open")

// batchError marks a failed Bleve batch, after which the handle may be
// unusable.
type batchError struct{ err error }

func (e batchError) Error() string { return "bleve batch: " + e.err.Error() }
func (e batchError) Unwrap() error { return e.err }

// diskFull reports whether err is the index's filesystem running out of
// space or quota. Bleve's segment persister flattens the cause into its
// message, so the message is read too.
func diskFull(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, errDiskFull) || errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return true
	}
	msg := err.Error()
	return strings.Contains(msg, syscall.ENOSPC.Error()) || strings.Contains(msg, syscall.EDQUOT.Error())
}

func isBatchError(err error) bool {
	var b batchError
	return errors.As(err, &b)
}

// poll reads the outbox after cursor and applies what it found to idx: one
// Bleve batch per chunk of at most tailChunk entities. A poll's chunks hold
// distinct entities, so while the next chunk is read and mapped, up to
// buildWorkers earlier ones are applied at once, as a build applies its
// chunks; the checkpoint is written once all have landed. A poll of one
// chunk, the usual case away from a backlog, carries the checkpoint in its
// own batch, so documents and cursor become durable together. A crash
// between a poll's chunks replays it, which is harmless because documents
// are rebuilt from current state.
//
// fs is the fence of idx: the poll fails with a
// *catalogdb.HistoryChangedError if the database no longer holds it, and
// otherwise, if it reads rows, commits a new one that every batch of the
// poll records, so fs moves to it once one is applied.
func (x *Indexer) poll(ctx context.Context, idx bleve.Index, cursor catalogdb.OutboxCursor, horizon uint64, fs *fenceState) (*catalogdb.OutboxBatch, error) {
	checkpointed, chunks := false, 0
	applying, failed := errgroup.WithContext(ctx)
	fence := fs.fence(x.opts.Consumer)
	b, err := x.store.PollOutbox(ctx, cursor, x.opts.BatchSize, min(x.opts.BatchSize, tailChunk), &fence, func(c catalogdb.OutboxChunk) error {
		if failed.Err() != nil {
			return failed.Err() // a chunk failed; Wait returns its error
		}
		// The database holds the new fence (PollOutbox committed it),
		// and the index will from this batch on.
		fs.current = fence.Next
		if chunks++; chunks == 1 {
			// Asked only of a poll with work (tailWorkers reads the
			// machine's and the cgroup's free memory), before any chunk
			// is applied.
			applying.SetLimit(x.tailWorkers())
		}
		batch := idx.NewBatch()
		for _, r := range c.Upserts {
			if err := addDocument(batch, r); err != nil {
				return err
			}
		}
		for _, d := range c.Deletes {
			batch.Delete(refDocID(d))
		}
		if c.Last && chunks == 1 {
			setCheckpoint(batch, x.nextCheckpoint(c.Poll, horizon, fs))
			checkpointed = true
		} else {
			setFence(batch, fs.current)
		}
		applying.Go(func() (err error) {
			defer func() {
				// A Bleve panic (one that follows a failed persist)
				// poisons the handle, not the process: recover reopens.
				if p := recover(); p != nil {
					err = batchError{fmt.Errorf("panic: %v", p)}
				}
			}()
			if err := idx.Batch(batch); err != nil {
				return batchError{err}
			}
			return nil
		})
		return nil
	})
	if werr := applying.Wait(); werr != nil {
		return b, werr
	}
	if err != nil || b.Rows == 0 || checkpointed {
		return b, err
	}
	fs.current = fence.Next
	batch := idx.NewBatch()
	setCheckpoint(batch, x.nextCheckpoint(b, horizon, fs))
	if err := idx.Batch(batch); err != nil {
		return b, batchError{err}
	}
	return b, nil
}

// fence is the catalogdb.Fence of a poll: fs's, with a fresh value to
// commit.
func (fs *fenceState) fence(consumer string) catalogdb.Fence {
	return catalogdb.Fence{IndexID: fs.indexID, Consumer: consumer, Current: fs.current, Next: newFence(), SystemID: fs.systemID}
}

// tailChunk is the most entities the tail applies as one Bleve batch, as
// buildBatch is for a build: a backlog's polls of BatchSize rows become
// chunks that poll applies two at a time.
const tailChunk = buildBatch

// tailWorkers is how many chunks of a poll are applied at once: as many as
// a build's workers, unless a test set TailWorkers.
func (x *Indexer) tailWorkers() int {
	if x.opts.TailWorkers > 0 {
		return x.opts.TailWorkers
	}
	return buildWorkers()
}

func (x *Indexer) nextCheckpoint(b *catalogdb.OutboxBatch, horizon uint64, fs *fenceState) checkpoint {
	cp := checkpoint{Cursor: b.Next, Horizon: max(b.Horizon, horizon), Database: x.database,
		IndexID: fs.indexID, Fence: fs.current, SystemID: fs.systemID, Timeline: fs.timeline}
	if cp.SystemID == 0 {
		cp.SystemID = b.History.SystemID
	}
	if b.History.Timeline != 0 {
		cp.Timeline = b.History.Timeline
	}
	return cp
}

// recover handles a failed batch, or no open index: Bleve's handle may be
// unusable, so close it, reopen the current generation and resume from its
// checkpoint; if that fails, rebuild. If the rebuild fails too, no index
// is open, and the next step tries again.
func (x *Indexer) recover(ctx context.Context, cause error) {
	x.logger.Error("indexer: reopening the index", "cause", cause)
	if old := x.h.swap(nil); old != nil {
		old.Close()
	}
	idx, cp, reason := x.openCurrent(ctx)
	if reason != "" {
		x.logger.Warn("indexer: rebuilding the index", "reason", reason)
		var err error
		if idx, cp, err = x.build(ctx); err != nil {
			x.logger.Error("indexer: rebuild failed", "err", err)
			return
		}
		x.prog.reset(cp.Horizon)
	}
	x.h.swap(idx)
	x.adopt(cp)
	if reason != "" {
		x.dropOtherFences(ctx)
	}
}

// Rebuild builds a new generation from PostgreSQL while search keeps
// serving the current one, catches it up with the outbox and swaps it in
// atomically.
func (x *Indexer) Rebuild(ctx context.Context) error {
	if !x.building.TryLock() {
		return semcat.Errorf(semcat.ECONFLICT, "a rebuild of the search index is already running")
	}
	defer x.building.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(x.stopping, cancel)()
	// The new generation catches up from below its snapshot, while the
	// tail loop moves the reported cursor on: hold the outbox from where
	// the loop is now until the swap.
	x.loop.Lock()
	x.hold, x.holding = x.cursor, true
	x.loop.Unlock()
	defer func() {
		x.loop.Lock()
		x.holding = false
		x.loop.Unlock()
	}()
	idx, cp, gen, err := x.buildGeneration(ctx)
	if err != nil {
		return err
	}
	// Catch up outside the lock first, then briefly under it.
	cursor, fs := cp.Cursor, fenceOf(cp)
	for locked := false; ; {
		b, err := x.poll(ctx, idx, cursor, 0, &fs)
		if err == nil && b.Rows > 0 {
			cursor = b.Next
		}
		if err != nil {
			if locked {
				x.loop.Unlock()
			}
			idx.Close()
			os.RemoveAll(gen)
			return fmt.Errorf("indexer: rebuild: %w", err)
		}
		if b.Rows == x.opts.BatchSize {
			continue
		}
		if !locked {
			x.prepareSwap(idx)
			x.loop.Lock()
			locked = true
			continue
		}
		// Caught up with the tail loop paused: publish and swap.
		oldDir, err := x.disk.publish(gen)
		if err != nil {
			x.loop.Unlock()
			idx.Close()
			return err
		}
		old := x.h.swap(idx)
		x.commitSwap(old, idx)
		x.cursor, x.fence = cursor, fs
		x.prog.advance(b.Horizon)
		x.loop.Unlock()
		if old != nil {
			old.Close()
		}
		if oldDir != "" {
			os.RemoveAll(oldDir)
		}
		if err := x.store.DropFences(ctx, x.opts.Consumer, fs.indexID); err != nil {
			x.logger.Warn("indexer: deleting the fences of replaced index generations", "err", err)
		}
		return x.store.ReportConsumer(ctx, x.opts.Consumer, cursor)
	}
}

// Stop makes a rebuild in progress give up and waits until it has: it
// holds PostgreSQL connections and the request that started it, which a
// shutdown would otherwise wait for as long as the rebuild takes.
func (x *Indexer) Stop() {
	x.stop()
	x.building.Lock() // held by a rebuild until it returns
	defer x.building.Unlock()
}

// Close closes the index after reporting the final cursor.
func (x *Indexer) Close(ctx context.Context) error {
	x.loop.Lock()
	defer x.loop.Unlock()
	err := x.store.ReportConsumer(ctx, x.opts.Consumer, x.cursor)
	if idx := x.h.swap(nil); idx != nil {
		err = errors.Join(err, idx.Close())
	}
	return err
}

// maxRetryDelay is the longest wait between polls while they fail.
const maxRetryDelay = 5 * time.Second

// outage follows consecutive poll failures.
type outage struct {
	mu       sync.Mutex
	errors   uint64    // failed polls since start
	failures int       // consecutive failed polls
	since    time.Time // when the current run of failures began
	diskFull bool      // whether that run began with a full disk
}

// record notes a poll's outcome and logs the first failure of a run and
// the success that ends it — not every retry's.
func (o *outage) record(logger *slog.Logger, err error, watched bool) {
	o.mu.Lock()
	defer o.mu.Unlock()
	level := slog.LevelError // of a database outage's lines
	if watched {
		level = slog.LevelDebug
	}
	switch {
	case err != nil:
		o.errors++
		o.failures++
		if o.failures == 1 {
			o.since, o.diskFull = time.Now(), diskFull(err)
			if o.diskFull {
				logger.Error("indexer: the search index's disk is full; writes are kept in PostgreSQL and searches answer from the index as it is until there is space",
					"err", err)
			} else {
				logger.Log(context.Background(), level, "indexer: cannot read the outbox; searches answer from the index as it is until the database is back",
					"err", err)
			}
		} else {
			logger.Debug("indexer: poll failed again", "err", err, "failures", o.failures)
		}
	case o.failures > 0:
		msg, back := "indexer: the database answers again; catching up", slog.LevelInfo
		if watched {
			back = slog.LevelDebug
		}
		if o.diskFull {
			msg, back = "indexer: the search index's disk has room again; catching up", slog.LevelInfo
		}
		logger.Log(context.Background(), back, msg, "failed_polls", o.failures, "down_for", time.Since(o.since).Round(time.Millisecond).String())
		o.failures = 0
	}
}

// retryDelay is the wait before the next poll after a failure: the poll
// interval, doubling with each failure up to maxRetryDelay.
func (o *outage) retryDelay(poll time.Duration) time.Duration {
	o.mu.Lock()
	defer o.mu.Unlock()
	d := max(poll, 10*time.Millisecond)
	for i := 1; i < o.failures && d < maxRetryDelay; i++ {
		d *= 2
	}
	return min(d, maxRetryDelay)
}

// stall follows how long the index's horizon has stayed below the next
// transaction id without moving: a transaction left open anywhere in the
// cluster holds back every write after it (DESIGN §3), and the index with
// them.
type stall struct {
	mu      sync.Mutex
	after   time.Duration // Options.StallAfter
	horizon uint64
	since   time.Time // when the horizon last moved, or zero if nothing waits
	lag     uint64    // transactions begun at or after the horizon
	logged  bool
}

func (s *stall) record(logger *slog.Logger, horizon, next uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.lag = next - min(horizon, next)
	switch {
	case s.lag == 0 || horizon != s.horizon:
		if s.logged {
			logger.Info("indexer: the transaction that held the index back has ended; catching up",
				"held_for", time.Since(s.since).Round(time.Second).String())
		}
		s.horizon, s.logged = horizon, false
		s.since = time.Time{}
		if s.lag > 0 {
			s.since = time.Now()
		}
	case s.since.IsZero():
		s.since = time.Now()
	case !s.logged && time.Since(s.since) > s.after:
		s.logged = true
		logger.Warn("indexer: a transaction left open holds the index back: writes after it are not searchable until it ends (see pg_stat_activity for the oldest backend_xid)",
			"horizon", horizon, "waiting_transactions", s.lag, "for", time.Since(s.since).Round(time.Second).String())
	}
}

// held is how long the horizon has been held back, and how many
// transactions wait behind it.
func (s *stall) held() (time.Duration, uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.since.IsZero() {
		return 0, s.lag
	}
	return time.Since(s.since), s.lag
}

// Health is what the tail loop's metrics report.
type Health struct {
	// PollErrors counts the polls of the outbox that failed since start.
	PollErrors uint64
	// Failing is whether the latest poll failed, and FailingFor since
	// when polls have failed.
	Failing    bool
	FailingFor time.Duration
	// Position is the transaction horizon the index has applied.
	Position uint64
	// Lag is how many transactions the last poll saw begun at or after
	// the horizon; HeldFor how long the horizon has stayed put while
	// some did (a transaction left open holds it back).
	Lag     uint64
	HeldFor time.Duration
}

// Health reports the tail loop's errors and position.
func (x *Indexer) Health() Health {
	x.outage.mu.Lock()
	defer x.outage.mu.Unlock()
	h := Health{PollErrors: x.outage.errors, Failing: x.outage.failures > 0, Position: x.prog.get()}
	h.HeldFor, h.Lag = x.stall.held()
	if h.Failing {
		h.FailingFor = time.Since(x.outage.since)
	}
	return h
}
