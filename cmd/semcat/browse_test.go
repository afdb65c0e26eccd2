package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// facetValues returns a facet of a search answer as value → count.
func facetValues(out map[string]any, facet string) map[string]float64 {
	got := map[string]float64{}
	fs, _ := out["facets"].(map[string]any)
	vs, _ := fs[facet].([]any)
	for _, v := range vs {
		m := v.(map[string]any)
		got[m["value"].(string)] = m["count"].(float64)
	}
	return got
}

// TestOwnersInSearchMetadataAndCLI: the owner of an object (its creator,
// then whoever PUT …/owners names) is in its search results' system
// metadata, in GET …/metadata, filters and facets searches, and shows in
// the CLI's tables get and models get (SPEC §2.6, §2.8).
func TestOwnersInSearchMetadataAndCLI(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Auth = "simple"
	m := startMain(t, cfg)
	admin := client{t: t, base: m.URL(), user: "admin"}
	admin.ok("POST", "/api/metalakes", `{"name":"m"}`)
	admin.ok("POST", "/api/metalakes/m/users", `{"name":"alice"}`)
	admin.ok("POST", "/api/metalakes/m/users", `{"name":"bob"}`)
	admin.ok("POST", "/api/metalakes/m/catalogs", `{"name":"rel","type":"relational"}`)
	admin.ok("POST", "/api/metalakes/m/catalogs/rel/schemas", `{"name":"s"}`)
	for _, name := range []string{"people", "orders"} {
		admin.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s/tables", `{"name":"`+name+`","columns":[{"name":"id","type":"long"}]}`)
	}
	admin.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s/semantic-models", `{"name":"sales","definition":{"datasets":[
		{"name":"orders","source":{"namespace":["rel","s"],"name":"orders"},"fields":[{"name":"id","datatype":"Integer","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"id"}]}}]}],
		"metrics":[{"name":"order_count","datatype":"Integer","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"COUNT(*)"}]}}]}}`)
	admin.ok("PUT", "/api/metalakes/m/owners/table/rel.s.people", `{"name":"alice","type":"USER"}`)
	hdr, _ := admin.ok("PUT", "/api/metalakes/m/owners/semantic_model/rel.s.sales", `{"name":"alice","type":"USER"}`)
	pos := hdr.Get("X-Semcat-Position")

	owners := func(params url.Values) map[string]string {
		t.Helper()
		params.Set("minPosition", pos)
		out, ids := admin.search("m", params)
		got := map[string]string{}
		for i, r := range out["results"].([]any) {
			sys := r.(map[string]any)["metadata"].(map[string]any)["system"].(map[string]any)["properties"].(map[string]any)
			o, _ := sys["owner"].(string)
			got[ids[i]] = o
		}
		return got
	}
	want := map[string]string{
		"catalog:m.rel": "admin", "schema:m.rel.s": "admin", "table:m.rel.s.people": "alice", "table:m.rel.s.orders": "admin",
		"semantic_model:m.rel.s.sales": "alice", "metric:m.rel.s.sales.order_count": "alice", // a metric has its model's owner
	}
	if got := owners(url.Values{"query": {"*"}, "limit": {"100"}}); !maps(got, want) {
		t.Errorf("owners in search results: %v, want %v", got, want)
	}
	// The owner is a filter (any of several values) and a facet.
	got := owners(url.Values{"query": {"*"}, "owner": {"alice"}})
	if len(got) != 3 || got["table:m.rel.s.people"] != "alice" {
		t.Errorf("owner=alice: %v", got)
	}
	if got := owners(url.Values{"query": {"*"}, "owner": {"alice", "admin"}}); len(got) != 6 {
		t.Errorf("owner=alice&owner=admin: %v, want all 6", got)
	}
	out, _ := admin.search("m", url.Values{"query": {"*"}, "owner": {"alice"}, "facets": {"owner,type"}, "minPosition": {pos}})
	// The owner facet counts leave out the owner filter (multi-select);
	// the type facet counts within it.
	if f := facetValues(out, "owner"); f["alice"] != 3 || f["admin"] != 3 {
		t.Errorf("owner facet with owner=alice: %v, want alice 3, admin 3", f)
	}
	if f := facetValues(out, "type"); f["table"] != 1 || f["metric"] != 1 || f["catalog"] != 0 {
		t.Errorf("type facet with owner=alice: %v", f)
	}
	// A change of owner reaches the index.
	hdr, _ = admin.ok("PUT", "/api/metalakes/m/owners/table/rel.s.people", `{"name":"bob","type":"USER"}`)
	pos = hdr.Get("X-Semcat-Position")
	if got := owners(url.Values{"query": {"people"}, "type": {"table"}}); got["table:m.rel.s.people"] != "bob" {
		t.Errorf("after the owner changed back: %v", got)
	}
	hdr, _ = admin.ok("PUT", "/api/metalakes/m/owners/table/rel.s.people", `{"name":"alice","type":"USER"}`)
	pos = hdr.Get("X-Semcat-Position")

	_, md := admin.ok("GET", "/api/metalakes/m/objects/table/rel.s.people/metadata", "")
	if o := md["metadata"].(map[string]any)["system"].(map[string]any)["properties"].(map[string]any)["owner"]; o != "alice" {
		t.Errorf("GET …/metadata: system owner %v, want alice", o)
	}

	env := map[string]string{"SEMCAT_URL": m.URL(), "SEMCAT_USER": "admin"}
	for _, tc := range []struct{ args []string }{{[]string{"tables", "get", "m.rel.s.people"}}, {[]string{"models", "get", "m.rel.s.sales"}}} {
		out := mustCLI(t, env, tc.args...)
		found := false
		for _, r := range rows(out) {
			if len(r) == 2 && r[0] == "owner:" && r[1] == "alice" {
				found = true
			}
		}
		if !found {
			t.Errorf("semcat %s: no owner line:\n%s", strings.Join(tc.args, " "), out)
		}
	}
	if out := mustCLI(t, env, "tables", "get", "m.rel.s.orders"); !strings.Contains(out, "owner:") || !strings.Contains(out, "admin") {
		t.Errorf("semcat tables get m.rel.s.orders: no owner admin:\n%s", out)
	}
}

func maps(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// TestFacetsTakeSeveralValues: values of one filter are alternatives, the
// filters all apply, a facet's counts leave out its own filter, and
// facetSize reaches 1,000 (SPEC §2.6).
func TestFacetsTakeSeveralValues(t *testing.T) {
	t.Parallel()
	c := startWithSchema(t)
	var last http.Header
	for i := range 14 {
		schema := fmt.Sprintf("s%02d", i)
		c.ok("POST", "/api/metalakes/m/catalogs/rel/schemas", `{"name":"`+schema+`"}`)
		last, _ = c.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/"+schema+"/tables", `{"name":"t","columns":[{"name":"id","type":"long"}]}`)
	}
	pos := last.Get("X-Semcat-Position")
	search := func(params url.Values) (map[string]any, []string) {
		params.Set("minPosition", pos)
		params.Set("limit", "100")
		return c.search("m", params)
	}

	// type=table&type=schema is either; schema= repeats too.
	out, ids := search(url.Values{"query": {"*"}, "type": {"table", "schema"}, "schema": {"s03", "s11"}, "facets": {"type,schema"}})
	slices.Sort(ids)
	if want := []string{"schema:m.rel.s03", "schema:m.rel.s11", "table:m.rel.s03.t", "table:m.rel.s11.t"}; !slices.Equal(ids, want) {
		t.Errorf("two types in two schemas: %v, want %v", ids, want)
	}
	// The type facet counts every type in the two schemas; the schema
	// facet every schema of the two types.
	if f := facetValues(out, "type"); f["table"] != 2 || f["schema"] != 2 {
		t.Errorf("type facet: %v", f)
	}
	if f := facetValues(out, "schema"); len(f) != 10 || f["s03"] != 2 {
		t.Errorf("schema facet (10 values): %v", f)
	}
	// Choosing one type keeps the others in its facet.
	out, _ = search(url.Values{"query": {"*"}, "type": {"table"}, "facets": {"type"}})
	if f := facetValues(out, "type"); f["table"] != 14 || f["schema"] != 15 || f["catalog"] != 1 {
		t.Errorf("type facet with type=table: %v, want table 14, schema 15, catalog 1", f)
	}
	if out["total"].(float64) != 14 {
		t.Errorf("type=table: total %v", out["total"])
	}
	// facetSize up to 1,000 reaches past the first 10 values.
	out, _ = search(url.Values{"query": {"*"}, "facets": {"schema"}, "facetSize": {"1000"}})
	if f := facetValues(out, "schema"); len(f) != 15 {
		t.Errorf("schema facet with facetSize=1000: %d values, want 15", len(f))
	}
	for _, bad := range []string{"1001", "0", "x"} {
		status, _, body := c.do("GET", "/api/metalakes/m/search?query=*&facets=schema&facetSize="+bad, "")
		if status != 400 || !strings.Contains(fmt.Sprint(body["message"]), "facetSize") {
			t.Errorf("facetSize=%s: %d %v, want 400 naming facetSize", bad, status, body)
		}
	}
	status, _, body := c.do("GET", "/api/metalakes/m/search?query=*&facets=owner,nope", "")
	if status != 400 || !strings.Contains(fmt.Sprint(body["message"]), "facets") {
		t.Errorf("facets=nope: %d %v", status, body)
	}
	// A cursor is a cursor of its filters, as a set.
	out, _ = c.search("m", url.Values{"query": {"*"}, "schema": {"s01", "s02"}, "limit": {"1"}, "minPosition": {pos}, "sort": {"name"}})
	cur, _ := out["cursor"].(string)
	if cur == "" {
		t.Fatal("no cursor")
	}
	if _, ids := c.search("m", url.Values{"query": {"*"}, "schema": {"s02", "s01"}, "limit": {"1"}, "sort": {"name"}, "cursor": {cur}}); len(ids) != 1 {
		t.Errorf("the cursor with the schemas in another order: %v", ids)
	}
	if status, _, _ := c.do("GET", "/api/metalakes/m/search?query=*&limit=1&sort=name&schema=s01&cursor="+url.QueryEscape(cur), ""); status != 400 {
		t.Errorf("the cursor under other filters: %d, want 400", status)
	}
}

// TestMatchesStayBrief: a page of 10 tables of 1,000 commented columns each,
// whose every column matches, names each key once, the columns by path and
// by name or comment, at most 20 matches a result of at most 256 characters
// each, and stays tens of kilobytes (SPEC §2.6).
func TestMatchesStayBrief(t *testing.T) {
	t.Parallel()
	c := startWithSchema(t)
	long := strings.Repeat("a customer contact detail kept for billing ", 10)
	var cols []string
	for i := range 1000 {
		cols = append(cols, fmt.Sprintf(`{"name":"contact_%04d","type":"string","comment":"%s %d"}`, i, long, i))
	}
	cols = append(cols, `{"name":"contact","type":{"type":"struct","fields":[{"name":"email","type":"string","nullable":true}]}}`)
	var last http.Header
	for i := range 10 {
		last, _ = c.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s/tables",
			fmt.Sprintf(`{"name":"wide_%d","comment":"Customer billing","properties":{"team":"customer care"},"columns":[%s]}`, i, strings.Join(cols, ",")))
	}
	pos := last.Get("X-Semcat-Position")

	req, _ := http.NewRequest("GET", c.base+"/api/metalakes/m/search?"+url.Values{"query": {"customer email wide_3"}, "limit": {"10"}, "minPosition": {pos}, "waitMs": {"30000"}}.Encode(), nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("search: %d %s", resp.StatusCode, raw)
	}
	if len(raw) >= 100<<10 {
		t.Errorf("a page of 10 tables of 1,000 columns is %d bytes, want tens of kilobytes", len(raw))
	}
	t.Logf("a page of 10 tables of 1,000 matching columns: %d bytes", len(raw))
	var out struct {
		Results []struct {
			Entity  struct{ Name string }
			Matches []struct{ Key, Field, Value, In string }
		}
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	if len(out.Results) != 10 {
		t.Fatalf("%d results", len(out.Results))
	}
	for _, r := range out.Results {
		if len(r.Matches) == 0 || len(r.Matches) > 20 {
			t.Errorf("%s: %d matches, want 1 to 20", r.Entity.Name, len(r.Matches))
		}
		keys := map[string]bool{}
		var email, comment bool
		for _, m := range r.Matches {
			if n := utf8.RuneCountInString(m.Value); n > 256 {
				t.Errorf("%s: match %s/%s is %d characters", r.Entity.Name, m.Key, m.Field, n)
			}
			k := m.Key + "\x00" + m.Field
			if keys[k] {
				t.Errorf("%s: %s %s twice", r.Entity.Name, m.Key, m.Field)
			}
			keys[k] = true
			switch {
			case m.Key == "entity-name" || m.Key == "schema":
				t.Errorf("%s: match %q repeats the name or the column list", r.Entity.Name, m.Key)
			case m.Key == "column" && m.Field == "contact.email":
				email = m.In == "name" && m.Value == "contact.email"
			case m.Key == "column" && m.In == "comment":
				comment = strings.HasPrefix(m.Field, "contact_") && strings.HasSuffix(m.Value, "…")
			}
		}
		if !email {
			t.Errorf("%s: no column match naming contact.email by name: %+v", r.Entity.Name, r.Matches)
		}
		if !comment {
			t.Errorf("%s: no column match by a (clipped) comment: %+v", r.Entity.Name, r.Matches)
		}
		if !keys["comment\x00"] || !keys["team\x00"] {
			t.Errorf("%s: the comment and the property team should come before the columns: %+v", r.Entity.Name, r.Matches)
		}
		if r.Entity.Name == "wide_3" && !keys["name\x00"] {
			t.Errorf("wide_3: no name match: %+v", r.Matches)
		}
	}
}
