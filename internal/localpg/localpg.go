// Package localpg supervises the PostgreSQL that semcat manages for itself
// when no database URL is given (SPEC §9, DESIGN §5): a private cluster
// under the data directory (or /var/tmp as root), reached on a Unix socket
// only, started with semcat and stopped with it, restarted if it dies, and
// never outliving semcat; reset removes it, signalling only its own
// postmaster. It knows nothing of semcat's catalog: the store (catalogdb)
// connects to the URL a Cluster gives, like to any other PostgreSQL.
package localpg

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	osuser "os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Layout and settings of the managed cluster.
const (
	// localUser is the superuser initdb creates; trust auth on a private
	// socket means no password is needed.
	localUser = "semcat"
	// localDatabase is the database Start makes sure exists.
	localDatabase = "semcat"
	// localPort only names the socket file (.s.PGSQL.<port>); the cluster
	// never listens on TCP, so clusters in different directories never clash.
	localPort = 5432
	// maxSocketPathLen is the longest Unix socket path every supported
	// platform accepts: sun_path is 108 bytes on Linux and 104 on the BSDs
	// and macOS, including the terminating NUL.
	maxSocketPathLen = 103
	// rootClusterParent is where the cluster lives when semcat runs as root,
	// because the postgres user may not be able to enter the data directory.
	// /var/tmp rather than /tmp so the catalog survives a reboot.
	rootClusterParent = "/var/tmp"
	// serverUser is the account PostgreSQL runs as when semcat runs as root.
	serverUser = "postgres"
	// maxLogSize is the size above which postgres.log is rotated to
	// postgres.log.old at start, so the log cannot grow without bound.
	maxLogSize = 16 << 20
	// startTimeout bounds pg_ctl start/stop and the wait for connections.
	startTimeout = 60 * time.Second
)

// ErrNotFound reports that the PostgreSQL server binaries are not
// installed. Start wraps it with the command that installs them, so
// callers can test for it with errors.Is and still print a useful line.
var ErrNotFound = errors.New("semcat: PostgreSQL server binaries (initdb, pg_ctl, postgres) not found in PATH or /usr/lib/postgresql/*/bin")

// pgBinDirs lists the directories searched, in order, for the server
// binaries. It is a variable so tests can simulate a machine without them.
var pgBinDirs = defaultPGBinDirs

// Cluster is a private PostgreSQL cluster managed by semcat. It is
// used when no DATABASE_URL is given: the cluster lives under the data
// directory, listens only on a Unix socket and trusts local connections.
type Cluster struct {
	dataDir    string // absolute, symlink-free data directory
	dir        string // directory holding the cluster and (usually) the socket
	clusterDir string // the PostgreSQL data directory, <dir>/data
	socketDir  string
	port       int
	bins       pgBins
	runAs      *serverAcct // nil: run the server as the current user
	logger     *slog.Logger

	mu      sync.Mutex
	owned   bool   // this handle started (or took over) the server and stops it
	child   *child // the server this handle started and supervises, if any
	stopped bool
}

// Options configure Start.
type Options struct {
	// DataDir is semcat's data directory. The cluster is <DataDir>/pg: a
	// directory when running as an ordinary user, or, when running as root,
	// a symlink to /var/tmp/semcat-pg-<hash> that the postgres user can reach.
	DataDir string
	// Logger receives progress messages; nil means slog.Default().
	Logger *slog.Logger
	// Fast trades durability for speed (initdb --no-sync, fsync=off,
	// synchronous_commit=off, full_page_writes=off). Only for throwaway
	// clusters such as the ones tests use.
	Fast bool
}

