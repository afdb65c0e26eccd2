package main

import (
	"net/http"
	"strings"
	"testing"
)

// TestBrowserGuardServed: the server that `semcat serve` runs refuses
// what a page on another origin, or a rebinding name, makes a browser
// send, on the REST routes and /mcp alike, and nothing of it is written.
func TestBrowserGuardServed(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.AllowedOrigins = []string{"https://ui.example.com"}
	m := startMain(t, cfg)
	send := func(method, path, host, body string, headers ...string) int {
		t.Helper()
		req, _ := http.NewRequest(method, m.URL()+path, strings.NewReader(body))
		if host != "" {
			req.Host = host
		}
		for i := 0; i+1 < len(headers); i += 2 {
			req.Header.Set(headers[i], headers[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	const body = `{"name":"m1"}`
	for _, c := range []struct {
		what   string
		status int
		host   string
		hdrs   []string
	}{
		{"a no-cors text/plain POST", 403, "", []string{"Content-Type", "text/plain;charset=UTF-8", "Origin", "https://evil.example"}},
		{"a form POST from a sandboxed page", 403, "", []string{"Content-Type", "application/x-www-form-urlencoded", "Origin", "null"}},
		{"text/plain without an Origin", 415, "", []string{"Content-Type", "text/plain"}},
		{"a rebinding name", 403, "rebind.attacker.example:8090", []string{"Content-Type", "application/json"}},
	} {
		if got := send("POST", "/api/metalakes", c.host, body, c.hdrs...); got != c.status {
			t.Errorf("%s: %d, want %d", c.what, got, c.status)
		}
	}
	if got := send("GET", "/api/metalakes/m1", "", ""); got != http.StatusNotFound {
		t.Errorf("after the refused writes, GET m1: %d, want 404", got)
	}
	if got := send("GET", "/api/metalakes", "rebind.attacker.example", ""); got != http.StatusForbidden {
		t.Errorf("a read through a rebinding name: %d, want 403", got)
	}
	if got := send("POST", "/mcp", "rebind.attacker.example", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		"Content-Type", "application/json", "Accept", "application/json, text/event-stream"); got != http.StatusForbidden {
		t.Errorf("/mcp through a rebinding name: %d, want 403", got)
	}
	if got := send("POST", "/api/metalakes", "", body, "Content-Type", "application/json", "Origin", "https://ui.example.com"); got != http.StatusOK {
		t.Errorf("the allowed origin: %d, want 200", got)
	}
	if got := send("POST", "/api/metalakes", "", `{"name":"m2"}`, "Content-Type", "application/json"); got != http.StatusOK {
		t.Errorf("a program: %d, want 200", got)
	}
}
