// Package pgtest gives tests real PostgreSQL databases: one server per test
// binary (DATABASE_URL, or a private cluster started on first use) and a
// fresh database per test, optionally cloned from a template that was set up
// (migrated) once.
//
// Because pgtest imports catalogdb, tests of catalogdb itself that use it
// must be in the external test package catalogdb_test.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/semcat/semcat/internal/localpg"

	"github.com/jackc/pgx/v5"
)

// adminTimeout bounds each CREATE or DROP DATABASE and the template setup.
const adminTimeout = 2 * time.Minute

// state is the per-process test server. mu also serialises CREATE DATABASE,
// because cloning fails if any other session uses the template.
var state struct {
	mu         sync.Mutex
	mainCalled bool
	setup      func(ctx context.Context, connString string) error
	used       bool // NewDatabase has been called; setup can no longer change

	serverDone bool
	serverErr  error
	adminURL   string           // connection string for CREATE/DROP DATABASE
	local      *localpg.Cluster // nil when DATABASE_URL is used
	localDir   string           // temporary data directory of local

	tmplDone bool
	tmplErr  error
	tmplName string // template database, created only if setup is set
}

// Main runs the package's tests against one PostgreSQL: DATABASE_URL if set,
// else a private cluster in a fresh temporary data directory, started by
// localpg.Start the first time a test asks for a database, then
// stopped and removed after m.Run. It exits the process with the tests'
// status. Use from TestMain:
//
//	func TestMain(m *testing.M) { pgtest.Main(m) }
func Main(m *testing.M) {
	state.mu.Lock()
	state.mainCalled = true
	state.mu.Unlock()
	code := m.Run()
	if err := shutdown(); err != nil {
		fmt.Fprintf(os.Stderr, "pgtest: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// SetTemplateSetup registers fn to run once, on a template database, before
// the first NewDatabase; every database NewDatabase returns is then a clone
// of that template, so tests start migrated without migrating each time. fn
// must close every connection it opens before returning. Call it before the
// first NewDatabase, e.g. in TestMain before Main. Without it NewDatabase
// returns empty databases.
func SetTemplateSetup(fn func(ctx context.Context, connString string) error) {
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.used {
		panic("pgtest: SetTemplateSetup called after NewDatabase")
	}
	state.setup = fn
}

// NewDatabase creates a fresh database for one test, named
// semcat_test_<random>, and drops it (WITH (FORCE)) when the test ends. It
// returns the database's connection string. Safe for parallel tests.
func NewDatabase(tb testing.TB) string {
	tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
	defer cancel()
	name := "semcat_test_" + randomHex(6)

	state.mu.Lock()
	admin, template, err := prepareLocked(ctx)
	if err == nil {
		err = execAdmin(ctx, admin, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+
			" TEMPLATE "+pgx.Identifier{template}.Sanitize())
	}
	state.mu.Unlock()
	if err != nil {
		tb.Fatalf("pgtest: creating database: %v", err)
	}

	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
		defer cancel()
		if err := dropDatabase(ctx, admin, name); err != nil {
			tb.Errorf("pgtest: %v", err)
		}
	})
	connString, err := withDatabase(admin, name)
	if err != nil {
		tb.Fatalf("pgtest: %v", err)
	}
	return connString
}

// prepareLocked starts or finds the server and builds the template on first
// use, and returns the admin connection string and the template to clone.
// state.mu must be held.
func prepareLocked(ctx context.Context) (admin, template string, err error) {
	if !state.mainCalled {
		return "", "", errors.New("NewDatabase needs pgtest.Main: add func TestMain(m *testing.M) { pgtest.Main(m) }")
	}
	state.used = true
	if !state.serverDone {
		state.serverDone = true
		state.serverErr = startServer(ctx)
	}
	if state.serverErr != nil {
		return "", "", state.serverErr
	}
	if state.setup == nil {
		return state.adminURL, "template0", nil
	}
	if !state.tmplDone {
		state.tmplDone = true
		state.tmplErr = buildTemplate(ctx)
	}
	if state.tmplErr != nil {
		return "", "", state.tmplErr
	}
	return state.adminURL, state.tmplName, nil
}

// startServer uses DATABASE_URL or starts a private cluster.
func startServer(ctx context.Context) error {
	if u := os.Getenv("DATABASE_URL"); u != "" {
		if _, err := pgx.ParseConfig(u); err != nil {
			return fmt.Errorf("DATABASE_URL: %w", err)
		}
		state.adminURL = u
		return nil
	}
	dir, err := os.MkdirTemp("", "semcat-pgtest-")
	if err != nil {
		return err
	}
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	local, err := localpg.Start(ctx, localpg.Options{DataDir: dir, Logger: logger, Fast: true})
	if err != nil {
		_ = os.RemoveAll(dir)
		return err
	}
	state.local, state.localDir = local, dir
	state.adminURL = local.URL("postgres")
	return nil
}

// buildTemplate creates the template database, runs the registered setup on
// it, and then bars and ends connections to it so it can be cloned. The name
// is unique per process because several test binaries may share one
// DATABASE_URL server at once.
func buildTemplate(ctx context.Context) error {
	name := fmt.Sprintf("semcat_tmpl_%d_%s", os.Getpid(), randomHex(4))
	if err := execAdmin(ctx, state.adminURL, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()+" TEMPLATE template0"); err != nil {
		return fmt.Errorf("creating template database: %w", err)
	}
	state.tmplName = name
	connString, err := withDatabase(state.adminURL, name)
	if err != nil {
		return err
	}
	if err := state.setup(ctx, connString); err != nil {
		return fmt.Errorf("template setup: %w", err)
	}
	// A connection the setup leaked (a pool's idle connection, say) would
	// make every clone fail; refuse new ones and end the rest.
	if err := execAdmin(ctx, state.adminURL,
		"ALTER DATABASE "+pgx.Identifier{name}.Sanitize()+" WITH ALLOW_CONNECTIONS false",
		"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '"+strings.ReplaceAll(name, "'", "''")+"' AND pid <> pg_backend_pid()",
	); err != nil {
		return fmt.Errorf("sealing template database: %w", err)
	}
	return nil
}

// shutdown drops the template and stops and removes the private cluster.
func shutdown() error {
	state.mu.Lock()
	defer state.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), adminTimeout)
	defer cancel()
	var errs []error
	if state.local == nil && state.tmplName != "" {
		if err := dropDatabase(ctx, state.adminURL, state.tmplName); err != nil {
			errs = append(errs, err)
		}
	}
	if state.local != nil {
		if err := state.local.Stop(ctx); err != nil {
			errs = append(errs, err)
		} else {
			// The cluster may live outside the data directory (as root,
			// under /var/tmp), so remove both.
			errs = append(errs, os.RemoveAll(state.local.Dir()), os.RemoveAll(state.localDir))
		}
	}
	return errors.Join(errs...)
}

