package main

// The PostgreSQL catalog benchmark (-pgsource, DESIGN §8.3): a source
// database of o.pgTables tables in the managed cluster's second database,
// mirrored by a jdbc-postgresql catalog. It measures the first mirror (the
// catalog's creation, which mirrors before it answers, and until search has
// it), refreshes that find nothing changed, and how long a column added in
// the source takes to be searchable with the catalog refreshing on its
// schedule.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// PGSourceResults are the figures of the PostgreSQL catalog benchmark.
type PGSourceResults struct {
	Started  time.Time `json:"started"`
	Commit   string    `json:"commit"`
	Machine  Machine   `json:"machine"`
	Tables   int       `json:"tables"`
	Columns  int       `json:"columns"`
	Interval string    `json:"refreshInterval"`
	// FirstMirror is the creation request (connection test and first
	// mirror); FirstSearchable until search covers its position.
	FirstMirrorMs     float64   `json:"firstMirrorMs"`
	FirstSearchableMs float64   `json:"firstSearchableMs"`
	NoChangeRefreshMs []float64 `json:"noChangeRefreshMs"`
	// ColumnSearchableMs: a column added in the source until a search
	// finds it, the catalog refreshing on its schedule; one per trial.
	ColumnSearchableMs []float64 `json:"columnSearchableMs"`
	Failures           []string  `json:"failures,omitempty"`
	// RefreshLog is the server's account of each refresh (debug log).
	RefreshLog []string `json:"refreshLog,omitempty"`
}

func (r *PGSourceResults) check(interval time.Duration) {
	if r.FirstMirrorMs > 60000 {
		r.Failures = append(r.Failures, fmt.Sprintf("first mirror %.0f ms > 60 s", r.FirstMirrorMs))
	}
	if m := slices.Max(r.NoChangeRefreshMs); m > 1000 {
		r.Failures = append(r.Failures, fmt.Sprintf("a no-change refresh took %.0f ms > 1 s", m))
	}
	limit := float64((interval + time.Second).Milliseconds())
	if m := slices.Max(r.ColumnSearchableMs); m > limit {
		r.Failures = append(r.Failures, fmt.Sprintf("an added column took %.0f ms to be searchable > interval + 1 s (%.0f ms)", m, limit))
	}
}

// Markdown is the results as a table.
func (r *PGSourceResults) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# PostgreSQL catalog benchmark\n\n%d tables, %d columns in the source (the managed cluster's second database); commit %s; %s, %d cores, load average %s at the start.\n\n",
		r.Tables, r.Columns, r.Commit, r.Machine.CPU, r.Machine.NProc, r.Machine.LoadAvg)
	fmt.Fprintf(&b, "| scenario | target | measured |\n|---|---|---|\n")
	fmt.Fprintf(&b, "| first mirror (create request) | ≤ 60 s | %.1f s (searchable after %.1f s) |\n", r.FirstMirrorMs/1000, r.FirstSearchableMs/1000)
	fmt.Fprintf(&b, "| refresh that finds nothing changed | ≤ 1 s | median %.0f ms, max %.0f ms (%d runs) |\n",
		median(r.NoChangeRefreshMs), slices.Max(r.NoChangeRefreshMs), len(r.NoChangeRefreshMs))
	fmt.Fprintf(&b, "| column added in the source → searchable (refresh %s) | ≤ interval + 1 s | %s ms |\n", r.Interval, joinMs(r.ColumnSearchableMs))
	for _, f := range r.Failures {
		fmt.Fprintf(&b, "\nFAILED: %s\n", f)
	}
	return b.String()
}

func median(xs []float64) float64 {
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}

