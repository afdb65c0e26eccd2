package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/semcat/semcat/internal/localpg"
)

// client is a tiny HTTP client for end-to-end tests.
type client struct {
	t    *testing.T
	base string
	user string
}

func (c client) do(method, path, body string) (int, http.Header, map[string]any) {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.user != "" {
		req.SetBasicAuth(c.user, "x")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		c.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, resp.Header, out
}

func (c client) ok(method, path, body string) (http.Header, map[string]any) {
	c.t.Helper()
	status, hdr, out := c.do(method, path, body)
	if status != 200 {
		c.t.Fatalf("%s %s: %d %v", method, path, status, out)
	}
	return hdr, out
}

// search runs a search and returns the results' "type:namespace.name" ids.
func (c client) search(metalake string, params url.Values) (map[string]any, []string) {
	c.t.Helper()
	_, out := c.ok("GET", "/api/metalakes/"+metalake+"/search?"+params.Encode(), "")
	var ids []string
	for _, r := range out["results"].([]any) {
		e := r.(map[string]any)["entity"].(map[string]any)
		var ns []string
		for _, p := range e["namespace"].([]any) {
			ns = append(ns, p.(string))
		}
		ids = append(ids, fmt.Sprintf("%s:%s.%s", e["type"], strings.Join(ns, "."), e["name"]))
	}
	return out, ids
}

func startMain(t *testing.T, cfg Config) *Main {
	t.Helper()
	return startMainLogging(t, cfg, io.Discard)
}

// startMainLogging is startMain with semcat's log written to stderr.
func startMainLogging(t *testing.T, cfg Config, stderr io.Writer) *Main {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	m := NewMain(cfg, io.Discard, stderr)
	if err := m.Run(ctx); err != nil {
		m.Close(ctx)
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close(context.Background()) })
	return m
}

func testConfig(t *testing.T) Config {
	cfg := DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = tempDataDir(t)
	return cfg
}

// tempDataDir returns a fresh data directory whose managed PostgreSQL
// cluster is removed when the test ends: as root the cluster lives outside
// the directory (under /var/tmp) and would otherwise outlive it. Call it
// before starting a Main there, so the removal runs after the Main's Close.
func tempDataDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cluster, err := localpg.ClusterDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := os.RemoveAll(cluster); err != nil {
			t.Errorf("removing the test's PostgreSQL cluster: %v", err)
		}
	})
	return dir
}

// startWithSchema starts a server with metalake m, relational catalog rel
// and schema s, and returns a client of it.
func startWithSchema(t *testing.T) client {
	t.Helper()
	m := startMain(t, testConfig(t))
	c := client{t: t, base: m.URL()}
	c.ok("POST", "/api/metalakes", `{"name":"m"}`)
	c.ok("POST", "/api/metalakes/m/catalogs", `{"name":"rel","type":"relational"}`)
	c.ok("POST", "/api/metalakes/m/catalogs/rel/schemas", `{"name":"s"}`)
	return c
}

