package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestPythonClient runs the Python client's tests (clients/python/tests)
// against a live server with the demo catalog, as its users would meet it.
func TestPythonClient(t *testing.T) {
	t.Parallel()
	python, err := exec.LookPath("python3")
	if err != nil {
		t.Fatal("python3 is not on PATH: install python3 (3.9 or newer) to run the Python client's tests; .ci/run installs it")
	}
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	pythonPath := filepath.Join(root, "clients", "python")
	if p := os.Getenv("PYTHONPATH"); p != "" {
		pythonPath += string(os.PathListSeparator) + p
	}
	noProxy := "127.0.0.1,localhost" // urllib honours http_proxy: keep the loopback server direct
	if p := os.Getenv("NO_PROXY"); p != "" {
		noProxy += "," + p
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cfg := DefaultConfig()
	cfg.Addr = "127.0.0.1:0"
	cfg.DataDir = tempDataDir(t)
	cfg.Demo = true
	m := NewMain(cfg, io.Discard, io.Discard)
	if err := m.Run(ctx); err != nil {
		m.Close(ctx)
		t.Fatal(err)
	}
	defer m.Close(context.Background())

	cmd := exec.CommandContext(ctx, python, "-m", "unittest", "discover",
		"-s", filepath.Join("clients", "python", "tests"), "-t", filepath.Join("clients", "python"), "-v")
	cmd.Dir = root
	cmd.Env = append(os.Environ(),
		"SEMCAT_TEST_URL="+m.URL(),
		"SEMCAT_TEST_USER=", "SEMCAT_TEST_TOKEN=", // the server runs with --auth none
		"PYTHONPATH="+pythonPath,
		"PYTHONDONTWRITEBYTECODE=1", // no __pycache__ in the work tree
		"PYTHONUNBUFFERED=1",
		"PYTHONIOENCODING=utf-8",
		"NO_PROXY="+noProxy, "no_proxy="+noProxy,
	)
	out := runUnittest(t, ctx, cmd, "python client tests", 20, false)
	t.Logf("python client tests (%s):\n%s", python, out)
}

// runUnittest runs a Python unittest command and fails the test unless it
// passed, within ctx, running at least min tests (and, with noSkips, none
// skipped); unittest exits 0 for zero tests on older Pythons. It returns
// the output.
func runUnittest(t *testing.T, ctx context.Context, cmd *exec.Cmd, what string, min int, noSkips bool) []byte {
	t.Helper()
	cmd.WaitDelay = 10 * time.Second // a stuck child must not hold the pipes open
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		t.Fatalf("%s did not finish in time:\n%s", what, out)
	}
	if err != nil {
		t.Fatalf("%s failed: %v\n%s", what, err, out)
	}
	ran := regexp.MustCompile(`(?m)^Ran (\d+) tests? in`).FindSubmatch(out)
	if ran == nil {
		t.Fatalf("%s: no summary in the output:\n%s", what, out)
	}
	if n, _ := strconv.Atoi(string(ran[1])); n < min || (noSkips && strings.Contains(string(out), "skipped")) {
		t.Fatalf("%s: ran %d tests, want at least %d (none skipped: %v):\n%s", what, n, min, noSkips, out)
	}
	return out
}
