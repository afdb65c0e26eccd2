package main

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	osexec "os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/semcat/semcat/internal/localpg"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// TestMinPositionAfterImmediateRestart: PostgreSQL's crash recovery hands
// out again transaction ids that were assigned but never reached the WAL.
// The index's horizon, read before the crash, can be past them, so a write
// after the restart has a position below what the index claims to cover.
// Every minPosition search for such a write must find it (or answer 503),
// never answer at once without it (SPEC §5.6).
func TestMinPositionAfterImmediateRestart(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	m := startMain(t, cfg)
	c := client{t: t, base: m.URL()}
	c.ok("POST", "/api/metalakes", `{"name":"m"}`)
	c.ok("POST", "/api/metalakes/m/catalogs", `{"name":"c","type":"relational"}`)
	c.ok("POST", "/api/metalakes/m/catalogs/c/schemas", `{"name":"s"}`)

	admin, err := pgx.Connect(t.Context(), m.pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	// Hold the burnt transactions' commit records (asynchronous: they
	// wrote nothing) in WAL buffers, as a crash finds some at any moment:
	// stop the WAL writer that would write them out.
	var walWriter int
	if err := admin.QueryRow(t.Context(), "SELECT pid FROM pg_stat_activity WHERE backend_type = 'walwriter'").Scan(&walWriter); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(walWriter, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	var burnt uint64
	for range 2000 {
		if err := admin.QueryRow(t.Context(), "SELECT pg_current_xact_id()::text::bigint").Scan(&burnt); err != nil {
			t.Fatal(err)
		}
	}
	// Let the index take a horizon past the burnt ids, then stop
	// PostgreSQL at once (SIGQUIT: an immediate shutdown); semcat's
	// supervisor starts it again.
	for m.Indexer.Position().TxID <= burnt {
		time.Sleep(time.Millisecond)
	}
	held := m.Indexer.Position().TxID
	admin.Close(context.Background())
	if err := syscall.Kill(m.pg.PID(), syscall.SIGQUIT); err != nil {
		t.Fatal(err)
	}
	_ = syscall.Kill(walWriter, syscall.SIGKILL)

	reissued := false
	for i := range 30 {
		name := fmt.Sprintf("t%d", i)
		var status int
		var pos string
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			var hdr map[string][]string
			body := fmt.Sprintf(`{"name":"%s","columns":[{"name":"id","type":"integer"}]}`, name)
			status, hdr, _ = c.do("POST", "/api/metalakes/m/catalogs/c/schemas/s/tables", body)
			if status == 200 {
				pos = strings.Join(hdr["X-Semcat-Position"], "")
				break
			}
			if status == 409 {
				// An attempt committed though its answer was lost with
				// the connection: its position is unknown, so write anew.
				name += "x"
			}
			if time.Now().After(deadline) {
				t.Fatalf("no write succeeded after the restart: %d", status)
			}
		}
		p, err := semcat.ParsePosition("position", pos)
		if err != nil {
			t.Fatal(err)
		}
		reissued = reissued || p.TxID < held
		status, _, out := c.do("GET", "/api/metalakes/m/search?"+url.Values{
			"query": {name}, "type": {"table"}, "minPosition": {pos}}.Encode(), "")
		if status == 503 {
			continue
		}
		var names []string
		results, _ := out["results"].([]any)
		for _, r := range results {
			names = append(names, r.(map[string]any)["entity"].(map[string]any)["name"].(string))
		}
		if status != 200 || !slices.Contains(names, name) {
			t.Errorf("write %d at %s (horizon held %d): search with its minPosition answered %d without it: %v", i, pos, held, status, out)
		}
	}
	if !reissued {
		t.Skipf("PostgreSQL handed out no transaction id again after the immediate stop (horizon held %d, burnt up to %d): nothing was shown", held, burnt)
	}
}

// TestFullIndexDisk: the index's filesystem fills while writes go on. The
// writes are acknowledged throughout (PostgreSQL has room), semcat does not
// crash, and once space is freed the index catches up to equal the
// database without a restart.
func TestFullIndexDisk(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	index := filepath.Join(cfg.DataDir, "index")
	if err := os.MkdirAll(index, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := osexec.Command("mount", "-t", "tmpfs", "-o", "size=8m", "tmpfs", index).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small filesystem for the index here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = osexec.Command("umount", "-l", index).Run() })
	var log syncBuffer
	m := startMainLogging(t, cfg, &log)
	defer func() {
		if t.Failed() {
			t.Logf("semcat's log:\n%s", log.String())
		}
	}()
	c := client{t: t, base: m.URL()}
	c.ok("POST", "/api/metalakes", `{"name":"m"}`)
	c.ok("POST", "/api/metalakes/m/catalogs", `{"name":"c","type":"relational"}`)
	c.ok("POST", "/api/metalakes/m/catalogs/c/schemas", `{"name":"s"}`)

	// Each table carries 200 distinct words in its comment: a few
	// hundred fill 8 MiB of index.
	words := func(i int) string {
		var b strings.Builder
		for j := range 200 {
			fmt.Fprintf(&b, "w%dx%d ", i, j)
		}
		return b.String()
	}
	create := func(i int) {
		t.Helper()
		body := fmt.Sprintf(`{"name":"t%d","comment":%q,"columns":[{"name":"id","type":"integer"}]}`, i, words(i))
		c.ok("POST", "/api/metalakes/m/catalogs/c/schemas/s/tables", body)
	}
	n := 0
	for deadline := time.Now().Add(3 * time.Minute); m.Indexer.Health().PollErrors == 0; n++ {
		if time.Now().After(deadline) {
			t.Fatalf("the index's 8 MiB did not fill with %d tables", n)
		}
		create(n)
	}
	// Full: writes keep being acknowledged while the index fails.
	for range 100 {
		create(n)
		n++
	}
	time.Sleep(2 * time.Second) // the indexer retries against the full disk
	if out, err := osexec.Command("mount", "-o", "remount,size=256m", index).CombinedOutput(); err != nil {
		t.Fatalf("growing the index's filesystem: %v %s", err, out)
	}
	create(n)
	n++
	// The tail loop recovers by itself, without a restart. (If Bleve met
	// the full disk, the index was closed and is reopened from disk.)
	var total float64
	for deadline := time.Now().Add(3 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		// 503 while the index is closed to be reopened from disk.
		status, _, out := c.do("GET", "/api/metalakes/m/search?query=*&type=table&limit=1", "")
		if status != 200 && status != 503 {
			t.Fatalf("search after the full disk: %d %v", status, out)
		}
		if total, _ = out["total"].(float64); status == 200 && int(total) == n {
			break
		}
		if time.Now().After(deadline) {
			du, _ := osexec.Command("du", "-a", index).CombinedOutput()
			t.Fatalf("3 minutes after space was freed the index holds %v tables, the database %d (%+v)\n%s", total, n, m.Indexer.Health(), du)
		}
	}
	// And every table is findable by its own words.
	for _, i := range []int{0, n / 2, n - 1} {
		if out, _ := c.search("m", url.Values{"query": {fmt.Sprintf("w%dx199", i)}}); out["total"].(float64) != 1 {
			t.Errorf("table t%d is not found by its words after the full disk: %v", i, out["total"])
		}
	}
}