// TestSearchExamples runs the query examples of the design against a live
// server with the example catalog.
func TestSearchExamples(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Demo = true
	m := startMain(t, cfg)
	c := client{t: t, base: m.URL()}
	const employees = "table:demo.hr.people.employees"
	queries := []string{
		"Codename: Alpha Tango Charlie", "Codename: Alpha Tang*", "Codename: Alpha", "Codename: Tango", "Codename: Charlie", "Codename: Alp*",
		`"Alpha Tango Charlie"`, "Alpha*", `"Alpha Tan*"`, "Alpha", "Tango", "Charlie", "Alph*", "Tan*", "Ch*",
		"tags: Tag1", "tags: Tag*", "tag22", "tag2*",
		"EmpName", "EmpContact", "EmpTel", "EmpAddr", "Emp*",
		"schema: EmpName", "schema: EmpContact", "schema: EmpTel", "schema: EmpAddr", "schema: Emp*",
		"schema:EmpContact.EmpTel", "EmpTel:integer", "schema:EmpTel:integer", "codename:*", "properties:Codename",
	}
	for _, query := range queries {
		t.Run(query, func(t *testing.T) {
			_, got := c.search("demo", url.Values{"query": {query}, "limit": {"1000"}})
			found := false
			for _, id := range got {
				found = found || id == employees
			}
			if !found {
				t.Errorf("%q does not find %s: %v", query, employees, got)
			}
		})
	}

	// schema:* returns every entity with a schema and nothing else: the 15
	// tables and the 2 models (both have dataset fields).
	out, got := c.search("demo", url.Values{"query": {"schema:*"}, "limit": {"1000"}, "facets": {"type"}})
	tables, models := 0, 0
	for _, id := range got {
		switch {
		case strings.HasPrefix(id, "table:"):
			tables++
		case strings.HasPrefix(id, "semantic_model:"):
			models++
		default:
			t.Errorf("schema:* returned %s, which has no schema", id)
		}
	}
	if tables != 15 || models != 2 || out["total"] != 17.0 {
		t.Errorf("schema:* found %d tables and %d models (total %v), want 15 and 2", tables, models, out["total"])
	}

	// Matches say why: the field path for schema terms.
	out, _ = c.search("demo", url.Values{"query": {"schema:EmpTel"}})
	res := out["results"].([]any)[0].(map[string]any)
	if got := fmt.Sprint(res["matches"]); !strings.Contains(got, "EmpContact.EmpTel") {
		t.Errorf("matches of schema:EmpTel: %s", got)
	}
	if md := res["metadata"].(map[string]any); fmt.Sprint(md["user"].(map[string]any)["tags"]) != "[Tag1 Tag22]" {
		t.Errorf("metadata of the result: %v", md)
	}

	// Metrics are documents too, found by their expressions and dialects.
	_, got = c.search("demo", url.Values{"query": {"turnover"}, "type": {"metric"}})
	if len(got) != 1 || got[0] != "metric:demo.warehouse.sales.sales.total_revenue" {
		t.Errorf("metric search: %v", got)
	}

	// The metadata endpoint answers from PostgreSQL with the same shape.
	_, out = c.ok("GET", "/api/metalakes/demo/objects/table/hr.people.employees/metadata", "")
	md := out["metadata"].(map[string]any)
	if md["user"].(map[string]any)["properties"].(map[string]any)["Codename"] != "Alpha Tango Charlie" ||
		!strings.Contains(md["system"].(map[string]any)["properties"].(map[string]any)["schema"].(string), "EmpContact struct<EmpTel integer") {
		t.Errorf("metadata: %v", md)
	}

	// Facets count per value; a tag filter narrows.
	out, _ = c.search("demo", url.Values{"query": {"*"}, "facets": {"type,catalog"}, "tag": {"Tag1"}})
	if out["total"] != 1.0 || fmt.Sprint(out["facets"].(map[string]any)["type"]) != "[map[count:1 value:table]]" {
		t.Errorf("tag filter and facets: %v", out)
	}

	// Bad queries are 400 with the position.
	for _, bad := range []string{"", "-x", `"open`, strings.Repeat("a", 4097)} {
		status, _, out := c.do("GET", "/api/metalakes/demo/search?"+url.Values{"query": {bad}}.Encode(), "")
		if status != 400 || out["code"] != 1001.0 {
			t.Errorf("query %.20q: %d %v, want 400", bad, status, out)
		}
	}
}

// TestReadYourWrites: 200 write-then-search pairs with minPosition all see
// their write.
func TestReadYourWrites(t *testing.T) {
	t.Parallel()
	c := startWithSchema(t)
	for i := range 200 {
		probe := fmt.Sprintf("probe%d", i)
		hdr, _ := c.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s/tables",
			fmt.Sprintf(`{"name":"t%d","columns":[{"name":"a","type":"long"}],"properties":{"probe":"%s"}}`, i, probe))
		pos := hdr.Get("X-Semcat-Position")
		if pos == "" {
			t.Fatal("no position header")
		}
		out, got := c.search("m", url.Values{"query": {"probe:" + probe}, "minPosition": {pos}})
		if len(got) != 1 || got[0] != fmt.Sprintf("table:m.rel.s.t%d", i) {
			t.Fatalf("write %d not seen at position %s (index at %v): %v", i, pos, out["position"], got)
		}
	}
	// A position the index cannot reach in time: 503/1013, never a stale answer.
	status, _, out := c.do("GET", "/api/metalakes/m/search?"+url.Values{"query": {"*"}, "minPosition": {"tzzzzzz"}, "waitMs": {"50"}}.Encode(), "")
	if status != 503 || out["code"] != 1013.0 || out["results"] != nil {
		t.Errorf("unreachable position: %d %v, want 503/1013", status, out)
	}
	for _, bad := range []url.Values{{"query": {"*"}, "minPosition": {"nonsense"}}, {"query": {"*"}, "waitMs": {"30001"}}, {"query": {"*"}, "limit": {"1001"}}} {
		if status, _, out := c.do("GET", "/api/metalakes/m/search?"+bad.Encode(), ""); status != 400 {
			t.Errorf("%v: %d %v, want 400", bad, status, out)
		}
	}
}

