package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPMatchesREST opens an MCP session against a running server over
// streamable HTTP, lists the tools, calls each one, and compares the answers
// with the REST API's.
func TestMCPMatchesREST(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Demo = true
	cfg.DefaultMetalake = "demo"
	m := startMain(t, cfg)
	c := client{t: t, base: m.URL()}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: m.URL() + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tool := range tools.Tools {
		names[tool.Name] = true
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			t.Errorf("tool %s is not marked read-only", tool.Name)
		}
	}
	if len(names) != 6 || !names["list_metrics"] || !names["list_metric_infos"] || !names["search"] || !names["get_entity"] || !names["list_entities"] || !names["suggest"] {
		t.Fatalf("tools: %v", names)
	}
	call := func(tool string, args map[string]any) map[string]any {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", tool, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var out map[string]any
		json.Unmarshal(b, &out)
		return out
	}
	canon := func(v any) string {
		b, _ := json.Marshal(v)
		var x any
		json.Unmarshal(b, &x)
		b, _ = json.Marshal(x)
		return string(b)
	}
	schema := "/api/metalakes/demo/catalogs/warehouse/schemas/main/semantic-model-metrics"
	args := map[string]any{"catalog": "warehouse", "schema": "main"}

	_, rest := c.ok("GET", schema, "")
	got := call("list_metrics", args)
	if canon(got["identifiers"]) != canon(rest["identifiers"]) || len(rest["identifiers"].([]any)) != 113 {
		t.Errorf("list_metrics differs from REST (%d identifiers)", len(rest["identifiers"].([]any)))
	}
	_, rest = c.ok("GET", schema+"?details=true", "")
	// A result holds at most 64 KB: the pages, joined, are the listing.
	var infos []any
	pages := 0
	for cursor := ""; pages == 0 || cursor != ""; pages++ {
		a := map[string]any{"catalog": "warehouse", "schema": "main"}
		if cursor != "" {
			a["cursor"] = cursor
		}
		got = call("list_metric_infos", a)
		infos = append(infos, got["metrics"].([]any)...)
		cursor, _ = got["cursor"].(string)
	}
	if canon(infos) != canon(rest["metrics"]) {
		t.Errorf("list_metric_infos differs from REST (%d pages)", pages)
	}
	restSearch, _ := c.search("demo", url.Values{"query": {"EmpTel"}, "facets": {"type"}})
	got = call("search", map[string]any{"query": "EmpTel", "facets": []string{"type"}})
	if canon(got["results"]) != canon(restSearch["results"]) || got["total"] != restSearch["total"] || canon(got["facets"]) != canon(restSearch["facets"]) {
		t.Errorf("search differs from REST:\nmcp  %v\nrest %v", got, restSearch)
	}

	// The calls are operations like REST's: in the audit log and the
	// counters (SPEC §2.8), which the event bus's listeners update after
	// the call, as for REST.
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		resp, err := http.Get(m.URL() + "/metrics")
		if err != nil {
			t.Fatal(err)
		}
		metrics, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var missing []string
		// Named as the REST operations, with the interface as a label.
		for _, op := range []string{"listSemanticModelMetrics", "search"} {
			if !strings.Contains(string(metrics), `interface="mcp",operation="`+op+`"`) {
				missing = append(missing, op)
			}
		}
		if len(missing) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("/metrics counts no mcp operation of %v", missing)
		}
	}
	if err := m.Close(ctx); err != nil {
		t.Fatal(err)
	}
	var phases []string
	for _, e := range auditEvents(t, cfg.DataDir, "search") {
		phases = append(phases, fmt.Sprint(e["phase"], " ", e["user"], " ", e["metalake"], " ", e["interface"]))
	}
	// c.search is REST's, the tool call MCP's.
	if want := []string{"pre anonymous demo rest", "success anonymous demo rest", "pre anonymous demo mcp", "success anonymous demo mcp"}; !slices.Equal(phases, want) {
		t.Errorf("audit log of search: %v, want %v", phases, want)
	}
}