// Start initialises the cluster if needed, starts it unless a server is
// already running on it (one left by a crashed run, or started by another
// handle, is adopted), waits until it accepts connections and creates the
// database "semcat" if missing. Concurrent calls for one data directory, in
// this or other processes, are serialised by a lock file <DataDir>/pg.lock.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	if opts.DataDir == "" {
		return nil, errors.New("semcat: local PostgreSQL: no data directory given")
	}
	logger := opts.Logger
	if logger == nil {
		logger = slog.Default()
	}
	candidates := findPGBins()
	if len(candidates) == 0 {
		return nil, fmt.Errorf("%w; install them with: %s", ErrNotFound, pgInstallHint())
	}
	runAs, err := serverAccount()
	if err != nil {
		return nil, err
	}
	dataDir, err := filepath.Abs(opts.DataDir)
	if err != nil {
		return nil, fmt.Errorf("semcat: data directory %s: %w", opts.DataDir, err)
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("semcat: creating data directory: %w", err)
	}
	if dataDir, err = filepath.EvalSymlinks(dataDir); err != nil {
		return nil, fmt.Errorf("semcat: data directory %s: %w", opts.DataDir, err)
	}
	unlock, err := flockPath(ctx, filepath.Join(dataDir, "pg.lock"))
	if err != nil {
		return nil, err
	}
	defer unlock()

	dir, err := prepareClusterDir(dataDir, runAs)
	if err != nil {
		return nil, err
	}
	p := &Cluster{
		dataDir:    dataDir,
		dir:        dir,
		clusterDir: filepath.Join(dir, "data"),
		port:       localPort,
		runAs:      runAs,
		logger:     logger,
	}
	if p.bins, err = chooseBins(ctx, candidates, p.clusterDir); err != nil {
		return nil, err
	}
	if err := p.initCluster(ctx, opts.Fast); err != nil {
		return nil, err
	}
	if err := p.startOrAdopt(ctx, opts.Fast); err != nil {
		return nil, err
	}
	if err := p.ensureDatabase(ctx, localDatabase); err != nil {
		if p.owned {
			_ = p.stopLocked(context.WithoutCancel(ctx))
		}
		return nil, err
	}
	return p, nil
}

// URL returns a pgx connection string for database dbname on the managed
// cluster: user semcat over the Unix socket, no TLS.
func (p *Cluster) URL(dbname string) string {
	return fmt.Sprintf("host=%s port=%d user=%s dbname=%s sslmode=disable",
		quoteConnValue(p.socketDir), p.port, quoteConnValue(localUser), quoteConnValue(dbname))
}

// Dir returns the directory holding the cluster (its data/ subdirectory) and
// normally the socket: <DataDir>/pg, or when running as root the
// /var/tmp/semcat-pg-<hash> directory that <DataDir>/pg links to. Removing
// the data directory does not remove this one, so whoever discards a data
// directory (tests, for example) must remove Dir too, after Stop.
func (p *Cluster) Dir() string { return p.dir }

// PID is the process ID of the cluster's postmaster, or 0 if it is not
// running.
func (p *Cluster) PID() int {
	if info, running := runningPostmaster(p.clusterDir); running {
		return info.pid
	}
	return 0
}

// ServerPID is the pid of the postmaster running on dataDir's managed
// cluster, or 0 if none runs.
func ServerPID(dataDir string) int {
	dir, err := ClusterDir(dataDir)
	if err != nil {
		return 0
	}
	if info, running := runningPostmaster(filepath.Join(dir, "data")); running {
		return info.pid
	}
	return 0
}

// MemoryBudget is about the most memory the cluster uses as semcat
// configures it: its shared buffers, plus backendMemory for each of a
// handful of busy backends (private memory, sort and hash work_mem).
func (p *Cluster) MemoryBudget() int64 {
	return sharedBuffers + busyBackends*backendMemory
}

const (
	sharedBuffers = 128 << 20
	busyBackends  = 8
	backendMemory = 16 << 20
)

// Stop stops the cluster (pg_ctl stop -m fast) if this handle started it or
// took it over from a crashed run; a handle that merely reused a server
// another live handle started leaves it running. Safe to call twice.
func (p *Cluster) Stop(ctx context.Context) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return nil
	}
	if !p.owned {
		p.stopped = true
		return nil
	}
	// Serialise with a concurrent Start, which would otherwise adopt a
	// server that is about to stop. Without the lock (data directory already
	// gone), stopping is still right.
	if unlock, err := flockPath(ctx, filepath.Join(p.dataDir, "pg.lock")); err == nil {
		defer unlock()
	}
	if err := p.stopLocked(ctx); err != nil {
		return err
	}
	p.stopped = true
	return nil
}

