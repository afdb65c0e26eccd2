package catalogdb_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
)

// TestWatchCheck: the watch answers for a database that is up, over its
// own connection, which it closes when Run ends.
func TestWatchCheck(t *testing.T) {
	s := MustOpenStore(t)
	w := catalogdb.NewWatch(s, slog.New(slog.DiscardHandler))
	if err := w.Check(t.Context()); err != nil {
		t.Fatalf("Check of a database that is up: %v", err)
	}
	if w.Down() {
		t.Error("Down after a successful check")
	}
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { defer close(done); w.Run(ctx) }()
	cancel()
	<-done
	time.Sleep(200 * time.Millisecond) // past the freshness (100 ms) of the last answer
	if err := w.Check(t.Context()); semcat.ErrorCode(err) != semcat.EUNAVAILABLE {
		t.Errorf("Check after Run ended: %v, want EUNAVAILABLE", err)
	}
}

// TestWaitReachableFailsForGood: a database that is there but refuses
// semcat for a reason that does not pass (no such database) fails at
// once instead of being waited for.
func TestWaitReachableFailsForGood(t *testing.T) {
	cfg, err := pgx.ParseConfig(pgtest.NewDatabase(t))
	if err != nil {
		t.Fatal(err)
	}
	q := func(v string) string { return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'" }
	url := fmt.Sprintf("host=%s port=%d user=%s password=%s dbname=no_such_database sslmode=disable",
		q(cfg.Host), cfg.Port, q(cfg.User), q(cfg.Password))
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	err = catalogdb.WaitReachable(ctx, url, slog.New(slog.NewTextHandler(io.Discard, nil)))
	if err == nil || ctx.Err() != nil {
		t.Fatalf("WaitReachable for a missing database: %v (waited: %v), want an error at once", err, ctx.Err())
	}
	if catalogdb.Unreachable(err) {
		t.Errorf("a missing database counts as unreachable: %v", err)
	}
}
