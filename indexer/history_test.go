package indexer_test

import (
	"context"
	"fmt"
	"log/slog"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
	"github.com/semcat/semcat/indexer"
)

// Failover and restore: the database an index follows goes back to an
// earlier state — a standby promoted without the primary's latest commits,
// a restore from an older base backup — and hands out again the
// transaction ids the index has already seen. The index must end equal to
// the database it now has (none of the lost documents, none of the new
// ones skipped) and a search waiting for a write must answer with it or
// not at all (503), whatever the order of the ids.

// historyRig is a store on a cluster of the test's own and an indexer
// tailing it with tight intervals.
type historyRig struct {
	t     *testing.T
	url   string
	store *catalogdb.Store
	dir   string
	logs  *lockedBuffer
	x     *indexer.Indexer
	stop  func()
	// Read-your-writes: answered with the write, and not at all (503).
	answered, unavailable int
	// lost: the database went back; an answer showing a table named
	// lost… is a ghost.
	lost bool
}

func newHistoryRig(t *testing.T, url string) *historyRig {
	r := &historyRig{t: t, url: url, dir: t.TempDir(), logs: &lockedBuffer{}}
	r.store = openStore(t, url)
	seed(t, r.store)
	r.start()
	t.Cleanup(func() {
		r.halt()
		if t.Failed() {
			t.Logf("indexer log:\n%s", r.logs.b.String())
		}
	})
	return r
}

// start opens the indexer (building or checking its index) and runs it.
func (r *historyRig) start() {
	r.t.Helper()
	x, err := indexer.Open(context.Background(), indexer.Options{Dir: r.dir, Store: r.store, Consumer: "test:history",
		Logger: slog.New(slog.NewTextHandler(r.logs, nil)), PollInterval: 5 * time.Millisecond, BatchDelay: 5 * time.Millisecond,
		CacheSweep: -1, ResidentIndex: -1})
	if err != nil {
		r.t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- x.Run(ctx) }()
	r.x = x
	r.stop = func() {
		cancel()
		<-ran
		x.Close(context.Background())
	}
}

// halt stops the indexer (semcat stopped).
func (r *historyRig) halt() {
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
}

// write creates table name, retrying while the database is away (a
// failover, a restart), and checks a search waiting for it: it answers
// with the table or not at all. It returns the write's transaction id.
func (r *historyRig) write(name string) uint64 {
	r.t.Helper()
	var pos semcat.Position
	var err error
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if _, pos, err = r.store.CreateTable(ctx, ns, table(name, "id")); err == nil {
			break
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("creating %s: %v", name, err)
		}
	}
	if r.stop == nil {
		return pos.TxID // semcat is stopped: nothing searches
	}
	wctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if err := r.x.WaitFor(wctx, pos); err != nil {
		r.unavailable++ // 503
		return pos.TxID
	}
	found := false
	err = r.x.Read(func(idx bleve.Index) error {
		for _, doc := range indexContents(r.t, idx) {
			e, err := indexer.PayloadEntity(doc)
			if err != nil {
				return err
			}
			found = found || e.Name == name
			if r.lost && strings.HasPrefix(e.Name, "lost") {
				r.t.Errorf("a search waiting for %s answered with %s, which the database lost", name, e.Name)
			}
		}
		return nil
	})
	if err != nil {
		r.unavailable++
		return pos.TxID
	}
	if !found {
		r.t.Errorf("a search waiting for %s (position %d, the index at %d) answered without it", name, pos.TxID, r.x.Position().TxID)
	}
	r.answered++
	return pos.TxID
}

func (r *historyRig) drop(name string) {
	r.t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		_, _, err := r.store.DropTable(ctx, ns, name)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("dropping %s: %v", name, err)
		}
	}
}

// writes creates tables prefix0..prefix<n-1> and returns the highest
// transaction id among them.
func (r *historyRig) writes(prefix string, n int) uint64 {
	r.t.Helper()
	var top uint64
	for i := range n {
		top = max(top, r.write(fmt.Sprintf("%s%d", prefix, i)))
	}
	return top
}