// stopLocked stops the server (its own child, or with pg_ctl stop one it
// took over) and removes what this handle created.
func (p *Cluster) stopLocked(ctx context.Context) error {
	start := time.Now()
	if p.child != nil {
		if err := p.child.shutdown(); err != nil {
			return err
		}
	} else if _, err := p.run(ctx, p.bins.pgCtl, "stop", "-D", p.clusterDir, "-m", "fast", "-w",
		"-t", strconv.Itoa(int(startTimeout.Seconds()))); err != nil {
		if _, running := runningPostmaster(p.clusterDir); running {
			return fmt.Errorf("semcat: stopping PostgreSQL in %s: %w", p.clusterDir, err)
		}
		p.logger.Warn("PostgreSQL was not running at stop", "dir", p.clusterDir, "err", err)
	}
	_ = os.Remove(filepath.Join(p.dir, starterFile))
	if p.socketDir != p.dir && strings.HasPrefix(filepath.Base(p.socketDir), tempSocketPrefix) {
		_ = os.RemoveAll(p.socketDir)
	}
	p.logger.Info("stopped local PostgreSQL", "dir", p.clusterDir, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// starterFile, in Dir, records the PID of the process whose handle started
// the server. A later Start that finds the server running takes over
// responsibility for stopping it only if that process is gone, i.e. crashed.
const starterFile = "starter.pid"

// tempSocketPrefix names socket directories made in os.TempDir when the
// cluster directory is too deep for a Unix socket path.
const tempSocketPrefix = "semcat-sock-"

// initCluster runs initdb unless the cluster exists. initdb writes to
// data.init which is renamed into place only when fully configured, so an
// interrupted initialisation is simply redone.
func (p *Cluster) initCluster(ctx context.Context, fast bool) error {
	if _, err := os.Stat(filepath.Join(p.clusterDir, "PG_VERSION")); err == nil {
		return nil
	}
	start := time.Now()
	tmp := filepath.Join(p.dir, "data.init")
	if err := os.RemoveAll(tmp); err != nil {
		return fmt.Errorf("semcat: removing interrupted initdb output: %w", err)
	}
	if _, err := os.Stat(p.clusterDir); err == nil {
		return fmt.Errorf("semcat: %s exists but holds no PostgreSQL cluster (no PG_VERSION); remove it to let semcat create one", p.clusterDir)
	}
	p.logger.Info("initialising local PostgreSQL cluster", "dir", p.clusterDir, "bin", filepath.Dir(p.bins.initdb))
	args := []string{"--pgdata=" + tmp, "--username=" + localUser, "--auth=trust",
		"--encoding=UTF8", "--no-locale"}
	if fast {
		args = append(args, "--no-sync")
	}
	if out, err := p.run(ctx, p.bins.initdb, args...); err != nil {
		return fmt.Errorf("semcat: initdb failed: %w\n%s", err, lastNLines(out, 20))
	}
	conf, err := os.OpenFile(filepath.Join(tmp, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		return fmt.Errorf("semcat: configuring new cluster: %w", err)
	}
	_, err = io.WriteString(conf, "\n# Added by semcat, which rewrites semcat.conf at every start.\ninclude_if_exists = 'semcat.conf'\n")
	if cerr := conf.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("semcat: configuring new cluster: %w", err)
	}
	if err := p.mkdirOwned(filepath.Join(tmp, "log")); err != nil {
		return err
	}
	if err := os.Rename(tmp, p.clusterDir); err != nil {
		return fmt.Errorf("semcat: installing new cluster: %w", err)
	}
	p.logger.Info("initialised local PostgreSQL cluster", "dir", p.clusterDir, "took", time.Since(start).Round(time.Millisecond))
	return nil
}

// startOrAdopt reuses a server already running on the cluster, or starts one.
func (p *Cluster) startOrAdopt(ctx context.Context, fast bool) error {
	if info, running := runningPostmaster(p.clusterDir); running {
		if why := checkPostmaster(info.pid, p.clusterDir); why != nil {
			// A stale postmaster.pid whose pid another process now has:
			// PostgreSQL would refuse to start over it, and that process is
			// none of semcat's business. Only the file goes.
			pidFile := filepath.Join(p.clusterDir, "postmaster.pid")
			p.logger.Warn("removing a stale postmaster.pid: the process it names is not this cluster's server",
				"file", pidFile, "pid", info.pid, "why", why.Error())
			if err := os.Remove(pidFile); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("semcat: removing stale %s: %w", pidFile, err)
			}
		}
	}
	if info, running := runningPostmaster(p.clusterDir); running {
		err := p.adopt(ctx, info)
		if err == nil {
			return nil
		}
		if _, still := runningPostmaster(p.clusterDir); still {
			return err
		}
		// The server went away while we looked at it; start a new one.
	}
	socketDir, err := p.chooseSocketDir()
	if err != nil {
		return err
	}
	p.socketDir = socketDir
	if err := p.writeSettings(fast); err != nil {
		return err
	}
	logFile := filepath.Join(p.clusterDir, "log", "postgres.log")
	if err := p.mkdirOwned(filepath.Dir(logFile)); err != nil {
		return err
	}
	rotatePGLog(logFile)
	if err := os.WriteFile(filepath.Join(p.dir, starterFile), []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
		return fmt.Errorf("semcat: recording server owner: %w", err)
	}
	start := time.Now()
	c, err := p.startChild(ctx, logFile)
	if err != nil {
		_ = os.Remove(filepath.Join(p.dir, starterFile))
		if p.socketDir != p.dir {
			_ = os.RemoveAll(p.socketDir)
		}
		return err
	}
	p.owned, p.child = true, c
	p.logger.Info("started local PostgreSQL", "dir", p.clusterDir, "socket", p.socketDir,
		"took", time.Since(start).Round(time.Millisecond))
	return nil
}

// adopt connects to a server that is already running on the cluster. The
// handle takes responsibility for stopping it only when the process that
// started it has died.
func (p *Cluster) adopt(ctx context.Context, info postmasterInfo) error {
	p.socketDir, p.port = info.socketDir, info.port
	if p.socketDir == "" {
		return fmt.Errorf("semcat: PostgreSQL (pid %d) on %s has no Unix socket", info.pid, p.clusterDir)
	}
	conn, err := connectLocalRetry(ctx, p.URL("postgres"), 10*time.Second)
	if err != nil {
		return fmt.Errorf("semcat: PostgreSQL (pid %d) is running on %s but does not accept connections: %w", info.pid, p.clusterDir, err)
	}
	_ = conn.Close(ctx)
	starter := filepath.Join(p.dir, starterFile)
	pid, err := readPIDFile(starter)
	switch {
	case err == nil && pidAlive(pid):
		p.logger.Info("reusing local PostgreSQL started by a running process", "dir", p.clusterDir, "starter_pid", pid)
	case err == nil:
		p.owned = true
		if werr := os.WriteFile(starter, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); werr != nil {
			return fmt.Errorf("semcat: recording server owner: %w", werr)
		}
		p.logger.Info("adopted local PostgreSQL left running by an earlier run", "dir", p.clusterDir, "server_pid", info.pid)
	default:
		p.logger.Info("reusing local PostgreSQL not started by semcat; it will be left running", "dir", p.clusterDir, "server_pid", info.pid)
	}
	return nil
}

// chooseSocketDir returns Dir, or a fresh short temporary directory when the
// socket path under Dir would exceed the platform limit.
func (p *Cluster) chooseSocketDir() (string, error) {
	if socketPathFits(p.dir, p.port) {
		return p.dir, nil
	}
	dir, err := os.MkdirTemp("", tempSocketPrefix)
	if err != nil {
		return "", fmt.Errorf("semcat: creating socket directory: %w", err)
	}
	if !socketPathFits(dir, p.port) {
		_ = os.Remove(dir)
		return "", fmt.Errorf("semcat: no directory short enough for a Unix socket: %s and %s are both too long; set TMPDIR to a short path", p.dir, dir)
	}
	if err := p.chown(dir); err != nil {
		_ = os.Remove(dir)
		return "", err
	}
	return dir, nil
}

// socketPathFits reports whether the socket PostgreSQL creates in dir has a
// path short enough for sockaddr_un.
func socketPathFits(dir string, port int) bool {
	return len(filepath.Join(dir, ".s.PGSQL."+strconv.Itoa(port))) <= maxSocketPathLen
}

// writeSettings writes data/semcat.conf, included from postgresql.conf, with
// the settings for this start. A file rather than pg_ctl -o avoids shell
// quoting of the socket path.
func (p *Cluster) writeSettings(fast bool) error {
	var b strings.Builder
	b.WriteString("# Written by semcat at every start; edits are lost.\n")
	fmt.Fprintf(&b, "listen_addresses = ''\n")
	fmt.Fprintf(&b, "port = %d\n", p.port)
	// unix_socket_directories is a comma-separated list whose elements may be
	// double-quoted; the whole value is a single-quoted conf string.
	fmt.Fprintf(&b, "unix_socket_directories = %s\n",
		quotePGConfString(`"`+strings.ReplaceAll(p.socketDir, `"`, `""`)+`"`))
	b.WriteString("max_connections = 200\n")
	fmt.Fprintf(&b, "shared_buffers = %dMB\n", sharedBuffers>>20)
	b.WriteString("logging_collector = off\n")
	if fast {
		b.WriteString("fsync = off\nsynchronous_commit = off\nfull_page_writes = off\n")
	}
	path := filepath.Join(p.clusterDir, "semcat.conf")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		return fmt.Errorf("semcat: writing %s: %w", path, err)
	}
	return p.chown(path)
}

