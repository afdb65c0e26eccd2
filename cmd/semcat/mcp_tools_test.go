package main

import (
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMain lets a test run this binary as `semcat`: with SEMCAT_TEST_MAIN
// set, the test binary is the command (TestMCPToolsMatchREST starts it as
// `semcat mcp`, the stdio transport).
func TestMain(m *testing.M) {
	if os.Getenv("SEMCAT_TEST_MAIN") != "" {
		os.Exit(report(os.Stderr, run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr)))
	}
	os.Exit(m.Run())
}

// TestMCPToolsMatchREST drives every MCP tool through the official Go SDK's
// client, over streamable HTTP (/mcp) and over stdio (`semcat mcp`), and
// compares each answer with the REST call it stands for; a failed call
// carries the REST error's Gravitino code and type.
func TestMCPToolsMatchREST(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Demo = true
	cfg.DefaultMetalake = "demo"
	m := startMain(t, cfg)
	rest := client{t: t, base: m.URL()}
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	mcpClient := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)

	overHTTP, err := mcpClient.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: m.URL() + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer overHTTP.Close()
	cmd := exec.CommandContext(ctx, os.Args[0], "mcp", "--server", m.URL(), "--metalake", "demo")
	cmd.Env = append(os.Environ(), "SEMCAT_TEST_MAIN=1")
	overStdio, err := mcpClient.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer overStdio.Close()

	// A write, for search's minPosition.
	hdr, _ := rest.ok("POST", "/api/metalakes/demo/catalogs/hr/schemas/people/tables",
		`{"name":"freshly_made","columns":[{"name":"id","type":"long","comment":"the key"}]}`)
	pos := hdr.Get("X-Semcat-Position")
	// An owner of the demo's entities, for the owner filter.
	_, owners := rest.ok("GET", "/api/metalakes/demo/search?"+url.Values{"query": {"*"}, "facets": {"owner"}, "minPosition": {pos}}.Encode(), "")
	owner := owners["facets"].(map[string]any)["owner"].([]any)[0].(map[string]any)["value"].(string)

	const ml = "/api/metalakes/demo"
	type check struct {
		tool string
		args map[string]any
		key  string // the member of the tool's answer compared
		path string // the REST call it stands for
		rkey string // the member of the REST answer
	}
	checks := []check{
		{"list_metrics", map[string]any{"catalog": "warehouse", "schema": "main"}, "identifiers", ml + "/catalogs/warehouse/schemas/main/semantic-model-metrics", "identifiers"},
		// (The whole listing is larger than a tool result: TestMCPMatchesREST pages it.)
		{"list_metric_infos", map[string]any{"catalog": "warehouse", "schema": "main", "names": []string{"bookings", "booking_value"}}, "metrics",
			ml + "/catalogs/warehouse/schemas/main/semantic-model-metrics?details=true&names=bookings&names=booking_value", "metrics"},
		{"list_metric_infos", map[string]any{"catalog": "warehouse", "schema": "main", "query": "booking value", "limit": 5}, "metrics",
			ml + "/catalogs/warehouse/schemas/main/semantic-model-metrics?details=true&query=booking+value&limit=5", "metrics"},
		{"search", map[string]any{"query": "freshly_made", "minPosition": pos, "waitMs": 10000}, "results", ml + "/search?" + url.Values{"query": {"freshly_made"}}.Encode(), "results"},
		{"search", map[string]any{"query": "EmpTel", "facets": []string{"type"}}, "facets", ml + "/search?query=EmpTel&facets=type", "facets"},
		// Matches as REST shows them: a column's comment, named by its path.
		{"search", map[string]any{"query": "freshly_made key", "minPosition": pos, "waitMs": 10000}, "results",
			ml + "/search?" + url.Values{"query": {"freshly_made key"}}.Encode(), "results"},
		// owner, catalog and schema: one value or several, and the owner facet.
		{"search", map[string]any{"query": "*", "facets": []string{"owner", "catalog"}}, "facets", ml + "/search?query=*&facets=owner&facets=catalog", "facets"},
		{"search", map[string]any{"query": "*", "type": []string{"table", "schema"}, "catalog": []string{"hr", "warehouse"}, "schema": []string{"people", "main"}, "owner": []string{owner, "nobody"}, "limit": 100},
			"results", ml + "/search?" + url.Values{"query": {"*"}, "type": {"table", "schema"}, "catalog": {"hr", "warehouse"}, "schema": {"people", "main"}, "owner": {owner, "nobody"}, "limit": {"100"}}.Encode(), "results"},
		{"search", map[string]any{"query": "*", "owner": "nobody"}, "total", ml + "/search?query=*&owner=nobody", "total"},
		{"get_entity", map[string]any{"type": "catalog", "fullName": "hr"}, "entity", ml + "/catalogs/hr", "catalog"},
		{"get_entity", map[string]any{"type": "schema", "fullName": "hr.people"}, "entity", ml + "/catalogs/hr/schemas/people", "schema"},
		{"get_entity", map[string]any{"type": "table", "fullName": "hr.people.employees"}, "entity", ml + "/catalogs/hr/schemas/people/tables/employees", "table"},
		{"get_entity", map[string]any{"type": "table", "fullName": "hr.people.employees"}, "tags", ml + "/objects/table/hr.people.employees/tags", "names"},
		{"get_entity", map[string]any{"type": "semantic_model", "fullName": "warehouse.sales.sales"}, "entity", ml + "/catalogs/warehouse/schemas/sales/semantic-models/sales", "semanticModel"},
		{"list_entities", map[string]any{"type": "catalog"}, "identifiers", ml + "/catalogs", "identifiers"},
		{"list_entities", map[string]any{"type": "schema", "namespace": "warehouse"}, "identifiers", ml + "/catalogs/warehouse/schemas", "identifiers"},
		{"list_entities", map[string]any{"type": "table", "namespace": "warehouse.main"}, "identifiers", ml + "/catalogs/warehouse/schemas/main/tables", "identifiers"},
		{"list_entities", map[string]any{"type": "semantic_model", "namespace": "warehouse.main"}, "identifiers", ml + "/catalogs/warehouse/schemas/main/semantic-models", "identifiers"},
		{"suggest", map[string]any{"prefix": "emp"}, "suggestions", ml + "/suggest?prefix=emp", "suggestions"},
		{"suggest", map[string]any{"prefix": "ord", "types": []string{"table"}, "limit": 3}, "suggestions", ml + "/suggest?prefix=ord&type=table&limit=3", "suggestions"},
	}
	seen := map[string]bool{}
	for name, cs := range map[string]*mcp.ClientSession{"http": overHTTP, "stdio": overStdio} {
		tools, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range tools.Tools {
			names = append(names, tool.Name)
		}
		slices.Sort(names)
		if want := []string{"get_entity", "list_entities", "list_metric_infos", "list_metrics", "search", "suggest"}; !slices.Equal(names, want) {
			t.Errorf("%s: tools %v, want %v", name, names, want)
		}
		call := func(tool string, args map[string]any) (*mcp.CallToolResult, map[string]any) {
			t.Helper()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
			if err != nil {
				t.Fatalf("%s: %s: %v", name, tool, err)
			}
			var out map[string]any
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &out)
			return res, out
		}
		for _, c := range checks {
			seen[c.tool] = true
			res, out := call(c.tool, c.args)
			if res.IsError {
				t.Errorf("%s: %s %v: %v", name, c.tool, c.args, out)
				continue
			}
			_, want := rest.ok("GET", c.path, "")
			if got, w := mustJSON(t, out[c.key]), mustJSON(t, want[c.rkey]); got != w {
				t.Errorf("%s: %s %v: %s differs from GET %s:\nmcp  %s\nrest %s", name, c.tool, c.args, c.key, c.path, got, w)
			}
		}

		// The column comment's match is there, bounded and named, as SPEC
		// §2.6 has it (the comparison above shows REST's is the same).
		_, hit := call("search", map[string]any{"query": "freshly_made key"})
		var found bool
		for _, r := range hit["results"].([]any) {
			r := r.(map[string]any)
			if r["entity"].(map[string]any)["name"] != "freshly_made" {
				continue
			}
			for _, m := range r["matches"].([]any) {
				m := m.(map[string]any)
				found = found || m["key"] == "column" && m["field"] == "id" && m["in"] == "comment" && m["value"] == "the key"
			}
		}
		if !found {
			t.Errorf("%s: search for a column's comment: no match {column, id, comment, the key} in %v", name, hit["results"])
		}

		// A metric is what its model defines; list_entities of a model's
		// metrics pages through them.
		_, model := rest.ok("GET", ml+"/catalogs/warehouse/schemas/main/semantic-models/simple_manifest", "")
		metrics := model["semanticModel"].(map[string]any)["definition"].(map[string]any)["metrics"].([]any)
		first := metrics[0].(map[string]any)
		_, got := call("get_entity", map[string]any{"type": "metric", "fullName": "warehouse.main.simple_manifest." + first["name"].(string)})
		if mustJSON(t, got["entity"]) != mustJSON(t, first) || mustJSON(t, got["tags"]) != "[]" {
			t.Errorf("%s: get_entity of a metric: %v, want %v", name, got, first)
		}
		var listed []string
		for offset := 0; ; {
			_, page := call("list_entities", map[string]any{"type": "metric", "namespace": "warehouse.main.simple_manifest", "limit": 50, "offset": offset})
			for _, id := range page["identifiers"].([]any) {
				listed = append(listed, id.(map[string]any)["name"].(string))
			}
			if page["total"] != float64(len(metrics)) {
				t.Errorf("%s: list_entities of metrics: total %v, want %d", name, page["total"], len(metrics))
			}
			next, ok := page["nextOffset"].(float64)
			if !ok {
				break
			}
			offset = int(next)
		}
		if len(listed) != len(metrics) || !slices.IsSorted(listed) {
			t.Errorf("%s: list_entities paged %d metrics (sorted: %v), want %d", name, len(listed), slices.IsSorted(listed), len(metrics))
		}

		// Errors carry the REST error's code and type beside the message.
		for _, e := range []struct {
			tool string
			args map[string]any
			path string
		}{
			{"get_entity", map[string]any{"type": "table", "fullName": "hr.people.nope"}, ml + "/catalogs/hr/schemas/people/tables/nope"},
			{"list_entities", map[string]any{"type": "table", "namespace": "hr.nope"}, ml + "/catalogs/hr/schemas/nope/tables"},
			{"suggest", map[string]any{"metalake": "nope", "prefix": "e"}, "/api/metalakes/nope/suggest?prefix=e"},
			{"search", map[string]any{"query": `a "b`}, ml + "/search?query=" + url.QueryEscape(`a "b`)},
		} {
			res, out := call(e.tool, e.args)
			_, _, want := rest.do("GET", e.path, "")
			if !res.IsError || out["code"] != want["code"] || out["type"] != want["type"] || out["message"] != want["message"] {
				t.Errorf("%s: %s %v: %v, want the REST error %v", name, e.tool, e.args, out, want)
			}
			if text := contentText(res); !strings.HasPrefix(text, want["type"].(string)+": ") {
				t.Errorf("%s: %s: error text %q does not name %s", name, e.tool, text, want["type"])
			}
		}
		res, out := call("get_entity", map[string]any{"type": "volume", "fullName": "x"})
		if !res.IsError || out["code"] != 1001.0 || out["type"] != "IllegalArgumentException" {
			t.Errorf("%s: an argument outside the schema: %v", name, out)
		}
	}
	for _, tool := range []string{"list_metrics", "list_metric_infos", "search", "get_entity", "list_entities", "suggest"} {
		if !seen[tool] {
			t.Errorf("%s was not compared with REST", tool)
		}
	}
}

// TestMCPMetalakeRequired: without a default metalake, every tool's input
// schema requires the metalake argument, so an agent's first call names it.
func TestMCPMetalakeRequired(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	m := startMain(t, cfg)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
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
	for _, tool := range tools.Tools {
		var schema struct {
			Required []string `json:"required"`
		}
		b, _ := json.Marshal(tool.InputSchema)
		json.Unmarshal(b, &schema)
		if !slices.Contains(schema.Required, "metalake") {
			t.Errorf("%s: metalake is not required (%v)", tool.Name, schema.Required)
		}
	}
}

func contentText(res *mcp.CallToolResult) string {
	var out string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			out += tc.Text
		}
	}
	return out
}
