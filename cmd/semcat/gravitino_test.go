package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestGravitinoClient runs the official Apache Gravitino Python client
// (../shared/gravitino-client, SPEC §2.10) against live semcat servers,
// with the client's default settings: one with --auth none, and one with
// --auth simple --authorization for the Unauthorized and Forbidden
// errors. The calls and their assertions are in
// testdata/gravitino/test_gravitino_client.py.
func TestGravitinoClient(t *testing.T) {
	t.Parallel()
	root, err := filepath.Abs(filepath.Join("..", ".."))
	if err != nil {
		t.Fatal(err)
	}
	shared := filepath.Join(root, "..", "shared", "gravitino-client")
	if _, err := os.Stat(filepath.Join(shared, "client-python", "gravitino")); err != nil {
		t.Skipf("the official Gravitino client is not at %s (a clone without ../shared): skipping the drop-in test", shared)
	}
	// Debian's Python, which has the client's Debian dependencies (a
	// python3 earlier on PATH, from pyenv say, does not).
	python := "/usr/bin/python3"
	if _, err := os.Stat(python); err != nil {
		if python, err = exec.LookPath("python3"); err != nil {
			t.Fatal("python3 is not installed; .ci/run installs it")
		}
	}
	pythonPath := filepath.Join(shared, "client-python") + string(os.PathListSeparator) + filepath.Join(shared, "deps")
	check := exec.Command(python, "-c", "import marshmallow, typing_inspect, fsspec, cachetools")
	if out, err := check.CombinedOutput(); err != nil {
		t.Fatalf("the Gravitino client's Debian dependencies are missing (apt-get install -y python3-marshmallow python3-typing-inspect python3-fsspec python3-cachetools; .ci/run installs them): %v\n%s", err, out)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	start := func(cfg Config) *Main {
		cfg.Addr = "127.0.0.1:0"
		cfg.DataDir = tempDataDir(t)
		m := NewMain(cfg, io.Discard, io.Discard)
		if err := m.Run(ctx); err != nil {
			m.Close(ctx)
			t.Fatal(err)
		}
		t.Cleanup(func() { m.Close(context.Background()) })
		return m
	}
	open := start(DefaultConfig())
	secured := DefaultConfig()
	secured.Auth = "simple"
	secured.Authorization = true
	secured.ServiceAdmins = []string{"admin"}
	guarded := start(secured)

	noProxy := "127.0.0.1,localhost"
	cmd := exec.CommandContext(ctx, python, "-m", "unittest", "-v", "test_gravitino_client")
	cmd.Dir = filepath.Join(root, "cmd", "semcat", "testdata", "gravitino")
	cmd.Env = append(os.Environ(),
		"GRAVITINO_URI="+open.URL(),
		"GRAVITINO_AUTH_URI="+guarded.URL(),
		"PYTHONPATH="+pythonPath,
		"PYTHONDONTWRITEBYTECODE=1",
		"PYTHONUNBUFFERED=1",
		"PYTHONWARNINGS=ignore", // the client's own decoding warnings
		"NO_PROXY="+noProxy, "no_proxy="+noProxy,
	)
	out := runUnittest(t, ctx, cmd, "the Gravitino client against semcat", 19, true)
	t.Logf("Gravitino client (%s):\n%s", python, out)
}
