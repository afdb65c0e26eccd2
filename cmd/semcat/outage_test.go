package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/semcat/semcat/internal/localpg"

	"github.com/jackc/pgx/v5"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// externalPG starts a PostgreSQL that semcat does not manage, as its tests
// use an external one, and stops it when the test ends.
func externalPG(t *testing.T) (dir string, pg **localpg.Cluster) {
	t.Helper()
	dir = tempDataDir(t)
	p, err := localpg.Start(t.Context(), localpg.Options{DataDir: dir, Fast: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	pg = &p
	t.Cleanup(func() { _ = (*pg).Stop(context.Background()) })
	return dir, pg
}

// restartPG starts the external PostgreSQL in dir again.
func restartPG(t *testing.T, dir string, pg **localpg.Cluster) {
	t.Helper()
	p, err := localpg.Start(t.Context(), localpg.Options{DataDir: dir, Fast: true, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	*pg = p
}

// get answers a GET on base+path with a client that gives up only after
// 20 s, so that a hang shows as a failure instead of a wait.
func get(base, path string) (int, http.Header, string, error) {
	c := http.Client{Timeout: 20 * time.Second}
	resp, err := c.Get(base + path)
	if err != nil {
		return 0, nil, "", err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, resp.Header, string(b), nil
}

// awaitStatus polls base+path until it answers want, for up to a minute.
func awaitStatus(t *testing.T, base, path string, want int) {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		status, _, body, err := get(base, path)
		if err == nil && status == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET %s: %d %s %v a minute on, want %d", path, status, body, err, want)
		}
	}
}

// logLines returns the lines of a JSON log whose msg starts with prefix.
func logLines(log, prefix string) []map[string]any {
	var found []map[string]any
	for _, line := range strings.Split(log, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) != nil {
			continue
		}
		if msg, _ := rec["msg"].(string); strings.HasPrefix(msg, prefix) {
			found = append(found, rec)
		}
	}
	return found
}

// TestReadyzWhilePostgresHangs: with every process of PostgreSQL stopped
// (SIGSTOP) and writers waiting on it with the pool's connections, /readyz
// still answers, 503, and a search with no hits answers from the index
// rather than waiting on the database until its deadline (SPEC §9).
func TestReadyzWhilePostgresHangs(t *testing.T) {
	_, pg := externalPG(t)
	cfg := testConfig(t)
	cfg.DatabaseURL = (*pg).URL("semcat")
	m := startMain(t, cfg)
	c := client{t: t, base: m.URL()}
	c.ok("POST", "/api/metalakes", `{"name":"m"}`)
	c.ok("POST", "/api/metalakes/m/catalogs", `{"name":"c","type":"relational"}`)
	c.ok("POST", "/api/metalakes/m/catalogs/c/schemas", `{"name":"s"}`)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		if out, _ := c.search("m", url.Values{"query": {"*"}, "type": {"schema"}}); out["total"].(float64) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the index did not catch up")
		}
	}
	awaitStatus(t, m.URL(), "/readyz", 200)

	// Stop the postmaster, so that it starts no more processes, then every
	// process it started (each backend is its own process group, so the
	// postmaster's group is not enough).
	procs := []int{(*pg).PID()}
	resumed := false
	resume := func() {
		if !resumed {
			resumed = true
			for _, pid := range procs {
				_ = syscall.Kill(pid, syscall.SIGCONT)
			}
		}
	}
	t.Cleanup(resume)
	if err := syscall.Kill(procs[0], syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	for _, pid := range childrenOf(t, procs[0]) {
		if err := syscall.Kill(pid, syscall.SIGSTOP); err == nil {
			procs = append(procs, pid)
		}
	}

	// Writers that wait on the stopped database with every pooled
	// connection (more of them than the pool holds).
	var writers sync.WaitGroup
	for i := range 16 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			body := fmt.Sprintf(`{"name":"w%d","columns":[{"name":"id","type":"integer"}]}`, i)
			resp, err := http.Post(m.URL()+"/api/metalakes/m/catalogs/c/schemas/s/tables", "application/json", strings.NewReader(body))
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	time.Sleep(500 * time.Millisecond) // let the writers take the connections
	for range 3 {
		start := time.Now()
		status, hdr, body, err := get(m.URL(), "/readyz")
		took := time.Since(start)
		if err != nil {
			t.Fatalf("/readyz while PostgreSQL is stopped: %v after %s", err, took)
		}
		if status != 503 || !strings.Contains(body, "database") || hdr.Get("Retry-After") == "" {
			t.Errorf("/readyz while PostgreSQL is stopped: %d %s %v, want 503 naming the database with Retry-After", status, body, hdr)
		}
		t.Logf("/readyz answered %d in %s", status, took.Round(time.Millisecond))
	}
	// A search with no hits answers from the index, which holds the
	// metalake: it exists.
	start := time.Now()
	status, _, body, err := get(m.URL(), "/api/metalakes/m/search?query=nowhere")
	if err != nil || status != 200 {
		t.Errorf("a search with no hits while PostgreSQL is stopped: %d %s %v after %s, want 200", status, body, err, time.Since(start))
	}
	t.Logf("the search with no hits answered %d in %s", status, time.Since(start).Round(time.Millisecond))

	resume()
	awaitStatus(t, m.URL(), "/readyz", 200)
	writers.Wait()
}

// TestReadyzWhileStandbyStalls: with every commit waiting on a
// synchronous standby that never answers, and more writers waiting than the
// pool has connections, /readyz still answers at once: the database itself
// answers, and the check does not queue behind the writers for a pooled
// connection.
func TestReadyzWhileStandbyStalls(t *testing.T) {
	_, pg := externalPG(t)
	cfg := testConfig(t)
	cfg.DatabaseURL = (*pg).URL("semcat")
	m := startMain(t, cfg)
	c := client{t: t, base: m.URL()}
	c.ok("POST", "/api/metalakes", `{"name":"m"}`)
	c.ok("POST", "/api/metalakes/m/catalogs", `{"name":"c","type":"relational"}`)
	c.ok("POST", "/api/metalakes/m/catalogs/c/schemas", `{"name":"s"}`)

	admin, err := pgx.Connect(t.Context(), (*pg).URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	exec := func(sql string) {
		t.Helper()
		if _, err := admin.Exec(context.Background(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	// A synchronous standby that does not exist: every commit that wrote
	// waits for it.
	exec(`ALTER SYSTEM SET synchronous_commit = 'on'`)
	exec(`ALTER SYSTEM SET synchronous_standby_names = 'nobody'`)
	exec(`SELECT pg_reload_conf()`)
	released := false
	release := func() {
		if !released {
			released = true
			exec(`ALTER SYSTEM RESET synchronous_standby_names`)
			exec(`ALTER SYSTEM RESET synchronous_commit`)
			exec(`SELECT pg_reload_conf()`)
		}
	}
	defer release()

	var writers sync.WaitGroup
	for i := range 24 {
		writers.Add(1)
		go func() {
			defer writers.Done()
			body := fmt.Sprintf(`{"name":"w%d","columns":[{"name":"id","type":"integer"}]}`, i)
			resp, err := http.Post(m.URL()+"/api/metalakes/m/catalogs/c/schemas/s/tables", "application/json", strings.NewReader(body))
			if err == nil {
				resp.Body.Close()
			}
		}()
	}
	// Until the pool's connections all wait on the standby.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
		var waiting int
		if err := admin.QueryRow(t.Context(), `SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'SyncRep'`).Scan(&waiting); err != nil {
			t.Fatal(err)
		}
		if waiting >= int(m.Store.Pool().Config().MaxConns) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("only %d commits wait on the standby", waiting)
		}
	}
	start := time.Now()
	status, _, body, err := get(m.URL(), "/readyz")
	if err != nil || status != 200 {
		t.Errorf("/readyz with the pool's connections all waiting on a stalled standby: %d %s %v after %s, want 200",
			status, body, err, time.Since(start).Round(time.Millisecond))
	}
	t.Logf("/readyz answered %d in %s", status, time.Since(start).Round(time.Millisecond))
	release()
	writers.Wait()
}

// TestPostgresOutage: while an external PostgreSQL is down, requests that
// need it answer 503 with a message saying so and a Retry-After, not 500;
// the log has one line when the database goes and one when it is back,
// not one per request; and everything answers again once it is back.
func TestPostgresOutage(t *testing.T) {
	dir, pg := externalPG(t)
	cfg := testConfig(t)
	cfg.DatabaseURL = (*pg).URL("semcat")
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
	awaitStatus(t, m.URL(), "/readyz", 200)

	// An agent connected before the outage.
	mctx, mcancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer mcancel()
	agent, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(mctx, &mcp.StreamableClientTransport{Endpoint: m.URL() + "/mcp"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer agent.Close()

	if err := (*pg).Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	// Its calls answer the REST API's 503 form, and log no line each.
	for range 3 {
		res, err := agent.CallTool(mctx, &mcp.CallToolParams{Name: "get_entity", Arguments: map[string]any{"metalake": "m", "type": "schema", "fullName": "c.s"}})
		if err != nil {
			t.Fatal(err)
		}
		info, _ := json.Marshal(res.StructuredContent)
		if !res.IsError || !strings.Contains(string(info), `"type":"ServiceUnavailableException"`) || !strings.Contains(string(info), "the database is unavailable") {
			t.Errorf("an MCP call while the database is down: %+v %s, want the unavailable database's 503 form", res, info)
		}
	}
	failed := 0
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); {
		for _, r := range []struct{ method, path, body string }{
			{"GET", "/api/metalakes/m/catalogs/c/schemas/s", ""},
			{"POST", "/api/metalakes/m/catalogs/c/schemas/s/tables", `{"name":"t","columns":[{"name":"id","type":"integer"}]}`},
		} {
			status, hdr, out := c.do(r.method, r.path, r.body)
			if status == 200 {
				continue // a request that won the race with the shutdown
			}
			failed++
			msg, _ := out["message"].(string)
			if status != 503 || hdr.Get("Retry-After") == "" || !strings.Contains(msg, "the database is unavailable") || out["type"] != "ServiceUnavailableException" {
				t.Fatalf("%s %s while the database is down: %d %v (Retry-After %q), want 503 saying the database is unavailable, with Retry-After",
					r.method, r.path, status, out, hdr.Get("Retry-After"))
			}
		}
	}
	status, _, body, err := get(m.URL(), "/readyz")
	if err != nil || status != 503 {
		t.Errorf("/readyz while the database is down: %d %s %v, want 503", status, body, err)
	}
	for deadline := time.Now().Add(time.Minute); len(logLines(log.String(), "the database is unavailable")) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no log line says the database is unavailable")
		}
	}

	restartPG(t, dir, pg)
	awaitStatus(t, m.URL(), "/readyz", 200)
	c.ok("GET", "/api/metalakes/m/catalogs/c/schemas/s", "")
	for deadline := time.Now().Add(time.Minute); len(logLines(log.String(), "the database is back")) == 0; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no log line says the database is back")
		}
	}

	out := log.String()
	if lost, back := logLines(out, "the database is unavailable"), logLines(out, "the database is back"); len(lost) != 1 || len(back) != 1 {
		t.Errorf("the outage logged %d lines that the database is unavailable and %d that it is back, want 1 each", len(lost), len(back))
	}
	perRequest := 0
	for _, line := range strings.Split(out, "\n") {
		var rec map[string]any
		if json.Unmarshal([]byte(line), &rec) == nil && rec["path"] != nil && (rec["level"] == "ERROR" || rec["level"] == "WARN") {
			perRequest++
		}
	}
	if idx := logLines(out, "indexer: "); len(idx) > 0 {
		for _, l := range idx {
			if l["level"] != "DEBUG" {
				t.Errorf("the indexer logs the outage as well as the watch: %v", l)
			}
		}
	}
	if calls := logLines(out, "mcp: tool call"); len(calls) > 0 {
		t.Errorf("MCP calls that failed during the outage logged a line each: %v", calls)
	}
	if perRequest > 0 {
		t.Errorf("%d requests that failed during the outage logged a line each (%d failed), want none", perRequest, failed)
	}
	t.Logf("%d requests failed during the outage", failed)
	// The audit log records them with the code they answered with.
	// (It is written asynchronously: wait for the last ones.)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		n := 0
		for _, e := range auditEvents(t, cfg.DataDir, "loadSchema") {
			if e["phase"] == "failure" {
				if e["errorCode"] != "unavailable" {
					t.Fatalf("a failure during the outage is audited as %v, want code unavailable", e)
				}
				n++
			}
		}
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no failure during the outage is in the audit log")
		}
	}
}