// ensureDatabase creates database name unless it exists.
func (p *Cluster) ensureDatabase(ctx context.Context, name string) error {
	conn, err := connectLocalRetry(ctx, p.URL("postgres"), startTimeout)
	if err != nil {
		return fmt.Errorf("semcat: connecting to local PostgreSQL: %w", err)
	}
	defer conn.Close(context.WithoutCancel(ctx))
	var exists bool
	if err := conn.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_database WHERE datname = $1)", name).Scan(&exists); err != nil {
		return fmt.Errorf("semcat: looking up database %s: %w", name, err)
	}
	if exists {
		return nil
	}
	if _, err := conn.Exec(ctx, "CREATE DATABASE "+pgx.Identifier{name}.Sanitize()); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P04" { // duplicate_database
			return nil
		}
		return fmt.Errorf("semcat: creating database %s: %w", name, err)
	}
	p.logger.Info("created database", "name", name)
	return nil
}

// connectLocalRetry connects to connString, retrying for up to wait while the
// server finishes starting.
func connectLocalRetry(ctx context.Context, connString string, wait time.Duration) (*pgx.Conn, error) {
	deadline := time.Now().Add(wait)
	for {
		attemptCtx, cancel := context.WithTimeout(ctx, 5*time.Second)
		conn, err := pgx.Connect(attemptCtx, connString)
		cancel()
		if err == nil {
			return conn, nil
		}
		if ctx.Err() != nil || time.Now().After(deadline) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// run executes a PostgreSQL program as the server account and returns its
// combined output. PG* variables are removed from its environment so a
// user's client settings cannot redirect it.
func (p *Cluster) run(ctx context.Context, prog string, args ...string) ([]byte, error) {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Dir = p.dir // the server account may not be allowed into our working directory
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "PG") })
	cmd.WaitDelay = 5 * time.Second
	if p.runAs != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{
			Uid: p.runAs.uid, Gid: p.runAs.gid, Groups: p.runAs.groups,
		}}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w", filepath.Base(prog), args[0], err)
	}
	return out, nil
}

