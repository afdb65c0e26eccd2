package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/semcat/semcat/mcpserver"
)

// TestMCPMetricPages: an agent pages the metrics of a schema of 150
// metrics (three models of 50, each with a long description) through
// list_metric_infos and list_metrics, over streamable HTTP and over stdio,
// with each filter (none, names, query, limit, names and query): no result
// is over 64 KB, every page but the last has a cursor, and the pages joined
// are what REST lists with the same filter (query: in the same rank
// order).
func TestMCPMetricPages(t *testing.T) {
	cfg := testConfig(t)
	cfg.DefaultMetalake = "m"
	m := startMain(t, cfg)
	rest := client{t: t, base: m.URL()}
	rest.ok("POST", "/api/metalakes", `{"name":"m"}`)
	rest.ok("POST", "/api/metalakes/m/catalogs", `{"name":"rel","type":"relational"}`)
	rest.ok("POST", "/api/metalakes/m/catalogs/rel/schemas", `{"name":"s"}`)
	rest.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s/tables", `{"name":"orders","columns":[{"name":"id","type":"long"}]}`)
	var pos string
	for model := range 3 {
		var metrics []string
		for i := range 50 {
			topic := "shipping"
			if i%3 == 0 {
				topic = "revenue"
			}
			desc := fmt.Sprintf("Metric %d of model %d about %s. ", i, model, topic) + strings.Repeat("Lorem ipsum dolor sit amet. ", 50)
			metrics = append(metrics, fmt.Sprintf(`{"name":"m%02d %s","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"SUM(%d)"}]},"description":%q,"aiContext":{"synonyms":["x%d"]}}`,
				i, topic, i, desc, i))
		}
		hdr, _ := rest.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s/semantic-models", fmt.Sprintf(
			`{"name":"model%d","definition":{"datasets":[{"name":"orders","source":{"namespace":["rel","s"],"name":"orders"}}],"metrics":[%s]}}`,
			model, strings.Join(metrics, ",")))
		pos = hdr.Get("X-Semcat-Position")
	}
	// The query filter searches: wait until the index has the metrics.
	rest.ok("GET", "/api/metalakes/m/search?"+url.Values{"query": {"*"}, "minPosition": {pos}, "waitMs": {"20000"}}.Encode(), "")

	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	mcpClient := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil)
	overHTTP, err := mcpClient.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: m.URL() + "/mcp", MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer overHTTP.Close()
	cmd := exec.CommandContext(ctx, os.Args[0], "mcp", "--server", m.URL(), "--metalake", "m")
	cmd.Env = append(os.Environ(), "SEMCAT_TEST_MAIN=1")
	overStdio, err := mcpClient.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer overStdio.Close()

	names := []string{"m00 revenue", "m01 shipping", "m49 shipping", "nope"}
	filters := []struct {
		name   string
		args   map[string]any
		params url.Values
	}{
		{"no filter", nil, nil},
		{"names", map[string]any{"names": names}, url.Values{"names": names}},
		{"query", map[string]any{"query": "revenue"}, url.Values{"query": {"revenue"}}},
		{"limit", map[string]any{"limit": 7}, nil},
		{"names and query", map[string]any{"names": names, "query": "revenue"}, url.Values{"names": names, "query": {"revenue"}}},
	}
	base := "/api/metalakes/m/catalogs/rel/schemas/s/semantic-model-metrics"
	for transport, cs := range map[string]*mcp.ClientSession{"http": overHTTP, "stdio": overStdio} {
		for _, f := range filters {
			for _, tool := range []struct{ name, key, details string }{
				{"list_metric_infos", "metrics", "true"}, {"list_metrics", "identifiers", "false"},
			} {
				what := transport + " " + tool.name + " " + f.name
				params := url.Values{"details": {tool.details}}
				for k, v := range f.params {
					params[k] = v
				}
				_, want := rest.ok("GET", base+"?"+params.Encode(), "")
				var got []any
				pages, largest := 0, 0
				for cursor := ""; pages == 0 || cursor != ""; pages++ {
					if pages > 200 {
						t.Fatalf("%s: no end of pages", what)
					}
					args := map[string]any{"catalog": "rel", "schema": "s"}
					for k, v := range f.args {
						args[k] = v
					}
					if cursor != "" {
						args["cursor"] = cursor
					}
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool.name, Arguments: args})
					if err != nil || res.IsError {
						t.Fatalf("%s: %v %v", what, err, res)
					}
					if b, _ := json.Marshal(res); len(b) > mcpserver.MaxResultBytes {
						t.Errorf("%s: page %d is %d bytes, over %d", what, pages, len(b), mcpserver.MaxResultBytes)
					} else {
						largest = max(largest, len(b))
					}
					var out map[string]any
					b, _ := json.Marshal(res.StructuredContent)
					json.Unmarshal(b, &out)
					page := out[tool.key].([]any)
					if lim, ok := f.args["limit"].(int); ok && len(page) > lim {
						t.Errorf("%s: a page of %d, over the limit %d", what, len(page), lim)
					}
					got = append(got, page...)
					cursor, _ = out["cursor"].(string)
					if cursor != "" && len(page) == 0 {
						t.Fatalf("%s: an empty page with a cursor", what)
					}
				}
				if g, w := mustJSON(t, got), mustJSON(t, want[tool.key]); g != w {
					t.Errorf("%s: the %d pages joined differ from GET %s:\nmcp  %.300s\nrest %.300s", what, pages, params.Encode(), g, w)
				}
				all := len(want[tool.key].([]any))
				t.Logf("%s: %d metrics in %d pages, the largest %d bytes", what, all, pages, largest)
				switch {
				case f.name == "no filter" && all != 150:
					t.Errorf("%s: REST lists %d metrics, want 150", what, all)
				case f.name == "names" && all != 9: // three of the four names, in each of three models
					t.Errorf("%s: REST lists %d metrics, want 9", what, all)
				case f.name == "query" && all != 51:
					t.Errorf("%s: REST lists %d metrics, want 51", what, all)
				case f.name == "names and query" && all != 3:
					t.Errorf("%s: REST lists %d metrics, want 3", what, all)
				}
				if tool.name == "list_metric_infos" && (f.name == "no filter" || f.name == "query") && pages < 3 {
					t.Errorf("%s: %d pages; the definitions are larger than 64 KB and need more", what, pages)
				}
			}
		}
	}
	// A cursor is for the arguments that made it.
	res, err := overHTTP.CallTool(ctx, &mcp.CallToolParams{Name: "list_metric_infos", Arguments: map[string]any{"catalog": "rel", "schema": "s", "limit": 1}})
	if err != nil || res.IsError {
		t.Fatal(err, res)
	}
	cursor := res.StructuredContent.(map[string]any)["cursor"].(string)
	res, err = overHTTP.CallTool(ctx, &mcp.CallToolParams{Name: "list_metric_infos", Arguments: map[string]any{"catalog": "rel", "schema": "s", "query": "revenue", "cursor": cursor}})
	if err != nil || !res.IsError || !strings.Contains(fmt.Sprint(res.Content[0].(*mcp.TextContent).Text), "cursor:") {
		t.Errorf("a cursor with other arguments: %v %+v", err, res)
	}
}
