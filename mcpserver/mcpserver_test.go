package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/semcat/semcat"
)

// metricsCall is one recorded call of ListSchemaMetrics.
type metricsCall struct {
	NS      semcat.Namespace
	Details bool
	User    string
}

// fakeMetrics serves the metrics of the schemas in its map and fails with
// NoSuchSchema for any other; err, when set, fails every call; panics makes
// the call panic.
type fakeMetrics struct {
	mu      sync.Mutex
	calls   []metricsCall
	schemas map[semcat.Namespace][]semcat.SchemaMetric
	err     error
	panics  bool
}

func (f *fakeMetrics) ListSchemaMetrics(ctx context.Context, ns semcat.Namespace, details bool) ([]semcat.SchemaMetric, error) {
	f.mu.Lock()
	f.calls = append(f.calls, metricsCall{ns, details, semcat.UserFromContext(ctx)})
	err, panics := f.err, f.panics
	f.mu.Unlock()
	if panics {
		panic("boom")
	}
	if err != nil {
		return nil, err
	}
	metrics, ok := f.schemas[ns]
	if !ok {
		return nil, semcat.NotFound(semcat.KindSchema, "schema '%s.%s' does not exist in metalake '%s'", ns.Catalog, ns.Schema, ns.Metalake)
	}
	out := make([]semcat.SchemaMetric, len(metrics))
	for i, m := range metrics {
		out[i] = semcat.SchemaMetric{ModelID: m.ModelID, Model: m.Model, Name: m.Name}
		if details {
			out[i].Definition = m.Definition
		}
	}
	return out, nil
}

func (f *fakeMetrics) takeCalls() []metricsCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

// searchCall is one recorded call of Search.
type searchCall struct {
	Req  semcat.SearchRequest
	User string
}

// fakeSearch answers every search with result, or fails with err.
type fakeSearch struct {
	mu     sync.Mutex
	calls  []searchCall
	result *semcat.SearchResult
	err    error
	waits  []semcat.Position // WaitFor's positions
}

func (f *fakeSearch) Search(ctx context.Context, req semcat.SearchRequest) (*semcat.SearchResult, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, searchCall{req, semcat.UserFromContext(ctx)})
	if f.err != nil {
		return nil, f.err
	}
	return f.result, nil
}

func (f *fakeSearch) Suggest(ctx context.Context, req semcat.SuggestRequest) (*semcat.SuggestResult, error) {
	return nil, semcat.Errorf(semcat.EUNSUPPORTED, "no suggestions here")
}

func (f *fakeSearch) WaitFor(ctx context.Context, pos semcat.Position) error {
	f.mu.Lock()
	f.waits = append(f.waits, pos)
	f.mu.Unlock()
	if pos.TxID >= 1<<29 { // a position the fake never reaches
		<-ctx.Done()
		return ctx.Err()
	}
	return nil
}

func (f *fakeSearch) takeCalls() []searchCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := f.calls
	f.calls = nil
	return c
}

var (
	salesNS = semcat.Namespace{Metalake: "lake", Catalog: "rel", Schema: "sales"}
	otherNS = semcat.Namespace{Metalake: "other_lake", Catalog: "rel", Schema: "sales"}
	emptyNS = semcat.Namespace{Metalake: "lake", Catalog: "rel", Schema: "empty"}
)

// revenueDef is a definition as stored, with spacing and key order the
// tools must not care about.
const revenueDef = `{"name": "total_revenue", "expression": {"sql": "SUM(amount)"}, "datatype": "decimal(18,2)", "aiContext": {"synonyms": ["sales", "turnover"]}}`

func newFakes() (*fakeMetrics, *fakeSearch) {
	metrics := &fakeMetrics{schemas: map[semcat.Namespace][]semcat.SchemaMetric{
		salesNS: {
			{ModelID: 7, Model: "Orders", Name: "order_count", Definition: json.RawMessage(`{"name":"order_count","expression":{"sql":"COUNT(*)"}}`)},
			{ModelID: 7, Model: "Orders", Name: "total_revenue", Definition: json.RawMessage(revenueDef)},
			{ModelID: 9, Model: "returns/v2", Name: "return_rate", Definition: json.RawMessage(`{"name":"return_rate","expression":{"sql":"AVG(returned)"},"dialects":["trino"]}`)},
		},
		otherNS: {
			{ModelID: 11, Model: "m", Name: "x", Definition: json.RawMessage(`{"name":"x"}`)},
		},
		emptyNS: {},
	}}
	search := &fakeSearch{result: &semcat.SearchResult{
		Total:    42,
		Position: semcat.Position{TxID: 1234},
		Results: []semcat.SearchHit{
			{
				Entity:  semcat.SearchEntity{Type: "table", Namespace: []string{"lake", "rel", "hr"}, Name: "employees"},
				Score:   3.25,
				Matches: []semcat.Match{{Key: "schema", Value: "EmpContact.EmpTel"}},
				Metadata: semcat.Metadata{
					System: semcat.MetadataPart{Properties: map[string]string{"entity-name": "employees", "entity-type": "table"}, Tags: nil},
					User:   semcat.MetadataPart{Properties: nil, Tags: []string{"pii"}},
				},
			},
			{
				Entity:  semcat.SearchEntity{Type: "metric", Namespace: []string{"lake", "rel", "sales", "Orders"}, Name: "total_revenue"},
				Score:   1.5,
				Matches: nil,
			},
		},
		Facets: map[string][]semcat.FacetValue{"type": {{Value: "table", Count: 30}, {Value: "metric", Count: 12}}},
		Cursor: "next-page",
	}}
	return metrics, search
}

