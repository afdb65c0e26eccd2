package indexer_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/semcat/semcat/catalogdb/pgtest"
	"github.com/semcat/semcat/indexer"
)

// lockedBuffer is a log sink safe for concurrent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) count(s string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Count(l.b.String(), s)
}

// TestDatabaseOutageLogsOnce: while the database refuses connections the
// tail loop fails poll after poll, counted in Health, but logs one line;
// one more when the database is back, and then the index catches up with
// a write made after it.
func TestDatabaseOutageLogsOnce(t *testing.T) {
	url := pgtest.NewDatabase(t)
	s := openStore(t, url)
	seed(t, s)
	var logs lockedBuffer
	x, err := indexer.Open(context.Background(), indexer.Options{Dir: t.TempDir(), Store: s, Consumer: "test:outage",
		Logger: slog.New(slog.NewTextHandler(&logs, nil)), PollInterval: 10 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close(context.Background()) })
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- x.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-ran })

	cfg, err := pgx.ParseConfig(url)
	if err != nil {
		t.Fatal(err)
	}
	db := cfg.Database
	cfg.Database = "postgres"
	admin, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	exec := func(sql string) {
		t.Helper()
		if _, err := admin.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	dbIdent := pgx.Identifier{db}.Sanitize()
	_, before, err := s.CreateTable(ctx, ns, table("before_outage", "id"))
	if err != nil {
		t.Fatal(err)
	}
	covered, stopWait := context.WithTimeout(ctx, time.Minute)
	defer stopWait()
	if err := x.WaitFor(covered, before); err != nil {
		t.Fatal(err)
	}
	// The outage: no new connections, and every other one ended.
	exec("ALTER DATABASE " + dbIdent + " WITH ALLOW_CONNECTIONS false")
	exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '" + db + "'")
	waitUntil(t, "polls to fail", func() bool { return x.Health().PollErrors >= 5 })
	if h := x.Health(); !h.Failing || h.FailingFor <= 0 {
		t.Errorf("Health during the outage: %+v", h)
	}
	if n := logs.count("cannot read the outbox"); n != 1 {
		t.Errorf("%d outage lines for %d failed polls, want 1:\n%s", n, x.Health().PollErrors, logs.b.String())
	}
	// The database may come back failed over or restored, with writes of
	// other nodes at ids below the horizon: until a poll has checked it,
	// a search waiting for a write waits (and answers 503), even for one
	// the index had applied.
	doubt, stopDoubt := context.WithTimeout(ctx, 200*time.Millisecond)
	defer stopDoubt()
	if err := x.WaitFor(doubt, before); err == nil {
		t.Error("during the outage a search waiting for a write answered at once")
	}
	exec("ALTER DATABASE " + dbIdent + " WITH ALLOW_CONNECTIONS true")
	waitUntil(t, "polls to succeed again", func() bool { return !x.Health().Failing })
	again, stopAgain := context.WithTimeout(ctx, time.Minute)
	defer stopAgain()
	if err := x.WaitFor(again, before); err != nil {
		t.Errorf("after the outage a search waiting for a write applied before it does not answer: %v", err)
	}
	if n := logs.count("the database answers again"); n != 1 {
		t.Errorf("%d recovery lines, want 1", n)
	}
	_, pos, err := s.CreateTable(ctx, ns, table("after_outage", "id"))
	if err != nil {
		t.Fatal(err)
	}
	wait, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	if err := x.WaitFor(wait, pos); err != nil {
		t.Fatalf("the index did not catch up after the outage: %v", err)
	}
	if logs.count("cannot read the outbox") != 1 {
		t.Errorf("more outage lines after recovery:\n%s", logs.b.String())
	}
}

// waitUntil polls cond for up to a minute.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); !cond(); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("gave up waiting for %s", what)
		}
	}
}

// TestStalledHorizon: a transaction left open holds the horizon back; the
// lag and the time held show in Health, one line says so, and one more
// when it ends and the write behind it becomes searchable.
func TestStalledHorizon(t *testing.T) {
	url := pgtest.NewDatabase(t)
	s := openStore(t, url)
	seed(t, s)
	var logs lockedBuffer
	x, err := indexer.Open(context.Background(), indexer.Options{Dir: t.TempDir(), Store: s, Consumer: "test:stall",
		Logger: slog.New(slog.NewTextHandler(&logs, nil)), PollInterval: 10 * time.Millisecond, StallAfter: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { x.Close(context.Background()) })
	ctx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- x.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-ran })

	open, err := s.Pool().Begin(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := open.Exec(ctx, "SELECT pg_current_xact_id()"); err != nil {
		t.Fatal(err)
	}
	_, pos, err := s.CreateTable(ctx, ns, table("behind_open_tx", "id"))
	if err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the stall to be logged", func() bool { return logs.count("a transaction left open holds the index back") == 1 })
	if h := x.Health(); h.Lag < 2 || h.HeldFor < 200*time.Millisecond || h.Position > pos.TxID {
		t.Errorf("Health behind an open transaction: %+v (write at %d)", h, pos.TxID)
	}
	if err := open.Rollback(ctx); err != nil {
		t.Fatal(err)
	}
	wait, stop := context.WithTimeout(ctx, time.Minute)
	defer stop()
	if err := x.WaitFor(wait, pos); err != nil {
		t.Fatalf("the write behind the open transaction never became searchable: %v", err)
	}
	waitUntil(t, "the end of the stall to be logged", func() bool { return logs.count("the transaction that held the index back has ended") == 1 })
	if n := logs.count("a transaction left open holds the index back"); n != 1 {
		t.Errorf("%d stall lines, want 1", n)
	}
	if h := x.Health(); h.HeldFor != 0 {
		t.Errorf("Health after the stall: %+v", h)
	}
}