// TestSearchVisibility: a user never sees an invisible entity — not in
// results, not in total, not in facet counts, not through cursors — with two
// users and DENY rules.
func TestSearchVisibility(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Auth = "simple"
	cfg.Authorization = true
	cfg.ServiceAdmins = []string{"admin"}
	m := startMain(t, cfg)
	admin := client{t: t, base: m.URL(), user: "admin"}
	admin.ok("POST", "/api/metalakes", `{"name":"m"}`)
	admin.ok("POST", "/api/metalakes/m/catalogs", `{"name":"rel","type":"relational"}`)
	for _, s := range []string{"open", "closed"} {
		admin.ok("POST", "/api/metalakes/m/catalogs/rel/schemas", `{"name":"`+s+`"}`)
		for i := range 5 {
			admin.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/"+s+"/tables",
				fmt.Sprintf(`{"name":"t%d","columns":[{"name":"shared_col","type":"long"}],"properties":{"topic":"common"}}`, i))
		}
	}
	admin.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/open/tables",
		`{"name":"secret","columns":[{"name":"shared_col","type":"long"}],"properties":{"topic":"common"}}`)
	for _, u := range []string{"alice", "bob"} {
		admin.ok("POST", "/api/metalakes/m/users", `{"name":"`+u+`"}`)
	}
	// alice: everything in rel except schema closed (DENY USE_SCHEMA) and
	// the table open.secret (DENY SELECT_TABLE).
	admin.ok("POST", "/api/metalakes/m/roles", `{"name":"r_alice","securableObjects":[
		{"fullName":"m","type":"METALAKE","privileges":[{"name":"USE_CATALOG","condition":"ALLOW"},{"name":"USE_SCHEMA","condition":"ALLOW"},{"name":"SELECT_TABLE","condition":"ALLOW"}]},
		{"fullName":"rel.closed","type":"SCHEMA","privileges":[{"name":"USE_SCHEMA","condition":"DENY"}]},
		{"fullName":"rel.open.secret","type":"TABLE","privileges":[{"name":"SELECT_TABLE","condition":"DENY"}]}]}`)
	admin.ok("PUT", "/api/metalakes/m/permissions/users/alice/grant", `{"roleNames":["r_alice"]}`)
	// bob: only schema closed.
	admin.ok("POST", "/api/metalakes/m/roles", `{"name":"r_bob","securableObjects":[
		{"fullName":"rel","type":"CATALOG","privileges":[{"name":"USE_CATALOG","condition":"ALLOW"}]},
		{"fullName":"rel.closed","type":"SCHEMA","privileges":[{"name":"USE_SCHEMA","condition":"ALLOW"},{"name":"SELECT_TABLE","condition":"ALLOW"}]}]}`)
	last, _ := admin.ok("PUT", "/api/metalakes/m/permissions/users/bob/grant", `{"roleNames":["r_bob"]}`)
	pos := last.Get("X-Semcat-Position")

	tests := []struct {
		user  string
		want  []string
		types map[string]float64
	}{
		{"admin", nil, map[string]float64{"table": 11}},
		{"alice", []string{"t0", "t1", "t2", "t3", "t4"}, map[string]float64{"table": 5}},
		{"bob", []string{"t0", "t1", "t2", "t3", "t4"}, map[string]float64{"table": 5}},
	}
	for _, tt := range tests {
		c := client{t: t, base: m.URL(), user: tt.user}
		params := url.Values{"query": {"common shared_col"}, "type": {"table"}, "facets": {"type,schema"}, "minPosition": {pos}, "limit": {"2"}, "sort": {"name"}}
		var all []string
		var first map[string]any
		for page := 0; page < 20; page++ {
			out, got := c.search("m", params)
			if first == nil {
				first = out
			}
			all = append(all, got...)
			cur, _ := out["cursor"].(string)
			if cur == "" {
				break
			}
			params.Set("cursor", cur)
			params.Del("minPosition")
		}
		if first["total"] != float64(len(all)) {
			t.Errorf("%s: total %v but %d results through cursors", tt.user, first["total"], len(all))
		}
		facets := first["facets"].(map[string]any)
		for _, f := range facets["type"].([]any) {
			fv := f.(map[string]any)
			if tt.types[fv["value"].(string)] != fv["count"] {
				t.Errorf("%s: facet %v, want %v", tt.user, fv, tt.types)
			}
		}
		for _, id := range all {
			if strings.HasSuffix(id, ".secret") && tt.user != "admin" {
				t.Errorf("%s sees %s", tt.user, id)
			}
			if tt.user == "alice" && strings.Contains(id, ".closed.") || tt.user == "bob" && strings.Contains(id, ".open.") {
				t.Errorf("%s sees %s", tt.user, id)
			}
		}
		if tt.want != nil {
			var names []string
			for _, id := range all {
				names = append(names, id[strings.LastIndex(id, ".")+1:])
			}
			if strings.Join(names, ",") != strings.Join(tt.want, ",") {
				t.Errorf("%s: got %v, want %v", tt.user, names, tt.want)
			}
		}
		// Schema facet counts only what the user sees.
		for _, f := range facets["schema"].([]any) {
			fv := f.(map[string]any)
			if tt.user == "alice" && fv["value"] == "closed" || tt.user == "bob" && fv["value"] == "open" {
				t.Errorf("%s: schema facet leaks %v", tt.user, fv)
			}
		}
	}

	// Type-ahead suggests only what the caller sees, too.
	for user, want := range map[string]string{
		"admin": "closed open rel secret t0 t0 t1 t1 t2 t2 t3 t3 t4 t4",
		"alice": "open rel t0 t1 t2 t3 t4",
		"bob":   "closed rel t0 t1 t2 t3 t4",
	} {
		c := client{t: t, base: m.URL(), user: user}
		var names []string
		for _, prefix := range []string{"t", "se", "o", "c", "r"} {
			_, out := c.ok("GET", "/api/metalakes/m/suggest?prefix="+prefix+"&limit=100", "")
			for _, sg := range out["suggestions"].([]any) {
				names = append(names, sg.(map[string]any)["entity"].(map[string]any)["name"].(string))
			}
		}
		slices.Sort(names)
		if got := strings.Join(names, " "); got != want {
			t.Errorf("%s's suggestions: %s, want %s", user, got, want)
		}
	}
	status, _, _ := client{t: t, base: m.URL(), user: "carol"}.do("GET", "/api/metalakes/m/suggest?prefix=t", "")
	if status != 404 {
		t.Errorf("suggest by a non-member: %d, want 404", status)
	}
}