// connect runs a server session as user over in-memory transports (the
// stdio path, ServeStdio, with another transport) and returns a connected
// client session.
func connect(t *testing.T, svc Services, cfg Config, user string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	serverT, clientT := mcp.NewInMemoryTransports()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, svc, cfg, user, serverT) }()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "v0"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		cancel()
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() {
		cs.Close()
		cancel()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Error("server did not stop")
		}
	})
	return cs
}

// call calls a tool; a protocol error fails the test.
func call(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s(%v): protocol error %v", tool, args, err)
	}
	return res
}

// payload checks that a successful result carries the same JSON as
// structured content and as its only text content, and that it equals want.
func payload(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	if res.IsError {
		t.Fatalf("unexpected tool error: %s", text(res))
	}
	structured, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Content) != 1 {
		t.Fatalf("want one text content, got %d", len(res.Content))
	}
	for what, got := range map[string]string{"structured content": string(structured), "text content": text(res)} {
		if diff := cmp.Diff(decode(t, want), decode(t, got)); diff != "" {
			t.Errorf("%s (-want +got):\n%s\ngot %s", what, diff, got)
		}
	}
}

// toolError checks that res is a tool error whose text contains each of
// wants, and returns the text.
func toolError(t *testing.T, res *mcp.CallToolResult, wants ...string) string {
	t.Helper()
	if !res.IsError {
		t.Fatalf("want a tool error, got success %s", text(res))
	}
	// The structured content is the REST error body's code and type.
	var info struct {
		Code    int    `json:"code"`
		Type    string `json:"type"`
		Message string `json:"message"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, &info); err != nil || info.Code == 0 || info.Type == "" || info.Message == "" {
		t.Errorf("tool error without code, type and message in its structured content: %s", b)
	}
	msg := text(res)
	if msg != info.Type+": "+info.Message {
		t.Errorf("tool error text %q, want %q", msg, info.Type+": "+info.Message)
	}
	for _, w := range wants {
		if !strings.Contains(msg, w) {
			t.Errorf("error %q does not contain %q", msg, w)
		}
	}
	return msg
}

func text(res *mcp.CallToolResult) string {
	var parts []string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			parts = append(parts, tc.Text)
		}
	}
	return strings.Join(parts, "\n")
}

func decode(t *testing.T, s string) any {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("decode %s: %v", s, err)
	}
	return v
}

const wantIdentifiers = `{"identifiers": [
	{"namespace": ["lake", "rel", "sales", "Orders"], "name": "order_count"},
	{"namespace": ["lake", "rel", "sales", "Orders"], "name": "total_revenue"},
	{"namespace": ["lake", "rel", "sales", "returns/v2"], "name": "return_rate"}]}`

const wantInfos = `{"metrics": [
	{"namespace": ["lake", "rel", "sales", "Orders"], "metric": {"name":"order_count","expression":{"sql":"COUNT(*)"}}},
	{"namespace": ["lake", "rel", "sales", "Orders"], "metric": ` + revenueDef + `},
	{"namespace": ["lake", "rel", "sales", "returns/v2"], "metric": {"name":"return_rate","expression":{"sql":"AVG(returned)"},"dialects":["trino"]}}]}`

const wantSearch = `{"total": 42, "position": "tya",
	"results": [
		{"entity": {"type": "table", "namespace": ["lake", "rel", "hr"], "name": "employees"},
		 "score": 3.25,
		 "matches": [{"key": "schema", "value": "EmpContact.EmpTel"}],
		 "metadata": {"system": {"properties": {"entity-name": "employees", "entity-type": "table"}, "tags": null},
		              "user": {"properties": null, "tags": ["pii"]}}},
		{"entity": {"type": "metric", "namespace": ["lake", "rel", "sales", "Orders"], "name": "total_revenue"},
		 "score": 1.5, "matches": null,
		 "metadata": {"system": {"properties": null, "tags": null}, "user": {"properties": null, "tags": null}}}],
	"facets": {"type": [{"value": "table", "count": 30}, {"value": "metric", "count": 12}]},
	"cursor": "next-page"}`

func TestSession(t *testing.T) {
	metrics, search := newFakes()
	cs := connect(t, Services{Metrics: metrics, Search: search}, Config{DefaultMetalake: "lake", Version: "1.2.3"}, "alice")
	ctx := context.Background()

	t.Run("initialize", func(t *testing.T) {
		init := cs.InitializeResult()
		if init == nil || init.ServerInfo == nil {
			t.Fatal("no initialize result")
		}
		if init.ServerInfo.Name != "semcat" || init.ServerInfo.Version != "1.2.3" {
			t.Errorf("server info %+v", init.ServerInfo)
		}
		if caps := init.Capabilities; caps == nil || caps.Tools == nil || caps.Resources != nil || caps.Prompts != nil {
			t.Errorf("capabilities %+v: want tools only", caps)
		}
	})

	t.Run("list tools", func(t *testing.T) {
		res, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			a := tool.Annotations
			if a == nil || !a.ReadOnlyHint || a.DestructiveHint == nil || *a.DestructiveHint || a.OpenWorldHint == nil || *a.OpenWorldHint {
				t.Errorf("%s: annotations %+v: want read-only, not destructive, closed world", tool.Name, a)
			}
			if tool.Description == "" || tool.OutputSchema == nil {
				t.Errorf("%s: no description or output schema", tool.Name)
			}
		}
		slices.Sort(names)
		if want := []string{"get_entity", "list_entities", "list_metric_infos", "list_metrics", "search", "suggest"}; !slices.Equal(names, want) {
			t.Errorf("tools %v, want exactly %v", names, want)
		}
		for _, tool := range res.Tools {
			schema, _ := json.Marshal(tool.InputSchema)
			var s struct {
				Required   []string                   `json:"required"`
				Properties map[string]json.RawMessage `json:"properties"`
			}
			if err := json.Unmarshal(schema, &s); err != nil {
				t.Fatal(err)
			}
			want := map[string][]string{"get_entity": {"type", "fullName"}, "list_entities": {"type"}, "suggest": {"prefix"},
				"search": {"query"}}[tool.Name]
			if want == nil {
				want = []string{"catalog", "schema"}
			}
			if tool.Name == "search" {
				for _, p := range []string{"metalake", "types", "catalog", "schema", "owner", "tags", "scope", "sort", "limit", "offset", "cursor", "facets", "facetSize", "minPosition", "waitMs"} {
					if s.Properties[p] == nil {
						t.Errorf("search: no argument %s", p)
					}
				}
			}
			if !slices.Equal(s.Required, want) {
				t.Errorf("%s: required %v, want %v", tool.Name, s.Required, want)
			}
		}
	})

	t.Run("list_metrics", func(t *testing.T) {
		payload(t, call(t, cs, "list_metrics", map[string]any{"metalake": "lake", "catalog": "rel", "schema": "sales"}), wantIdentifiers)
		if diff := cmp.Diff([]metricsCall{{salesNS, false, "alice"}}, metrics.takeCalls()); diff != "" {
			t.Errorf("want exactly one identifier discovery call as alice (-want +got):\n%s", diff)
		}
	})

	t.Run("list_metric_infos", func(t *testing.T) {
		payload(t, call(t, cs, "list_metric_infos", map[string]any{"metalake": "lake", "catalog": "rel", "schema": "sales"}), wantInfos)
		if diff := cmp.Diff([]metricsCall{{salesNS, true, "alice"}}, metrics.takeCalls()); diff != "" {
			t.Errorf("want exactly one detailed discovery call as alice (-want +got):\n%s", diff)
		}
	})

	t.Run("definitions as stored", func(t *testing.T) {
		res := call(t, cs, "list_metric_infos", map[string]any{"catalog": "rel", "schema": "sales"})
		metrics.takeCalls()
		var stored bytes.Buffer
		if err := json.Compact(&stored, []byte(revenueDef)); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(text(res), `"metric":`+stored.String()) {
			t.Errorf("text content does not keep the stored definition %s:\n%s", stored.String(), text(res))
		}
	})

	t.Run("default metalake", func(t *testing.T) {
		payload(t, call(t, cs, "list_metrics", map[string]any{"catalog": "rel", "schema": "sales"}), wantIdentifiers)
		payload(t, call(t, cs, "list_metric_infos", map[string]any{"catalog": "rel", "schema": "sales"}), wantInfos)
		if diff := cmp.Diff([]metricsCall{{salesNS, false, "alice"}, {salesNS, true, "alice"}}, metrics.takeCalls()); diff != "" {
			t.Errorf("calls (-want +got):\n%s", diff)
		}
		// An explicit metalake wins over the default one.
		payload(t, call(t, cs, "list_metrics", map[string]any{"metalake": "other_lake", "catalog": "rel", "schema": "sales"}),
			`{"identifiers": [{"namespace": ["other_lake", "rel", "sales", "m"], "name": "x"}]}`)
		if got := metrics.takeCalls(); len(got) != 1 || got[0].NS != otherNS {
			t.Errorf("calls %+v, want one for %+v", got, otherNS)
		}
	})

	t.Run("empty schema", func(t *testing.T) {
		payload(t, call(t, cs, "list_metrics", map[string]any{"catalog": "rel", "schema": "empty"}), `{"identifiers": []}`)
		payload(t, call(t, cs, "list_metric_infos", map[string]any{"catalog": "rel", "schema": "empty"}), `{"metrics": []}`)
		metrics.takeCalls()
	})

	t.Run("missing schema", func(t *testing.T) {
		for _, tool := range []string{"list_metrics", "list_metric_infos"} {
			toolError(t, call(t, cs, tool, map[string]any{"catalog": "rel", "schema": "nope"}),
				"NoSuchSchemaException", "schema 'rel.nope' does not exist in metalake 'lake'")
			if got := metrics.takeCalls(); len(got) != 1 {
				t.Errorf("%s: %d discovery calls, want 1", tool, len(got))
			}
		}
	})

	t.Run("invalid arguments", func(t *testing.T) {
		for _, c := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{"catalog": "rel"}, "schema"},
			{map[string]any{"schema": "sales"}, "catalog"},
			{map[string]any{"catalog": "rel", "schema": ""}, "schema: name is required"},
			{map[string]any{"catalog": "", "schema": "sales"}, "catalog: name is required"},
			{map[string]any{"catalog": "rel", "schema": "bad name"}, "schema: invalid name 'bad name'"},
			{map[string]any{"catalog": "r;el", "schema": "sales"}, "catalog: invalid name 'r;el'"},
			{map[string]any{"metalake": "*", "catalog": "rel", "schema": "sales"}, "metalake: '*' is a reserved name"},
			{map[string]any{"catalog": "rel", "schema": "sales", "model": "Orders"}, "model"},
			{map[string]any{"catalog": 7, "schema": "sales"}, "catalog"},
		} {
			for _, tool := range []string{"list_metrics", "list_metric_infos"} {
				toolError(t, call(t, cs, tool, c.args), c.want)
			}
		}
		if got := metrics.takeCalls(); len(got) != 0 {
			t.Errorf("invalid arguments reached the service: %+v", got)
		}
	})

	t.Run("search", func(t *testing.T) {
		payload(t, call(t, cs, "search", map[string]any{
			"query": "EmpTel +tags:pii", "types": []string{"table", "metric"}, "catalog": "rel", "schema": "hr",
			"tags": []string{"pii", "gold"}, "scope": "user", "sort": "-name", "limit": 5, "offset": 10,
			"facets": []string{"type", "tags"}, "facetSize": 3,
		}), wantSearch)
		want := []searchCall{{semcat.SearchRequest{
			Metalake: "lake", Query: "EmpTel +tags:pii", Types: []string{"table", "metric"}, Catalogs: []string{"rel"}, Schemas: []string{"hr"},
			Tags: []string{"pii", "gold"}, Scope: "user", Sort: "-name", Limit: 5, Offset: 10,
			Facets: []string{"type", "tags"}, FacetSize: 3,
		}, "alice"}}
		if diff := cmp.Diff(want, search.takeCalls()); diff != "" {
			t.Errorf("search calls (-want +got):\n%s", diff)
		}

		// catalog, schema and owner take several values, as REST's repeated
		// parameters; owner is a facet.
		payload(t, call(t, cs, "search", map[string]any{
			"query": "*", "catalog": []string{"rel", "files"}, "schema": []string{"hr", ""}, "owner": []string{"alice", "data_team"},
			"facets": []string{"owner", "catalog"}, "facetSize": 1000,
		}), wantSearch)
		payload(t, call(t, cs, "search", map[string]any{"query": "*", "owner": "alice"}), wantSearch)
		want = []searchCall{
			{semcat.SearchRequest{Metalake: "lake", Query: "*", Catalogs: []string{"rel", "files"}, Schemas: []string{"hr"}, Owners: []string{"alice", "data_team"},
				Facets: []string{"owner", "catalog"}, Limit: 20, FacetSize: 1000}, "alice"},
			{semcat.SearchRequest{Metalake: "lake", Query: "*", Owners: []string{"alice"}, Limit: 20, FacetSize: 10}, "alice"},
		}
		if diff := cmp.Diff(want, search.takeCalls()); diff != "" {
			t.Errorf("search calls (-want +got):\n%s", diff)
		}

		// Defaults: the default metalake and the REST API's limit and facet size.
		payload(t, call(t, cs, "search", map[string]any{"query": "*", "metalake": "other_lake", "cursor": "c1"}), wantSearch)
		payload(t, call(t, cs, "search", map[string]any{"query": "*"}), wantSearch)
		want = []searchCall{
			{semcat.SearchRequest{Metalake: "other_lake", Query: "*", Cursor: "c1", Limit: 20, FacetSize: 10}, "alice"},
			{semcat.SearchRequest{Metalake: "lake", Query: "*", Limit: 20, FacetSize: 10}, "alice"},
		}
		if diff := cmp.Diff(want, search.takeCalls()); diff != "" {
			t.Errorf("search calls (-want +got):\n%s", diff)
		}
	})

	t.Run("search without results", func(t *testing.T) {
		saved := search.result
		search.mu.Lock()
		search.result = &semcat.SearchResult{}
		search.mu.Unlock()
		defer func() { search.mu.Lock(); search.result = saved; search.mu.Unlock() }()
		payload(t, call(t, cs, "search", map[string]any{"query": "nothing"}), `{"total": 0, "results": []}`)
		search.takeCalls()
	})

	t.Run("invalid search arguments", func(t *testing.T) {
		for _, c := range []struct {
			args map[string]any
			want string
		}{
			{map[string]any{}, "query"},
			{map[string]any{"query": "x", "types": []string{"view"}}, "view"},
			{map[string]any{"query": "x", "scope": "everything"}, "everything"},
			{map[string]any{"query": "x", "sort": "size"}, "size"},
			{map[string]any{"query": "x", "limit": 0}, "limit"},
			{map[string]any{"query": "x", "limit": 1001}, "limit"},
			{map[string]any{"query": "x", "offset": 10001}, "offset"},
			{map[string]any{"query": "x", "offset": -1}, "offset"},
			{map[string]any{"query": "x", "facetSize": 1001}, "facetSize"},
			{map[string]any{"query": "x", "facets": []string{"size"}}, "size"},
			{map[string]any{"query": "x", "owner": []string{"ok", "not ok"}}, "owner: invalid name 'not ok'"},
			{map[string]any{"query": "x", "catalog": []any{"rel", 3}}, "/properties/catalog"},
			{map[string]any{"query": "x", "owner": 7}, "/properties/owner"},
			{map[string]any{"query": "x", "offset": 20, "cursor": "c"}, "cursor: cannot be combined with offset"},
			{map[string]any{"query": "x", "catalog": "no way"}, "catalog: invalid name 'no way'"},
			{map[string]any{"query": "x", "schema": "a.b"}, "schema: invalid name 'a.b'"},
			{map[string]any{"query": "x", "tags": []string{"ok", "not ok"}}, "tag: invalid name 'not ok'"},
			{map[string]any{"query": "x", "tag": []string{"not ok"}}, "tag: invalid name 'not ok'"},
			{map[string]any{"query": "x", "type": []string{"view"}}, "/properties/type"},
			{map[string]any{"query": "x", "metalake": "bad lake"}, "metalake: invalid name 'bad lake'"},
			{map[string]any{"query": "x", "minPosition": "nonsense"}, "IllegalArgumentException: minPosition"},
			{map[string]any{"query": "x", "minPosition": "t1", "waitMs": 30001}, "waitMs"},
			{map[string]any{"query": "x", "waitMs": 10}, "waitMs: only with minPosition"},
			{map[string]any{"query": "x", "minPosition": "tzzzzzz", "waitMs": 20}, "IndexNotCaughtUpException: the search index has not yet applied position tzzzzzz after 20 ms"},
		} {
			toolError(t, call(t, cs, "search", c.args), c.want)
		}
		// minPosition waits for the write, then searches.
		search.mu.Lock()
		search.waits = nil
		search.mu.Unlock()
		search.takeCalls()
		call(t, cs, "search", map[string]any{"query": "x", "minPosition": "t16"})
		search.takeCalls()
		search.mu.Lock()
		if len(search.waits) != 1 || search.waits[0] != (semcat.Position{TxID: 42}) {
			t.Errorf("search with minPosition t16 waited for %v", search.waits)
		}
		search.mu.Unlock()
		if got := search.takeCalls(); len(got) != 0 {
			t.Errorf("invalid arguments reached the service: %+v", got)
		}
	})

	t.Run("search service error", func(t *testing.T) {
		search.mu.Lock()
		search.err = semcat.Errorf(semcat.EINVALID, "query: unterminated quote at position 4")
		search.mu.Unlock()
		defer func() { search.mu.Lock(); search.err = nil; search.mu.Unlock() }()
		toolError(t, call(t, cs, "search", map[string]any{"query": `a "b`}), "IllegalArgumentException: query: unterminated quote at position 4")
		if got := search.takeCalls(); len(got) != 1 {
			t.Errorf("%d search calls, want 1", len(got))
		}
	})

	t.Run("unknown tool", func(t *testing.T) {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "drop_schema", Arguments: map[string]any{}})
		if err == nil {
			t.Error("an unknown tool was called")
		}
	})
}

