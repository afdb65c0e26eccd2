package main

import (
	"strings"
	"testing"
)

// TestPolicyCommandLine drives semcat policies against a server with the
// demo catalog.
func TestPolicyCommandLine(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Demo = true
	m := startMain(t, cfg)
	rest := client{t: t, base: m.URL()}
	env := map[string]string{"SEMCAT_URL": m.URL()}

	if out := mustCLI(t, env, "policies", "list"); out != "no policies in metalake demo\n" {
		t.Errorf("policies list before:\n%s", out)
	}
	if out := mustCLI(t, env, "policies", "create", "demo.retention", "--types", "CATALOG,TABLE", "--rules", `{"days":30}`,
		"--comment", "thirty days", "--property", "team=data"); out != "created policy demo.retention\n" {
		t.Errorf("policies create:\n%s", out)
	}
	mustCLI(t, env, "policies", "create", "masking", "--types", "TABLE", "--disabled")
	if out := mustCLI(t, env, "policies", "list"); out != "NAME\nmasking\nretention\n" {
		t.Errorf("policies list:\n%s", out)
	}
	out := mustCLI(t, env, "policies", "get", "retention")
	for _, want := range []string{"type:          custom", "enabled:       true", "object types:  catalog, table", `rules:         {"days":30}`, "properties:    team=data"} {
		if !strings.Contains(out, want) {
			t.Errorf("policies get does not show %q:\n%s", want, out)
		}
	}
	_, p := rest.ok("GET", "/api/metalakes/demo/policies/retention", "")
	sameJSON(t, "policies get --json", mustCLI(t, env, "policies", "get", "--json", "retention"), p["policy"])

	// Attached to the catalog, inherited by the table.
	if out := mustCLI(t, env, "policies", "associate", "catalog", "hr", "--add", "retention"); out != "NAME\nretention\n" {
		t.Errorf("policies associate catalog:\n%s", out)
	}
	if out := mustCLI(t, env, "policies", "associate", "table", "demo.hr.people.employees", "--add", "masking,nope"); out != "NAME\nmasking\n" {
		t.Errorf("policies associate table:\n%s", out)
	}
	if got := rows(mustCLI(t, env, "policies", "object", "table", "hr.people.employees")); len(got) != 3 ||
		strings.Join(got[1], " ") != "masking false false" || strings.Join(got[2], " ") != "retention true true" {
		t.Errorf("policies object: %v", got)
	}
	_, d := rest.ok("GET", "/api/metalakes/demo/objects/table/hr.people.employees/policies?details=true", "")
	sameJSON(t, "policies object --json", mustCLI(t, env, "policies", "object", "--json", "table", "hr.people.employees"), map[string]any{"policies": d["policies"]})
	if out := mustCLI(t, env, "policies", "objects", "retention"); !strings.Contains(out, "catalog  demo.hr") {
		t.Errorf("policies objects:\n%s", out)
	}
	code, _, errOut := runCLI(env, "policies", "associate", "catalog", "hr", "--add", "retention")
	if code == 0 || !strings.Contains(errOut, "already associated") {
		t.Errorf("attaching twice: exit %d, %q", code, errOut)
	}

	if out := mustCLI(t, env, "policies", "disable", "retention"); out != "disabled policy demo.retention\n" {
		t.Errorf("policies disable:\n%s", out)
	}
	if out := mustCLI(t, env, "policies", "rename", "retention", "keep"); out != "renamed policy demo.retention to keep\n" {
		t.Errorf("policies rename:\n%s", out)
	}
	if out := mustCLI(t, env, "policies", "get", "keep"); !strings.Contains(out, "enabled:       false") {
		t.Errorf("after disable:\n%s", out)
	}
	if out := mustCLI(t, env, "policies", "drop", "keep"); out != "dropped policy demo.keep\n" {
		t.Errorf("policies drop:\n%s", out)
	}
	code, _, errOut = runCLI(env, "policies", "drop", "keep")
	if code != exitNotFound || errOut != "semcat: policy 'demo.keep' does not exist\n" {
		t.Errorf("dropping a missing policy: exit %d, %q", code, errOut)
	}
	code, _, errOut = runCLI(env, "policies", "create", "bare")
	if code != exitUsage || !strings.Contains(errOut, "--types") {
		t.Errorf("create without --types: exit %d, %q", code, errOut)
	}
}
