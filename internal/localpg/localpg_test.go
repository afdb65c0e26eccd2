package localpg

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// startLocalForTest starts a fast throwaway cluster in dataDir and stops and
// removes it when the test ends.
func startLocalForTest(t *testing.T, dataDir string) *Cluster {
	t.Helper()
	start := time.Now()
	p, err := Start(t.Context(), Options{DataDir: dataDir, Fast: true, Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("Start took %v", time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() {
		if err := p.Stop(context.Background()); err != nil {
			t.Errorf("Stop: %v", err)
		}
		if err := os.RemoveAll(p.Dir()); err != nil {
			t.Errorf("removing cluster: %v", err)
		}
	})
	return p
}

func testLogger(t *testing.T) *slog.Logger {
	return slog.New(slog.NewTextHandler(t.Output(), nil))
}

// queryInt runs a single-value integer query on database dbname of p.
func queryInt(t *testing.T, p *Cluster, dbname, sql string) (int, error) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), p.URL(dbname))
	if err != nil {
		return 0, err
	}
	defer conn.Close(context.Background())
	var n int
	err = conn.QueryRow(t.Context(), sql).Scan(&n)
	return n, err
}

// privateDataDir returns a data directory inside a mode-0700 directory, like
// a checkout under /root, which the postgres user cannot enter.
func privateDataDir(t *testing.T) string {
	t.Helper()
	parent := t.TempDir()
	if err := os.Chmod(parent, 0o700); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(parent, "semcat-data")
}