// TestToolErrors: failures of the services are tool errors with a safe
// message, and the session survives them.
func TestToolErrors(t *testing.T) {
	metrics, search := newFakes()
	var logs strings.Builder
	var logMu sync.Mutex
	logger := slog.New(slog.NewTextHandler(writerFunc(func(p []byte) (int, error) {
		logMu.Lock()
		defer logMu.Unlock()
		return logs.Write(p)
	}), nil))
	cs := connect(t, Services{Metrics: metrics, Search: search}, Config{DefaultMetalake: "lake", Logger: logger}, "bob")
	args := map[string]any{"catalog": "rel", "schema": "sales"}

	for _, c := range []struct {
		err  error
		want []string
	}{
		{semcat.Errorf(semcat.EFORBIDDEN, "user 'bob' may not use schema 'rel.sales'"), []string{"ForbiddenException: user 'bob' may not use schema 'rel.sales'"}},
		{semcat.Errorf(semcat.EUNSUPPORTED, "catalog 'rel' is not relational"), []string{"UnsupportedOperationException: catalog 'rel' is not relational"}},
		{errors.New("pq: relation secret_table does not exist"), []string{"InternalError: internal server error"}},
	} {
		metrics.mu.Lock()
		metrics.err = c.err
		metrics.mu.Unlock()
		msg := toolError(t, call(t, cs, "list_metrics", args), c.want...)
		if strings.Contains(msg, "secret_table") {
			t.Errorf("internal details leaked: %q", msg)
		}
	}
	logMu.Lock()
	if !strings.Contains(logs.String(), "secret_table") {
		t.Errorf("internal error not logged: %s", logs.String())
	}
	logMu.Unlock()

	metrics.mu.Lock()
	metrics.err, metrics.panics = nil, true
	metrics.mu.Unlock()
	toolError(t, call(t, cs, "list_metric_infos", args), "InternalError: internal server error")

	metrics.mu.Lock()
	metrics.panics = false
	metrics.mu.Unlock()
	payload(t, call(t, cs, "list_metrics", args), wantIdentifiers)
	for _, c := range metrics.takeCalls() {
		if c.User != "bob" {
			t.Errorf("call as %q, want bob", c.User)
		}
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestNoDefaultMetalake: without a default metalake the argument is required.
func TestNoDefaultMetalake(t *testing.T) {
	metrics, search := newFakes()
	cs := connect(t, Services{Metrics: metrics, Search: search}, Config{}, "")
	toolError(t, call(t, cs, "list_metrics", map[string]any{"catalog": "rel", "schema": "sales"}), `missing properties: ["metalake"]`)
	toolError(t, call(t, cs, "search", map[string]any{"query": "x"}), `missing properties: ["metalake"]`)
	if len(metrics.takeCalls())+len(search.takeCalls()) != 0 {
		t.Error("a call without metalake reached a service")
	}
	payload(t, call(t, cs, "list_metrics", map[string]any{"metalake": "lake", "catalog": "rel", "schema": "sales"}), wantIdentifiers)
	if got := metrics.takeCalls(); len(got) != 1 || got[0].User != AnonymousUser {
		t.Errorf("calls %+v: want one as %s", got, AnonymousUser)
	}
}

// TestNoUser: a server connected without a user in its context refuses calls.
func TestNoUser(t *testing.T) {
	metrics, search := newFakes()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	serverT, clientT := mcp.NewInMemoryTransports()
	ss, err := NewServer(Services{Metrics: metrics, Search: search}, Config{DefaultMetalake: "lake"}).Connect(ctx, serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	toolError(t, call(t, cs, "list_metrics", map[string]any{"catalog": "rel", "schema": "sales"}), "unauthorized")
	if got := metrics.takeCalls(); len(got) != 0 {
		t.Errorf("a call without user reached the service: %+v", got)
	}
}

// basicUser authenticates like mode simple: the Basic user name, 401 without.
func basicUser(r *http.Request) (string, error) {
	name, _, ok := r.BasicAuth()
	if !ok || name == "" {
		return "", semcat.Errorf(semcat.EUNAUTHORIZED, "missing or malformed Authorization header")
	}
	return name, nil
}

// basicAuthTransport adds Basic credentials to every request.
type basicAuthTransport struct{ user string }

func (b basicAuthTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.SetBasicAuth(b.user, "")
	return http.DefaultTransport.RoundTrip(r)
}

// switchingUser sends the credentials of whoever is its user at the time.
type switchingUser struct {
	mu   sync.Mutex
	user string
}

func (s *switchingUser) set(user string) { s.mu.Lock(); s.user = user; s.mu.Unlock() }

func (s *switchingUser) RoundTrip(r *http.Request) (*http.Response, error) {
	s.mu.Lock()
	user := s.user
	s.mu.Unlock()
	return basicAuthTransport{user}.RoundTrip(r)
}

func newHTTPServer(t *testing.T, svc Services, cfg Config, user func(*http.Request) (string, error)) *httptest.Server {
	t.Helper()
	mux := http.NewServeMux()
	mux.Handle("/mcp", HTTPHandler(svc, cfg, user))
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func connectHTTP(t *testing.T, endpoint, user, version string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	transport := &mcp.StreamableClientTransport{Endpoint: endpoint, HTTPClient: &http.Client{Transport: basicAuthTransport{user}}, MaxRetries: -1}
	var opts *mcp.ClientSessionOptions
	if version != "" {
		opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "v0"}, nil).Connect(ctx, transport, opts)
	if err != nil {
		t.Fatalf("connect as %s (protocol %q): %v", user, version, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestHTTP(t *testing.T) {
	metrics, search := newFakes()
	srv := newHTTPServer(t, Services{Metrics: metrics, Search: search}, Config{DefaultMetalake: "lake", Version: "9"}, basicUser)

	// The newest protocol (stateless, server/discover) and the initialize
	// handshake of older ones.
	for _, version := range []string{"", "2025-11-25", "2025-06-18", "2025-03-26"} {
		t.Run("protocol "+version, func(t *testing.T) {
			alice := connectHTTP(t, srv.URL+"/mcp", "alice", version)
			carol := connectHTTP(t, srv.URL+"/mcp", "carol", version)
			if info := alice.InitializeResult().ServerInfo; info.Name != "semcat" || info.Version != "9" {
				t.Errorf("server info %+v", info)
			}
			tools, err := alice.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			if len(tools.Tools) != 6 {
				t.Errorf("%d tools, want 6", len(tools.Tools))
			}
			for _, tool := range tools.Tools {
				if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
					t.Errorf("%s: not annotated read-only", tool.Name)
				}
			}

			payload(t, call(t, alice, "list_metrics", map[string]any{"catalog": "rel", "schema": "sales"}), wantIdentifiers)
			payload(t, call(t, carol, "list_metric_infos", map[string]any{"metalake": "lake", "catalog": "rel", "schema": "sales"}), wantInfos)
			payload(t, call(t, alice, "list_metrics", map[string]any{"catalog": "rel", "schema": "sales"}), wantIdentifiers)
			want := []metricsCall{{salesNS, false, "alice"}, {salesNS, true, "carol"}, {salesNS, false, "alice"}}
			if diff := cmp.Diff(want, metrics.takeCalls()); diff != "" {
				t.Errorf("discovery calls: one per tool call, each as its caller (-want +got):\n%s", diff)
			}

			toolError(t, call(t, carol, "list_metric_infos", map[string]any{"catalog": "rel", "schema": "gone"}), "NoSuchSchemaException", "schema 'rel.gone' does not exist")
			metrics.takeCalls()

			payload(t, call(t, carol, "search", map[string]any{"query": "EmpTel", "facets": []string{"type"}}), wantSearch)
			wantSearchCalls := []searchCall{{semcat.SearchRequest{Metalake: "lake", Query: "EmpTel", Facets: []string{"type"}, Limit: 20, FacetSize: 10}, "carol"}}
			if diff := cmp.Diff(wantSearchCalls, search.takeCalls()); diff != "" {
				t.Errorf("search calls (-want +got):\n%s", diff)
			}
		})
	}
}

// TestHTTPPerRequestUser: every HTTP request is authenticated on its own;
// a call acts as the user of its request, not of the one that opened the
// session.
func TestHTTPPerRequestUser(t *testing.T) {
	metrics, search := newFakes()
	srv := newHTTPServer(t, Services{Metrics: metrics, Search: search}, Config{DefaultMetalake: "lake"}, basicUser)
	for _, version := range []string{"", "2025-06-18"} {
		creds := &switchingUser{user: "dave"}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		transport := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", HTTPClient: &http.Client{Transport: creds}, MaxRetries: -1}
		var opts *mcp.ClientSessionOptions
		if version != "" {
			opts = &mcp.ClientSessionOptions{ProtocolVersion: version}
		}
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(ctx, transport, opts)
		if err != nil {
			cancel()
			t.Fatal(err)
		}
		args := map[string]any{"catalog": "rel", "schema": "sales"}
		payload(t, call(t, cs, "list_metrics", args), wantIdentifiers)
		creds.set("erin")
		payload(t, call(t, cs, "list_metrics", args), wantIdentifiers)
		want := []metricsCall{{salesNS, false, "dave"}, {salesNS, false, "erin"}}
		if diff := cmp.Diff(want, metrics.takeCalls()); diff != "" {
			t.Errorf("protocol %q: calls (-want +got):\n%s", version, diff)
		}
		creds.set("")
		if _, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_metrics", Arguments: args}); err == nil {
			t.Errorf("protocol %q: a call without credentials succeeded", version)
		}
		if got := metrics.takeCalls(); len(got) != 0 {
			t.Errorf("protocol %q: an unauthenticated call reached the service: %+v", version, got)
		}
		cs.Close()
		cancel()
	}
}

func TestHTTPUnauthenticated(t *testing.T) {
	metrics, search := newFakes()
	srv := newHTTPServer(t, Services{Metrics: metrics, Search: search}, Config{DefaultMetalake: "lake"}, basicUser)

	body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_metrics","arguments":{"catalog":"rel","schema":"sales"}}}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("status %d, want 401", resp.StatusCode)
	}
	if diff := cmp.Diff(decode(t, `{"code": 1011, "type": "UnauthorizedException", "message": "missing or malformed Authorization header", "stack": []}`), decode(t, string(got))); diff != "" {
		t.Errorf("body (-want +got):\n%s", diff)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	transport := &mcp.StreamableClientTransport{Endpoint: srv.URL + "/mcp", MaxRetries: -1}
	if cs, err := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "v0"}, nil).Connect(ctx, transport, nil); err == nil {
		cs.Close()
		t.Error("a client without credentials connected")
	}
	if n := len(metrics.takeCalls()) + len(search.takeCalls()); n != 0 {
		t.Errorf("%d unauthenticated calls reached the services", n)
	}

	// An authenticator's internal failure is a 500 without details.
	srv2 := newHTTPServer(t, Services{Metrics: metrics, Search: search}, Config{Logger: slog.New(slog.DiscardHandler)}, func(*http.Request) (string, error) {
		return "", errors.New("key store unreachable at 10.0.0.7")
	})
	req, _ = http.NewRequest(http.MethodPost, srv2.URL+"/mcp", strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || strings.Contains(string(got), "10.0.0.7") {
		t.Errorf("status %d body %s: want 500 without details", resp.StatusCode, got)
	}
}

// TestHTTPAnonymous: with no authenticator every call is the anonymous user.
func TestHTTPAnonymous(t *testing.T) {
	metrics, search := newFakes()
	srv := newHTTPServer(t, Services{Metrics: metrics, Search: search}, Config{DefaultMetalake: "lake"}, nil)
	cs := connectHTTP(t, srv.URL+"/mcp", "ignored", "")
	payload(t, call(t, cs, "list_metrics", map[string]any{"catalog": "rel", "schema": "sales"}), wantIdentifiers)
	if diff := cmp.Diff([]metricsCall{{salesNS, false, AnonymousUser}}, metrics.takeCalls()); diff != "" {
		t.Errorf("calls (-want +got):\n%s", diff)
	}
}

// stdioChildEnv makes the test binary an MCP server over its stdio (see
// TestMain), to test ServeStdio as `semcat mcp` runs it.
const stdioChildEnv = "SEMCAT_MCPSERVER_STDIO_CHILD"

func TestMain(m *testing.M) {
	if os.Getenv(stdioChildEnv) == "1" {
		metrics, search := newFakes()
		// The child refuses any user but the one it serves as, so the parent
		// sees whether the user reached the service.
		svc := Services{Metrics: userCheck{metrics, "stdio-user"}, Search: search}
		logger := slog.New(slog.NewTextHandler(os.Stderr, nil))
		if err := ServeStdio(context.Background(), svc, Config{DefaultMetalake: "lake", Version: "stdio", Logger: logger}, "stdio-user"); err != nil {
			logger.Error("serve stdio", "error", err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// userCheck fails every call not made as user.
type userCheck struct {
	semcat.MetricDiscoveryService
	user string
}

func (u userCheck) ListSchemaMetrics(ctx context.Context, ns semcat.Namespace, details bool) ([]semcat.SchemaMetric, error) {
	if got := semcat.UserFromContext(ctx); got != u.user {
		return nil, semcat.Errorf(semcat.EFORBIDDEN, "called as %q", got)
	}
	return u.MetricDiscoveryService.ListSchemaMetrics(ctx, ns, details)
}

// TestStdio runs ServeStdio in a child process over its standard input and
// output, as an MCP host runs `semcat mcp`.
func TestStdio(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), stdioChildEnv+"=1")
	cmd.Stderr = os.Stderr
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if info := cs.InitializeResult().ServerInfo; info.Name != "semcat" || info.Version != "stdio" {
		t.Errorf("server info %+v", info)
	}
	payload(t, call(t, cs, "list_metrics", map[string]any{"catalog": "rel", "schema": "sales"}), wantIdentifiers)
	payload(t, call(t, cs, "list_metric_infos", map[string]any{"catalog": "rel", "schema": "sales"}), wantInfos)
	payload(t, call(t, cs, "search", map[string]any{"query": "EmpTel"}), wantSearch)
	toolError(t, call(t, cs, "list_metrics", map[string]any{"catalog": "rel", "schema": "nope"}), "NoSuchSchemaException")
	if err := cs.Close(); err != nil {
		t.Errorf("close: %v", err)
	}
}

// TestHTTPBodyLimit: a request over the configured body limit is refused
// with 413 before any tool runs; one under it is served.
func TestHTTPBodyLimit(t *testing.T) {
	metrics, search := newFakes()
	srv := newHTTPServer(t, Services{Metrics: metrics, Search: search}, Config{DefaultMetalake: "lake", MaxBodyBytes: 1 << 10}, basicUser)
	post := func(query string) int {
		t.Helper()
		body := `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"search","arguments":{"query":"` + query + `"}}}`
		req, err := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.SetBasicAuth("alice", "")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if got := post(strings.Repeat("x", 2<<10)); got != http.StatusRequestEntityTooLarge {
		t.Errorf("a 2 KiB request under a 1 KiB limit: status %d, want 413", got)
	}
	if calls := search.takeCalls(); len(calls) != 0 {
		t.Errorf("the refused request reached search: %v", calls)
	}
}

// TestHTTPBatchLimit: a JSON-RPC batch of more than MaxBatch calls is
// refused whole (400, a JSON-RPC error) before any tool runs; a batch
// within it is not refused for its size.
func TestHTTPBatchLimit(t *testing.T) {
	metrics, search := newFakes()
	srv := newHTTPServer(t, Services{Metrics: metrics, Search: search}, Config{DefaultMetalake: "lake"}, basicUser)
	post := func(calls int) (int, string) {
		t.Helper()
		var batch []string
		for i := range calls {
			batch = append(batch, fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"search","arguments":{"query":"*","limit":1000}}}`, i+1))
		}
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/mcp", strings.NewReader(" ["+strings.Join(batch, ",")+"]"))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.SetBasicAuth("alice", "")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp.StatusCode, string(b)
	}
	status, body := post(100)
	if status != http.StatusBadRequest || !strings.Contains(body, `"code":-32600`) || !strings.Contains(body, "at most 16 calls") {
		t.Errorf("a batch of 100: %d %s", status, body)
	}
	if calls := search.takeCalls(); len(calls) != 0 {
		t.Errorf("the refused batch reached search %d times", len(calls))
	}
	if status, body := post(MaxBatch); strings.Contains(body, "at most 16 calls") {
		t.Errorf("a batch of %d: %d %s", MaxBatch, status, body)
	}
}

// TestEvents: every tool call emits pre and then success or failure, as a
// REST operation does, so that the audit log and the counters see agents.
func TestEvents(t *testing.T) {
	metrics, search := newFakes()
	var mu sync.Mutex
	var got []semcat.Event
	record := func(e semcat.Event) {
		mu.Lock()
		defer mu.Unlock()
		e.Time, e.Duration = time.Time{}, 0
		got = append(got, e)
	}
	srv := newHTTPServer(t, Services{Metrics: metrics, Search: search}, Config{DefaultMetalake: "lake", Events: record}, basicUser)
	cs := connectHTTP(t, srv.URL+"/mcp", "alice", "")
	call(t, cs, "list_metrics", map[string]any{"catalog": "rel", "schema": "sales"})
	toolError(t, call(t, cs, "list_metrics", map[string]any{"catalog": "rel", "schema": "nope"}), "NoSuchSchemaException")
	call(t, cs, "search", map[string]any{"query": "orders", "metalake": "other"})
	cs.Close()
	two := 2
	three := 3 // wantIdentifiers
	// Named as the REST operations they stand for, with the interface.
	want := []semcat.Event{
		{Operation: "listSemanticModelMetrics", Phase: semcat.EventPre, User: "alice", Metalake: "lake", Identifier: []string{"lake", "rel", "sales"}, Interface: "mcp"},
		{Operation: "listSemanticModelMetrics", Phase: semcat.EventSuccess, User: "alice", Metalake: "lake", Identifier: []string{"lake", "rel", "sales"}, ResultCount: &three, Interface: "mcp"},
		{Operation: "listSemanticModelMetrics", Phase: semcat.EventPre, User: "alice", Metalake: "lake", Identifier: []string{"lake", "rel", "nope"}, Interface: "mcp"},
		{Operation: "listSemanticModelMetrics", Phase: semcat.EventFailure, User: "alice", Metalake: "lake", Identifier: []string{"lake", "rel", "nope"},
			ErrorCode: semcat.ENOTFOUND, Error: "schema 'rel.nope' does not exist in metalake 'lake'", Interface: "mcp"},
		{Operation: "search", Phase: semcat.EventPre, User: "alice", Metalake: "other", Identifier: []string{"other"}, Interface: "mcp"},
		{Operation: "search", Phase: semcat.EventSuccess, User: "alice", Metalake: "other", Identifier: []string{"other"}, ResultCount: &two, Interface: "mcp"},
	}
	mu.Lock()
	defer mu.Unlock()
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("events (-want +got):\n%s", diff)
	}
}