// mkdirOwned creates dir (mode 0700) owned by the server account.
func (p *Cluster) mkdirOwned(dir string) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("semcat: creating %s: %w", dir, err)
	}
	return p.chown(dir)
}

// chown gives path to the server account when it differs from ours.
func (p *Cluster) chown(path string) error {
	if p.runAs == nil {
		return nil
	}
	if err := os.Lchown(path, int(p.runAs.uid), int(p.runAs.gid)); err != nil {
		return fmt.Errorf("semcat: giving %s to user %s: %w", path, serverUser, err)
	}
	return nil
}

// serverAcct is the system user PostgreSQL runs as when semcat is root.
type serverAcct struct {
	uid, gid uint32
	groups   []uint32
}

// serverAccount returns nil when PostgreSQL can run as the current user, or
// the postgres account when the current user is root, which PostgreSQL
// refuses to run as.
func serverAccount() (*serverAcct, error) {
	if os.Geteuid() != 0 {
		return nil, nil
	}
	u, err := osuser.Lookup(serverUser)
	if err != nil {
		return nil, fmt.Errorf("semcat: running as root, but PostgreSQL refuses to run as root and there is no %q system user to run it as (%w); create one (e.g. useradd --system --user-group %s) or set DATABASE_URL", serverUser, err, serverUser)
	}
	uid, err1 := strconv.ParseUint(u.Uid, 10, 32)
	gid, err2 := strconv.ParseUint(u.Gid, 10, 32)
	if err := errors.Join(err1, err2); err != nil {
		return nil, fmt.Errorf("semcat: user %s: %w", serverUser, err)
	}
	a := &serverAcct{uid: uint32(uid), gid: uint32(gid)}
	if ids, err := u.GroupIds(); err == nil {
		for _, id := range ids {
			if g, err := strconv.ParseUint(id, 10, 32); err == nil {
				a.groups = append(a.groups, uint32(g))
			}
		}
	}
	return a, nil
}