func joinMs(xs []float64) string {
	var parts []string
	for _, x := range xs {
		parts = append(parts, fmt.Sprintf("%.0f", x))
	}
	return strings.Join(parts, ", ")
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// pgSource runs the PostgreSQL catalog benchmark.
func pgSource(ctx context.Context, o options, root, tmp string, srv **Server, clusterDir *string) (*PGSourceResults, error) {
	interval, err := time.ParseDuration(o.pgInterval)
	if err != nil {
		return nil, fmt.Errorf("-pg-interval: %w", err)
	}
	logf("building ./cmd/semcat")
	bin, err := buildSemcat(ctx, root, tmp)
	if err != nil {
		return nil, err
	}
	s, err := startServer(ctx, bin, tmp, false, "--log-level", "debug")
	*srv = s
	if err != nil {
		return nil, err
	}
	if *clusterDir, err = s.ClusterDir(); err != nil {
		return nil, err
	}
	admin, err := s.PostgresURL("semcat")
	if err != nil {
		return nil, err
	}
	res := &PGSourceResults{Started: time.Now().UTC(), Commit: gitCommit(root), Machine: machine(), Tables: o.pgTables, Interval: "@every " + interval.String()}
	conn, err := pgx.Connect(ctx, admin)
	if err != nil {
		return nil, err
	}
	_, err = conn.Exec(ctx, `CREATE DATABASE pgsource`)
	conn.Close(ctx)
	if err != nil {
		return nil, err
	}
	srcURL, _ := s.PostgresURL("pgsource")
	src, err := pgx.Connect(ctx, srcURL)
	if err != nil {
		return nil, err
	}
	defer src.Close(context.WithoutCancel(ctx))
	logf("creating %d tables in the source", o.pgTables)
	const perSchema = 500
	var sql strings.Builder
	for i := 0; i < o.pgTables; i++ {
		if i%perSchema == 0 {
			fmt.Fprintf(&sql, "CREATE SCHEMA s%02d; COMMENT ON SCHEMA s%02d IS 'Schema %d of the benchmark';\n", i/perSchema, i/perSchema, i/perSchema)
		}
		fmt.Fprintf(&sql, `CREATE TABLE s%02d.t%05d (id bigint PRIMARY KEY, name text NOT NULL, amount numeric(12,2) DEFAULT 0,
			created_at timestamptz NOT NULL DEFAULT now(), status varchar(20), flags boolean, notes text, ref_%d integer UNIQUE);
			COMMENT ON TABLE s%02d.t%05d IS 'Table %d of the benchmark, about widget %d';
			COMMENT ON COLUMN s%02d.t%05d.amount IS 'Amount in euros';`+"\n", i/perSchema, i, i, i/perSchema, i, i, i%97, i/perSchema, i)
		res.Columns += 8
		if (i+1)%perSchema == 0 || i == o.pgTables-1 {
			if _, err := src.Exec(ctx, sql.String()); err != nil {
				return nil, fmt.Errorf("building the source: %w", err)
			}
			sql.Reset()
		}
	}
	socketDir := strings.TrimPrefix(strings.Fields(srcURL)[0], "host=")
	port := strings.TrimPrefix(strings.Fields(srcURL)[1], "port=")
	jdbc := fmt.Sprintf("jdbc:postgresql://localhost/pgsource?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=%s/.s.PGSQL.%s", socketDir, port)

	c := newClient(s.URL)
	if _, err := c.do(ctx, "POST", "/api/metalakes", map[string]any{"name": "bench"}, nil); err != nil {
		return nil, err
	}
	logf("creating the catalog (first mirror)")
	start := time.Now()
	pos, err := c.do(ctx, "POST", "/api/metalakes/bench/catalogs", map[string]any{"name": "pg", "type": "relational", "provider": "jdbc-postgresql",
		"properties": map[string]string{"jdbc-url": jdbc, "jdbc-user": "semcat", "jdbc-password": "unused", "semcat.refresh-interval": res.Interval}}, nil)
	if err != nil {
		return nil, err
	}
	res.FirstMirrorMs = ms(time.Since(start))
	if err := c.WaitSearchable(ctx, "bench", pos, 5*time.Minute); err != nil {
		return nil, err
	}
	res.FirstSearchableMs = ms(time.Since(start))
	var tables struct {
		Identifiers []any `json:"identifiers"`
	}
	if _, err := c.do(ctx, "GET", "/api/metalakes/bench/catalogs/pg/schemas/s00/tables", nil, &tables); err != nil {
		return nil, err
	}
	if len(tables.Identifiers) != min(perSchema, o.pgTables) {
		res.Failures = append(res.Failures, fmt.Sprintf("schema s00 mirrored %d tables, want %d", len(tables.Identifiers), min(perSchema, o.pgTables)))
	}
	logf("first mirror %.1f s, searchable after %.1f s", res.FirstMirrorMs/1000, res.FirstSearchableMs/1000)

	for range 7 {
		start := time.Now()
		pos, err := c.do(ctx, "POST", "/api/metalakes/bench/catalogs/pg/refresh", nil, nil)
		if err != nil {
			return nil, err
		}
		res.NoChangeRefreshMs = append(res.NoChangeRefreshMs, ms(time.Since(start)))
		if pos != "" {
			res.Failures = append(res.Failures, "a refresh that found nothing changed wrote (position "+pos+")")
		}
	}
	logf("no-change refresh: median %.0f ms", median(res.NoChangeRefreshMs))
	// Where a refresh's time goes, as the server logs it.
	if b, err := os.ReadFile(s.LogPath); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "refreshed postgres catalog") {
				res.RefreshLog = append(res.RefreshLog, line)
				logf("%s", line)
			}
		}
	}

	for trial := range 3 {
		word := fmt.Sprintf("zqmarker%dx%d", trial, time.Now().UnixNano()%1000)
		table := fmt.Sprintf("s%02d.t%05d", (trial*3331%o.pgTables)/perSchema, trial*3331%o.pgTables)
		start := time.Now()
		if _, err := src.Exec(ctx, fmt.Sprintf("ALTER TABLE %s ADD COLUMN %s integer", table, word)); err != nil {
			return nil, err
		}
		for {
			r, err := c.Search(ctx, "bench", SearchParams{Query: word, Limit: 5})
			if err != nil {
				return nil, err
			}
			if len(r.IDs()) > 0 {
				break
			}
			if time.Since(start) > interval+time.Minute {
				return nil, fmt.Errorf("column %s of %s never became searchable", word, table)
			}
			time.Sleep(20 * time.Millisecond)
		}
		res.ColumnSearchableMs = append(res.ColumnSearchableMs, ms(time.Since(start)))
		logf("column added → searchable: %.0f ms", res.ColumnSearchableMs[trial])
	}
	res.check(interval)
	return res, nil
}

// write stores the results as pgsource-<tables>.{md,json} in dir.
func (r *PGSourceResults) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	base := filepath.Join(dir, fmt.Sprintf("pgsource-%d", r.Tables))
	if err := os.WriteFile(base+".json", append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(base+".md", []byte(r.Markdown()), 0o644)
}
