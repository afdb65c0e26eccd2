package indexer

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
)

// Keys of the checkpoint, stored with Batch.SetInternal in the same batch as
// the documents they describe.
var (
	keyCursor   = []byte("semcat.cursor")
	keyHorizon  = []byte("semcat.horizon")
	keyDatabase = []byte("semcat.database")
	keyLayout   = []byte("semcat.layout")
	// The database history the index followed (catalogdb.Fence): the
	// generation's id, its latest fence, the cluster's system identifier
	// and the timeline of the latest poll.
	keyIndexID  = []byte("semcat.index")
	keyFence    = []byte("semcat.fence")
	keySystemID = []byte("semcat.system")
	keyTimeline = []byte("semcat.timeline")
)

// layout names the document layout and index mapping this code writes and
// queries. An index written with another layout (fields added, analyzers
// changed) would answer some queries wrongly without failing, so it is
// rebuilt at start instead. Change it whenever the mapping or the fields a
// document carries change.
const layout = "19"

// checkpoint is how far an index has durably followed the outbox.
type checkpoint struct {
	Cursor   catalogdb.OutboxCursor
	Horizon  uint64
	Database string
	Layout   string
	// IndexID names the generation's fence, Fence is its value as of the
	// latest batch applied (0: an index from before fences), SystemID and
	// Timeline the history of the database it was read from.
	IndexID  string
	Fence    int64
	SystemID uint64
	Timeline uint32
}

func encodeCursor(c catalogdb.OutboxCursor) []byte {
	return []byte(strconv.FormatUint(c.TxID, 10) + "/" + strconv.FormatInt(c.Seq, 10))
}

func decodeCursor(b []byte) (catalogdb.OutboxCursor, error) {
	tx, seq, ok := strings.Cut(string(b), "/")
	if !ok {
		return catalogdb.OutboxCursor{}, fmt.Errorf("malformed cursor %q", b)
	}
	t, err1 := strconv.ParseUint(tx, 10, 64)
	s, err2 := strconv.ParseInt(seq, 10, 64)
	if err := errors.Join(err1, err2); err != nil {
		return catalogdb.OutboxCursor{}, fmt.Errorf("malformed cursor %q: %w", b, err)
	}
	return catalogdb.OutboxCursor{TxID: t, Seq: s}, nil
}

// readCheckpoint reads the checkpoint of an open index; ok is false for an
// index that has none (never completed a build).
func readCheckpoint(idx bleve.Index) (cp checkpoint, ok bool, err error) {
	c, err := idx.GetInternal(keyCursor)
	if err != nil || c == nil {
		return cp, false, err
	}
	if cp.Cursor, err = decodeCursor(c); err != nil {
		return cp, false, err
	}
	h, err := idx.GetInternal(keyHorizon)
	if err != nil {
		return cp, false, err
	}
	if cp.Horizon, err = strconv.ParseUint(string(h), 10, 64); err != nil {
		return cp, false, fmt.Errorf("malformed horizon %q", h)
	}
	d, err := idx.GetInternal(keyDatabase)
	if err != nil {
		return cp, false, err
	}
	cp.Database = string(d)
	l, err := idx.GetInternal(keyLayout)
	if err != nil {
		return cp, false, err
	}
	cp.Layout = string(l)
	id, err := idx.GetInternal(keyIndexID)
	if err != nil {
		return cp, false, err
	}
	cp.IndexID = string(id)
	var tli uint64
	for _, f := range []struct {
		key  []byte
		into func(string) error
	}{
		{keyFence, func(v string) (err error) { cp.Fence, err = strconv.ParseInt(v, 10, 64); return err }},
		{keySystemID, func(v string) (err error) { cp.SystemID, err = strconv.ParseUint(v, 10, 64); return err }},
		{keyTimeline, func(v string) (err error) { tli, err = strconv.ParseUint(v, 10, 32); return err }},
	} {
		v, err := idx.GetInternal(f.key)
		if err != nil {
			return cp, false, err
		}
		if v == nil {
			continue // an index from before fences: rebuilt at open
		}
		if err := f.into(string(v)); err != nil {
			return cp, false, fmt.Errorf("malformed %s %q", f.key, v)
		}
	}
	cp.Timeline = uint32(tli)
	return cp, true, nil
}

func setCheckpoint(b *bleve.Batch, cp checkpoint) {
	b.SetInternal(keyCursor, encodeCursor(cp.Cursor))
	b.SetInternal(keyHorizon, []byte(strconv.FormatUint(cp.Horizon, 10)))
	b.SetInternal(keyDatabase, []byte(cp.Database))
	b.SetInternal(keyLayout, []byte(layout))
	b.SetInternal(keyIndexID, []byte(cp.IndexID))
	setFence(b, cp.Fence)
	b.SetInternal(keySystemID, []byte(strconv.FormatUint(cp.SystemID, 10)))
	b.SetInternal(keyTimeline, []byte(strconv.FormatUint(uint64(cp.Timeline), 10)))
}

