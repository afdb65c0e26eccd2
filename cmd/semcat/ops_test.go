package main

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/semcat/semcat/internal/localpg"
)

// TestResetLeavesForeignProcess: reset signals only its own cluster's
// postmaster (SPEC §9). A postmaster.pid naming a process that is not
// PostgreSQL — a stale file whose pid was reused, or one planted in a
// cluster directory another user made — gets the process left alone and a
// message saying so.
func TestResetLeavesForeignProcess(t *testing.T) {
	// plant makes dataDir with a cluster directory whose postmaster.pid
	// names a sleep the test started, and returns the cluster directory
	// and a channel closed when the sleep ends.
	plant := func(t *testing.T, dataDir string) (string, *exec.Cmd, chan struct{}) {
		t.Helper()
		if err := os.MkdirAll(dataDir, 0o755); err != nil {
			t.Fatal(err)
		}
		cluster, err := localpg.ClusterDir(dataDir)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.MkdirAll(filepath.Join(cluster, "data"), 0o700); err != nil {
			t.Fatal(err)
		}
		victim := exec.Command("sleep", "60")
		if err := victim.Start(); err != nil {
			t.Fatal(err)
		}
		ended := make(chan struct{})
		go func() { _ = victim.Wait(); close(ended) }()
		t.Cleanup(func() { _ = victim.Process.Kill(); <-ended })
		pidFile := fmt.Sprintf("%d\n%s\n1700000000\n5432\n%s\n\n", victim.Process.Pid, filepath.Join(cluster, "data"), cluster)
		if err := os.WriteFile(filepath.Join(cluster, "data", "postmaster.pid"), []byte(pidFile), 0o600); err != nil {
			t.Fatal(err)
		}
		return cluster, victim, ended
	}
	reset := func(t *testing.T, dataDir string) string {
		t.Helper()
		var out strings.Builder
		if err := run([]string{"reset", "--data-dir", dataDir, "--yes"}, func(string) string { return "" }, &out, io.Discard); err != nil {
			t.Fatalf("reset: %v\n%s", err, out.String())
		}
		return out.String()
	}
	alive := func(t *testing.T, ended chan struct{}, pid int) {
		t.Helper()
		select {
		case <-ended:
			t.Fatalf("reset ended process %d, which is not its postmaster", pid)
		case <-time.After(200 * time.Millisecond): // a signal's delivery is immediate; this only lets the waiter see it
		}
	}

	t.Run("stale pid", func(t *testing.T) {
		dataDir := tempDataDir(t)
		cluster, victim, ended := plant(t, dataDir)
		out := reset(t, dataDir)
		alive(t, ended, victim.Process.Pid)
		if want := fmt.Sprintf("left process %d alone", victim.Process.Pid); !strings.Contains(out, want) || !strings.Contains(out, "not postgres") {
			t.Errorf("reset said %q, want %q and why", out, want)
		}
		// The directory was ours, with no server of ours on it: gone.
		if _, err := os.Stat(cluster); !os.IsNotExist(err) {
			t.Errorf("%s after reset: %v, want it removed", cluster, err)
		}
	})
	t.Run("foreign directory", func(t *testing.T) {
		if os.Geteuid() != 0 {
			t.Skip("only root can give a directory to another user")
		}
		dataDir := tempDataDir(t)
		cluster, victim, ended := plant(t, dataDir)
		// Another user made the cluster directory (/var/tmp is
		// world-writable) before semcat did.
		if err := filepath.Walk(cluster, func(path string, _ os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(path, 65534, 65534)
		}); err != nil {
			t.Fatal(err)
		}
		out := reset(t, dataDir)
		alive(t, ended, victim.Process.Pid)
		if !strings.Contains(out, "left "+cluster+" alone") || !strings.Contains(out, "owned by uid 65534") {
			t.Errorf("reset said %q, want it to leave %s alone and say why", out, cluster)
		}
		if _, err := os.Stat(filepath.Join(cluster, "data", "postmaster.pid")); err != nil {
			t.Errorf("reset touched the foreign directory: %v", err)
		}
		if _, err := os.Stat(dataDir); !os.IsNotExist(err) {
			t.Errorf("the data directory after reset: %v, want it removed", err)
		}
	})
}
