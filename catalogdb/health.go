package catalogdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/semcat/semcat"
)

// How the database watch checks PostgreSQL (SPEC §9: /readyz answers within
// a second whatever the database does; a lost and a regained database are
// one log line each).
const (
	// CheckTimeout bounds one check, connecting included: a database that
	// has not answered by then is taken as down.
	CheckTimeout = 700 * time.Millisecond
	// checkEvery is how often the watch checks by itself, so that an
	// outage is noticed (and logged) with nobody asking /readyz.
	checkEvery = time.Second
	// lostAfter is how long checks must keep failing for the database to
	// be declared lost.
	lostAfter = time.Second
	// checkFresh is how long one check's answer serves the next callers,
	// so that many /readyz probes at once cost one round trip.
	checkFresh = 100 * time.Millisecond
)

// Watch tells whether the database answers. It checks over a connection
// of its own, outside the store's pool, so that a check never queues behind
// requests that hold every pooled connection (writers waiting on a stalled
// synchronous standby, say), and every check has its own deadline. It logs
// the database lost and regained, once each.
type Watch struct {
	cfg    *pgx.ConnConfig
	logger *slog.Logger

	turn chan struct{} // holds a token while a check runs: one at a time

	// Guarded by turn.
	conn   *pgx.Conn
	closed bool // Run has ended: no more connections

	mu      sync.Mutex
	checked time.Time // when the last check ended
	err     error     // its failure, nil if the database answered
	failing time.Time // when the current run of failed checks began; zero after a success
	down    time.Time // when the database was declared lost (and logged); zero while it answers
}

// NewWatch returns a watch over the database s is connected to.
func NewWatch(s *Store, logger *slog.Logger) *Watch {
	if logger == nil {
		logger = slog.Default()
	}
	return &Watch{cfg: s.pool.Config().ConnConfig.Copy(), logger: logger, turn: make(chan struct{}, 1)}
}

// Run checks the database every second until ctx ends, then closes the
// watch's connection.
func (w *Watch) Run(ctx context.Context) {
	t := time.NewTicker(checkEvery)
	defer t.Stop()
	for {
		_ = w.Check(ctx)
		select {
		case <-ctx.Done():
			w.turn <- struct{}{}
			w.closed = true
			if w.conn != nil {
				_ = w.conn.Close(context.Background())
				w.conn = nil
			}
			<-w.turn
			return
		case <-t.C:
		}
	}
}

// Down reports whether the database is declared lost: checks have failed
// for lostAfter, and none has succeeded since.
func (w *Watch) Down() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return !w.down.IsZero()
}

// Check reports whether the database answers, within CheckTimeout (or ctx,
// if sooner), as an EUNAVAILABLE error if it does not. A check that ended
// less than checkFresh ago answers for this one.
func (w *Watch) Check(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, CheckTimeout)
	defer cancel()
	select {
	case w.turn <- struct{}{}:
	case <-ctx.Done():
		return w.unavailable(ctx.Err())
	}
	defer func() { <-w.turn }()
	w.mu.Lock()
	if time.Since(w.checked) < checkFresh {
		err := w.err
		w.mu.Unlock()
		return err
	}
	w.mu.Unlock()

	err := w.ping(ctx)
	if errors.Is(err, context.Canceled) && ctx.Err() == context.Canceled {
		return err // the caller went away: this says nothing of the database
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.checked = time.Now()
	if err == nil {
		if !w.down.IsZero() {
			w.logger.Info("the database is back", "down_for", time.Since(w.failing).Round(time.Millisecond).String())
			w.down = time.Time{}
		}
		w.failing, w.err = time.Time{}, nil
		return nil
	}
	// Every failed check answers not ready; the database is declared lost
	// (logged, and Down) only once checks have failed for lostAfter, so a
	// single slow answer on a busy machine is no outage in the log.
	if w.failing.IsZero() {
		w.failing = w.checked
	}
	if w.down.IsZero() && w.checked.Sub(w.failing) >= lostAfter {
		w.down = w.checked
		w.logger.Warn("the database is unavailable; requests that need it answer 503 until it is back", "err", err,
			"failing_for", w.checked.Sub(w.failing).Round(time.Millisecond).String())
	}
	w.err = w.unavailable(err)
	return w.err
}

// ping connects if needed and runs an empty statement. A connection that
// failed is closed, for the next check to open a new one.
func (w *Watch) ping(ctx context.Context) error {
	if w.closed {
		return errors.New("the database watch is closed")
	}
	if w.conn == nil || w.conn.IsClosed() {
		conn, err := pgx.ConnectConfig(ctx, w.cfg)
		if err != nil {
			return err
		}
		w.conn = conn
	}
	if err := w.conn.Ping(ctx); err != nil {
		_ = w.conn.Close(context.Background())
		w.conn = nil
		return err
	}
	return nil
}

// unavailable is the error /readyz shows for a failed check: what kind of
// failure, without the connection's details, which go to the log.
func (w *Watch) unavailable(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return semcat.Errorf(semcat.EUNAVAILABLE, "the database did not answer within %s", CheckTimeout)
	}
	return semcat.Errorf(semcat.EUNAVAILABLE, "the database is unavailable: %s", failureKind(err))
}

// failureKind names what went wrong with the database in a few words.
func failureKind(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return fmt.Sprintf("%s (SQLSTATE %s)", strings.SplitN(pgErr.Message, "\n", 2)[0], pgErr.Code)
	}
	var connect *pgconn.ConnectError
	if errors.As(err, &connect) {
		return "cannot connect"
	}
	return "the connection failed"
}

// Unreachable reports whether err, from connecting to the database, is one
// that passes by itself: the server not reachable yet, starting, shutting
// down, out of connections or read-only (a standby not yet promoted). A
// wrong password, a missing database or a bad connection string do not.
func Unreachable(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch code := pgErr.Code; {
		case strings.HasPrefix(code, "08"), code == "57P01", code == "57P02", code == "57P03", code == "53300", code == "25006":
			return true
		}
		return false
	}
	var parse *pgconn.ParseConfigError
	if errors.As(err, &parse) {
		return false
	}
	var connect *pgconn.ConnectError
	return errors.As(err, &connect)
}

// WaitReachable returns once the database at connString accepts a
// connection, retrying with growing pauses (up to 10 s) while it is
// unreachable (Unreachable), and saying so once in the log. It fails at
// once for any other error, and when ctx ends.
func WaitReachable(ctx context.Context, connString string, logger *slog.Logger) error {
	cfg, err := pgx.ParseConfig(connString)
	if err != nil {
		return fmt.Errorf("catalogdb: parse connection string: %w", err)
	}
	var since time.Time
	for pause := 250 * time.Millisecond; ; pause = min(2*pause, 10*time.Second) {
		attempt, cancel := context.WithTimeout(ctx, 10*time.Second)
		conn, err := pgx.ConnectConfig(attempt, cfg)
		cancel()
		if err == nil {
			_ = conn.Close(context.Background())
			if !since.IsZero() {
				logger.Info("the database is up", "waited", time.Since(since).Round(time.Millisecond).String())
			}
			return nil
		}
		if ctx.Err() != nil {
			return fmt.Errorf("catalogdb: waiting for the database: %w", err)
		}
		if !Unreachable(err) && !errors.Is(err, context.DeadlineExceeded) {
			return fmt.Errorf("catalogdb: connect: %w", err)
		}
		if since.IsZero() {
			since = time.Now()
			logger.Warn("waiting for the database, which is not reachable yet; /healthz answers, /readyz says not ready", "err", err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("catalogdb: waiting for the database: %w", err)
		case <-time.After(pause):
		}
	}
}