// TestTwoServersConverge: two semcat processes pointed at one PostgreSQL,
// each with its own index, converge to the same search results — the read
// scale-out path.
func TestTwoServersConverge(t *testing.T) {
	t.Parallel()
	cfg1 := testConfig(t)
	m1 := startMain(t, cfg1)
	cfg2 := testConfig(t)
	cfg2.DatabaseURL = m1.pg.URL("semcat")
	m2 := startMain(t, cfg2)
	c1 := client{t: t, base: m1.URL()}
	c2 := client{t: t, base: m2.URL()}
	c1.ok("POST", "/api/metalakes", `{"name":"m"}`)
	c2.ok("POST", "/api/metalakes/m/catalogs", `{"name":"rel","type":"relational"}`)
	c1.ok("POST", "/api/metalakes/m/catalogs/rel/schemas", `{"name":"s"}`)
	for i := range 30 {
		c := []client{c1, c2}[i%2]
		c.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s/tables", fmt.Sprintf(`{"name":"t%d","columns":[{"name":"a","type":"long"}]}`, i))
		if i%7 == 0 {
			c.ok("DELETE", fmt.Sprintf("/api/metalakes/m/catalogs/rel/schemas/s/tables/t%d", i), "")
		}
	}
	hdr, _ := c2.ok("PUT", "/api/metalakes/m/catalogs/rel/schemas/s/tables/t1", `{"updates":[{"@type":"rename","newName":"renamed"}]}`)
	pos := hdr.Get("X-Semcat-Position")
	params := url.Values{"query": {"*"}, "limit": {"1000"}, "sort": {"name"}, "minPosition": {pos}}
	_, got1 := c1.search("m", params)
	_, got2 := c2.search("m", params)
	if strings.Join(got1, ",") != strings.Join(got2, ",") || len(got1) != 1+1+30-5 {
		t.Errorf("the servers disagree or miss entities:\n%v\n%v", got1, got2)
	}
}

