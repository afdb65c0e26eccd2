package main

import (
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCommandLineEdges: what a newcomer trips over gets a usage line, the
// identifier's form, a did-you-mean and the right exit status (0 success,
// 1 failure, 2 bad usage, 3 not found); --json is the REST answer; the
// completion script is generated and loads in bash.
func TestCommandLineEdges(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Demo = true
	m := startMain(t, cfg)
	rest := client{t: t, base: m.URL()}
	env := map[string]string{"SEMCAT_URL": m.URL()}
	for _, c := range []struct {
		args   []string
		code   int
		stderr string // a part of it
	}{
		{[]string{"tables", "list"}, 2, "usage: semcat tables list [flags] <metalake.catalog.schema>"},
		{[]string{"tables"}, 2, "usage: semcat tables list [flags] <metalake.catalog.schema> | get [flags] <metalake.catalog.schema.table>"},
		{[]string{"tables", "get", "demo.hr.people"}, 2, "'demo.hr.people': want metalake.catalog.schema.table (the metalake may be left out); this starts with the metalake demo"},
		{[]string{"tables", "get", "hr.people.nope"}, 3, "does not exist"},
		{[]string{"search", "x", "--sort", "nmae"}, 2, `--sort: unknown sort "nmae" (want relevance, name, -name, created, -created) (did you mean "name"?)`},
		{[]string{"search", "x", "--type", "tabel"}, 2, `(did you mean "table"?)`},
		{[]string{"search", `a "b`}, 2, "unterminated quote"},
		{[]string{"--server", m.URL(), "serach", "x"}, 2, `unknown command "serach" (did you mean "search"?)`},
		{[]string{"tabels", "list"}, 2, `(did you mean "tables"?)`},
		{[]string{"--server", strings.TrimPrefix(m.URL(), "http://"), "tables", "list", "hr.people"}, 2, "has no scheme: give the server's URL, http://"},
		{[]string{"suggest"}, 2, "usage: semcat suggest [flags] <prefix>"},
		{[]string{"completion", "tcsh"}, 2, "give the shell, bash, zsh, fish or powershell"},
		{[]string{"tables", "get"}, 2, "usage: semcat tables get [flags] <metalake.catalog.schema.table>\n(semcat tables get --help: what it does, and its flags)"},
		{[]string{"tags", "obj", "table", "x"}, 2, `tags: unknown subcommand "obj" (want associate, create, drop, get, list, object) (did you mean "object"?)`},
		{[]string{"--json", "completion", "bash"}, 2, "completion takes no --server"},
		{[]string{"--server", "http://127.0.0.1:1", "tables", "list", "demo.hr.people"}, 1, "is semcat serve running there?"},
	} {
		code, _, errOut := runCLI(env, c.args...)
		if code != c.code || !strings.Contains(errOut, c.stderr) {
			t.Errorf("semcat %s: exit %d, stderr:\n%s\nwant exit %d and %q", strings.Join(c.args, " "), code, errOut, c.code, c.stderr)
		}
	}

	// --json is the REST API's answer without its code, lists included.
	for _, c := range []struct {
		args []string
		path string
	}{
		{[]string{"tables", "list", "demo.hr.people", "--json"}, "/api/metalakes/demo/catalogs/hr/schemas/people/tables"},
		{[]string{"schemas", "list", "warehouse", "--json"}, "/api/metalakes/demo/catalogs/warehouse/schemas"},
		{[]string{"models", "list", "warehouse.sales", "--json"}, "/api/metalakes/demo/catalogs/warehouse/schemas/sales/semantic-models"},
		{[]string{"tags", "list", "demo", "--json"}, "/api/metalakes/demo/tags"},
		{[]string{"suggest", "emp", "--json"}, "/api/metalakes/demo/suggest?" + url.Values{"prefix": {"emp"}}.Encode()},
	} {
		_, want := rest.ok("GET", c.path, "")
		sameJSON(t, strings.Join(c.args, " "), mustCLI(t, env, c.args...), want)
	}

	// suggest: type-ahead as a table; a model shows its relationships.
	if out := mustCLI(t, env, "suggest", "ord", "--type", "table"); !strings.HasPrefix(out, "TYPE   IDENTIFIER\ntable  demo.warehouse.sales.orders\n") {
		t.Errorf("semcat suggest ord:\n%s", out)
	}
	if out := mustCLI(t, env, "models", "get", "warehouse.sales.sales"); !strings.Contains(out, "RELATIONSHIP") {
		t.Errorf("models get shows no relationships:\n%s", out)
	}

	// The completion script (bash, with the bash-completion package it
	// relies on, as a shell loads it) completes commands, subcommands,
	// flags and their values, and identifiers, which it asks `semcat
	// __complete` for, and semcat the server. Here semcat is this test
	// binary, behind a script on PATH.
	script := mustCLI(t, env, "completion", "bash")
	const bashCompletion = "/usr/share/bash-completion/bash_completion"
	if _, err := os.Stat(bashCompletion); err != nil {
		t.Fatalf("the bash-completion package is not installed (.ci/run installs it): %v", err)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "semcat.bash")
	if err := os.WriteFile(path, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "semcat"), []byte("#!/bin/sh\nSEMCAT_TEST_MAIN=1 exec "+strconv.Quote(self)+` "$@"`+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	for line, want := range map[string]string{
		"semcat tab":                                "tables",
		"semcat tables g":                           "get",
		"semcat search --t":                         "--tag --token --type",
		"semcat sug":                                "suggest",
		"semcat search x --type sem":                "semantic_model",
		"semcat search x --sort na":                 "name",
		"semcat completion f":                       "fish",
		"semcat tables get demo.hr.p":               "demo.hr.people.",
		"semcat tables get hr.people.emp":           "hr.people.employees",
		"semcat tables list ":                       "demo. hr. warehouse.",
		"semcat metrics warehouse.s":                "warehouse.sales",
		"semcat tags object table demo.hr.people.e": "demo.hr.people.employees",
		"semcat tags object ta":                     "table",
	} {
		cmd := exec.Command("bash", "-c", `source "$1"; source "$2"; compopt() { :; }; COMP_LINE=$3; COMP_POINT=${#COMP_LINE}; read -ra COMP_WORDS <<< "$COMP_LINE"; [[ $COMP_LINE == *" " ]] && COMP_WORDS+=(""); COMP_CWORD=$(( ${#COMP_WORDS[@]} - 1 )); __start_semcat; echo "${COMPREPLY[*]}"`,
			"bash", bashCompletion, path, line)
		cmd.Env = append(os.Environ(), "PATH="+dir+":"+os.Getenv("PATH"), "SEMCAT_URL="+m.URL())
		out, err := cmd.Output()
		got := strings.Fields(string(out))
		slices.Sort(got)
		if err != nil || strings.Join(got, " ") != want {
			t.Errorf("completing %q: %q (%v), want %q", line, out, err, want)
		}
	}
}

// TestFlagMistakes: a flag's bad value is said in words, not as a Go parse
// error, an unknown flag gets the one probably meant, and serve reports a
// mistake in one line rather than with every flag; each is bad usage (2).
func TestFlagMistakes(t *testing.T) {
	env := map[string]string{"SEMCAT_URL": "http://127.0.0.1:1"}
	for _, c := range []struct {
		args   []string
		stderr string // the last line, whole
	}{
		{[]string{"search", "--limit", "abc", "x"}, `semcat: --limit: "abc" is not a whole number`},
		{[]string{"search", "--limt", "3", "x"}, "semcat: unknown flag --limt (did you mean --limit?)"},
		{[]string{"search", "x", "--limit"}, "semcat: --limit needs a value"},
		{[]string{"search", "-q", "x"}, "semcat: unknown flag -q"},
		{[]string{"tables", "list", "--jsn", "demo.hr.people"}, "semcat: unknown flag --jsn (did you mean --json?)"},
		{[]string{"search", "--json=maybe", "x"}, `semcat: --json: "maybe" is not true or false`},
		{[]string{"serve", "--max-conections", "5"}, "semcat: unknown flag --max-conections (did you mean --max-connections?) (semcat serve --help lists them)"},
		{[]string{"serve", "--addr"}, "semcat: --addr needs a value"},
		{[]string{"serve", "--demo=maybe"}, `semcat: --demo: "maybe" is not true or false`},
		{[]string{"serve", "--max-connections", "abc"}, `semcat: --max-connections: want a number >= 1, got "abc"`},
	} {
		code, _, errOut := runCLI(env, c.args...)
		lines := strings.Split(strings.TrimRight(errOut, "\n"), "\n")
		if code != exitUsage || lines[len(lines)-1] != c.stderr || strings.Contains(errOut, "strconv") || len(lines) > 3 {
			t.Errorf("semcat %s: exit %d, stderr:\n%s\nwant exit %d ending in the line %q", strings.Join(c.args, " "), code, errOut, exitUsage, c.stderr)
		}
	}
}