// dropDatabase drops database name, disconnecting any sessions still on it.
func dropDatabase(ctx context.Context, admin, name string) error {
	if err := execAdmin(ctx, admin, "DROP DATABASE IF EXISTS "+pgx.Identifier{name}.Sanitize()+" WITH (FORCE)"); err != nil {
		return fmt.Errorf("dropping database %s: %w", name, err)
	}
	return nil
}

// execAdmin runs statements, in order, on a new connection to connString.
func execAdmin(ctx context.Context, connString string, statements ...string) error {
	conn, err := pgx.Connect(ctx, connString)
	if err != nil {
		return err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	for _, sql := range statements {
		if _, err := conn.Exec(ctx, sql); err != nil {
			return err
		}
	}
	return nil
}

// withDatabase returns connString with its database replaced by dbname. URL
// connection strings get a new path (and lose any dbname query parameter);
// keyword/value strings get a trailing dbname, which overrides an earlier
// one in both pgx and libpq. Multi-host URLs are handled, which net/url
// cannot parse, by editing the string directly.
func withDatabase(connString, dbname string) (string, error) {
	var out string
	if rest, ok := cutScheme(connString); ok {
		scheme := connString[:len(connString)-len(rest)]
		authority, pathAndQuery := rest, ""
		if i := strings.IndexAny(rest, "/?#"); i >= 0 {
			authority, pathAndQuery = rest[:i], rest[i:]
		}
		query, fragment := "", ""
		if i := strings.IndexByte(pathAndQuery, '#'); i >= 0 {
			pathAndQuery, fragment = pathAndQuery[:i], pathAndQuery[i:]
		}
		if i := strings.IndexByte(pathAndQuery, '?'); i >= 0 {
			query = pathAndQuery[i+1:]
		}
		var kept []string
		for _, kv := range strings.Split(query, "&") {
			key, _, _ := strings.Cut(kv, "=")
			if kv != "" && key != "dbname" && key != "database" {
				kept = append(kept, kv)
			}
		}
		out = scheme + authority + "/" + url.PathEscape(dbname)
		if len(kept) > 0 {
			out += "?" + strings.Join(kept, "&")
		}
		out += fragment
	} else {
		out = strings.TrimSpace(connString) + " dbname=" + quoteConnValue(dbname)
	}
	cfg, err := pgx.ParseConfig(out)
	if err != nil {
		return "", fmt.Errorf("connection string for database %s: %w", dbname, err)
	}
	if cfg.Database != dbname {
		return "", fmt.Errorf("connection string for database %s names database %q", dbname, cfg.Database)
	}
	return out, nil
}

// cutScheme strips a postgres:// or postgresql:// prefix.
func cutScheme(s string) (rest string, ok bool) {
	for _, scheme := range []string{"postgres://", "postgresql://"} {
		if len(s) >= len(scheme) && strings.EqualFold(s[:len(scheme)], scheme) {
			return s[len(scheme):], true
		}
	}
	return s, false
}

// quoteConnValue quotes a keyword/value connection string value when needed.
func quoteConnValue(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\r\n'\\") {
		return s
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// randomHex returns 2n random hex digits.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}