// setFence records in b the fence of the poll whose documents b carries:
// every batch of a poll does, so an index holding any of them asks the
// database for that poll's fence.
func setFence(b *bleve.Batch, fence int64) {
	b.SetInternal(keyFence, []byte(strconv.FormatInt(fence, 10)))
}

// openBleve opens an index directory, turning a panic inside Bleve (which a
// corrupt directory can cause) into an error.
func openBleve(dir string, config map[string]any) (idx bleve.Index, err error) {
	defer func() {
		if p := recover(); p != nil {
			idx, err = nil, fmt.Errorf("open %s: panic: %v", dir, p)
		}
	}()
	return bleve.OpenUsing(dir, config)
}

// scorchConfig is the runtime configuration of every index the indexer
// opens or creates to serve searches, with w (if not nil) as its segment
// warmer.
//
// Its merges keep Scorch's 10 segments of a tier at once. Taking 20 (a
// load's 500-document batches then reach the 200,000-document cap in two
// merges instead of three) cut a 1M rebuild to 264-281 s from 347 s, but
// left more small segments between merges, and a schema field search's p99
// rose to 11.0 ms in two runs of three (DESIGN §6 wants 10; 6.4-8.3 ms with
// 10). A build, which nobody searches until it is published, merges 20 at
// once (buildConfig).
func (x *Indexer) scorchConfig(w *segWarmer) map[string]any {
	config := map[string]any{
		"scorchMergePlanOptions": map[string]any{"MaxSegmentSize": x.opts.MaxSegmentDocs},
	}
	if w != nil {
		config["segmentConfig"] = map[string]any{warmKey: w}
	}
	return config
}

// buildMergeWidth is how many segments of a tier a build's merges take at
// once, and how many a tier holds before they do.
const buildMergeWidth = 20

// buildConfig is scorchConfig for an index a build fills: its merges take
// buildMergeWidth segments at once. Once its merges have settled, the
// build reopens it with scorchConfig, whose merges (of 10) settle the rest
// before it is published.
func (x *Indexer) buildConfig(w *segWarmer) map[string]any {
	config := x.scorchConfig(w)
	config["scorchMergePlanOptions"] = map[string]any{
		"MaxSegmentSize":       x.opts.MaxSegmentDocs,
		"SegmentsPerMergeTask": buildMergeWidth,
		"MaxSegmentsPerTier":   buildMergeWidth,
	}
	return config
}

// store is the on-disk home of the index: <dir>/current is a symlink to the
// generation in use (gen-<n>), replaced atomically by a rebuild.
type store struct {
	dir string
}

func (s store) current() string { return filepath.Join(s.dir, "current") }

// errDiskFull says the index's filesystem has less free space than
// roomReserve: the tail loop applies nothing until there is more.
var errDiskFull = errors.New("the search index's filesystem is nearly full (" + syscall.ENOSPC.Error() + ")")

// room reports whether the index's filesystem has free space above its
// reserve. Bleve must never meet a full disk: a segment whose persist
// fails with ENOSPC is closed while the index still uses it, and the next
// batch or merge panics in zap (an assignment to its cleared cache). So
// polls stop short of it, keeping room for the merges already running.
func (s store) room() bool {
	var st syscall.Statfs_t
	if err := syscall.Statfs(s.dir, &st); err != nil {
		return true // not knowable here: let the write report it
	}
	size := st.Blocks * uint64(st.Bsize)
	free := st.Bavail * uint64(st.Bsize)
	return free > roomReserve(size)
}

// roomReserve is the free space kept on a filesystem of size bytes: an
// eighth of it, between 1 MiB and 512 MiB.
func roomReserve(size uint64) uint64 {
	return min(max(size/8, 1<<20), 512<<20)
}

// currentDir returns the directory the current symlink points to, or "".
func (s store) currentDir() string {
	target, err := os.Readlink(s.current())
	if err != nil {
		return ""
	}
	return filepath.Join(s.dir, target)
}

// newGeneration returns a fresh, not yet existing directory for a build.
func (s store) newGeneration() (string, error) {
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return "", err
	}
	return os.MkdirTemp(s.dir, "gen-"+strconv.FormatInt(time.Now().UnixNano(), 36)+"-")
}

// publish makes gen the current generation atomically and returns the
// previous one, which the caller removes once nothing reads it.
func (s store) publish(gen string) (string, error) {
	old := s.currentDir()
	tmp := filepath.Join(s.dir, "current.tmp")
	os.Remove(tmp)
	if err := os.Symlink(filepath.Base(gen), tmp); err != nil {
		return "", err
	}
	if err := os.Rename(tmp, s.current()); err != nil {
		return "", err
	}
	if d, err := os.Open(s.dir); err == nil {
		d.Sync()
		d.Close()
	}
	if old == gen {
		old = ""
	}
	return old, nil
}

