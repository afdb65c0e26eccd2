package main

import (
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"
	"testing"
)

// TestSynonymsEndToEnd: a metalake's synonym sets (SPEC §2.6) apply to the
// next search with no reindex, on the server that wrote them and, through
// the outbox, on another; the metalake's owner (or a service admin)
// changes them, its members read them; bad sets are 400 naming the field;
// changes are audited.
func TestSynonymsEndToEnd(t *testing.T) {
	t.Parallel()
	cfg1 := testConfig(t)
	cfg1.Auth = "simple"
	cfg1.Authorization = true
	cfg1.ServiceAdmins = []string{"admin"}
	m1 := startMain(t, cfg1)
	cfg2 := testConfig(t)
	cfg2.Auth, cfg2.Authorization, cfg2.ServiceAdmins = cfg1.Auth, cfg1.Authorization, cfg1.ServiceAdmins
	cfg2.DatabaseURL = m1.pg.URL("semcat")
	m2 := startMain(t, cfg2)
	admin1 := client{t: t, base: m1.URL(), user: "admin"}
	admin2 := client{t: t, base: m2.URL(), user: "admin"}
	admin1.ok("POST", "/api/metalakes", `{"name":"m"}`)
	admin1.ok("POST", "/api/metalakes/m/catalogs", `{"name":"rel","type":"relational"}`)
	admin1.ok("POST", "/api/metalakes/m/catalogs/rel/schemas", `{"name":"s"}`)
	hdr, _ := admin1.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s/tables", `{"name":"glacier_events","columns":[{"name":"id","type":"long"}]}`)
	admin1.ok("POST", "/api/metalakes/m/users", `{"name":"bob"}`)

	find := func(c client, pos string) []string {
		t.Helper()
		params := url.Values{"query": {"ios"}}
		if pos != "" {
			params.Set("minPosition", pos)
		}
		_, ids := c.search("m", params)
		return ids
	}
	// Both servers have searched (and cached) the metalake without sets.
	pos := hdr.Get("X-Semcat-Position")
	if got := find(admin1, pos); len(got) != 0 {
		t.Fatalf("ios before any synonyms: %v", got)
	}
	if got := find(admin2, pos); len(got) != 0 {
		t.Fatalf("ios before any synonyms, second server: %v", got)
	}
	if _, out := admin1.ok("GET", "/api/metalakes/m/synonyms", ""); fmt.Sprint(out["synonyms"]) != "[]" {
		t.Errorf("GET synonyms of a metalake without any: %v", out)
	}

	hdr, out := admin1.ok("PUT", "/api/metalakes/m/synonyms", `{"synonyms":[["iOS","glacier"],["mau","monthly active users"]]}`)
	if hdr.Get("X-Semcat-Position") == "" || fmt.Sprint(out["synonyms"]) != "[[iOS glacier] [mau monthly active users]]" {
		t.Errorf("PUT synonyms: %v %v", hdr, out)
	}
	want := []string{"table:m.rel.s.glacier_events"}
	if got := find(admin1, ""); !slices.Equal(got, want) {
		t.Errorf("ios right after the change, same server: %v, want %v", got, want)
	}
	if got := find(admin2, hdr.Get("X-Semcat-Position")); !slices.Equal(got, want) {
		t.Errorf("ios on another server at the change's position: %v, want %v", got, want)
	}
	bob := client{t: t, base: m1.URL(), user: "bob"}
	if _, out := bob.ok("GET", "/api/metalakes/m/synonyms", ""); len(out["synonyms"].([]any)) != 2 {
		t.Errorf("a member reads the synonyms: %v", out)
	}
	if status, _, out := bob.do("PUT", "/api/metalakes/m/synonyms", `{"synonyms":[]}`); status != 403 {
		t.Errorf("a member who does not own the metalake changes its synonyms: %d %v", status, out)
	}
	tooMany := `["` + strings.Repeat(`a","`, 16) + `a"]`
	for body, field := range map[string]string{
		`{}`:                             "synonyms:",
		`{"synonyms":[["a",""]]}`:        "synonyms[0][1]",
		`{"synonyms":[["a"],[]]}`:        "synonyms[1]",
		`{"synonyms":[` + tooMany + `]}`: "synonyms[0]",
		`{"synonyms":[["` + strings.Repeat("x", 129) + `"]]}`: "synonyms[0][0]",
	} {
		status, _, out := admin1.do("PUT", "/api/metalakes/m/synonyms", body)
		if msg, _ := out["message"].(string); status != 400 || !strings.Contains(msg, field) {
			t.Errorf("PUT %s: %d %v, want 400 naming %s", body, status, out, field)
		}
	}
	// Cleared, the next search no longer finds it.
	admin1.ok("PUT", "/api/metalakes/m/synonyms", `{"synonyms":[]}`)
	if got := find(admin1, ""); len(got) != 0 {
		t.Errorf("ios after the sets were cleared: %v", got)
	}
	if events := auditEvents(t, cfg1.DataDir, "setSynonyms"); len(events) < 2 {
		t.Errorf("audited changes of the synonyms: %v", events)
	}
}

// TestSynonymsCommandLine drives semcat synonyms get|set.
func TestSynonymsCommandLine(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Demo = true
	m := startMain(t, cfg)
	env := map[string]string{"SEMCAT_URL": m.URL()}
	if out := mustCLI(t, env, "synonyms", "get"); out != "no synonyms in metalake demo\n" {
		t.Errorf("synonyms get before:\n%s", out)
	}
	if out := mustCLI(t, env, "synonyms", "set", "--set", "mau, monthly active users", "--set", "staff,employees"); out != "set 2 synonym sets in metalake demo\n" {
		t.Errorf("synonyms set:\n%s", out)
	}
	if out := mustCLI(t, env, "synonyms", "get", "demo"); out != "mau, monthly active users\nstaff, employees\n" {
		t.Errorf("synonyms get:\n%s", out)
	}
	file := t.TempDir() + "/synonyms.txt"
	if err := os.WriteFile(file, []byte("# sets\nios, glacier\n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, env, "synonyms", "set", "--file", file)
	sameJSON(t, "synonyms get --json", mustCLI(t, env, "synonyms", "get", "--json"), map[string]any{"synonyms": []any{[]any{"ios", "glacier"}}})
	code, _, errOut := runCLI(env, "synonyms", "set", "--set", strings.Repeat("x", 129))
	if code == 0 || !strings.Contains(errOut, "synonyms[0][0]") {
		t.Errorf("an entry too long: exit %d, %q", code, errOut)
	}
	if code, _, _ := runCLI(env, "synonyms", "set"); code == 0 {
		t.Error("synonyms set without sets succeeded")
	}
	mustCLI(t, env, "synonyms", "set", "--clear")
	if out := mustCLI(t, env, "synonyms", "get"); out != "no synonyms in metalake demo\n" {
		t.Errorf("synonyms get after --clear:\n%s", out)
	}
}
