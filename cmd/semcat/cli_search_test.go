package main

import (
	"net/url"
	"slices"
	"strings"
	"testing"
)

// TestSearchOwnerFlag: semcat search --owner filters by owner (repeatable:
// any of them), --catalog and --schema repeat as the REST parameters do,
// owner is a facet, and --owner, --catalog and --schema complete their
// values from the facets of what the user may see.
func TestSearchOwnerFlag(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Demo = true
	m := startMain(t, cfg)
	rest := client{t: t, base: m.URL()}
	env := map[string]string{"SEMCAT_URL": m.URL()}
	rest.ok("POST", "/api/metalakes/demo/users", `{"name":"ann"}`)
	hdr, _ := rest.ok("PUT", "/api/metalakes/demo/owners/table/hr.people.employees", `{"name":"ann","type":"USER"}`)
	rest.search("demo", url.Values{"query": {"*"}, "minPosition": {hdr.Get("X-Semcat-Position")}})

	out := mustCLI(t, env, "search", "*", "--owner", "ann")
	want := [][]string{{"TYPE", "IDENTIFIER", "SCORE", "MATCHED"}, {"table", "demo.hr.people.employees", "0.00"}}
	if got := rows(out); !slices.EqualFunc(got, want, slices.Equal) {
		t.Errorf("semcat search '*' --owner ann:\n%s", out)
	}
	if out := mustCLI(t, env, "search", "*", "--owner", "nobody"); out != "no results in metalake demo\n" {
		t.Errorf("--owner nobody: %q", out)
	}
	// Repeated: any of the owners, catalogs and schemas; --json is REST's answer.
	args := []string{"search", "--json", "*", "--owner", "ann", "--owner", "anonymous", "--catalog", "hr", "--catalog", "warehouse",
		"--schema", "people", "--schema", "main", "--type", "table", "--facets", "owner", "--limit", "100"}
	out = mustCLI(t, env, args...)
	wantJSON, ids := rest.search("demo", url.Values{"query": {"*"}, "owner": {"ann", "anonymous"}, "catalog": {"hr", "warehouse"},
		"schema": {"people", "main"}, "type": {"table"}, "facets": {"owner"}, "limit": {"100"}})
	if !slices.Contains(ids, "table:demo.hr.people.employees") || len(ids) < 2 {
		t.Errorf("REST: %v", ids)
	}
	sameJSON(t, "search --owner --owner --json", out, wantJSON)
	out = mustCLI(t, env, "search", "*", "--facets", "owner")
	if !slices.ContainsFunc(rows(out), func(r []string) bool { return slices.Equal(r, []string{"owner", "ann", "1"}) }) {
		t.Errorf("the owner facet:\n%s", out)
	}

	for _, c := range []struct {
		flag, typed string
		want        []string
	}{
		{"--owner", "an", []string{"ann", "anonymous"}},
		{"--catalog", "w", []string{"warehouse"}},
		{"--schema", "peo", []string{"people"}},
	} {
		code, out, _ := runCLI(env, "__complete", "search", "x", c.flag, c.typed)
		if code != 0 {
			t.Fatalf("completing %s %s: exit %d", c.flag, c.typed, code)
		}
		var got []string
		for _, line := range strings.Split(strings.TrimSpace(out), "\n") {
			if !strings.HasPrefix(line, ":") && !strings.HasPrefix(line, "Completion ended") {
				got = append(got, line)
			}
		}
		slices.Sort(got)
		if !slices.Equal(got, c.want) {
			t.Errorf("completing %s %s: %q, want %v", c.flag, c.typed, got, c.want)
		}
	}
}
