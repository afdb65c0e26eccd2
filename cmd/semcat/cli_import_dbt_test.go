package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportDBT runs `semcat import dbt` against a live server with the
// real dbt 1.8 artifacts of connectors/dbt/testdata: dry run, import, a repeat that writes
// nothing, --json, and the exit codes of a partial import.
func TestImportDBT(t *testing.T) {
	t.Parallel()
	m := startMain(t, testConfig(t))
	env := map[string]string{"SEMCAT_URL": m.URL()}
	rest := client{t: t, base: m.URL()}
	rest.ok("POST", "/api/metalakes", `{"name":"lake"}`)
	dir := filepath.Join("..", "..", "connectors", "dbt", "testdata", "dbt-metric-utils-1.8")

	if code, _, errOut := runCLI(env, "import", "dbt", dir); code != exitUsage || !strings.Contains(errOut, "--catalog is required") {
		t.Errorf("without --catalog: exit %d, %q", code, errOut)
	}
	out := mustCLI(t, env, "import", "dbt", dir, "--catalog", "wh", "--dry-run")
	for _, want := range []string{"dbt project jaffle_shop (dbt 1.8.6, semantic layer: measures (dbt before 1.12)) into lake.wh",
		"  would create catalog wh\n", "  would create table main.orders\n", "  would create semantic model main.order_item (9 metrics)\n",
		"31 changes would be made (dry run: nothing written)", "skipped saved query revenue_metrics: semcat has no saved queries"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run output lacks %q:\n%s", want, out)
		}
	}
	if st, _, _ := rest.do("GET", "/api/metalakes/lake/catalogs/wh", ""); st != 404 {
		t.Errorf("a dry run created the catalog: %d", st)
	}

	out = mustCLI(t, env, "import", "dbt", dir, "--catalog", "wh", "--metalake", "lake")
	if !strings.Contains(out, "  create semantic model main.orders (7 metrics)\n") ||
		!strings.Contains(out, "22 tables, 6 semantic models, 19 metrics: 31 changes, 0 unchanged") {
		t.Errorf("import output:\n%s", out)
	}
	_, body := rest.ok("GET", "/api/metalakes/lake/catalogs/wh/schemas/main/semantic-model-metrics", "")
	if ms, _ := body["identifiers"].([]any); len(ms) != 19 {
		t.Errorf("schema metrics after import: %v", body)
	}

	out = mustCLI(t, env, "--json", "import", "dbt", dir, "--catalog", "wh")
	var res struct {
		Actions   []any `json:"actions"`
		Unchanged int   `json:"unchanged"`
		Metrics   int   `json:"metrics"`
	}
	if err := json.Unmarshal([]byte(out), &res); err != nil || len(res.Actions) != 0 || res.Unchanged != 28 || res.Metrics != 19 {
		t.Errorf("repeat --json: %v %+v\n%s", err, res, out)
	}

	// An aggregation semcat does not know: the rest is imported, the metric
	// is named, and the exit code says so unless --allow-partial.
	bad := t.TempDir()
	for _, f := range []string{"manifest.json", "catalog.json", "semantic_manifest.json"} {
		b, err := os.ReadFile(filepath.Join(dir, f))
		if err != nil {
			t.Fatal(err)
		}
		if f == "semantic_manifest.json" {
			b = []byte(strings.Replace(string(b), `"agg": "median"`, `"agg": "mode"`, 1))
		}
		if err := os.WriteFile(filepath.Join(bad, f), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, out, errOut := runCLI(env, "import", "dbt", bad, "--catalog", "wh")
	if code != exitError || !strings.Contains(errOut, "not imported: metric median_revenue: unknown aggregation 'mode'") ||
		!strings.Contains(errOut, "1 item was not imported (named above); --allow-partial accepts a partial import") {
		t.Errorf("partial import: exit %d\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	code, _, errOut = runCLI(env, "import", "dbt", bad, "--catalog", "wh", "--allow-partial")
	if code != 0 || !strings.Contains(errOut, "not imported: metric median_revenue") {
		t.Errorf("--allow-partial: exit %d, stderr %q", code, errOut)
	}
}
