package main

import (
	"errors"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/semcat/semcat/catalogdb"
)

// These tests run semcat as its users do — `make run` in a terminal's
// process group, the built binary killed outright — and check what is left
// behind.

// TestMakeRunInterrupt: Ctrl-C (SIGINT to the whole foreground process
// group) stops `make run` without an error: semcat exits 0, so make
// reports nothing, and its managed PostgreSQL stops with it. Make itself
// ends by the SIGINT it got, which is what GNU make does on any Ctrl-C
// (status 130 in a shell, no message); a semcat exiting non-zero would
// instead make it print "*** [run] Error 1" and exit 2.
func TestMakeRunInterrupt(t *testing.T) {
	if _, err := exec.LookPath("make"); err != nil {
		t.Skip("make is not installed")
	}
	dataDir, addr := tempDataDir(t), freeAddr(t)
	cmd := exec.Command("make", "run", "DATA="+dataDir, "ADDR="+addr)
	cmd.Dir = "../.."
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} // its own group, as a terminal's foreground job
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); _ = cmd.Wait() })
	awaitHealthy(t, addr, cmd)
	server := managedServerPID(t, dataDir)
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.Sys().(syscall.WaitStatus).Signal() == syscall.SIGINT) {
		t.Fatalf("make run after Ctrl-C: %v, want exit status 0 or the interrupt\n%s", err, out.String())
	}
	if !strings.Contains(out.String(), `"stopped local PostgreSQL"`) {
		t.Errorf("semcat did not stop in order:\n%s", out.String())
	}
	if strings.Contains(out.String(), "Error") {
		t.Errorf("make run's output after Ctrl-C reports an error:\n%s", out.String())
	}
	if pidAlive(server) {
		t.Errorf("the managed PostgreSQL (pid %d) outlived make run", server)
	}
}

// TestKilledServerStopsPostgres: SIGKILL of semcat stops its managed
// PostgreSQL within seconds, and the next start on the data directory
// serves the catalog as before.
func TestKilledServerStopsPostgres(t *testing.T) {
	bin := filepath.Join(t.TempDir(), "semcat")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	dataDir := tempDataDir(t)
	start := func() (*exec.Cmd, string) {
		addr := freeAddr(t)
		cmd := exec.Command(bin, "serve", "--demo", "--data-dir", dataDir, "--addr", addr)
		cmd.Stderr = t.Output()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Signal(syscall.SIGTERM); _ = cmd.Wait() })
		awaitHealthy(t, addr, cmd)
		return cmd, addr
	}
	cmd, _ := start()
	server := managedServerPID(t, dataDir)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for deadline := time.Now().Add(time.Minute); pidAlive(server); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the managed PostgreSQL (pid %d) still runs a minute after semcat was killed", server)
		}
	}
	_, addr := start()
	resp, err := http.Get("http://" + addr + "/api/metalakes/demo/catalogs/hr/schemas/people/tables/employees")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("the demo table after a restart: %v %v", resp, err)
	}
	resp.Body.Close()
}

// freeAddr returns a loopback address no one listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// awaitHealthy waits until the server at addr answers /healthz, failing
// the test if cmd exits first or two minutes pass.
func awaitHealthy(t *testing.T, addr string, cmd *exec.Cmd) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/healthz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		if cmd.ProcessState != nil || time.Now().After(deadline) {
			t.Fatalf("the server at %s never answered /healthz", addr)
		}
	}
}

// managedServerPID reads the postmaster's pid of dataDir's cluster.
func managedServerPID(t *testing.T, dataDir string) int {
	t.Helper()
	cluster, err := catalogdb.LocalClusterDir(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(filepath.Join(cluster, "data", "postmaster.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(strings.SplitN(string(raw), "\n", 2)[0]))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// pidAlive reports whether a process with this pid exists.
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
