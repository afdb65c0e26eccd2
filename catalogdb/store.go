// Package catalogdb keeps semcat's catalog in PostgreSQL: the schema and its
// migrations, the store that implements the domain services, the
// transactional outbox that feeds the search index. The PostgreSQL semcat
// manages for itself is internal/localpg's.
package catalogdb

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/semcat/semcat"
)

// Store implements semcat's catalog services on PostgreSQL. Exported methods
// own their transactions; lower-case helpers take a transaction and compose.
type Store struct {
	pool   *pgxpool.Pool
	logger *slog.Logger
	// Now returns the current time; tests may replace it.
	Now func() time.Time
	// commits receives a signal after each committed write: a hint for the
	// in-process indexer to poll now rather than at its next tick.
	commits chan struct{}
	// watch, if set, is told each write's transaction id while the
	// transaction is still open (WatchWrites).
	watch atomic.Pointer[func(txid uint64)]
	// synonyms is told when a metalake's synonym sets may have changed
	// (WatchSynonyms).
	synonyms atomic.Pointer[func()]
	// listings are the last unbounded listings read (listing_cache.go).
	listings listingCache
}

var (
	_ semcat.MetalakeService      = (*Store)(nil)
	_ semcat.CatalogService       = (*Store)(nil)
	_ semcat.SchemaService        = (*Store)(nil)
	_ semcat.TableService         = (*Store)(nil)
	_ semcat.SemanticModelService = (*Store)(nil)
	_ semcat.TagService           = (*Store)(nil)
)

// Open connects to the database at connString, applies migrations and
// returns a Store.
func Open(ctx context.Context, connString string, logger *slog.Logger) (*Store, error) {
	if logger == nil {
		logger = slog.Default()
	}
	cfg, err := pgxpool.ParseConfig(connString)
	if err != nil {
		return nil, fmt.Errorf("catalogdb: parse connection string: %w", err)
	}
	// pgxpool's default is the number of cores, at least 4: on a small
	// machine a few writers waiting on the database (a stalled synchronous
	// standby) would hold every connection and queue all reads behind
	// them. A pool_max_conns in the URL wins.
	if !strings.Contains(connString, "pool_max_conns") {
		cfg.MaxConns = max(cfg.MaxConns, minPoolConns)
	}
	return openConfig(ctx, cfg, logger)
}

// minPoolConns is the least pool size Open gives a URL that sets none.
const minPoolConns = 10

// openConfig connects a pool configured by cfg, migrates the database and
// returns the store.
func openConfig(ctx context.Context, cfg *pgxpool.Config, logger *slog.Logger) (*Store, error) {
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("catalogdb: connect: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("catalogdb: connect: %w", err)
	}
	if err := Migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, err
	}
	return &Store{pool: pool, logger: logger, Now: time.Now, commits: make(chan struct{}, 1)}, nil
}

// Commits delivers a signal (coalesced) after writes commit.
func (s *Store) Commits() <-chan struct{} { return s.commits }

// WatchWrites has fn told the transaction id of each write as soon as the
// write knows it, before it commits, so before any caller can hold its
// position. The indexer uses it to notice a horizon that PostgreSQL's crash
// recovery has made a lie: no snapshot taken while a transaction runs can
// have its id below xmin, so a running write whose id is below the horizon
// means the ids were handed out again.
func (s *Store) WatchWrites(fn func(txid uint64)) { s.watch.Store(&fn) }

// Close releases the connection pool.
func (s *Store) Close() { s.pool.Close() }

// Pool returns the connection pool, for packages that read the catalog
// directly (the indexer) and for tests.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Ping checks that PostgreSQL answers.
func (s *Store) Ping(ctx context.Context) error { return s.pool.Ping(ctx) }

// retryable reports whether a transaction failed for a reason that a fresh
// attempt can cure: a serialization failure or a deadlock.
func retryable(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && (pgErr.Code == "40001" || pgErr.Code == "40P01")
}

const maxTxAttempts = 8

// write runs fn in a read-committed transaction, retrying the whole function
// on serialization failures and deadlocks (bounded, jittered), and returns
// the position of the committed write.
func (s *Store) write(ctx context.Context, fn func(tx *writeTx) error) (semcat.Position, error) {
	for attempt := 1; ; attempt++ {
		var wtx *writeTx
		err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
			wtx = &writeTx{Tx: tx}
			if w := s.watch.Load(); w != nil {
				wtx.watch = *w
			}
			return fn(wtx)
		})
		if err == nil {
			select {
			case s.commits <- struct{}{}:
			default:
			}
			return semcat.Position{TxID: wtx.txid}, nil
		}
		if !retryable(err) || attempt == maxTxAttempts {
			return semcat.Position{}, translate(err)
		}
		if err := backoff(ctx, attempt); err != nil {
			return semcat.Position{}, err
		}
	}
}

// read runs fn in a read-only repeatable-read transaction, so that
// everything fn reads comes from one snapshot.
func (s *Store) read(ctx context.Context, fn func(tx pgx.Tx) error) error {
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, fn)
	return translate(err)
}

// backoff sleeps a jittered, exponentially growing time before attempt+1.
func backoff(ctx context.Context, attempt int) error {
	base := time.Duration(1<<min(attempt, 7)) * time.Millisecond
	d := base/2 + time.Duration(rand.Int64N(int64(base)))
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return semcat.Errorf(semcat.ECONFLICT, "gave up retrying a concurrent modification: %v", ctx.Err())
	case <-t.C:
		return nil
	}
}

// translate turns database errors into domain errors; *semcat.Error passes
// through unchanged. Unknown errors stay as they are and are reported as
// internal errors by the API.
func translate(err error) error {
	if err == nil {
		return nil
	}
	var e *semcat.Error
	if errors.As(err, &e) {
		return err
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch pgErr.Code {
		case "23505":
			return semcat.Errorf(semcat.EEXISTS, "an entity with that name already exists")
		case "40001", "40P01":
			return &semcat.Error{Code: semcat.ECONFLICT, Message: "concurrent modification, try again"}
		case "22021", "22P05":
			// text and jsonb cannot hold U+0000. The API rejects it with
			// the field's path before it gets here; this covers callers
			// that do not go through it.
			return semcat.Errorf(semcat.EINVALID, "a value holds the character U+0000, which cannot be stored")
		}
	}
	return fmt.Errorf("catalogdb: %w", err)
}

// uniqueViolation reports whether err is a unique-constraint violation.
func uniqueViolation(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && pgErr.Code == "23505"
}

// nowMillis returns the drop time stored in deleted_at.
func (s *Store) nowMillis() int64 { return s.Now().UnixMilli() }

// actor returns the acting user for audit fields.
func actor(ctx context.Context) string {
	if u := semcat.UserFromContext(ctx); u != "" {
		return u
	}
	return "anonymous"
}