// prepareClusterDir returns the directory that holds the cluster for
// dataDir, creating it if needed. As an ordinary user that is <dataDir>/pg.
// As root it is /var/tmp/semcat-pg-<hash of dataDir>, owned by postgres, and
// <dataDir>/pg is a symlink to it, because the postgres user may not be able
// to reach dataDir (for example a checkout under /root).
func prepareClusterDir(dataDir string, runAs *serverAcct) (string, error) {
	link := filepath.Join(dataDir, "pg")
	if runAs == nil {
		if err := os.MkdirAll(link, 0o700); err != nil {
			return "", fmt.Errorf("semcat: creating %s: %w", link, err)
		}
		return link, nil
	}
	dir := rootClusterDir(dataDir)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("semcat: creating %s: %w", dir, err)
	}
	// /var/tmp is world-writable: accept only a real directory owned by the
	// server account (or freshly made by us), never a planted symlink.
	if err := ownClusterDir(dir, runAs); err != nil {
		return "", fmt.Errorf("semcat: refusing to use %s: %w", dir, err)
	}
	if err := os.Lchown(dir, int(runAs.uid), int(runAs.gid)); err != nil {
		return "", fmt.Errorf("semcat: giving %s to user %s: %w", dir, serverUser, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("semcat: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "OWNER"), []byte(dataDir+"\n"), 0o644); err != nil {
		return "", fmt.Errorf("semcat: %w", err)
	}
	fi, err := os.Lstat(link)
	switch {
	case errors.Is(err, os.ErrNotExist):
	case err != nil:
		return "", fmt.Errorf("semcat: %w", err)
	case fi.Mode()&os.ModeSymlink != 0:
		target, err := os.Readlink(link)
		if err != nil {
			return "", fmt.Errorf("semcat: %w", err)
		}
		if target == dir {
			return dir, nil
		}
		return "", fmt.Errorf("semcat: %s links to %s, but the cluster for this data directory belongs in %s (was the data directory moved or copied?); move that directory there, or remove the link to start a fresh cluster", link, target, dir)
	case fi.IsDir():
		// An empty directory (made by hand, or by an older run) can go.
		if err := os.Remove(link); err != nil {
			return "", fmt.Errorf("semcat: %s is a directory, but as root semcat keeps the cluster in %s where user %s can reach it; move %s away: %w", link, dir, serverUser, link, err)
		}
	default:
		return "", fmt.Errorf("semcat: %s exists and is not a link to %s; remove it", link, dir)
	}
	if err := os.Symlink(dir, link); err != nil {
		return "", fmt.Errorf("semcat: linking %s to %s: %w", link, dir, err)
	}
	return dir, nil
}

// ownClusterDir checks that dir, a cluster's directory, is one semcat may
// use and stop a server in: a real directory (not a symlink) owned by the
// user semcat runs as, or, when that is root, by the server account that
// semcat hands it to. Anyone can make directories in /var/tmp, so as root
// the path alone proves nothing.
func ownClusterDir(dir string, runAs *serverAcct) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok {
		return errors.New("not a directory")
	}
	euid := uint32(os.Geteuid())
	if st.Uid == euid || (runAs != nil && st.Uid == runAs.uid) {
		return nil
	}
	if runAs != nil {
		return fmt.Errorf("owned by uid %d, not by root or %s", st.Uid, serverUser)
	}
	return fmt.Errorf("owned by uid %d, not by the user semcat runs as (uid %d)", st.Uid, euid)
}

// ClusterDir returns the directory Start keeps dataDir's cluster
// in (Cluster.Dir): <dataDir>/pg, or as root the /var/tmp directory
// that link points to, which outlives a removed data directory. Whoever
// throws a data directory away (tests) removes this one too, once stopped.
func ClusterDir(dataDir string) (string, error) {
	abs, err := filepath.Abs(dataDir)
	if err != nil {
		return "", err
	}
	if abs, err = filepath.EvalSymlinks(abs); err != nil {
		return "", err
	}
	if os.Geteuid() != 0 {
		return filepath.Join(abs, "pg"), nil
	}
	return rootClusterDir(abs), nil
}

// rootClusterDir returns /var/tmp/semcat-pg-<first 16 hex digits of the
// SHA-256 of dataDir>, the root-mode cluster directory for dataDir.
func rootClusterDir(dataDir string) string {
	sum := sha256.Sum256([]byte(dataDir))
	return filepath.Join(rootClusterParent, "semcat-pg-"+hex.EncodeToString(sum[:])[:16])
}

// pgBins are the paths of the server programs, all from one directory.
type pgBins struct {
	initdb, pgCtl, postgres string
}

// findPGBins returns every directory from pgBinDirs holding all three
// server programs, in search order.
func findPGBins() []pgBins {
	var found []pgBins
	seen := map[string]bool{}
	for _, dir := range pgBinDirs() {
		if dir == "" || !filepath.IsAbs(dir) || seen[dir] {
			continue // a relative PATH entry would depend on the working directory
		}
		seen[dir] = true
		b := pgBins{
			initdb:   filepath.Join(dir, "initdb"),
			pgCtl:    filepath.Join(dir, "pg_ctl"),
			postgres: filepath.Join(dir, "postgres"),
		}
		if isExecFile(b.initdb) && isExecFile(b.pgCtl) && isExecFile(b.postgres) {
			found = append(found, b)
		}
	}
	return found
}