// caughtUp waits until the index has applied every write so far.
func (r *historyRig) caughtUp() {
	r.t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		err := r.x.CatchUp(ctx)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("the index does not catch up: %v", err)
		}
	}
}

// settlesEqual waits until the index equals the database, and fails the
// test with the difference if it does not within a minute.
func (r *historyRig) settlesEqual() {
	r.t.Helper()
	var got, want map[string]string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		r.caughtUp()
		want = dbContents(r.t, r.store)
		_ = r.x.Read(func(idx bleve.Index) error {
			got = indexContents(r.t, idx)
			return nil
		})
		if equalContents(got, want) {
			break
		}
		if time.Now().After(deadline) {
			break
		}
	}
	var ghosts, missing []string
	for id := range got {
		if _, ok := want[id]; !ok {
			ghosts = append(ghosts, id)
		}
	}
	for id := range want {
		if _, ok := got[id]; !ok {
			missing = append(missing, id)
		}
	}
	if len(ghosts) > 0 || len(missing) > 0 || !equalContents(got, want) {
		r.t.Fatalf("the index differs from the database: %d ghosts %v, %d missing %v", len(ghosts), ghosts, len(missing), missing)
	}
	r.t.Logf("index equal to the database (%d documents); searches waiting for a write: %d answered with it, %d unavailable",
		len(want), r.answered, r.unavailable)
}

func equalContents(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// burn spends n transaction ids on the cluster at url.
func burn(t *testing.T, s *catalogdb.Store, n int) {
	t.Helper()
	for range n {
		if _, err := s.Pool().Exec(context.Background(), `SELECT pg_current_xact_id()`); err != nil {
			t.Fatal(err)
		}
	}
}

// TestAsyncFailover: a primary streams to a standby; the standby stops
// receiving while the primary takes more writes, which the index applies;
// the primary dies and the standby is promoted, and semcat, through a
// multi-host URL, writes on it with the transaction ids the lost writes
// had.
func TestAsyncFailover(t *testing.T) {
	t.Parallel()
	primary := pgtest.NewCluster(t, "semcat")
	migrate(t, primary.URL("semcat"))
	standby := primary.Standby()
	url := fmt.Sprintf("host=%s,%s port=5432,5432 user=postgres dbname=semcat target_session_attrs=read-write",
		primary.Socket, standby.Socket)
	r := newHistoryRig(t, url)
	r.writes("a", 8)
	r.caughtUp()
	primary.WaitReplayed(t, standby)
	standby.Stop("fast") // replication stops
	lost := r.writes("lost", 12)
	r.drop("a1")
	r.caughtUp()
	primary.Stop("immediate")
	standby.Start()
	standby.Promote()
	r.lost = true
	// The promoted standby hands out the lost writes' ids again.
	first := r.write("first")
	if first > lost {
		t.Logf("the promoted standby's first write has id %d, above the lost writes' %d", first, lost)
	}
	r.writes("b", 10)
	r.drop("a2")
	r.settlesEqual()
}

// TestRestoreWhileRunning: the database is restored from an older base
// backup while semcat runs, and takes new writes with the ids of the ones
// it lost.
func TestRestoreWhileRunning(t *testing.T) {
	t.Parallel()
	c := pgtest.NewCluster(t, "semcat")
	migrate(t, c.URL("semcat"))
	r := newHistoryRig(t, c.URL("semcat"))
	r.writes("a", 8)
	r.caughtUp()
	backup := c.Backup()
	r.writes("lost", 12)
	r.drop("a1")
	r.caughtUp()
	c.Restore(backup)
	r.lost = true
	r.writes("b", 10)
	r.drop("a2")
	r.settlesEqual()
}

// TestRestoreWhileStopped: semcat stops, the database is restored from an
// older base backup and takes other writes — enough that its transaction
// ids pass everything the index saw, so no comparison of ids can tell —
// and then semcat starts again.
func TestRestoreWhileStopped(t *testing.T) {
	t.Parallel()
	c := pgtest.NewCluster(t, "semcat")
	migrate(t, c.URL("semcat"))
	r := newHistoryRig(t, c.URL("semcat"))
	r.writes("a", 8)
	r.caughtUp()
	backup := c.Backup()
	top := r.writes("lost", 12)
	r.drop("a1")
	r.caughtUp()
	r.halt()
	c.Restore(backup)
	r.lost = true
	r.writes("b", 10)
	r.drop("a2")
	next, err := r.store.NextTxID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if next <= top+10 {
		burn(t, r.store, int(top+10-next))
	}
	r.start()
	r.writes("c", 5)
	r.settlesEqual()
}

func migrate(t *testing.T, url string) {
	t.Helper()
	if err := catalogdb.MigrateURL(context.Background(), url); err != nil {
		t.Fatal(err)
	}
}

// TestHistoryWithoutControlFunctions: a role that may not run
// pg_control_system() (an operator revoked it) still indexes: the fence
// alone tells the database's history.
func TestHistoryWithoutControlFunctions(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	admin := openStore(t, url)
	seed(t, admin)
	role := "plain_" + strconv.FormatInt(time.Now().UnixNano(), 36)
	for _, q := range []string{
		`REVOKE EXECUTE ON FUNCTION pg_control_system() FROM PUBLIC`,
		`CREATE ROLE ` + role + ` LOGIN`,
		`GRANT CREATE, USAGE ON SCHEMA public TO ` + role,
		`GRANT ALL ON ALL TABLES IN SCHEMA public TO ` + role,
		`GRANT ALL ON ALL SEQUENCES IN SCHEMA public TO ` + role,
	} {
		if _, err := admin.Pool().Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		_, _ = admin.Pool().Exec(context.Background(), `DROP OWNED BY `+role)
		_, _ = admin.Pool().Exec(context.Background(), `DROP ROLE `+role)
	})
	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	s := openStore(t, fmt.Sprintf("host=%s port=%d user=%s dbname=%s", cfg.Host, cfg.Port, role, cfg.Database))
	x := openIndexer(t, s, t.TempDir())
	defer x.Close(context.Background())
	checker(t)(s.CreateTable(ctx, ns, table("t1", "id")))
	catchUp(t, x)
	assertMatchesDB(t, x, s)
}

