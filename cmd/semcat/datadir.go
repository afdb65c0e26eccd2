package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/semcat/semcat/internal/localpg"
)

// dataDirLock is the file whose lock a serving semcat holds for its whole
// life, so that a second one on the same data directory stops at once and
// says which process has it (SPEC §9), instead of waiting on the index's
// own lock. The kernel drops the lock when the process ends, however.
const dataDirLock = "semcat.lock"

// lockDataDir takes dir's lock and writes this process's id into it, or
// fails naming the process that holds it. release drops it.
func lockDataDir(dir string) (release func(), err error) {
	path := filepath.Join(dir, dataDirLock)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, fmt.Errorf("data dir: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		defer f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			holder := "another process"
			if b, rerr := os.ReadFile(path); rerr == nil {
				if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); perr == nil && pid > 0 {
					holder = fmt.Sprintf("semcat (pid %d)", pid)
				}
			}
			return nil, fmt.Errorf("data dir %s is in use by %s: stop it first, or give this one another --data-dir", dir, holder)
		}
		return nil, fmt.Errorf("data dir: locking %s: %w", path, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { _ = f.Close() }, nil
}

// reset deletes a data directory and its managed PostgreSQL cluster (which
// as root lives in /var/tmp, outside it), so that the next serve starts
// from nothing. It refuses while a semcat serves the directory, and asks
// for --yes, since it cannot be undone.
func resetCommand(getenv func(string) string) *cobra.Command {
	def := DefaultConfig().DataDir
	if v := getenv("SEMCAT_DATA_DIR"); v != "" {
		def = v
	}
	var dataDir string
	var yes bool
	c := &cobra.Command{
		Use:         "reset [--data-dir DIR] --yes",
		Short:       "start over: delete a stopped server's data directory and its PostgreSQL cluster",
		Args:        argsBetween(0, 0),
		Annotations: local,
		RunE: func(cc *cobra.Command, _ []string) error {
			return reset(dataDir, yes, cc.OutOrStdout())
		},
	}
	c.Flags().StringVar(&dataDir, "data-dir", def, "the data directory to delete (default SEMCAT_DATA_DIR, else ./var)")
	c.Flags().BoolVar(&yes, "yes", false, "really delete it: every metalake, the index and the audit log")
	return c
}

func reset(dataDir string, yes bool, stdout io.Writer) error {
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return err
	}
	if _, err := os.Stat(dir); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stdout, "%s does not exist: nothing to reset\n", dir)
		return nil
	}
	if !yes {
		return usagef("reset deletes %s and its PostgreSQL cluster, every metalake in them; run it again with --yes", dir)
	}
	release, err := lockDataDir(dir)
	if err != nil {
		return err
	}
	defer release()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := localpg.Remove(ctx, dir, stdout); err != nil {
		return err
	}
	if err := os.RemoveAll(dir); err != nil {
		return fmt.Errorf("removing %s: %w", dir, err)
	}
	fmt.Fprintf(stdout, "deleted %s and its PostgreSQL cluster; the next semcat serve starts afresh\n", dir)
	return nil
}
