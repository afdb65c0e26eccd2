package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/semcat/semcat/internal/localpg"

	"github.com/jackc/pgx/v5"
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
	t.Parallel()
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
	awaitReady(t, addr, cmd)
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
	if localpg.ServerPID(dataDir) != 0 {
		t.Errorf("the managed PostgreSQL (pid %d) outlived make run", server)
	}
}

// TestKilledServerStopsPostgres: SIGKILL of semcat stops its managed
// PostgreSQL within seconds, and the next start on the data directory
// serves the catalog as before.
func TestKilledServerStopsPostgres(t *testing.T) {
	t.Parallel()
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
		awaitReady(t, addr, cmd)
		return cmd, addr
	}
	cmd, _ := start()
	server := managedServerPID(t, dataDir)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cmd.Wait()
	for deadline := time.Now().Add(time.Minute); localpg.ServerPID(dataDir) != 0; time.Sleep(50 * time.Millisecond) {
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
func awaitReady(t *testing.T, addr string, cmd *exec.Cmd) {
	t.Helper()
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				return
			}
		}
		if cmd.ProcessState != nil || time.Now().After(deadline) {
			t.Fatalf("the server at %s never became ready", addr)
		}
	}
}

// managedServerPID is the pid of dataDir's running managed PostgreSQL.
func managedServerPID(t *testing.T, dataDir string) int {
	t.Helper()
	pid := localpg.ServerPID(dataDir)
	if pid == 0 {
		t.Fatalf("no managed PostgreSQL runs on %s", dataDir)
	}
	return pid
}

// TestHealthzWhileStarting: the server answers /healthz from the moment it
// listens — before PostgreSQL is up and the index built — and 503 with
// Retry-After on the API until it is ready.
func TestHealthzWhileStarting(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Addr = freeAddr(t)
	cfg.Demo = true
	m := NewMain(cfg, io.Discard, io.Discard)
	ran := make(chan error, 1)
	go func() { ran <- m.Run(context.Background()) }()
	t.Cleanup(func() { m.Close(context.Background()) })
	var sawStarting bool
	for {
		select {
		case err := <-ran:
			if err != nil {
				t.Fatal(err)
			}
			if !sawStarting {
				t.Fatal("/healthz never answered while the server started")
			}
			resp, err := http.Get("http://" + cfg.Addr + "/api/metalakes/demo")
			if err != nil || resp.StatusCode != 200 {
				t.Fatalf("the API once started: %v %v", resp, err)
			}
			resp.Body.Close()
			metrics, err := http.Get("http://" + cfg.Addr + "/metrics")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(metrics.Body)
			metrics.Body.Close()
			for _, name := range []string{"semcat_index_poll_errors_total 0", "semcat_index_failing_seconds 0", "semcat_index_position "} {
				if !strings.Contains(string(body), "\n"+name) {
					t.Errorf("/metrics has no %q", name)
				}
			}
			return
		default:
		}
		resp, err := http.Get("http://" + cfg.Addr + "/healthz")
		if err != nil {
			time.Sleep(5 * time.Millisecond)
			continue
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("/healthz while starting: %d", resp.StatusCode)
		}
		api, err := http.Get("http://" + cfg.Addr + "/api/metalakes/demo")
		if err != nil {
			t.Fatal(err)
		}
		api.Body.Close()
		if api.StatusCode == http.StatusServiceUnavailable {
			sawStarting = true
			if api.Header.Get("Retry-After") == "" {
				t.Error("503 while starting without Retry-After")
			}
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// TestSearchDuringOutage: while the database refuses connections, searches
// answer from the index — with hits, and without (the metalake's existence
// shown by the index) — and /readyz says the database is down.
func TestSearchDuringOutage(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Demo = true
	m := startMain(t, cfg)
	c := client{t: t, base: m.URL()}
	admin, err := pgx.Connect(t.Context(), m.pg.URL("postgres"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close(context.Background())
	exec := func(sql string) {
		t.Helper()
		if _, err := admin.Exec(t.Context(), sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	exec("ALTER DATABASE semcat WITH ALLOW_CONNECTIONS false")
	exec("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'semcat'")
	defer exec("ALTER DATABASE semcat WITH ALLOW_CONNECTIONS true")
	if status, _, _ := c.do("GET", "/api/metalakes/demo/catalogs/hr", ""); status == 200 {
		t.Fatal("the outage did not take: a catalog still loads")
	}
	// /readyz may answer from a check made a moment before the outage
	// (one check serves the probes of 100 ms); the next says it.
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		status, _, out := c.do("GET", "/readyz", "")
		if status == 503 {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("/readyz during the outage: %d %v", status, out)
			break
		}
	}
	for query, hits := range map[string]bool{"employees": true, "zzqxnothing": false} {
		status, _, out := c.do("GET", "/api/metalakes/demo/search?query="+query, "")
		if status != 200 || (out["total"].(float64) > 0) != hits {
			t.Errorf("search %q during the outage: %d %v", query, status, out)
		}
	}
}
