package indexer_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb/pgtest"
	"github.com/semcat/semcat/indexer"
	"github.com/semcat/semcat/search"
)

// TestScrubRepairs removes a document and plants a stale one behind the
// indexer's back; a scrub over the whole (small) catalog repairs both.
func TestScrubRepairs(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	checker(t)(s.CreateTable(ctx, ns, table("t", "a")))
	catchUp(t, x)
	var tableID int64
	s.Pool().QueryRow(context.Background(), `SELECT table_id FROM table_meta WHERE table_name = 't'`).Scan(&tableID)
	idx := x.Index()
	if err := idx.Delete(indexer.DocID(semcat.KindTable, tableID)); err != nil {
		t.Fatal(err)
	}
	if err := idx.Index("table:999999", map[string]any{"name": "ghost", "doc": "{}"}); err != nil {
		t.Fatal(err)
	}
	st, err := x.Scrub(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if st.Reindexed != 1 || st.Deleted != 1 {
		t.Errorf("scrub: %+v, want 1 reindexed and 1 deleted", st)
	}
	assertMatchesDB(t, x, s)
}

// TestScrubLeavesPendingAlone: an entity written, or a document dropped, or
// a schema renamed since the tail last applied is not repaired by the scrub
// (the index is behind, not wrong); once the tail catches up, there is
// nothing to repair.
func TestScrubLeavesPendingAlone(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	check := checker(t)
	check(s.CreateTable(ctx, ns, table("old", "a")))
	check(s.CreateTable(ctx, ns, table("gone", "a")))
	catchUp(t, x)

	check(s.CreateTable(ctx, ns, table("new", "a")))
	if _, _, err := s.DropTable(ctx, ns, "gone"); err != nil {
		t.Fatal(err)
	}
	st, err := x.Scrub(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if st.Reindexed != 0 || st.Deleted != 0 || st.Pending != 2 {
		t.Errorf("scrub with two pending changes: %+v, want them pending and nothing repaired", st)
	}

	// A pending rename of the schema changes every document under it.
	catchUp(t, x)
	renamed := "s2"
	check(s.AlterSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, "s", []semcat.Update{{Type: semcat.UpdateRename, NewName: &renamed}}))
	st, err = x.Scrub(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if st.Reindexed != 0 || st.Deleted != 0 || st.Pending == 0 {
		t.Errorf("scrub with a pending schema rename: %+v, want the tables pending and nothing repaired", st)
	}

	catchUp(t, x)
	st, err = x.Scrub(context.Background(), 1000)
	if err != nil {
		t.Fatal(err)
	}
	if st.Reindexed != 0 || st.Deleted != 0 || st.Pending != 0 || st.Checked == 0 {
		t.Errorf("scrub after catching up: %+v, want everything checked and nothing to do", st)
	}
}

// TestScrubLetsTheTailRun: while a scrub compares its samples (here held
// up by a lock on the metrics table, which it samples last), the tail
// keeps applying writes; it used to wait for the whole scrub.
func TestScrubLetsTheTailRun(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	catchUp(t, x) // the seed applied: the next polls read only the new table
	// Committed before the lock below, which takes a transaction id and so
	// holds back the horizon of anything written after it.
	_, pos, err := s.CreateTable(ctx, ns, table("during", "a"))
	if err != nil {
		t.Fatal(err)
	}

	blocker, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer blocker.Rollback(ctx)
	if _, err := blocker.Exec(ctx, `LOCK TABLE semantic_model_metric_meta IN ACCESS EXCLUSIVE MODE`); err != nil {
		t.Fatal(err)
	}
	scrubbed := make(chan error, 1)
	go func() {
		_, err := x.Scrub(context.Background(), 1000)
		scrubbed <- err
	}()
	for waiting := 0; waiting == 0; time.Sleep(10 * time.Millisecond) {
		if err := s.Pool().QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()
			AND wait_event_type = 'Lock' AND query LIKE '%semantic_model_metric_meta%'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
	}

	// The scrub is waiting for the lock: the tail applies the write. (It
	// may take a few polls: other tests' transactions on this PostgreSQL
	// hold the horizon back too.)
	polling, stopPolling := context.WithCancel(ctx)
	applied := make(chan error, 1)
	go func() {
		for {
			if err := x.PollOnce(polling); err != nil {
				applied <- err
				return
			}
			covered, cancel := context.WithTimeout(polling, time.Millisecond)
			err := x.WaitFor(covered, pos)
			cancel()
			if err == nil || polling.Err() != nil {
				applied <- polling.Err()
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
	}()
	select {
	case err := <-applied:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second): // a deadlock guard, not a time limit
		t.Errorf("the tail could not apply a write while a scrub ran")
		stopPolling()
		if err := blocker.Rollback(ctx); err != nil {
			t.Fatal(err)
		}
		<-applied
	}
	stopPolling()
	if err := blocker.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	if err := <-scrubbed; err != nil {
		t.Fatal(err)
	}
	catchUp(t, x)
	assertMatchesDB(t, x, s)
}

// TestPruneAndWatermark: pruning removes only rows every live consumer has
// passed; an index whose cursor falls below the watermark rebuilds on open.
func TestPruneAndWatermark(t *testing.T) {
	t.Parallel()
	s := openStore(t, pgtest.NewDatabase(t))
	seed(t, s)
	dirA, dirB := t.TempDir(), t.TempDir()
	a := openIndexer(t, s, dirA)
	b := openIndexer(t, s, dirB)
	checker(t)(s.CreateTable(ctx, ns, table("t1", "a")))
	catchUp(t, a)
	a.Close(context.Background()) // reports a's cursor
	count := func() int {
		var n int
		s.Pool().QueryRow(context.Background(), `SELECT count(*) FROM outbox`).Scan(&n)
		return n
	}
	before := count()
	// b has not caught up: nothing after its cursor may go.
	if _, err := s.PruneOutbox(context.Background(), time.Hour); err != nil {
		t.Fatal(err)
	}
	if count() == 0 {
		t.Fatal("pruned rows a live consumer has not passed")
	}
	catchUp(t, b)
	b.Close(context.Background())
	n, err := s.PruneOutbox(context.Background(), time.Hour)
	if err != nil || n == 0 || count() >= before {
		t.Fatalf("prune after both passed: %d rows (%v), %d left of %d", n, err, count(), before)
	}
	// A new write, then a node that was away (its heartbeat expired) comes
	// back below the watermark: it rebuilds and matches PostgreSQL.
	checker(t)(s.CreateTable(ctx, ns, table("t2", "a")))
	b = openIndexer(t, s, dirB)
	catchUp(t, b)
	b.Close(context.Background())
	if _, err := s.Pool().Exec(context.Background(), `UPDATE index_consumer SET heartbeat_at = now() - interval '2 hours' WHERE consumer_name = $1`, "test:"+dirA); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PruneOutbox(context.Background(), time.Hour); err != nil {
		t.Fatal(err)
	}
	genBefore := currentGeneration(t, dirA)
	a = openIndexer(t, s, dirA)
	defer a.Close(context.Background())
	if currentGeneration(t, dirA) == genBefore {
		t.Error("an index below the pruned watermark was not rebuilt")
	}
	catchUp(t, a)
	assertMatchesDB(t, a, s)
}

// TestPrunedPastWhileRunning: a node that keeps running but fell silent
// (its heartbeat expired, so pruning went past its cursor) notices at its
// next poll, even when a newer write would carry its cursor past the
// watermark, and rebuilds rather than skip the pruned rows.
func TestPrunedPastWhileRunning(t *testing.T) {
	t.Parallel()
	s := openStore(t, pgtest.NewDatabase(t))
	seed(t, s)
	dirA, dirB := t.TempDir(), t.TempDir()
	a := openIndexer(t, s, dirA)
	b := openIndexer(t, s, dirB)
	defer b.Close(context.Background())
	checker(t)(s.CreateTable(ctx, ns, table("t1", "a")))
	catchUp(t, a)
	a.Close(context.Background()) // reports a's cursor, past t1
	if _, err := s.Pool().Exec(context.Background(), `UPDATE index_consumer SET heartbeat_at = now() - interval '2 hours' WHERE consumer_name = $1`, "test:"+dirB); err != nil {
		t.Fatal(err)
	}
	if n, err := s.PruneOutbox(context.Background(), time.Hour); err != nil || n == 0 {
		t.Fatalf("prune: %d rows, %v", n, err)
	}
	checker(t)(s.CreateTable(ctx, ns, table("t2", "a")))
	genBefore := currentGeneration(t, dirB)
	catchUp(t, b)
	if currentGeneration(t, dirB) == genBefore {
		t.Error("a running index the outbox was pruned past was not rebuilt")
	}
	assertMatchesDB(t, b, s)
}

// TestRebuildHoldsTheOutbox: while a rebuild catches up from below its
// snapshot, the tail loop moves on and reports its cursor; pruning must
// still keep the rows the new generation has not read, or the writes
// made during the rebuild are lost from it.
func TestRebuildHoldsTheOutbox(t *testing.T) {
	t.Parallel()
	s := openStore(t, pgtest.NewDatabase(t))
	seed(t, s)
	checker(t)(s.CreateTable(ctx, ns, table("gone", "a")))
	dir := t.TempDir()
	x := openIndexer(t, s, dir)
	defer x.Close(context.Background())
	catchUp(t, x)
	indexer.SetAfterScan(x, func() {
		// Writes the snapshot did not see; the tail loop applies them to
		// the old generation and reports its cursor (at most once a
		// second); then the outbox is pruned.
		checker(t)(s.CreateTable(ctx, ns, table("late", "a")))
		if _, _, err := s.DropTable(ctx, ns, "gone"); err != nil {
			t.Error(err)
		}
		time.Sleep(1100 * time.Millisecond)
		if err := x.PollOnce(ctx); err != nil {
			t.Error(err)
		}
		if _, err := s.PruneOutbox(context.Background(), time.Hour); err != nil {
			t.Error(err)
		}
	})
	if err := x.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	catchUp(t, x)
	assertMatchesDB(t, x, s)
}

// TestIndexAheadOfTheDatabase: an index whose checkpoint is past every
// transaction the database has begun (the database was restored from a
// backup, the index kept) is rebuilt at open, rather than skip the new
// writes, whose ids sort below its cursor.
func TestIndexAheadOfTheDatabase(t *testing.T) {
	t.Parallel()
	s := openStore(t, pgtest.NewDatabase(t))
	seed(t, s)
	dir := t.TempDir()
	x := openIndexer(t, s, dir)
	catchUp(t, x)
	next, err := s.NextTxID(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if err := indexer.MoveCheckpoint(x, next+1000); err != nil {
		t.Fatal(err)
	}
	x.Close(context.Background())
	genBefore := currentGeneration(t, dir)
	x = openIndexer(t, s, dir)
	defer x.Close(context.Background())
	if currentGeneration(t, dir) == genBefore {
		t.Error("an index ahead of the database was not rebuilt")
	}
	checker(t)(s.CreateTable(ctx, ns, table("after_restore", "a")))
	catchUp(t, x)
	assertMatchesDB(t, x, s)
}

// TestNoOpenIndexRecovers: with no index open (a failed batch whose
// recovery could not rebuild), the next poll reopens one and applies the
// pending writes instead of writing to nothing.
func TestNoOpenIndexRecovers(t *testing.T) {
	t.Parallel()
	s := openStore(t, pgtest.NewDatabase(t))
	seed(t, s)
	x := openIndexer(t, s, t.TempDir())
	defer x.Close(context.Background())
	catchUp(t, x)
	if err := indexer.DropHandle(x); err != nil {
		t.Fatal(err)
	}
	checker(t)(s.CreateTable(ctx, ns, table("pending", "a")))
	catchUp(t, x)
	assertMatchesDB(t, x, s)
}

// TestRebuildWhileSearching swaps in a rebuilt index while searches run:
// every search answers, and the result equals PostgreSQL.
func TestRebuildWhileSearching(t *testing.T) {
	t.Parallel()
	s := openStore(t, pgtest.NewDatabase(t))
	seed(t, s)
	for i := range 30 {
		checker(t)(s.CreateTable(ctx, ns, table("t"+string(rune('a'+i%26))+string(rune('a'+i/26)), "col")))
	}
	dir := t.TempDir()
	x := openIndexer(t, s, dir)
	defer x.Close(context.Background())
	svc := &search.Service{Index: x, Store: s}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	var failures, searches atomic.Int64
	for range 3 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				res, err := svc.Search(context.Background(), semcat.SearchRequest{Metalake: "m", Query: "col", Limit: 5})
				searches.Add(1)
				if err != nil || res.Total == 0 {
					failures.Add(1)
				}
			}
		}()
	}
	gen := currentGeneration(t, dir)
	if err := x.Rebuild(context.Background()); err != nil {
		t.Fatal(err)
	}
	close(stop)
	wg.Wait()
	if failures.Load() != 0 {
		t.Errorf("%d of %d searches failed during the rebuild", failures.Load(), searches.Load())
	}
	if currentGeneration(t, dir) == gen {
		t.Error("the rebuild did not swap in a new generation")
	}
	catchUp(t, x)
	assertMatchesDB(t, x, s)
}

// TestRebuildWarmsColumns: when searches run, a rebuilt index is swapped
// in with the search columns of every segment built, so its first searches
// do not wait for them.
func TestRebuildWarmsColumns(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	for i := range 30 {
		checker(t)(s.CreateTable(ctx, ns, table(fmt.Sprintf("t%02d", i), "col")))
	}
	catchUp(t, x)
	svc := &search.Service{Index: x, Store: s}
	if _, err := svc.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: "col", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if err := x.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	missing, segments, err := indexer.ColumnsMissing(x)
	if err != nil {
		t.Fatal(err)
	}
	if segments == 0 || missing != 0 {
		t.Errorf("after the rebuild, %d of %d segments have no search columns", missing, segments)
	}
}

// TestLargeSubtreeInChunks renames a schema whose subtree is many times the
// batch size: the poll applies it in chunks and the index ends equal to
// PostgreSQL, the renamed schema's tables carrying the new name.
func TestLargeSubtreeInChunks(t *testing.T) {
	t.Parallel()
	s, x := seededIndexerWith(t, indexer.Options{BatchSize: 3})
	for i := range 20 {
		checker(t)(s.CreateTable(ctx, ns, table(fmt.Sprintf("t%02d", i), "a")))
	}
	catchUp(t, x)
	renamed := "renamed"
	checker(t)(s.AlterSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, "s", []semcat.Update{{Type: semcat.UpdateRename, NewName: &renamed}}))
	catchUp(t, x)
	assertMatchesDB(t, x, s)
	res, err := (&search.Service{Index: x, Store: s}).Search(context.Background(), semcat.SearchRequest{Metalake: "m", Query: "*", Schema: "renamed", Types: []string{"table"}, Limit: 100})
	if err != nil || res.Total != 20 {
		t.Errorf("tables under the renamed schema: %v %v", res, err)
	}
}

