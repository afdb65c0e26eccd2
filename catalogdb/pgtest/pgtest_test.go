package pgtest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"
)

// setupRuns counts template setup runs; it must end at one.
var setupRuns atomic.Int32

// leaked is a template connection the setup deliberately leaves open, as a
// careless setup (an unclosed pool) would; cloning must still work.
var leaked *pgx.Conn

func TestMain(m *testing.M) {
	SetTemplateSetup(func(ctx context.Context, connString string) error {
		setupRuns.Add(1)
		conn, err := pgx.Connect(ctx, connString)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		if _, err = conn.Exec(ctx, "CREATE TABLE migrated (version int); INSERT INTO migrated VALUES (7)"); err != nil {
			return err
		}
		leaked, err = pgx.Connect(ctx, connString)
		return err
	})
	Main(m)
}

func TestPGNewDatabaseParallel(t *testing.T) {
	var (
		mu    sync.Mutex
		names = map[string]bool{}
	)
	t.Run("group", func(t *testing.T) {
		for i := range 8 {
			t.Run(fmt.Sprint(i), func(t *testing.T) {
				t.Parallel()
				ctx := t.Context()
				conn, err := pgx.Connect(ctx, NewDatabase(t))
				if err != nil {
					t.Fatal(err)
				}
				defer conn.Close(context.Background())

				var version int
				if err := conn.QueryRow(ctx, "SELECT version FROM migrated").Scan(&version); err != nil || version != 7 {
					t.Fatalf("template table: version %d, %v", version, err)
				}
				// Every test creates the same table; databases are separate.
				if _, err := conn.Exec(ctx, "CREATE TABLE widgets (id int PRIMARY KEY)"); err != nil {
					t.Fatal(err)
				}
				if _, err := conn.Exec(ctx, "INSERT INTO widgets VALUES ($1)", i); err != nil {
					t.Fatal(err)
				}
				var n, id int
				if err := conn.QueryRow(ctx, "SELECT count(*), min(id) FROM widgets").Scan(&n, &id); err != nil || n != 1 || id != i {
					t.Fatalf("widgets: %d rows, id %d, %v; want 1 row, id %d", n, id, err, i)
				}
				var name string
				if err := conn.QueryRow(ctx, "SELECT current_database()").Scan(&name); err != nil {
					t.Fatal(err)
				}
				mu.Lock()
				names[name] = true
				mu.Unlock()
			})
		}
	})
	if len(names) != 8 {
		t.Errorf("8 tests used %d distinct databases", len(names))
	}
	if got := setupRuns.Load(); got != 1 {
		t.Errorf("template setup ran %d times, want 1", got)
	}

	// Every per-test database is gone once its test has ended.
	ctx := t.Context()
	conn, err := pgx.Connect(ctx, state.adminURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for name := range names {
		var exists bool
		if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
			t.Fatal(err)
		}
		if exists {
			t.Errorf("database %s still exists after its test", name)
		}
	}
}

// TestPGTemplateSealed checks that the template refuses connections once
// set up, so nothing can block cloning it.
func TestPGTemplateSealed(t *testing.T) {
	first := NewDatabase(t)
	state.mu.Lock()
	tmpl, err := withDatabase(state.adminURL, state.tmplName)
	state.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	if conn, err := pgx.Connect(t.Context(), tmpl); err == nil {
		conn.Close(context.Background())
		t.Error("template database still accepts connections")
	}
	if second := NewDatabase(t); second == first {
		t.Error("NewDatabase returned the same database twice")
	}
}

func TestPGWithDatabase(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"postgres://u:p@localhost:5432/app?sslmode=disable", "postgres://u:p@localhost:5432/x_1?sslmode=disable"},
		{"postgresql://u@h1:5432,h2:5433/app", "postgresql://u@h1:5432,h2:5433/x_1"},
		{"postgres://localhost?dbname=app&sslmode=disable", "postgres://localhost/x_1?sslmode=disable"},
		{"postgres:///app?host=/tmp", "postgres:///x_1?host=/tmp"},
		{"host=/tmp port=5432 user=semcat dbname=semcat sslmode=disable", "host=/tmp port=5432 user=semcat dbname=semcat sslmode=disable dbname=x_1"},
		{"host=localhost dbname='my app'", "host=localhost dbname='my app' dbname=x_1"},
	} {
		got, err := withDatabase(tc.in, "x_1")
		if err != nil || got != tc.want {
			t.Errorf("withDatabase(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	got, err := withDatabase("host=/tmp", "a b")
	if err != nil {
		t.Fatal(err)
	}
	if cfg, err := pgx.ParseConfig(got); err != nil || cfg.Database != "a b" {
		t.Errorf("withDatabase for %q gave %q (%v)", "a b", got, err)
	}
}

func TestPGMainUsesOneServer(t *testing.T) {
	if os.Getenv("DATABASE_URL") != "" {
		t.Skip("DATABASE_URL is set")
	}
	NewDatabase(t)
	state.mu.Lock()
	defer state.mu.Unlock()
	if state.local == nil {
		t.Fatal("no private cluster after NewDatabase")
	}
	if _, err := os.Stat(state.local.Dir()); err != nil {
		t.Errorf("cluster directory: %v", err)
	}
}
