package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/semcat/semcat/internal/localpg"
)

// TestServeDemo runs semcat the way `make run` does — a managed PostgreSQL
// under a fresh data directory and the demo catalog — and reads the example
// table over HTTP; then it shuts down cleanly and restarts on the same data.
func TestServeDemo(t *testing.T) {
	t.Parallel()
	dir := tempDataDir(t)
	cfg := DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = dir
	cfg.Demo = true
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	var out strings.Builder
	m := NewMain(cfg, &out, io.Discard)
	if err := m.Run(ctx); err != nil {
		m.Close(ctx)
		t.Fatal(err)
	}
	get := func(m *Main, path string) map[string]any {
		t.Helper()
		resp, err := http.Get(m.URL() + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var body map[string]any
		if err := json.NewDecoder(resp.Body).Decode(&body); err != nil || resp.StatusCode != 200 {
			t.Fatalf("GET %s: %d %v", path, resp.StatusCode, err)
		}
		return body
	}
	table := get(m, "/api/metalakes/demo/catalogs/hr/schemas/people/tables/employees")["table"].(map[string]any)
	if table["properties"].(map[string]any)["Codename"] != "Alpha Tango Charlie" {
		t.Errorf("demo table: %v", table)
	}
	models := get(m, "/api/metalakes/demo/catalogs/warehouse/schemas/main/semantic-models")
	if ids := models["identifiers"].([]any); len(ids) != 1 {
		t.Errorf("MetricFlow model missing: %v", models)
	}
	if resp, err := http.Get(m.URL() + "/"); err != nil || resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("the search page is not served at /: %v %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if !strings.Contains(out.String(), m.URL()) {
		t.Errorf("welcome text does not show the URL:\n%s", out.String())
	}
	if err := m.Close(ctx); err != nil {
		t.Fatalf("close: %v", err)
	}

	// A second start keeps the data and does not load the demo twice.
	m2 := NewMain(cfg, io.Discard, io.Discard)
	if err := m2.Run(ctx); err != nil {
		m2.Close(ctx)
		t.Fatal(err)
	}
	defer m2.Close(ctx)
	if ml := get(m2, "/api/metalakes")["metalakes"].([]any); len(ml) != 1 {
		t.Errorf("after restart: %d metalakes, want 1", len(ml))
	}
}

// TestAuthorizationEndToEnd runs semcat with simple authentication and
// authorization on, then a second server on the same database with
// authorization off: the first filters and refuses, the second filters
// nothing. Both write operation events to their audit logs.
func TestAuthorizationEndToEnd(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cfg := DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = tempDataDir(t)
	cfg.Auth = "simple"
	cfg.Authorization = true
	cfg.ServiceAdmins = []string{"admin"}
	m := NewMain(cfg, io.Discard, io.Discard)
	if err := m.Run(ctx); err != nil {
		m.Close(ctx)
		t.Fatal(err)
	}
	defer m.Close(ctx)

	do := func(m *Main, user, method, path, body string) (int, map[string]any) {
		t.Helper()
		req, _ := http.NewRequest(method, m.URL()+path, strings.NewReader(body))
		if body != "" {
			req.Header.Set("Content-Type", "application/json")
		}
		if user != "" {
			req.SetBasicAuth(user, "x")
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		json.NewDecoder(resp.Body).Decode(&out)
		return resp.StatusCode, out
	}
	const schema = "/api/metalakes/m/catalogs/rel/schemas/s"
	for _, step := range [][3]string{
		{"POST", "/api/metalakes", `{"name":"m"}`},
		{"POST", "/api/metalakes/m/catalogs", `{"name":"rel","type":"relational"}`},
		{"POST", "/api/metalakes/m/catalogs/rel/schemas", `{"name":"s"}`},
		{"POST", schema + "/tables", `{"name":"t","columns":[{"name":"id","type":"long"}]}`},
		{"POST", schema + "/semantic-models", `{"name":"model","definition":{"datasets":[{"name":"d","source":{"namespace":["rel","s"],"name":"t"}}],
			"metrics":[{"name":"count","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"COUNT(*)"}]}}]}}`},
		{"POST", "/api/metalakes/m/users", `{"name":"bob"}`},
	} {
		if status, out := do(m, "admin", step[0], step[1], step[2]); status != 200 {
			t.Fatalf("%s %s: %d %v", step[0], step[1], status, out)
		}
	}
	if status, _ := do(m, "", "GET", schema+"/semantic-model-metrics", ""); status != 401 {
		t.Errorf("no credentials: %d, want 401", status)
	}
	if status, out := do(m, "bob", "GET", schema+"/semantic-model-metrics", ""); status != 403 || out["code"] != 1008.0 {
		t.Errorf("bob without schema access: %d %v, want 403/1008", status, out)
	}
	if status, out := do(m, "bob", "POST", "/api/metalakes", `{"name":"n"}`); status != 403 {
		t.Errorf("bob created a metalake: %d %v", status, out)
	}
	if status, out := do(m, "admin", "GET", schema+"/semantic-model-metrics", ""); status != 200 || len(out["identifiers"].([]any)) != 1 {
		t.Errorf("owner: %d %v", status, out)
	}

	// The same catalog served with authorization off: nothing is filtered.
	open := cfg
	open.Authorization = false
	open.DataDir = t.TempDir()
	open.DatabaseURL = m.pg.URL("semcat")
	m2 := NewMain(open, io.Discard, io.Discard)
	if err := m2.Run(ctx); err != nil {
		m2.Close(ctx)
		t.Fatal(err)
	}
	defer m2.Close(ctx)
	if status, out := do(m2, "bob", "GET", schema+"/semantic-model-metrics", ""); status != 200 || len(out["identifiers"].([]any)) != 1 {
		t.Errorf("authorization off: %d %v, want every metric", status, out)
	}
	if err := m2.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var phases []string
	for _, e := range auditEvents(t, open.DataDir, "listSemanticModelMetrics") {
		phases = append(phases, fmt.Sprint(e["phase"]))
	}
	if strings.Join(phases, ",") != "pre,success" {
		t.Errorf("audit log phases for discovery: %v", phases)
	}
}

// TestDataDirInUse: a second server on a data directory in use stops at
// once, naming the first, and leaves the first serving.
func TestDataDirInUse(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	first := startMain(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	second := NewMain(cfg, io.Discard, io.Discard)
	err := second.Run(ctx)
	second.Close(context.Background())
	if want := fmt.Sprintf("is in use by semcat (pid %d)", os.Getpid()); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("second server: %v, want an error saying it %s", err, want)
	}
	resp, err := http.Get(first.URL() + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the first server after the second's attempt: %v %v", resp, err)
	}
	resp.Body.Close()
}

// TestReset: reset refuses a directory in use and asks for --yes; then it
// deletes the data directory and its PostgreSQL cluster, wherever that
// lives, and the next server starts with an empty catalog.
func TestReset(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	m := startMain(t, cfg)
	c := client{t: t, base: m.URL()}
	c.ok("POST", "/api/metalakes", `{"name":"old"}`)
	var out strings.Builder
	getenv := func(string) string { return "" }
	if err := run([]string{"reset", "--data-dir", cfg.DataDir, "--yes"}, getenv, &out, io.Discard); err == nil || !strings.Contains(err.Error(), "in use by semcat") {
		t.Errorf("reset while serving: %v", err)
	}
	if err := m.Close(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"reset", "--data-dir", cfg.DataDir}, getenv, &out, io.Discard); err == nil || !strings.Contains(err.Error(), "--yes") {
		t.Errorf("reset without --yes: %v", err)
	}
	cluster, err := localpg.ClusterDir(cfg.DataDir)
	if err != nil {
		t.Fatal(err)
	}
	if err := run([]string{"reset", "--data-dir", cfg.DataDir, "--yes"}, getenv, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{cfg.DataDir, cluster} {
		if _, err := os.Stat(dir); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after reset: %v, want it gone", dir, err)
		}
	}
	m2 := startMain(t, cfg)
	c2 := client{t: t, base: m2.URL()}
	if status, _, _ := c2.do("GET", "/api/metalakes/old", ""); status != http.StatusNotFound {
		t.Errorf("metalake old after reset: %d, want 404", status)
	}
}

// auditEvents returns the events of operation in dataDir's audit log.
func auditEvents(t *testing.T, dataDir, operation string) []map[string]any {
	t.Helper()
	audit, err := os.ReadFile(filepath.Join(dataDir, "audit.log"))
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, line := range strings.Split(strings.TrimSpace(string(audit)), "\n") {
		var e map[string]any
		if err := json.Unmarshal([]byte(line), &e); err != nil {
			t.Fatalf("audit line %q: %v", line, err)
		}
		if e["operation"] == operation {
			out = append(out, e)
		}
	}
	return out
}
