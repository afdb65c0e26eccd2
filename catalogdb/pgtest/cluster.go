package pgtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// Cluster is a PostgreSQL cluster of a test's own, for tests that fail a
// server over to a standby or restore it from a backup. It listens on a
// Unix socket only, runs as the postgres user when the test runs as root,
// and is stopped and removed when the test ends.
type Cluster struct {
	tb      testing.TB
	bin     string // directory of initdb, pg_ctl, pg_basebackup
	dir     string // holds data/, sock/ and log
	Data    string
	Socket  string
	runAs   *syscall.Credential
	running bool
}

// NewCluster initialises and starts a cluster able to stream to standbys
// and to be base-backed up, with database dbname. It skips the test if the
// server programs are not installed.
func NewCluster(tb testing.TB, dbname string) *Cluster {
	tb.Helper()
	c := newCluster(tb)
	c.pg("initdb", "--pgdata="+c.Data, "--username=postgres", "--auth=trust", "--encoding=UTF8", "--no-locale", "--no-sync")
	c.appendConf(`wal_level = replica
max_wal_senders = 10
wal_keep_size = '256MB'
hot_standby = on
fsync = off
`)
	if err := os.WriteFile(filepath.Join(c.Data, "pg_hba.conf"), []byte("local all all trust\nlocal replication all trust\n"), 0o600); err != nil {
		tb.Fatal(err)
	}
	c.chown(filepath.Join(c.Data, "pg_hba.conf"))
	c.Start()
	c.Exec("postgres", "CREATE DATABASE "+pgx.Identifier{dbname}.Sanitize())
	return c
}

func newCluster(tb testing.TB) *Cluster {
	tb.Helper()
	bin := findBin("initdb", "pg_ctl", "pg_basebackup")
	if bin == "" {
		tb.Skip("the PostgreSQL server programs (initdb, pg_ctl, pg_basebackup) are not installed")
	}
	// Short: the socket path must fit in 107 bytes.
	dir, err := os.MkdirTemp("", "semcat-pgc-")
	if err != nil {
		tb.Fatal(err)
	}
	c := &Cluster{tb: tb, bin: bin, dir: dir, Data: filepath.Join(dir, "data"), Socket: filepath.Join(dir, "sock")}
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			tb.Skipf("running as root, and there is no postgres user to run PostgreSQL as: %v", err)
		}
		uid, _ := strconv.ParseUint(u.Uid, 10, 32)
		gid, _ := strconv.ParseUint(u.Gid, 10, 32)
		c.runAs = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	}
	c.chown(dir)
	if err := os.Mkdir(c.Socket, 0o700); err != nil {
		tb.Fatal(err)
	}
	c.chown(c.Socket)
	tb.Cleanup(func() {
		if c.running {
			_, _ = c.run("pg_ctl", "stop", "-D", c.Data, "-m", "immediate", "-w")
		}
		_ = os.RemoveAll(dir)
	})
	return c
}

// findBin returns the first directory of PATH or /usr/lib/postgresql/*/bin
// (newest first) holding every one of progs.
func findBin(progs ...string) string {
	dirs := filepath.SplitList(os.Getenv("PATH"))
	versioned, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	slices.SortFunc(versioned, func(a, b string) int {
		x, _ := strconv.Atoi(filepath.Base(filepath.Dir(a)))
		y, _ := strconv.Atoi(filepath.Base(filepath.Dir(b)))
		return y - x
	})
	for _, d := range append(dirs, versioned...) {
		ok := d != ""
		for _, p := range progs {
			if st, err := os.Stat(filepath.Join(d, p)); err != nil || st.IsDir() {
				ok = false
			}
		}
		if ok {
			return d
		}
	}
	return ""
}

func (c *Cluster) chown(path string) {
	if c.runAs == nil {
		return
	}
	if err := os.Lchown(path, int(c.runAs.Uid), int(c.runAs.Gid)); err != nil {
		c.tb.Fatal(err)
	}
}

// run runs one of the server programs as the cluster's user.
func (c *Cluster) run(prog string, args ...string) ([]byte, error) {
	cmd := exec.Command(filepath.Join(c.bin, prog), args...)
	cmd.Dir = c.dir
	cmd.Env = slices.DeleteFunc(os.Environ(), func(kv string) bool { return strings.HasPrefix(kv, "PG") })
	if c.runAs != nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: c.runAs}
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return out, fmt.Errorf("%s %s: %w\n%s", prog, strings.Join(args, " "), err, out)
	}
	return out, nil
}