// defaultPGBinDirs returns the PATH entries followed by
// /usr/lib/postgresql/*/bin, newest major version first (the Debian and
// Ubuntu layout, which does not put the server programs on PATH).
func defaultPGBinDirs() []string {
	dirs := filepath.SplitList(os.Getenv("PATH"))
	versioned, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(versioned, func(a, b string) int {
		return comparePGVersions(filepath.Base(filepath.Dir(b)), filepath.Base(filepath.Dir(a)))
	})
	return append(dirs, versioned...)
}

// comparePGVersions compares dotted version strings numerically ("9.6" < "15").
func comparePGVersions(a, b string) int {
	as, bs := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(as) || i < len(bs); i++ {
		var x, y int
		if i < len(as) {
			x, _ = strconv.Atoi(as[i])
		}
		if i < len(bs) {
			y, _ = strconv.Atoi(bs[i])
		}
		if x != y {
			return x - y
		}
	}
	return strings.Compare(a, b)
}

// chooseBins picks the first candidate whose major version matches an
// existing cluster in clusterDir, or simply the first for a new cluster.
func chooseBins(ctx context.Context, candidates []pgBins, clusterDir string) (pgBins, error) {
	raw, err := os.ReadFile(filepath.Join(clusterDir, "PG_VERSION"))
	if err != nil {
		return candidates[0], nil
	}
	want := strings.TrimSpace(string(raw))
	var seen []string
	for _, b := range candidates {
		v, err := pgMajorVersion(ctx, b.pgCtl)
		if err != nil {
			continue
		}
		if v == want {
			return b, nil
		}
		seen = append(seen, v+" ("+filepath.Dir(b.pgCtl)+")")
	}
	return pgBins{}, fmt.Errorf("semcat: the cluster in %s was created by PostgreSQL %s, but only other versions are installed: %s; install PostgreSQL %s server binaries, or remove %s to start a fresh cluster",
		clusterDir, want, strings.Join(seen, ", "), want, clusterDir)
}

// pgMajorVersion returns the major version pg_ctl reports, e.g. "15".
func pgMajorVersion(ctx context.Context, pgCtl string) (string, error) {
	out, err := exec.CommandContext(ctx, pgCtl, "--version").Output()
	if err != nil {
		return "", err
	}
	fields := strings.Fields(string(out)) // "pg_ctl (PostgreSQL) 15.8 (Debian 15.8-1)"
	if len(fields) < 3 {
		return "", fmt.Errorf("unexpected pg_ctl --version output %q", out)
	}
	v := fields[2]
	if major, _, ok := strings.Cut(v, "."); ok {
		if n, err := strconv.Atoi(major); err == nil && n >= 10 {
			return major, nil
		}
		// Before 10 the major version had two parts, e.g. 9.6.
		if parts := strings.SplitN(v, ".", 3); len(parts) >= 2 {
			return parts[0] + "." + parts[1], nil
		}
	}
	return v, nil
}

// isExecFile reports whether path is a regular file with an execute bit.
func isExecFile(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}

// pgInstallHint returns the command that installs the server binaries with
// this machine's package manager.
func pgInstallHint() string {
	if runtime.GOOS == "darwin" {
		return "brew install postgresql"
	}
	for _, c := range []struct{ tool, cmd string }{
		{"apt-get", "apt-get install -y postgresql"},
		{"dnf", "dnf install -y postgresql-server"},
		{"yum", "yum install -y postgresql-server"},
		{"apk", "apk add postgresql"},
		{"pacman", "pacman -S --noconfirm postgresql"},
		{"zypper", "zypper install -y postgresql-server"},
		{"brew", "brew install postgresql"},
	} {
		if _, err := exec.LookPath(c.tool); err == nil {
			return c.cmd
		}
	}
	return "apt-get install -y postgresql"
}

// postmasterInfo is what postmaster.pid says about a running server.
type postmasterInfo struct {
	pid       int
	port      int
	socketDir string
}

// runningPostmaster reads clusterDir/postmaster.pid and reports the server it
// names if that process is alive. A stale file (process gone) reads as not
// running; pg_ctl start copes with it.
func runningPostmaster(clusterDir string) (postmasterInfo, bool) {
	raw, err := os.ReadFile(filepath.Join(clusterDir, "postmaster.pid"))
	if err != nil {
		return postmasterInfo{}, false
	}
	// Lines: pid, data dir, start time, port, first socket dir, listen
	// addresses, shmem key, status.
	lines := strings.Split(string(raw), "\n")
	var info postmasterInfo
	if info.pid, err = strconv.Atoi(strings.TrimSpace(lines[0])); err != nil || info.pid <= 0 {
		return postmasterInfo{}, false
	}
	if len(lines) > 3 {
		info.port, _ = strconv.Atoi(strings.TrimSpace(lines[3]))
	}
	if info.port == 0 {
		info.port = localPort
	}
	if len(lines) > 4 {
		info.socketDir = strings.TrimSpace(lines[4])
	}
	return info, pidAlive(info.pid)
}