// quarantine moves an unusable generation aside for inspection.
func (s store) quarantine(gen string) string {
	to := gen + ".broken-" + strconv.FormatInt(time.Now().Unix(), 10)
	if os.Rename(gen, to) != nil {
		os.RemoveAll(gen)
		return ""
	}
	return to
}

// cleanup removes generations that are not current (interrupted builds).
func (s store) cleanup() {
	cur := s.currentDir()
	entries, _ := os.ReadDir(s.dir)
	for _, e := range entries {
		p := filepath.Join(s.dir, e.Name())
		if strings.HasPrefix(e.Name(), "gen-") && !strings.Contains(e.Name(), ".broken-") && p != cur {
			os.RemoveAll(p)
		}
	}
}

// handle is the open index search reads from; replaced under lock when a
// rebuild is published or after a failed batch.
type handle struct {
	mu  sync.RWMutex
	idx bleve.Index
	// why is what searches are told while no index is open, if set.
	why string
}

func (h *handle) get() bleve.Index {
	h.mu.RLock()
	defer h.mu.RUnlock()
	return h.idx
}

// read runs fn with the open index; a swap waits until fn returns, so an
// index is never closed under a reader.
func (h *handle) read(fn func(bleve.Index) error) error {
	h.mu.RLock()
	defer h.mu.RUnlock()
	if h.idx == nil {
		if h.why != "" {
			return semcat.Errorf(semcat.EUNAVAILABLE, "%s", h.why)
		}
		// Between a failed batch's close and the reopen, or at shutdown:
		// a moment, worth a retry.
		return semcat.Errorf(semcat.EUNAVAILABLE, "the search index is being reopened; try again")
	}
	return fn(h.idx)
}

// swap installs idx and returns the previous one.
func (h *handle) swap(idx bleve.Index) bleve.Index {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.idx
	h.idx, h.why = idx, ""
	return old
}

// close leaves no index open, searches told why, and returns the one
// that was.
func (h *handle) close(why string) bleve.Index {
	h.mu.Lock()
	defer h.mu.Unlock()
	old := h.idx
	h.idx, h.why = nil, why
	return old
}

// progress tracks the applied horizon and wakes readers waiting for it.
type progress struct {
	mu      sync.Mutex
	horizon uint64
	changed chan struct{}
	// lowered counts lower calls, so that a poll read before one does not
	// raise the horizon again (advanceSince).
	lowered uint64
	// doubt: the tail loop cannot reach the database, which may come back
	// failed over or restored, handing out again ids below the horizon to
	// other nodes' writes; waits hold until a poll has checked it.
	doubt bool
}

func newProgress() *progress { return &progress{changed: make(chan struct{})} }

func (p *progress) get() uint64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.horizon
}

// advance raises the horizon (never lowers it) and wakes waiters.
func (p *progress) advance(h uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.advanceLocked(h)
}

func (p *progress) advanceLocked(h uint64) {
	if h > p.horizon {
		p.horizon = h
		close(p.changed)
		p.changed = make(chan struct{})
	}
}

// since returns the horizon and a token for advanceSince.
func (p *progress) since() (horizon, token uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.horizon, p.lowered
}

// advanceSince is advance for a horizon read from a snapshot taken after
// since returned token: if lower ran in between, the snapshot may come from
// before the event that lowered the horizon, and is dropped.
func (p *progress) advanceSince(token, h uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.lowered == token {
		p.advanceLocked(h)
	}
}

// lower brings the horizon down to h if it is above, reporting whether it
// was. Waiters keep waiting.
func (p *progress) lower(h uint64) (from uint64, lowered bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h >= p.horizon {
		return p.horizon, false
	}
	from, p.horizon = p.horizon, h
	p.lowered++
	return from, true
}

// reset sets the horizon after a rebuild from scratch.
func (p *progress) reset(h uint64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.horizon = h
	close(p.changed)
	p.changed = make(chan struct{})
}

// setDoubt sets whether the horizon is in doubt, waking waiters when it
// no longer is.
func (p *progress) setDoubt(d bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.doubt && !d {
		close(p.changed)
		p.changed = make(chan struct{})
	}
	p.doubt = d
}

// wait blocks until the horizon is above txid, and not in doubt, or ctx
// ends.
func (p *progress) wait(ctx context.Context, txid uint64) error {
	for {
		p.mu.Lock()
		h, ch, doubt := p.horizon, p.changed, p.doubt
		p.mu.Unlock()
		if h > txid && !doubt {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-ch:
		}
	}
}