// TestLocalBinariesMissing checks the one-line install hint when no server
// binaries are found. It swaps pgBinDirs, so it must not run in parallel.
func TestLocalBinariesMissing(t *testing.T) {
	saved := pgBinDirs
	t.Cleanup(func() { pgBinDirs = saved })
	empty := t.TempDir()
	pgBinDirs = func() []string { return []string{empty} }

	dataDir := filepath.Join(t.TempDir(), "data")
	p, err := Start(t.Context(), Options{DataDir: dataDir})
	if err == nil {
		p.Stop(context.Background())
		t.Fatal("Start succeeded without server binaries")
	}
	if !errors.Is(err, ErrNotFound) {
		t.Errorf("error %v is not ErrNotFound", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") {
		t.Errorf("error is not one line: %q", msg)
	}
	if !strings.Contains(msg, "; install them with: ") {
		t.Errorf("error has no install hint: %q", msg)
	}
	if _, lerr := exec.LookPath("apt-get"); lerr == nil {
		const want = "semcat: PostgreSQL server binaries (initdb, pg_ctl, postgres) not found in PATH or /usr/lib/postgresql/*/bin; install them with: apt-get install -y postgresql"
		if msg != want {
			t.Errorf("error = %q, want %q", msg, want)
		}
	}
	if _, serr := os.Stat(dataDir); serr == nil {
		t.Errorf("Start created %s before finding the binaries", dataDir)
	}
}

func TestLocalStartQuery(t *testing.T) {
	t.Parallel()
	dataDir := privateDataDir(t)
	p := startLocalForTest(t, dataDir)

	if n, err := queryInt(t, p, "semcat", "select 1"); err != nil || n != 1 {
		t.Fatalf("select 1 = %d, %v", n, err)
	}
	conn, err := pgx.Connect(t.Context(), p.URL("semcat"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	for setting, want := range map[string]string{
		"listen_addresses": "",
		"max_connections":  "200",
		"shared_buffers":   "128MB",
		"fsync":            "off",
		"server_encoding":  "UTF8",
	} {
		var got string
		if err := conn.QueryRow(t.Context(), "SELECT current_setting($1)", setting).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("%s = %q, want %q", setting, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(p.clusterDir, "log", "postgres.log")); err != nil {
		t.Errorf("server log: %v", err)
	}

	link := filepath.Join(dataDir, "pg")
	if os.Geteuid() != 0 {
		if p.Dir() != link {
			t.Errorf("Dir() = %s, want %s", p.Dir(), link)
		}
		return
	}
	// As root the cluster lives in /var/tmp, owned by postgres, and the data
	// directory links to it.
	abs, _ := filepath.EvalSymlinks(dataDir)
	if want := rootClusterDir(abs); p.Dir() != want {
		t.Errorf("Dir() = %s, want %s", p.Dir(), want)
	}
	if target, err := os.Readlink(link); err != nil || target != p.Dir() {
		t.Errorf("%s links to %q (%v), want %s", link, target, err, p.Dir())
	}
	if owner, err := os.ReadFile(filepath.Join(p.Dir(), "OWNER")); err != nil || strings.TrimSpace(string(owner)) != abs {
		t.Errorf("OWNER = %q (%v), want %s", owner, err, abs)
	}
	fi, err := os.Stat(p.Dir())
	if err != nil {
		t.Fatal(err)
	}
	if st := fi.Sys().(*syscall.Stat_t); st.Uid != p.runAs.uid || fi.Mode().Perm() != 0o700 {
		t.Errorf("%s: uid %d mode %v, want uid %d mode 0700", p.Dir(), st.Uid, fi.Mode().Perm(), p.runAs.uid)
	}
}

func TestLocalStartTwiceReuses(t *testing.T) {
	t.Parallel()
	dataDir := privateDataDir(t)
	p1 := startLocalForTest(t, dataDir)
	p2 := startLocalForTest(t, dataDir)

	if p1.URL("semcat") != p2.URL("semcat") {
		t.Errorf("second handle URL %q differs from first %q", p2.URL("semcat"), p1.URL("semcat"))
	}
	if !p1.owned || p2.owned {
		t.Errorf("owned = %v, %v; want only the first handle to own the server", p1.owned, p2.owned)
	}
	if n, err := queryInt(t, p2, "semcat", "select 1"); err != nil || n != 1 {
		t.Fatalf("select 1 via second handle = %d, %v", n, err)
	}
	// The reusing handle leaves the server running.
	if err := p2.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if n, err := queryInt(t, p1, "semcat", "select 2"); err != nil || n != 2 {
		t.Fatalf("select 2 after second handle stopped = %d, %v", n, err)
	}
	if err := p1.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if err := p1.Stop(t.Context()); err != nil {
		t.Fatalf("second Stop: %v", err)
	}
	if _, running := runningPostmaster(p1.clusterDir); running {
		t.Error("server still running after Stop")
	}
}

// TestLocalRestartKeepsData stops and restarts a cluster, with a failed
// start in between, and checks the data survives.
func TestLocalRestartKeepsData(t *testing.T) {
	t.Parallel()
	dataDir := privateDataDir(t)
	p := startLocalForTest(t, dataDir)
	conn, err := pgx.Connect(t.Context(), p.URL("semcat"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Exec(t.Context(), "CREATE TABLE kept (id int); INSERT INTO kept VALUES (42)"); err != nil {
		t.Fatal(err)
	}
	conn.Close(context.Background())
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, err := queryInt(t, p, "semcat", "select 1"); err == nil {
		t.Fatal("server still accepts connections after Stop")
	}

	// A start that fails reports the end of the server log.
	autoConf := filepath.Join(p.clusterDir, "postgresql.auto.conf")
	good, err := os.ReadFile(autoConf)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(autoConf, append(good, "semcat_no_such_setting = 1\n"...), 0); err != nil {
		t.Fatal(err)
	}
	_, err = Start(t.Context(), Options{DataDir: dataDir, Fast: true, Logger: testLogger(t)})
	if err == nil || !strings.Contains(err.Error(), `unrecognized configuration parameter "semcat_no_such_setting"`) {
		t.Fatalf("Start with a broken config: %v; want the log line naming the bad setting", err)
	}
	t.Logf("failed start reports:\n%v", err)
	if err := os.WriteFile(autoConf, good, 0); err != nil {
		t.Fatal(err)
	}

	p2 := startLocalForTest(t, dataDir)
	if !p2.owned {
		t.Error("restarting handle does not own the server")
	}
	if n, err := queryInt(t, p2, "semcat", "SELECT id FROM kept"); err != nil || n != 42 {
		t.Fatalf("SELECT id FROM kept after restart = %d, %v", n, err)
	}
}

// TestLocalAdoptsAfterCrash: a server semcat did not start as its child —
// one a crashed older run or an operator's pg_ctl left running, whose
// recorded starter is gone — is reused by the next Start, which then
// stops it on Stop.
func TestLocalAdoptsAfterCrash(t *testing.T) {
	t.Parallel()
	dataDir := privateDataDir(t)
	p1 := startLocalForTest(t, dataDir)
	if err := p1.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	logFile := filepath.Join(p1.clusterDir, "log", "postgres.log")
	if out, err := p1.run(t.Context(), p1.bins.pgCtl, "start", "-D", p1.clusterDir, "-l", logFile, "-w"); err != nil {
		t.Fatalf("pg_ctl start: %v\n%s", err, out)
	}
	before, _ := runningPostmaster(p1.clusterDir)
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	starter := filepath.Join(p1.Dir(), starterFile)
	if err := os.WriteFile(starter, []byte(strconv.Itoa(dead.Process.Pid)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	p2 := startLocalForTest(t, dataDir)
	if !p2.owned || p2.child != nil {
		t.Fatalf("owned %v, child %v: the handle did not take over a server whose starter is gone", p2.owned, p2.child)
	}
	info, running := runningPostmaster(p2.clusterDir)
	if !running || info.pid != before.pid {
		t.Fatalf("server pid %d (running %v), want the original %d", info.pid, running, before.pid)
	}
	if n, err := queryInt(t, p2, "semcat", "select 1"); err != nil || n != 1 {
		t.Fatalf("select 1 = %d, %v", n, err)
	}
	if err := p2.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	if _, running := runningPostmaster(p2.clusterDir); running {
		t.Error("adopted server still running after Stop")
	}
}

// TestLocalRestartsAfterKill: a managed server killed with SIGKILL is
// restarted by its supervisor, with its committed data.
func TestLocalRestartsAfterKill(t *testing.T) {
	t.Parallel()
	p := startLocalForTest(t, privateDataDir(t))
	conn, err := pgx.Connect(t.Context(), p.URL("semcat"))
	if err != nil {
		t.Fatal(err)
	}
	// CHECKPOINT: the test cluster runs without synchronous commit.
	for _, sql := range []string{"CREATE TABLE kept (id int)", "INSERT INTO kept VALUES (7)", "CHECKPOINT"} {
		if _, err := conn.Exec(t.Context(), sql); err != nil {
			t.Fatal(err)
		}
	}
	conn.Close(context.Background())
	first := p.PID()
	if err := syscall.Kill(first, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	var n int
	waitFor(t, time.Minute, "the killed server to be restarted", func() bool {
		pid := p.PID()
		if pid == 0 || pid == first {
			return false
		}
		n, err = queryInt(t, p, "semcat", "SELECT id FROM kept")
		return err == nil
	})
	if n != 7 {
		t.Errorf("SELECT id FROM kept after the restart = %d, want 7", n)
	}
	p.child.mu.Lock()
	restarts := p.child.restarts
	p.child.mu.Unlock()
	if restarts == 0 {
		t.Error("the supervisor counts no restart")
	}
}

// TestLocalStopsWithParent: when the process that started the managed
// server is killed with SIGKILL, the server stops too (its parent-death
// signal), rather than running on parented to init.
func TestLocalStopsWithParent(t *testing.T) {
	if os.Getenv(helperEnv) != "" {
		return // the helper's own run: see TestLocalHelperProcess
	}
	t.Parallel()
	dataDir := privateDataDir(t)
	helper := exec.Command(os.Args[0], "-test.run=^TestLocalHelperProcess$", "-test.v")
	helper.Env = append(os.Environ(), helperEnv+"="+dataDir)
	out, err := helper.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	helper.Stderr = t.Output()
	if err := helper.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = helper.Process.Kill(); _ = helper.Wait() })
	var server int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		if pid, ok := strings.CutPrefix(sc.Text(), "server pid "); ok {
			server, _ = strconv.Atoi(pid)
			break
		}
	}
	if server == 0 {
		t.Fatalf("the helper reported no server pid (%v)", sc.Err())
	}
	clusterDir, err := ClusterDir(dataDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = Remove(context.Background(), dataDir, io.Discard) })
	if err := helper.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = helper.Wait()
	waitFor(t, time.Minute, "the server of a killed semcat to stop", func() bool { return !pidAlive(server) })
	if _, running := runningPostmaster(filepath.Join(clusterDir, "data")); running {
		t.Error("postmaster.pid names a running server")
	}
}

// helperEnv names the data directory TestLocalHelperProcess serves.
const helperEnv = "SEMCAT_LOCALPG_HELPER"

// TestLocalHelperProcess is TestLocalStopsWithParent's child: it starts a
// managed server, prints its pid and waits to be killed.
func TestLocalHelperProcess(t *testing.T) {
	dataDir := os.Getenv(helperEnv)
	if dataDir == "" {
		t.Skip("runs only as TestLocalStopsWithParent's helper")
	}
	p, err := Start(context.Background(), Options{DataDir: dataDir, Fast: true, Logger: testLogger(t)})
	if err != nil {
		t.Fatal(err)
	}
	fmt.Printf("server pid %d\n", p.PID())
	select {}
}

// waitFor polls cond until it holds, failing the test after limit.
func waitFor(t *testing.T, limit time.Duration, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); !cond(); {
		if time.Now().After(deadline) {
			t.Fatalf("gave up after %s waiting for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func TestLocalSocketDirFallback(t *testing.T) {
	t.Parallel()
	short := &Cluster{dir: t.TempDir(), port: localPort}
	if dir, err := short.chooseSocketDir(); err != nil || dir != short.dir {
		t.Errorf("chooseSocketDir for a short path = %q, %v; want %s", dir, err, short.dir)
	}
	deep := &Cluster{dir: filepath.Join(t.TempDir(), strings.Repeat("d", 100)), port: localPort}
	dir, err := deep.chooseSocketDir()
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	if dir == deep.dir || !strings.HasPrefix(filepath.Base(dir), tempSocketPrefix) || !socketPathFits(dir, localPort) {
		t.Errorf("chooseSocketDir for a deep path = %q, want a short %s* directory", dir, tempSocketPrefix)
	}
}

func TestLocalHelpers(t *testing.T) {
	t.Parallel()
	if got := comparePGVersions("9.6", "15"); got >= 0 {
		t.Errorf("comparePGVersions(9.6, 15) = %d, want < 0", got)
	}
	if got := comparePGVersions("16", "15"); got <= 0 {
		t.Errorf("comparePGVersions(16, 15) = %d, want > 0", got)
	}
	for in, want := range map[string]string{
		"/tmp/x":    "/tmp/x",
		"/a b/c":    `'/a b/c'`,
		`it's\here`: `'it\'s\\here'`,
		"":          "''",
	} {
		if got := quoteConnValue(in); got != want {
			t.Errorf("quoteConnValue(%q) = %s, want %s", in, got, want)
		}
	}
	cfg, err := pgx.ParseConfig((&Cluster{socketDir: "/tmp/a b", port: 5432}).URL("x y"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Host != "/tmp/a b" || cfg.Database != "x y" || cfg.User != localUser || cfg.Port != 5432 {
		t.Errorf("URL parsed as host %q db %q user %q port %d", cfg.Host, cfg.Database, cfg.User, cfg.Port)
	}
	if got := lastNLines([]byte("a\nb\nc\n"), 2); got != "b\nc" {
		t.Errorf("lastNLines = %q", got)
	}
}

// TestCheckPostmaster: a running managed server is its cluster's
// postmaster; it is not another cluster's, and a process that is not
// postgres is nobody's.
func TestCheckPostmaster(t *testing.T) {
	p := startLocalForTest(t, filepath.Join(t.TempDir(), "data"))
	if err := checkPostmaster(p.PID(), p.clusterDir); err != nil {
		t.Errorf("the managed server (pid %d) is not the postmaster of %s: %v", p.PID(), p.clusterDir, err)
	}
	if err := checkPostmaster(p.PID(), t.TempDir()); err == nil {
		t.Error("the managed server passes as the postmaster of another directory")
	}
	if err := checkPostmaster(os.Getpid(), p.clusterDir); err == nil || !strings.Contains(err.Error(), "not postgres") {
		t.Errorf("the test process as postmaster: %v, want it refused as not postgres", err)
	}
}

// TestLocalStalePIDReused: a postmaster.pid left by a server that died,
// whose pid another process now has, neither stops the next start nor
// costs that process anything.
func TestLocalStalePIDReused(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "data")
	p := startLocalForTest(t, dataDir)
	if err := p.Stop(t.Context()); err != nil {
		t.Fatal(err)
	}
	victim := exec.Command("sleep", "60")
	if err := victim.Start(); err != nil {
		t.Fatal(err)
	}
	ended := make(chan struct{})
	go func() { _ = victim.Wait(); close(ended) }()
	t.Cleanup(func() { _ = victim.Process.Kill(); <-ended })
	stale := fmt.Sprintf("%d\n%s\n1700000000\n%d\n%s\n\n", victim.Process.Pid, p.clusterDir, localPort, p.dir)
	if err := os.WriteFile(filepath.Join(p.clusterDir, "postmaster.pid"), []byte(stale), 0o600); err != nil {
		t.Fatal(err)
	}
	again, err := Start(t.Context(), Options{DataDir: dataDir, Fast: true, Logger: testLogger(t)})
	if err != nil {
		t.Fatalf("Start over a stale postmaster.pid naming a live sleep: %v", err)
	}
	t.Cleanup(func() { _ = again.Stop(context.Background()) })
	if again.PID() == victim.Process.Pid {
		t.Error("the sleep was taken for the server")
	}
	if n, err := queryInt(t, again, "semcat", "SELECT 1"); err != nil || n != 1 {
		t.Errorf("the server started over the stale file: %d %v", n, err)
	}
	select {
	case <-ended:
		t.Error("starting over the stale file ended the process it named")
	default:
	}
}