// pidAlive reports whether a process with this pid exists.
func pidAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// readPIDFile reads a file holding a decimal process ID.
func readPIDFile(path string) (int, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(raw)))
}

// flockPath takes an exclusive flock on path, polling so ctx can cancel the
// wait, and returns the function that releases it.
func flockPath(ctx context.Context, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("semcat: opening lock %s: %w", path, err)
	}
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { _ = f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("semcat: locking %s: %w", path, err)
		}
		select {
		case <-ctx.Done():
			_ = f.Close()
			return nil, fmt.Errorf("semcat: waiting for lock %s: %w", path, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// rotatePGLog moves a log larger than maxLogSize to <log>.old.
func rotatePGLog(path string) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLogSize {
		_ = os.Rename(path, path+".old")
	}
}

// tailPGLog returns the last n lines of the file at path, or a note saying
// why it could not be read.
func tailPGLog(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	defer f.Close()
	const maxTail = 64 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > maxTail {
		_, _ = f.Seek(fi.Size()-maxTail, io.SeekStart)
	}
	raw, err := io.ReadAll(f)
	if err != nil {
		return fmt.Sprintf("(cannot read log: %v)", err)
	}
	return lastNLines(raw, n)
}

// lastNLines returns the last n lines of out.
func lastNLines(out []byte, n int) string {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		lines = append(lines, sc.Text())
		if len(lines) > n {
			lines = lines[1:]
		}
	}
	return strings.Join(lines, "\n")
}

// quoteConnValue quotes a keyword/value connection string value when needed.
func quoteConnValue(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\r\n'\\") {
		return s
	}
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// quotePGConfString quotes s as a postgresql.conf string literal, in which
// backslash is an escape character.
func quotePGConfString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `''`).Replace(s) + "'"
}

// Remove removes the managed PostgreSQL cluster of dataDir, for
// starting over: it stops a server still running there (one a killed
// semcat left behind), fast then immediate, and deletes the cluster's
// directory, which as root lives outside the data directory. The caller
// makes sure no semcat uses dataDir.
//
// It signals only its own cluster's postmaster (SPEC §9): a cluster
// directory that does not belong to semcat's user (or, as root, to the
// server account) is left alone, and so is a process that postmaster.pid
// names but that is not a postgres whose data directory is this cluster
// (a planted or stale file whose pid another process now has); each is
// reported on out.
func Remove(ctx context.Context, dataDir string, out io.Writer) error {
	dir, err := ClusterDir(dataDir)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	} else if err != nil {
		return err
	}
	if _, err := os.Lstat(dir); errors.Is(err, os.ErrNotExist) {
		return nil
	}
	runAs, err := serverAccount()
	if err != nil {
		runAs = nil // root without a postgres user: only root's own directory is ours
	}
	if err := ownClusterDir(dir, runAs); err != nil {
		fmt.Fprintf(out, "left %s alone: %v; it is not a cluster semcat made, so neither it nor any process it names was touched\n", dir, err)
		return nil
	}
	clusterDir := filepath.Join(dir, "data")
	pidFile := filepath.Join(clusterDir, "postmaster.pid")
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGQUIT} {
		info, running := runningPostmaster(clusterDir)
		if !running {
			break
		}
		if err := checkPostmaster(info.pid, clusterDir); err != nil {
			fmt.Fprintf(out, "left process %d alone: %s names it, but %v\n", info.pid, pidFile, err)
			break
		}
		if err := syscall.Kill(info.pid, sig); err != nil && !errors.Is(err, syscall.ESRCH) {
			return fmt.Errorf("semcat: stopping PostgreSQL (pid %d) in %s: %w", info.pid, clusterDir, err)
		}
		for deadline := time.Now().Add(startTimeout / 2); time.Now().Before(deadline); {
			if _, running := runningPostmaster(clusterDir); !running {
				break
			}
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(100 * time.Millisecond):
			}
		}
	}
	if info, running := runningPostmaster(clusterDir); running && checkPostmaster(info.pid, clusterDir) == nil {
		return fmt.Errorf("semcat: PostgreSQL (pid %d) in %s did not stop", info.pid, clusterDir)
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("semcat: removing %s: %w", dir, err)
	}
	return nil
}
