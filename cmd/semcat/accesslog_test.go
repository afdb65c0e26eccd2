package main

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// exactly keeps the log lines whose msg is msg (logLines keeps a prefix).
func exactly(lines []map[string]any, msg string) []map[string]any {
	var out []map[string]any
	for _, l := range lines {
		if l["msg"] == msg {
			out = append(out, l)
		}
	}
	return out
}

// TestAccessLog: one log line per request with its method, route (the
// path template, not the names in the path), status, duration and user,
// for the REST API and /mcp alike; an MCP session is one "mcp session"
// line however many calls it makes, and the SDK's per-request lines are
// gone; --access-log=false turns the request lines off.
func TestAccessLog(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Demo = true
	cfg.Auth = "simple"
	var log syncBuffer
	m := startMainLogging(t, cfg, &log)

	req, _ := http.NewRequest("GET", m.URL()+"/api/metalakes/demo/catalogs/hr/schemas/people/tables/employees", nil)
	req.SetBasicAuth("ann", "")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	req, _ = http.NewRequest("GET", m.URL()+"/api/metalakes/demo/catalogs/nope", nil)
	req.SetBasicAuth("bob", "")
	if resp, err = http.DefaultClient.Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	transport := &mcp.StreamableClientTransport{Endpoint: m.URL() + "/mcp", HTTPClient: &http.Client{Transport: userTransport{"carol"}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "agent", Version: "v1"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "suggest", Arguments: map[string]any{"metalake": "demo", "prefix": "emp"}}); err != nil || res.IsError {
			t.Fatalf("suggest over MCP: %v %+v", err, res)
		}
	}
	cs.Close()

	type line struct {
		method, route, user string
		status              float64
	}
	var got []line
	for _, l := range exactly(logLines(log.String(), "request"), "request") {
		if _, ok := l["duration_ms"].(float64); !ok {
			t.Errorf("a request line without its duration: %v", l)
		}
		got = append(got, line{l["method"].(string), l["route"].(string), l["user"].(string), l["status"].(float64)})
	}
	want := []line{
		{"GET", "/api/metalakes/{metalake}/catalogs/{catalog}/schemas/{schema}/tables/{table}", "ann", 200},
		{"GET", "/api/metalakes/{metalake}/catalogs/{catalog}", "bob", 404},
	}
	for _, w := range want {
		found := false
		for _, g := range got {
			found = found || g == w
		}
		if !found {
			t.Errorf("no access log line %+v among\n%+v", w, got)
		}
	}
	mcpLines := 0
	for _, g := range got {
		if g.route == "/mcp" {
			mcpLines++
			if g.user != "carol" || g.method != "POST" {
				t.Errorf("an MCP request's line: %+v", g)
			}
		}
	}
	if mcpLines < 4 { // initialize, initialized, three calls (a close may add a DELETE)
		t.Errorf("%d access log lines for /mcp, want one per request (at least 4)", mcpLines)
	}
	sessions := exactly(logLines(log.String(), "mcp session"), "mcp session")
	if len(sessions) != 1 || sessions[0]["client"] != "agent" || sessions[0]["user"] != "carol" {
		t.Errorf("mcp session lines: %v, want one for the client agent as carol", sessions)
	}
	if sdk := logLines(log.String(), "server "); len(sdk) != 0 {
		t.Errorf("the MCP SDK still logs per request: %v", sdk)
	}

	// Turned off: no request lines.
	quiet := testConfig(t)
	quiet.AccessLog = false
	var quietLog syncBuffer
	q := startMainLogging(t, quiet, &quietLog)
	if resp, err := http.Get(q.URL() + "/api/metalakes"); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if lines := exactly(logLines(quietLog.String(), "request"), "request"); len(lines) != 0 {
		t.Errorf("--access-log=false still logs requests: %v", lines)
	}
}