// TestFenceOfAnUnappliedPoll: a poll commits its new fence before it
// applies anything, so a crash in between leaves the database one fence
// ahead of the index, with the index's as prev_fence: that is the same
// history, and the index opens without a rebuild. A database holding
// neither is another history, and the index is rebuilt.
func TestFenceOfAnUnappliedPoll(t *testing.T) {
	t.Parallel()
	s := openStore(t, pgtest.NewDatabase(t))
	seed(t, s)
	dir := t.TempDir()
	open := func() (*indexer.Indexer, *lockedBuffer) {
		t.Helper()
		var logs lockedBuffer
		x, err := indexer.Open(context.Background(), indexer.Options{Dir: dir, Store: s, Consumer: "test:fence",
			Logger: slog.New(slog.NewTextHandler(&logs, nil))})
		if err != nil {
			t.Fatal(err)
		}
		return x, &logs
	}
	x, _ := open()
	checker(t)(s.CreateTable(ctx, ns, table("t1", "id")))
	catchUp(t, x)
	x.Close(context.Background())
	exec := func(q string) {
		t.Helper()
		if _, err := s.Pool().Exec(context.Background(), q); err != nil {
			t.Fatal(err)
		}
	}

	// A poll wrote its fence and died.
	exec(`UPDATE index_fence SET prev_fence = fence, fence = 12345`)
	x, logs := open()
	checker(t)(s.CreateTable(ctx, ns, table("t2", "id")))
	catchUp(t, x)
	assertMatchesDB(t, x, s)
	x.Close(context.Background())
	if n := logs.count("building the search index"); n != 0 {
		t.Errorf("the index was rebuilt after a poll that committed its fence and applied nothing:\n%s", logs.b.String())
	}

	// The database holds neither the index's fence nor the one before.
	exec(`UPDATE index_fence SET prev_fence = 1, fence = 2`)
	x, logs = open()
	defer x.Close(context.Background())
	if logs.count("building the search index") != 1 || logs.count("fence") == 0 {
		t.Errorf("the index was not rebuilt on a database without its fence:\n%s", logs.b.String())
	}
	assertMatchesDB(t, x, s)
}