// TestServeWaitsForPostgres: serve with an external PostgreSQL that is not
// up yet waits for it, saying so in the log, with /healthz answering and
// /readyz not ready, and serves once it is up (SPEC §9).
func TestServeWaitsForPostgres(t *testing.T) {
	dir, pg := externalPG(t)
	cfg := testConfig(t)
	cfg.DatabaseURL = (*pg).URL("semcat")
	cfg.Addr = freeAddr(t)
	if err := (*pg).Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	m := NewMain(cfg, io.Discard, &log)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ran := make(chan error, 1)
	go func() { ran <- m.Run(ctx) }()
	t.Cleanup(func() { cancel(); <-ran; m.Close(context.Background()) })
	defer func() {
		if t.Failed() {
			t.Logf("semcat's log:\n%s", log.String())
		}
	}()

	for deadline := time.Now().Add(time.Minute); len(logLines(log.String(), "waiting for the database")) == 0; time.Sleep(50 * time.Millisecond) {
		select {
		case err := <-ran:
			ran <- err
			t.Fatalf("serve with its database down: %v, want it to wait", err)
		default:
		}
		if time.Now().After(deadline) {
			t.Fatal("no log line says semcat waits for the database")
		}
	}
	base := "http://" + cfg.Addr
	if status, _, body, err := get(base, "/healthz"); err != nil || status != 200 {
		t.Errorf("/healthz while waiting for the database: %d %s %v, want 200", status, body, err)
	}
	if status, _, body, err := get(base, "/readyz"); err != nil || status != 503 {
		t.Errorf("/readyz while waiting for the database: %d %s %v, want 503", status, body, err)
	}

	restartPG(t, dir, pg)
	select {
	case err := <-ran:
		ran <- err
		if err != nil {
			t.Fatalf("serve once the database is up: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("serve did not start a minute after the database came up")
	}
	awaitStatus(t, base, "/readyz", 200)
	c := client{t: t, base: base}
	c.ok("POST", "/api/metalakes", `{"name":"m"}`)
}

// childrenOf returns the processes whose parent is pid.
func childrenOf(t *testing.T, pid int) []int {
	t.Helper()
	stats, err := filepath.Glob("/proc/[0-9]*/stat")
	if err != nil || len(stats) == 0 {
		t.Skipf("no /proc to find PostgreSQL's processes in: %v", err)
	}
	var kids []int
	for _, path := range stats {
		raw, err := os.ReadFile(path)
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces, so read after its ')'.
		fields := strings.Fields(string(raw[strings.LastIndexByte(string(raw), ')')+1:]))
		if len(fields) > 1 && fields[1] == strconv.Itoa(pid) {
			child, _ := strconv.Atoi(filepath.Base(filepath.Dir(path)))
			kids = append(kids, child)
		}
	}
	return kids
}