// syncBuffer collects a log written from many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestExternalPostgresRestart: semcat on a PostgreSQL it does not manage,
// which is stopped and started again while writes go on. Every
// acknowledged write is in the database afterwards, and the index catches
// up with all of them without a restart of semcat.
func TestExternalPostgresRestart(t *testing.T) {
	t.Parallel()
	pgDir := tempDataDir(t)
	pg, err := localpg.Start(t.Context(), localpg.Options{DataDir: pgDir, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Stop(context.Background()) })
	cfg := testConfig(t)
	cfg.DatabaseURL = pg.URL("semcat")
	m := startMain(t, cfg)
	c := client{t: t, base: m.URL()}
	c.ok("POST", "/api/metalakes", `{"name":"m"}`)
	c.ok("POST", "/api/metalakes/m/catalogs", `{"name":"c","type":"relational"}`)
	c.ok("POST", "/api/metalakes/m/catalogs/c/schemas", `{"name":"s"}`)

	// One writer, creating tables one after another; acked are the ones
	// semcat acknowledged with 200.
	var acked []string
	failed, next := 0, 0
	writeOne := func() {
		name := fmt.Sprintf("t%d", next)
		next++
		body := fmt.Sprintf(`{"name":%q,"columns":[{"name":"id","type":"integer"}]}`, name)
		if status, _, _ := c.do("POST", "/api/metalakes/m/catalogs/c/schemas/s/tables", body); status == 200 {
			acked = append(acked, name)
		} else {
			failed++
			time.Sleep(20 * time.Millisecond)
		}
	}
	for len(acked) < 20 {
		writeOne()
	}
	restarted := make(chan struct{})
	go func() {
		defer close(restarted)
		if err := pg.Stop(context.Background()); err != nil {
			t.Error(err)
			return
		}
		time.Sleep(time.Second)
		var err error
		if pg, err = localpg.Start(context.Background(), localpg.Options{DataDir: pgDir, Logger: slog.New(slog.DiscardHandler)}); err != nil {
			t.Error(err)
		}
	}()
	for running := true; running; {
		select {
		case <-restarted:
			running = false
		default:
			writeOne()
		}
	}
	for n := len(acked) + 20; len(acked) < n; {
		writeOne()
	}
	if failed == 0 {
		t.Fatal("no write failed: the restart did not happen while writing")
	}
	t.Logf("%d writes acknowledged, %d failed while PostgreSQL was down", len(acked), failed)

	_, out := c.ok("GET", "/api/metalakes/m/catalogs/c/schemas/s/tables", "")
	var inDB []string
	for _, id := range out["identifiers"].([]any) {
		inDB = append(inDB, id.(map[string]any)["name"].(string))
	}
	for _, name := range acked {
		if !slices.Contains(inDB, name) {
			t.Errorf("acknowledged table %s is not in the database after the restart", name)
		}
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		out, _ := c.search("m", url.Values{"query": {"*"}, "type": {"table"}, "limit": {"1"}})
		if int(out["total"].(float64)) == len(inDB) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute after the restart the index holds %v tables, the database %d", out["total"], len(inDB))
		}
	}
}