// TestDateLikeValuesAreText: a property value that looks like a date or a
// time is text like any other (SPEC §5.2), found by key through its words,
// parts, prefixes and whole value; the system property creation-time too.
func TestDateLikeValuesAreText(t *testing.T) {
	t.Parallel()
	c := startWithSchema(t)
	hdr, _ := c.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s/tables",
		`{"name":"t","columns":[{"name":"a","type":"long"}],"properties":{"released":"2024-01-15","reviewed":"2025-03-02T10:04:05Z"}}`)
	pos := hdr.Get("X-Semcat-Position")
	year := fmt.Sprint(time.Now().UTC().Year())
	for _, query := range []string{
		"released:2024", "released:2024-01-15", `released:"2024-01-15"`, "released:2024*", "released:15",
		"reviewed:2025", `reviewed:"2025-03-02T10:04:05Z"`, "reviewed:2025-03*",
		"creation-time:" + year, "creation-time:" + year + "*",
	} {
		_, got := c.search("m", url.Values{"query": {query}, "type": {"table"}, "minPosition": {pos}})
		if len(got) != 1 || got[0] != "table:m.rel.s.t" {
			t.Errorf("%s: %v, want the table", query, got)
		}
	}
}

// TestTagsAgree checks SPEC §2.6: the tag filter, the tags facet and the
// tags: term mean the same tags, user and system (a metric's dialects),
// each facet value marked with its scope, and scope narrows all three.
func TestTagsAgree(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Demo = true
	m := startMain(t, cfg)
	c := client{t: t, base: m.URL()}
	total := func(p url.Values) float64 {
		out, _ := c.search("demo", p)
		return out["total"].(float64)
	}
	facet := func(p url.Values, value string) (count float64, scope string) {
		p.Set("facets", "tags")
		p.Set("facetSize", "100")
		out, _ := c.search("demo", p)
		for _, v := range out["facets"].(map[string]any)["tags"].([]any) {
			v := v.(map[string]any)
			if v["value"] == value {
				return v["count"].(float64), v["scope"].(string)
			}
		}
		return 0, ""
	}
	for _, tag := range []struct{ name, scope string }{{"ANSI_SQL", "system"}, {"Tag1", "user"}} {
		byTerm := total(url.Values{"query": {"tags:" + tag.name}})
		byFilter := total(url.Values{"query": {"*"}, "tag": {tag.name}})
		count, scope := facet(url.Values{"query": {"*"}}, tag.name)
		if byTerm == 0 || byTerm != byFilter || byTerm != count || scope != tag.scope {
			t.Errorf("%s: tags: term %v, tag filter %v, facet %v (scope %q, want %q)", tag.name, byTerm, byFilter, count, scope, tag.scope)
		}
		other := "user"
		if tag.scope == "user" {
			other = "system"
		}
		p := url.Values{"query": {"tags:" + tag.name}, "scope": {other}}
		f := url.Values{"query": {"*"}, "tag": {tag.name}, "scope": {other}}
		if n, m := total(p), total(f); n != 0 || m != 0 {
			t.Errorf("%s under scope %s: tags: term %v, filter %v, want 0", tag.name, other, n, m)
		}
		if n, _ := facet(url.Values{"query": {"*"}, "scope": {other}}, tag.name); n != 0 {
			t.Errorf("%s under scope %s: facet %v, want 0", tag.name, other, n)
		}
	}
}
