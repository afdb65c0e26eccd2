package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/semcat/semcat"
	apiclient "github.com/semcat/semcat/client"
	"github.com/semcat/semcat/mcpserver"
)

// runCLI runs the command line as main does, with env as the environment,
// and returns its exit code, stdout and stderr.
func runCLI(env map[string]string, args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	err := run(args, func(k string) string { return env[k] }, &out, &errOut)
	code = report(&errOut, err)
	return code, out.String(), errOut.String()
}

// mustCLI is runCLI that fails the test unless the command succeeds
// without writing to stderr.
func mustCLI(t *testing.T, env map[string]string, args ...string) string {
	t.Helper()
	code, out, errOut := runCLI(env, args...)
	if code != 0 || errOut != "" {
		t.Fatalf("semcat %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, out, errOut)
	}
	return out
}

// rows splits a table into the whitespace-separated fields of its lines.
func rows(out string) [][]string {
	var rs [][]string
	for _, line := range strings.Split(strings.TrimRight(out, "\n"), "\n") {
		rs = append(rs, strings.Fields(line))
	}
	return rs
}

// sameJSON fails the test unless got (a command's --json output) and want
// (a REST answer, without its "code") are the same JSON.
func sameJSON(t *testing.T, what, got string, want any) {
	t.Helper()
	var g any
	if err := json.Unmarshal([]byte(got), &g); err != nil {
		t.Fatalf("%s: --json output is not JSON: %v\n%s", what, err, got)
	}
	if m, ok := want.(map[string]any); ok {
		delete(m, "code")
	}
	gb, _ := json.Marshal(g)
	wb, _ := json.Marshal(want)
	if !bytes.Equal(gb, wb) {
		t.Errorf("%s: --json output differs from the REST answer:\ncli  %s\nrest %s", what, gb, wb)
	}
}

// TestCommandLine runs every subcommand that talks to a server against a
// live server with the example catalog, checking the tables people read
// and that --json is the REST API's answer.
func TestCommandLine(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Demo = true
	m := startMain(t, cfg)
	rest := client{t: t, base: m.URL()}
	env := map[string]string{"SEMCAT_URL": m.URL()}

	t.Run("search", func(t *testing.T) {
		out := mustCLI(t, env, "search", "EmpTel")
		// The score column is the API's score, to two places.
		res, _ := rest.search("demo", url.Values{"query": {"EmpTel"}})
		score := fmt.Sprintf("%.2f", res["results"].([]any)[0].(map[string]any)["score"].(float64))
		want := [][]string{{"TYPE", "IDENTIFIER", "SCORE", "MATCHED"}, {"table", "demo.hr.people.employees", score, "column:EmpContact.EmpTel"}}
		if got := rows(out); !slices.EqualFunc(got, want, slices.Equal) {
			t.Errorf("semcat search EmpTel:\n%s", out)
		}
		// Flags after the query, a list flag, facets and the next page.
		out = mustCLI(t, env, "search", "revenue", "--type", "metric", "--limit=2", "--facets", "type", "--sort", "name")
		rs := rows(out)
		if len(rs) < 3 || rs[1][0] != "metric" || rs[2][0] != "metric" || !strings.Contains(out, "FACET") || !strings.Contains(out, "next page: --cursor ") {
			t.Errorf("a page of metrics:\n%s", out)
		}
		cursor := out[strings.LastIndex(out, " ")+1:]
		next := mustCLI(t, env, "search", "--type=metric", "--limit=2", "--sort", "name", "--cursor", strings.TrimSpace(cursor), "revenue")
		if next == out || !strings.HasPrefix(next, "TYPE") {
			t.Errorf("the next page:\n%s", next)
		}
		out = mustCLI(t, env, "search", "--json", "EmpTel", "--facets", "type")
		want2, _ := rest.search("demo", url.Values{"query": {"EmpTel"}, "facets": {"type"}})
		sameJSON(t, "search --json", out, want2)
		if out := mustCLI(t, env, "search", "nothing_matches_this"); out != "no results in metalake demo\n" {
			t.Errorf("no results: %q", out)
		}
	})

	t.Run("metrics", func(t *testing.T) {
		out := mustCLI(t, env, "metrics", "demo.warehouse.main")
		rs := rows(out)
		if len(rs) != 114 || !slices.Equal(rs[0], []string{"MODEL", "METRIC"}) {
			t.Fatalf("semcat metrics demo.warehouse.main: %d lines\n%s", len(rs), out)
		}
		var names []string
		for _, r := range rs[1:] {
			if r[0] != "simple_manifest" {
				t.Errorf("row %v: model %q", r, r[0])
			}
			names = append(names, r[1])
		}
		if !slices.IsSorted(names) {
			t.Errorf("metrics are not sorted: %v", names)
		}
		// The metalake may be left out: the server has only one.
		if again := mustCLI(t, env, "metrics", "warehouse.main"); again != out {
			t.Error("metrics warehouse.main differs from metrics demo.warehouse.main")
		}
		_, ids := rest.ok("GET", "/api/metalakes/demo/catalogs/warehouse/schemas/main/semantic-model-metrics", "")
		sameJSON(t, "metrics --json", mustCLI(t, env, "metrics", "--json", "demo.warehouse.main"), ids["identifiers"])
		_, infos := rest.ok("GET", "/api/metalakes/demo/catalogs/warehouse/schemas/main/semantic-model-metrics?details=true", "")
		sameJSON(t, "metrics --details --json", mustCLI(t, env, "metrics", "demo.warehouse.main", "--details", "--json"), infos["metrics"])

		out = mustCLI(t, env, "metrics", "--details", "warehouse.sales")
		rs = rows(out)
		if !slices.Equal(rs[0], []string{"MODEL", "METRIC", "DATATYPE", "EXPRESSION", "DESCRIPTION"}) || len(rs) != 5 ||
			!strings.Contains(out, "total_revenue") || !strings.Contains(out, "SUM(orders.amount) (+1 dialects)") {
			t.Errorf("semcat metrics --details warehouse.sales:\n%s", out)
		}
	})

	t.Run("tables", func(t *testing.T) {
		if out := mustCLI(t, env, "tables", "list", "demo.hr.people"); out != "NAME\nemployees\n" {
			t.Errorf("tables list:\n%s", out)
		}
		out := mustCLI(t, env, "tables", "get", "hr.people.employees")
		for _, want := range []string{"table:       demo.hr.people.employees", "properties:  Codename=Alpha Tango Charlie",
			"EmpContact  struct<EmpTel integer, EmpAddr string>  true      How to reach the employee"} {
			if !strings.Contains(out, want) {
				t.Errorf("tables get does not show %q:\n%s", want, out)
			}
		}
		_, tbl := rest.ok("GET", "/api/metalakes/demo/catalogs/hr/schemas/people/tables/employees", "")
		sameJSON(t, "tables get --json", mustCLI(t, env, "tables", "get", "--json", "demo.hr.people.employees"), tbl["table"])
		_, ids := rest.ok("GET", "/api/metalakes/demo/catalogs/warehouse/schemas/main/tables", "")
		sameJSON(t, "tables list --json", mustCLI(t, env, "tables", "list", "warehouse.main", "--json"), ids)
		// The table's tags, own and inherited.
		if out := mustCLI(t, env, "tables", "get", "hr.people.employees"); !regexp.MustCompile(`(?m)^tags: +Tag1, Tag22$`).MatchString(out) {
			t.Errorf("tables get shows no tags:\n%s", out)
		}
	})

	t.Run("models", func(t *testing.T) {
		if out := mustCLI(t, env, "models", "list", "warehouse.sales"); out != "NAME\nsales\n" {
			t.Errorf("models list:\n%s", out)
		}
		out := mustCLI(t, env, "models", "get", "demo.warehouse.sales.sales")
		for _, want := range []string{"semantic model:  demo.warehouse.sales.sales", "version:         1",
			"orders     warehouse.sales.orders", "METRIC", "order_count            Integer   COUNT(orders.order_id)"} {
			if !strings.Contains(out, want) {
				t.Errorf("models get does not show %q:\n%s", want, out)
			}
		}
		_, model := rest.ok("GET", "/api/metalakes/demo/catalogs/warehouse/schemas/sales/semantic-models/sales", "")
		sameJSON(t, "models get --json", mustCLI(t, env, "--json", "models", "get", "warehouse.sales.sales"), model["semanticModel"])
	})

	t.Run("metalakes, catalogs, schemas", func(t *testing.T) {
		if out := mustCLI(t, env, "catalogs", "list"); !slices.EqualFunc(rows(out)[:2], [][]string{{"NAME", "TYPE", "COMMENT"}, {"hr", "relational", "Human", "resources"}}, slices.Equal) {
			t.Errorf("catalogs list:\n%s", out)
		}
		if out := mustCLI(t, env, "schemas", "list", "warehouse"); out != "NAME\nmain\nsales\n" {
			t.Errorf("schemas list:\n%s", out)
		}
		if out := mustCLI(t, env, "schemas", "get", "demo.warehouse.sales"); !strings.Contains(out, "schema:   demo.warehouse.sales") {
			t.Errorf("schemas get:\n%s", out)
		}
		if out := mustCLI(t, env, "catalogs", "get", "hr"); !regexp.MustCompile(`(?m)^type: +relational\nprovider: +semcat\n`).MatchString(out) ||
			!regexp.MustCompile(`(?m)^properties: +in-use=true$`).MatchString(out) {
			t.Errorf("catalogs get:\n%s", out)
		}
		if out := mustCLI(t, env, "metalakes", "list"); !strings.HasPrefix(out, "NAME  COMMENT\ndemo  ") {
			t.Errorf("metalakes list:\n%s", out)
		}
		_, ml := rest.ok("GET", "/api/metalakes/demo", "")
		sameJSON(t, "metalakes get --json", mustCLI(t, env, "metalakes", "get", "demo", "--json"), ml["metalake"])
		_, cats := rest.ok("GET", "/api/metalakes/demo/catalogs?details=true", "")
		sameJSON(t, "catalogs list --json", mustCLI(t, env, "catalogs", "list", "demo", "--json"), cats["catalogs"])
	})

	t.Run("tags and metadata", func(t *testing.T) {
		if out := mustCLI(t, env, "tags", "list"); out != "NAME\nTag1\nTag22\n" {
			t.Errorf("tags list:\n%s", out)
		}
		if out := mustCLI(t, env, "tags", "object", "table", "hr.people.employees"); out != "NAME\nTag1\nTag22\n" {
			t.Errorf("tags object:\n%s", out)
		}
		if out := mustCLI(t, env, "tags", "create", "demo.cli_tag", "--comment", "made by the CLI", "--property", "a=b,c"); out != "created tag demo.cli_tag\n" {
			t.Errorf("tags create:\n%s", out)
		}
		out := mustCLI(t, env, "tags", "get", "cli_tag")
		if !strings.Contains(out, "comment:     made by the CLI") || !strings.Contains(out, "properties:  a=b,c") {
			t.Errorf("tags get:\n%s", out)
		}
		if out := mustCLI(t, env, "tags", "associate", "table", "hr.people.employees", "--add", "cli_tag", "--remove", "Tag22"); out != "NAME\nTag1\ncli_tag\n" {
			t.Errorf("tags associate:\n%s", out)
		}
		sameJSON(t, "tags object --json", mustCLI(t, env, "tags", "object", "--json", "table", "demo.hr.people.employees"), map[string]any{"names": []any{"Tag1", "cli_tag"}})
		out = mustCLI(t, env, "metadata", "table", "hr.people.employees")
		for _, want := range []string{"system  entity-type    table", "user    Codename       Alpha Tango Charlie", "user    tags           Tag1, cli_tag"} {
			if !strings.Contains(out, want) {
				t.Errorf("metadata does not show %q:\n%s", want, out)
			}
		}
		_, md := rest.ok("GET", "/api/metalakes/demo/objects/table/hr.people.employees/metadata", "")
		sameJSON(t, "metadata --json", mustCLI(t, env, "metadata", "--json", "table", "hr.people.employees"), md["metadata"])
		if out := mustCLI(t, env, "tags", "drop", "cli_tag"); out != "dropped tag demo.cli_tag\n" {
			t.Errorf("tags drop:\n%s", out)
		}
		mustCLI(t, env, "tags", "associate", "table", "hr.people.employees", "--add", "Tag22")
		code, _, errOut := runCLI(env, "tags", "drop", "cli_tag")
		if code != exitNotFound || errOut != "semcat: tag 'cli_tag' does not exist in metalake 'demo'\n" {
			t.Errorf("dropping a missing tag: exit %d, %q", code, errOut)
		}
	})

	t.Run("reindex and status", func(t *testing.T) {
		out := mustCLI(t, env, "reindex")
		if !strings.HasPrefix(out, "rebuilt the search index of "+m.URL()+" in ") {
			t.Errorf("reindex:\n%s", out)
		}
		var took struct {
			TookMs *int64 `json:"tookMs"`
		}
		if err := json.Unmarshal([]byte(mustCLI(t, env, "reindex", "--json")), &took); err != nil || took.TookMs == nil {
			t.Errorf("reindex --json: %v", err)
		}
		// The rebuilt index serves.
		if out := mustCLI(t, env, "search", "EmpTel"); !strings.Contains(out, "demo.hr.people.employees") {
			t.Errorf("search after reindex:\n%s", out)
		}
		out = mustCLI(t, env, "status")
		if !strings.Contains(out, "server:   "+m.URL()) || !strings.Contains(out, "ready:    yes") {
			t.Errorf("status:\n%s", out)
		}
	})

	t.Run("errors", func(t *testing.T) {
		tests := []struct {
			args   []string
			code   int
			stderr string // the last line of stderr
		}{
			{[]string{"tables", "get", "hr.people.nope"}, exitNotFound, "semcat: table 'demo.hr.people.nope' does not exist"},
			{[]string{"metrics", "demo.warehouse.nope"}, exitNotFound, "semcat: schema 'demo.warehouse.nope' does not exist"},
			{[]string{"models", "get", "warehouse.sales.nope"}, exitNotFound, "semcat: semantic model 'demo.warehouse.sales.nope' does not exist"},
			{[]string{"search", "--", "-x"}, exitUsage, "semcat: query: no positive term (every term is excluded) at position 0"},
			{[]string{"search", "x", "--type", "volume"}, exitUsage, `semcat: --type: unknown type "volume" (want catalog, schema, table, semantic_model, metric)`},
			{[]string{"tables", "get", "people.employees"}, exitUsage, "semcat: 'people.employees': want metalake.catalog.schema.table (the metalake may be left out)"},
			{[]string{"tables", "get", "demo.hr.people.*"}, exitUsage, "semcat: 'demo.hr.people.*': name: '*' is a reserved name"},
			{[]string{"tables", "drop", "x"}, exitUsage, `semcat: tables: unknown subcommand "drop" (want get, list)`},
			{[]string{"tables", "get"}, exitUsage, "semcat: tables get: wrong number of arguments"},
			{[]string{"search"}, exitUsage, "semcat: search: wrong number of arguments"},
			{[]string{"search", "x", "--no-such-flag"}, exitUsage, "semcat: unknown flag --no-such-flag"},
			{[]string{"tags", "object", "volume", "a.b"}, exitUsage, `semcat: unknown object type "volume" (want catalog, schema, semantic_model, table)`},
			{[]string{"search", "x", "--user", "u", "--token", "t"}, exitUsage, "semcat: give --user or --token, not both"},
			{[]string{"bogus"}, exitUsage, `semcat: unknown command "bogus" (semcat help lists them)`},
			{[]string{"--server", "http://127.0.0.1:1", "status"}, exitError, `(is semcat serve running there? set --server or SEMCAT_URL)`},
			{[]string{"--json", "serve"}, exitUsage, "semcat: serve takes no --server, --user, --token, --metalake or --json"},
		}
		for _, tt := range tests {
			code, out, errOut := runCLI(env, tt.args...)
			lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
			if code != tt.code || !strings.HasSuffix(lines[len(lines)-1], tt.stderr) || out != "" {
				t.Errorf("semcat %s: exit %d, stdout %q, stderr:\n%s\nwant exit %d and %q", strings.Join(tt.args, " "), code, out, errOut, tt.code, tt.stderr)
			}
		}
		if code, out, _ := runCLI(env, "search", "--help"); code != 0 || !strings.HasPrefix(out, "search the metadata") || !strings.Contains(out, "usage: semcat search [flags] <query>...") || !strings.Contains(out, "--facets a,b") {
			t.Errorf("search --help: exit %d, stdout:\n%s", code, out)
		}
	})

	// A second server on the same database, with authentication and
	// authorization: credentials come from flags or the environment.
	secure := testConfig(t)
	secure.DatabaseURL = m.pg.URL("semcat")
	secure.Auth = "simple"
	secure.Authorization = true
	secure.ServiceAdmins = []string{"admin"}
	m2 := startMain(t, secure)
	t.Run("authentication", func(t *testing.T) {
		env := map[string]string{"SEMCAT_URL": m2.URL()}
		code, _, errOut := runCLI(env, "tags", "list", "demo")
		if code != exitError || !strings.Contains(errOut, "missing Authorization header") {
			t.Errorf("without a user: exit %d, %s", code, errOut)
		}
		code, _, errOut = runCLI(env, "reindex", "--user", "bob")
		if code != exitError || errOut != "semcat: only service admins may rebuild the search index\n" {
			t.Errorf("reindex as bob: exit %d, %s", code, errOut)
		}
		mustCLI(t, env, "reindex", "--user", "admin")
		// The demo was loaded by the anonymous user of the first server,
		// who owns it; a service admin sees nothing in it.
		if out := mustCLI(t, env, "search", "EmpTel", "--user", "admin"); out != "no results in metalake demo\n" {
			t.Errorf("search as admin:\n%s", out)
		}
		env["SEMCAT_USER"] = "anonymous"
		if out := mustCLI(t, env, "--metalake", "demo", "search", "EmpTel"); !strings.Contains(out, "demo.hr.people.employees") {
			t.Errorf("search as the owner:\n%s", out)
		}
	})
}

// TestMCPOverClient serves the MCP tools from the REST client, as `semcat
// mcp` does over stdio, and compares their answers with the REST API's.
func TestMCPOverClient(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Demo = true
	m := startMain(t, cfg)
	rest := client{t: t, base: m.URL()}
	c, err := apiclient.New(m.URL())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	serverT, clientT := mcp.NewInMemoryTransports()
	server := mcpserver.NewServer(mcpserver.Services{Metrics: c, Search: c, Catalogs: c, Schemas: c, Tables: c, Models: c, Tags: c}, mcpserver.Config{DefaultMetalake: "demo"})
	ss, err := server.Connect(semcat.NewContextWithUser(ctx, "anonymous"), serverT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer ss.Close()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, clientT, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
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
	args := map[string]any{"catalog": "warehouse", "schema": "main"}
	const discovery = "/api/metalakes/demo/catalogs/warehouse/schemas/main/semantic-model-metrics"
	_, ids := rest.ok("GET", discovery, "")
	sameJSON(t, "list_metrics", mustJSON(t, call("list_metrics", args)["identifiers"]), ids["identifiers"])
	// The definitions are more than one result holds (64 KB): paged.
	_, infos := rest.ok("GET", discovery+"?details=true", "")
	var paged []any
	for cursor := ""; ; {
		a := map[string]any{"catalog": "warehouse", "schema": "main"}
		if cursor != "" {
			a["cursor"] = cursor
		}
		page := call("list_metric_infos", a)
		paged = append(paged, page["metrics"].([]any)...)
		if cursor, _ = page["cursor"].(string); cursor == "" {
			break
		}
	}
	sameJSON(t, "list_metric_infos", mustJSON(t, paged), infos["metrics"])
	restSearch, _ := rest.search("demo", url.Values{"query": {"EmpTel"}})
	got := call("search", map[string]any{"query": "EmpTel"})
	sameJSON(t, "search", mustJSON(t, got["results"]), restSearch["results"])
}

func mustJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func TestProgressLine(t *testing.T) {
	tests := []struct {
		done, total int64
		want        string
	}{
		{0, 0, "⠋ rebuilding 12s"},
		{0, 200, "⠋ rebuilding [░░░░░░░░░░░░░░░░░░░░░░░░░░░░░░]   0% 0/200 12s"},
		{50, 200, "⠋ rebuilding [███████░░░░░░░░░░░░░░░░░░░░░░░]  25% 50/200 12s"},
		{250, 200, "⠋ rebuilding [██████████████████████████████] 100% 250/200 12s"},
	}
	for _, tt := range tests {
		if got := progressLine('⠋', "rebuilding", tt.done, tt.total, 12500*time.Millisecond); got != tt.want {
			t.Errorf("progressLine(%d, %d) = %q, want %q", tt.done, tt.total, got, tt.want)
		}
	}
}

// TestImport loads a JSON Lines file of entities through semcat import:
// parents before children, tags attached, existing entities skipped on a
// second run with --skip-existing and failing without it, and a bad line
// named by its number with nothing after it sent.
func TestImport(t *testing.T) {
	t.Parallel()
	m := startMain(t, testConfig(t))
	env := map[string]string{"SEMCAT_URL": m.URL()}
	rest := client{t: t, base: m.URL()}
	var lines []string
	add := func(typ, ns, entity string, tags ...string) {
		l := fmt.Sprintf(`{"type":%q,"namespace":%q,"entity":%s`, typ, ns, entity)
		if len(tags) > 0 {
			tb, _ := json.Marshal(tags)
			l += `,"tags":` + string(tb)
		}
		lines = append(lines, l+"}")
	}
	add("metalake", "", `{"name":"lake"}`)
	add("tag", "lake", `{"name":"pii"}`)
	add("catalog", "lake", `{"name":"wh","type":"relational"}`)
	add("schema", "lake.wh", `{"name":"sales"}`, "pii")
	for i := range 12 {
		add("table", "lake.wh.sales", fmt.Sprintf(`{"name":"t%d","columns":[{"name":"EmpTel","type":"integer"}]}`, i))
	}
	add("table", "lake.wh.sales", `{"name":"orders","comment":"order lines","columns":[{"name":"id","type":"long"}]}`, "pii")
	file := filepath.Join(t.TempDir(), "catalog.jsonl")
	if err := os.WriteFile(file, []byte(strings.Join(lines, "\n")+"\n\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	out := mustCLI(t, env, "import", "--concurrency", "3", file)
	if !strings.HasPrefix(out, "imported 17 entities (0 skipped as existing)") {
		t.Errorf("import: %q", out)
	}
	if got := okBody(rest.ok("GET", "/api/metalakes/lake/catalogs/wh/schemas/sales/tables", "")); len(got["identifiers"].([]any)) != 13 {
		t.Errorf("tables after the import: %v", got)
	}
	tags := okBody(rest.ok("GET", "/api/metalakes/lake/objects/table/wh.sales.orders/tags", ""))
	if fmt.Sprint(tags["names"]) != "[pii]" {
		t.Errorf("tags of the imported orders table: %v", tags)
	}

	// Again: everything exists.
	code, _, errOut := runCLI(env, "import", file)
	if code != exitError || !strings.Contains(errOut, "line 1:") || !strings.Contains(errOut, "lake") {
		t.Errorf("second import without --skip-existing: exit %d, %q", code, errOut)
	}
	// A rerun with --skip-existing completes what is missing: a tag taken
	// off an existing table is attached again.
	rest.ok("POST", "/api/metalakes/lake/objects/table/wh.sales.orders/tags", `{"tagsToRemove":["pii"]}`)
	out = mustCLI(t, env, "import", "--skip-existing", "--json", file)
	var stats importStats
	if err := json.Unmarshal([]byte(out), &stats); err != nil || stats.Created != 0 || stats.Skipped != 17 {
		t.Errorf("import --skip-existing --json: %q (%v)", out, err)
	}
	if tags := okBody(rest.ok("GET", "/api/metalakes/lake/objects/table/wh.sales.orders/tags", "")); fmt.Sprint(tags["names"]) != "[pii]" {
		t.Errorf("tags of orders after the rerun: %v", tags)
	}

	// Tables of one schema go in batches, all or none: a table that exists
	// fails its batch, named by its line, and the new tables beside it are
	// not created.
	again := filepath.Join(t.TempDir(), "again.jsonl")
	content := `{"type":"table","namespace":"lake.wh.sales","entity":{"name":"new1","columns":[]},"tags":["pii"]}
{"type":"table","namespace":"lake.wh.sales","entity":{"name":"new2","columns":[]}}
{"type":"table","namespace":"lake.wh.sales","entity":{"name":"t5","columns":[]}}
`
	if err := os.WriteFile(again, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(env, "import", again)
	if code != exitError || !strings.Contains(errOut, "line 3: name: table 'lake.wh.sales.t5' already exists") {
		t.Errorf("batch with an existing table: exit %d, %q", code, errOut)
	}
	if got := okBody(rest.ok("GET", "/api/metalakes/lake/catalogs/wh/schemas/sales/tables", "")); len(got["identifiers"].([]any)) != 13 {
		t.Errorf("tables after the failed batch: %v", got)
	}

	// A bad line stops the import there, naming the line.
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	content = `{"type":"catalog","namespace":"lake","entity":{"name":"c2","type":"relational"}}
{"type":"schema","namespace":"lake.c2","entity":{"name":"s","colour":"red"}}
{"type":"schema","namespace":"lake.c2","entity":{"name":"never"}}
`
	if err := os.WriteFile(bad, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, errOut = runCLI(env, "import", bad)
	if code != exitError || !strings.Contains(errOut, `line 2: entity: json: unknown field "colour"`) {
		t.Errorf("bad line: exit %d, %q", code, errOut)
	}
	if got := okBody(rest.ok("GET", "/api/metalakes/lake/catalogs/c2/schemas", "")); len(got["identifiers"].([]any)) != 0 {
		t.Errorf("schemas created despite the bad line: %v", got)
	}
	code, _, errOut = runCLI(env, "import", filepath.Join(t.TempDir(), "missing.jsonl"))
	if code != exitError || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing file: exit %d, %q", code, errOut)
	}
}

// okBody returns the body of a client.ok answer.
func okBody(_ http.Header, body map[string]any) map[string]any { return body }