// TestCursorPaging: paging with cursors, one hit a page, visits exactly the
// hits of one large page in the same order, for every sort — including
// relevance, whose cursor must carry the last hit's score.
func TestCursorPaging(t *testing.T) {
	t.Parallel()
	s := openStore(t, pgtest.NewDatabase(t))
	seed(t, s)
	// Scores differ: a table named "col" matches by name, the others by a
	// column name; ties break by name.
	for _, name := range []string{"tb", "col", "ta", "td", "tc"} {
		checker(t)(s.CreateTable(ctx, ns, table(name, "col")))
	}
	// Equal names break the tie by identifier: m.rel.a.tb before m.rel.s.tb.
	other := semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "a"}
	checker(t)(s.CreateSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, semcat.SchemaCreate{Name: "a"}))
	checker(t)(s.CreateTable(ctx, other, table("tb", "col")))
	x := openIndexer(t, s, t.TempDir())
	defer x.Close(context.Background())
	catchUp(t, x)
	svc := &search.Service{Index: x, Store: s}
	names := func(res *semcat.SearchResult) []string {
		var out []string
		for _, h := range res.Results {
			out = append(out, strings.Join(h.Entity.Namespace, ".")+"."+h.Entity.Name)
		}
		return out
	}
	wantOrder := map[string][]string{
		"name":  {"m.rel.s.col", "m.rel.s.ta", "m.rel.a.tb", "m.rel.s.tb", "m.rel.s.tc", "m.rel.s.td"},
		"-name": {"m.rel.s.td", "m.rel.s.tc", "m.rel.s.tb", "m.rel.a.tb", "m.rel.s.ta", "m.rel.s.col"},
		// The name match first, then the column matches by name.
		"relevance": {"m.rel.s.col", "m.rel.s.ta", "m.rel.a.tb", "m.rel.s.tb", "m.rel.s.tc", "m.rel.s.td"},
	}
	for _, sortBy := range []string{"", "relevance", "name", "-name", "created", "-created"} {
		req := semcat.SearchRequest{Metalake: "m", Query: "col", Types: []string{"table"}, Sort: sortBy, Limit: 100}
		all, err := svc.Search(ctx, req)
		if err != nil {
			t.Fatal(err)
		}
		want := names(all)
		if len(want) != 6 {
			t.Fatalf("sort %q: %d hits, want 6: %v", sortBy, len(want), want)
		}
		if order, ok := wantOrder[sortBy]; ok {
			if diff := cmp.Diff(order, want); diff != "" {
				t.Errorf("sort %q (-want +got):\n%s", sortBy, diff)
			}
		}
		req.Limit = 1
		var got []string
		for range 10 {
			page, err := svc.Search(ctx, req)
			if err != nil {
				t.Fatalf("sort %q: %v", sortBy, err)
			}
			got = append(got, names(page)...)
			if page.Cursor == "" {
				break
			}
			req.Cursor = page.Cursor
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("sort %q: pages differ from one page (-want +got):\n%s", sortBy, diff)
		}
	}

	// A table and a semantic model of one schema may share a name, and so
	// an identifier: paging one hit at a time still visits both.
	checker(t)(s.CreateSemanticModel(ctx, ns, model("tb", "tb")))
	catchUp(t, x)
	for _, sortBy := range []string{"relevance", "name", "-name", "created"} {
		req := semcat.SearchRequest{Metalake: "m", Query: "tb", Types: []string{"table", "semantic_model"}, Sort: sortBy, Limit: 1}
		seen := map[string]int{}
		for range 10 {
			page, err := svc.Search(ctx, req)
			if err != nil {
				t.Fatalf("sort %q: %v", sortBy, err)
			}
			for _, h := range page.Results {
				seen[h.Entity.Type+" "+strings.Join(h.Entity.Namespace, ".")+"."+h.Entity.Name]++
			}
			if page.Cursor == "" {
				break
			}
			req.Cursor = page.Cursor
		}
		want := map[string]int{"table m.rel.s.tb": 1, "table m.rel.a.tb": 1, "semantic_model m.rel.s.tb": 1}
		if diff := cmp.Diff(want, seen); diff != "" {
			t.Errorf("sort %q, equal identifiers: pages (-want +got):\n%s", sortBy, diff)
		}
	}

	// A cursor belongs to its filters: under others it would start the
	// page anywhere. The order of repeated filters does not matter.
	req := semcat.SearchRequest{Metalake: "m", Query: "tb", Types: []string{"table", "semantic_model"}, Sort: "name", Limit: 1}
	page, err := svc.Search(ctx, req)
	if err != nil || page.Cursor == "" {
		t.Fatalf("first page: %v, cursor %q", err, page.Cursor)
	}
	for name, change := range map[string]func(*semcat.SearchRequest){
		"type":     func(r *semcat.SearchRequest) { r.Types = []string{"table"} },
		"catalog":  func(r *semcat.SearchRequest) { r.Catalog = "rel" },
		"schema":   func(r *semcat.SearchRequest) { r.Schema = "s" },
		"tag":      func(r *semcat.SearchRequest) { r.Tags = []string{"hot"} },
		"scope":    func(r *semcat.SearchRequest) { r.Scope = "user" },
		"metalake": func(r *semcat.SearchRequest) { r.Metalake = "other" },
	} {
		next := req
		next.Cursor = page.Cursor
		change(&next)
		if _, err := svc.Search(ctx, next); semcat.ErrorCode(err) != semcat.EINVALID || !strings.Contains(err.Error(), "cursor: not a cursor of this search") {
			t.Errorf("the cursor under another %s: %v, want EINVALID", name, err)
		}
	}
	next := req
	next.Types, next.Cursor = []string{"semantic_model", "table"}, page.Cursor
	if _, err := svc.Search(ctx, next); err != nil {
		t.Errorf("the cursor with the types in another order: %v", err)
	}
}

// TestRebuildInManyChunks: a rebuild whose scan hands its workers many
// chunks (three entities each) builds an index equal to PostgreSQL, and
// publishes it only once Bleve's merges of those chunks' segments have
// settled.
func TestRebuildInManyChunks(t *testing.T) {
	t.Parallel()
	s, x := seededIndexerWith(t, indexer.Options{BatchSize: 3})
	for i := range 60 {
		checker(t)(s.CreateTable(ctx, ns, table(fmt.Sprintf("t%02d", i), "a")))
	}
	catchUp(t, x)
	if err := x.Rebuild(ctx); err != nil {
		t.Fatal(err)
	}
	if done, segments, err := indexer.MergesSettled(x); err != nil || !done {
		t.Errorf("after the rebuild, merges settled %v with %d segments (%v)", done, segments, err)
	}
	if p := x.RebuildProgress(); p.Indexed < 60 {
		t.Errorf("rebuild progress %+v: want at least the 60 tables indexed", p)
	}
	assertMatchesDB(t, x, s)
}
