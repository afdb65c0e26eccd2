package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestServeDemo runs semcat the way `make run` does — a managed PostgreSQL
// under a fresh data directory and the demo catalog — and reads the example
// table over HTTP; then it shuts down cleanly and restarts on the same data.
func TestServeDemo(t *testing.T) {
	dir := t.TempDir()
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
