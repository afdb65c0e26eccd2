package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReadmeTour runs the README's short tour, as a reader pastes it into a
// shell, against a server with the example catalog, twice: every request of
// both runs succeeds, so the tour leaves nothing behind that makes it fail
// the next time (a tag that outlives its catalog, a role that exists).
func TestReadmeTour(t *testing.T) {
	t.Parallel()
	if _, err := exec.LookPath("curl"); err != nil {
		t.Skip("curl is not installed")
	}
	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile("(?s)## A short tour\n.*?```sh\n(.*?)```").FindSubmatch(readme)
	if block == nil {
		t.Fatal("README.md has no shell block under \"## A short tour\"")
	}
	cfg := testConfig(t)
	cfg.Demo = true
	m := startMain(t, cfg)
	script := strings.ReplaceAll(string(block[1]), "http://127.0.0.1:8090", m.URL())
	// Each curl also writes its status to the file $STATUS.
	script = "curl() { command curl -w '%{stderr}%{http_code} %{url_effective}\\n' \"$@\" 2>>\"$STATUS\"; }\n" + script
	requests := strings.Count(string(block[1]), "curl -s")
	for run := 1; run <= 2; run++ {
		status := filepath.Join(t.TempDir(), "status")
		cmd := exec.Command("bash", "-e", "-c", script)
		cmd.Env = append(os.Environ(), "STATUS="+status, "PGSOCK="+managedSocket(t, m))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("run %d of the tour: %v\n%s", run, err, out)
		}
		b, err := os.ReadFile(status)
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSpace(string(b)), "\n")
		if len(lines) != requests {
			t.Errorf("run %d: %d requests answered, the tour makes %d:\n%s", run, len(lines), requests, b)
		}
		for _, l := range lines {
			if !strings.HasPrefix(l, "2") {
				t.Errorf("run %d of the tour: %s", run, l)
			}
		}
	}
}

// managedSocket is the socket file of m's managed PostgreSQL, which the
// tour's PostgreSQL catalog connects to.
func managedSocket(t *testing.T, m *Main) string {
	t.Helper()
	var dir, port string
	for _, kv := range strings.Fields(m.pg.URL("postgres")) {
		k, v, _ := strings.Cut(kv, "=")
		switch k {
		case "host":
			dir = strings.Trim(v, "'")
		case "port":
			port = v
		}
	}
	return filepath.Join(dir, ".s.PGSQL."+port)
}