func (c *Cluster) pg(prog string, args ...string) {
	c.tb.Helper()
	if _, err := c.run(prog, args...); err != nil {
		c.tb.Fatal(err)
	}
}

func (c *Cluster) appendConf(lines string) {
	c.tb.Helper()
	f, err := os.OpenFile(filepath.Join(c.Data, "postgresql.conf"), os.O_APPEND|os.O_WRONLY, 0)
	if err == nil {
		_, err = f.WriteString("\n" + lines)
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		c.tb.Fatal(err)
	}
}

// Start starts the server and waits until it accepts connections.
func (c *Cluster) Start() {
	c.tb.Helper()
	opts := fmt.Sprintf("-c listen_addresses='' -c unix_socket_directories='%s' -c port=5432", c.Socket)
	c.pg("pg_ctl", "start", "-D", c.Data, "-l", filepath.Join(c.dir, "log"), "-w", "-t", "60", "-o", opts)
	c.running = true
}

// Stop stops the server: mode is "fast" or "immediate" (a crash).
func (c *Cluster) Stop(mode string) {
	c.tb.Helper()
	c.pg("pg_ctl", "stop", "-D", c.Data, "-m", mode, "-w")
	c.running = false
}

// URL is a connection string for database dbname.
func (c *Cluster) URL(dbname string) string {
	return fmt.Sprintf("host=%s port=5432 user=postgres dbname=%s", c.Socket, dbname)
}

// Exec runs statements on database dbname.
func (c *Cluster) Exec(dbname string, statements ...string) {
	c.tb.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := execAdmin(ctx, c.URL(dbname), statements...); err != nil {
		c.tb.Fatal(err)
	}
}

// Standby makes a streaming standby of c from a base backup and starts it.
func (c *Cluster) Standby() *Cluster {
	c.tb.Helper()
	s := newCluster(c.tb)
	c.pg("pg_basebackup", "-h", c.Socket, "-p", "5432", "-U", "postgres", "-D", s.Data, "-X", "stream", "-R", "--no-sync", "--checkpoint=fast")
	s.Start()
	return s
}

// Backup takes a base backup of c (with the WAL to make it consistent)
// into a directory of its own and returns it.
func (c *Cluster) Backup() string {
	c.tb.Helper()
	dir, err := os.MkdirTemp(c.dir, "backup-")
	if err != nil {
		c.tb.Fatal(err)
	}
	c.chown(dir)
	c.pg("pg_basebackup", "-h", c.Socket, "-p", "5432", "-U", "postgres", "-D", dir, "-X", "stream", "--no-sync", "--checkpoint=fast")
	return dir
}

// Restore stops the server, replaces its data directory by a copy of the
// base backup in backup, and starts it again: the cluster as it was when
// the backup was taken.
func (c *Cluster) Restore(backup string) {
	c.tb.Helper()
	if c.running {
		c.Stop("immediate")
	}
	if err := os.RemoveAll(c.Data); err != nil {
		c.tb.Fatal(err)
	}
	if out, err := exec.Command("cp", "-a", backup, c.Data).CombinedOutput(); err != nil {
		c.tb.Fatalf("copying the backup: %v %s", err, out)
	}
	c.Start()
}

// Promote promotes a standby and waits until it accepts writes.
func (c *Cluster) Promote() {
	c.tb.Helper()
	c.pg("pg_ctl", "promote", "-D", c.Data, "-w")
}

// WaitReplayed waits until standby has replayed everything c (its
// primary) wrote so far, failing tb after a minute.
func (c *Cluster) WaitReplayed(tb testing.TB, standby *Cluster) {
	tb.Helper()
	bg := context.Background()
	p, err := pgx.Connect(bg, c.URL("semcat"))
	if err != nil {
		tb.Fatal(err)
	}
	defer p.Close(bg)
	var lsn string
	if err := p.QueryRow(bg, `SELECT pg_current_wal_lsn()::text`).Scan(&lsn); err != nil {
		tb.Fatal(err)
	}
	s, err := pgx.Connect(bg, standby.URL("semcat"))
	if err != nil {
		tb.Fatal(err)
	}
	defer s.Close(bg)
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		var done bool
		if err := s.QueryRow(bg, `SELECT pg_last_wal_replay_lsn() >= $1::pg_lsn`, lsn).Scan(&done); err != nil {
			tb.Fatal(err)
		}
		if done {
			return
		}
		if time.Now().After(deadline) {
			tb.Fatal("the standby does not catch up")
		}
	}
}
