package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/semcat/semcat/internal/memcg"
)

// Serving under a memory limit (-memory-limit).
//
// The server's RSS counts the index files it has mapped and touched, which
// the kernel is free to drop again: what a deployment cares about is
// whether semcat keeps its latencies when its memory is capped, as a
// container's is. So the harness can put the server (not its PostgreSQL,
// already running when the server joins) into a memory cgroup of its own
// with that limit, as a child of the harness's own memory cgroup, and
// report the cgroup's peak usage and how often the limit was reached.
// Memory the server used before it joined stays charged where it was
// (cgroup v2 never moves charges; v1 does where the kernel still honours
// memory.move_charge_at_immigrate): a fresh server's footprint, small.
// Cgroup v1 works where the harness may create cgroups (as root,
// typically); v2 only where the harness's own cgroup may hand the memory
// controller to a child, which a cgroup holding processes (the harness)
// may not unless it is the root: newMemoryCgroup says so.

// memoryCgroup is a memory cgroup the harness made for the server.
type memoryCgroup struct {
	dir     string
	version int // 1 or 2
	limit   int64
	// limitFile is the file that sets the limit: memory.limit_in_bytes
	// (v1) or memory.max (v2).
	limitFile string
}

// CgroupStats is what the server's memory cgroup saw.
type CgroupStats struct {
	Version    int   `json:"cgroupVersion"`
	LimitBytes int64 `json:"limitBytes"`
	// PeakBytes is the cgroup's peak usage: the server's anonymous memory
	// and the page cache charged to it (the index files it wrote or read).
	PeakBytes int64 `json:"peakBytes"`
	// LimitHits counts the times usage reached the limit (v1 failcnt, v2
	// the "max" event), each a reclaim of the cgroup's pages; OOMKills
	// the processes the kernel killed for want of memory.
	LimitHits int64 `json:"limitHits"`
	OOMKills  int64 `json:"oomKills"`
}

// byteUnits are the units a size may be written in (parseBytes,
// compactBytes), smallest first.
var byteUnits = []struct {
	suffix string
	shift  uint
}{{"KiB", 10}, {"MiB", 20}, {"GiB", 30}}

// parseBytes reads a size such as 1073741824, 512MiB or 1GiB.
func parseBytes(s string) (int64, error) {
	for _, u := range byteUnits {
		if n, ok := strings.CutSuffix(s, u.suffix); ok {
			v, err := strconv.ParseInt(n, 10, 64)
			if err != nil || v <= 0 || v > 1<<(62-u.shift) {
				return 0, fmt.Errorf("memory limit %q: want a positive whole number of bytes, KiB, MiB or GiB", s)
			}
			return v << u.shift, nil
		}
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("memory limit %q: want a positive whole number of bytes, KiB, MiB or GiB", s)
	}
	return v, nil
}

// newMemoryCgroup makes a memory cgroup limited to limit bytes under the
// harness's own, in the cgroup filesystems mounted at root (/sys/fs/cgroup),
// as the harness process's /proc/self/cgroup text places it.
func newMemoryCgroup(root, procCgroup, name string, limit int64) (*memoryCgroup, error) {
	for _, h := range memcg.Of(root, procCgroup) {
		parent := h.Dir()
		if h.Version == 1 {
			if _, err := os.Stat(parent); err != nil {
				// A container without a cgroup namespace sees its own
				// cgroup at the mount's root, not at the host's path.
				parent = h.Mount
			}
			return makeCgroup(filepath.Join(parent, name), h, limit)
		}
		if _, err := os.Stat(filepath.Join(parent, "cgroup.controllers")); err != nil {
			continue // a hybrid layout's v2 tree, without the memory controller
		}
		b, err := os.ReadFile(filepath.Join(parent, "cgroup.subtree_control"))
		if err != nil {
			return nil, err
		}
		if !slices.Contains(strings.Fields(string(b)), "memory") {
			if err := os.WriteFile(filepath.Join(parent, "cgroup.subtree_control"), []byte("+memory"), 0o644); err != nil {
				if errors.Is(err, syscall.EBUSY) {
					err = fmt.Errorf("%w: a cgroup v2 cgroup that holds processes (this harness's) cannot hand the memory controller to a child; run the harness in a cgroup of its own below one that delegates memory", err)
				}
				return nil, fmt.Errorf("enabling the memory controller below %s: %w", parent, err)
			}
		}
		return makeCgroup(filepath.Join(parent, name), h, limit)
	}
	return nil, errors.New("no memory cgroup to make one under (neither a cgroup v1 memory controller nor cgroup v2)")
}

func makeCgroup(dir string, h memcg.Hierarchy, limit int64) (*memoryCgroup, error) {
	if err := os.Mkdir(dir, 0o755); err != nil {
		return nil, fmt.Errorf("making memory cgroup: %w", err)
	}
	c := &memoryCgroup{dir: dir, version: h.Version, limitFile: h.LimitFile()}
	if err := c.setLimit(limit); err != nil {
		c.remove()
		return nil, err
	}
	if h.Version == 1 {
		// Move the charges of a joining process's memory along with it
		// (anonymous and file pages); best effort, as newer kernels
		// deprecate it.
		c.write("memory.move_charge_at_immigrate", "3")
	}
	return c, nil
}

// setLimit sets the cgroup's limit; below its usage, the kernel reclaims
// its pages down to it first.
func (c *memoryCgroup) setLimit(limit int64) error {
	if err := c.write(c.limitFile, strconv.FormatInt(limit, 10)); err != nil {
		return err
	}
	c.limit = limit
	return nil
}

func (c *memoryCgroup) write(file, value string) error {
	if err := os.WriteFile(filepath.Join(c.dir, file), []byte(value), 0o644); err != nil {
		return fmt.Errorf("memory cgroup %s: %w", file, err)
	}
	return nil
}

func (c *memoryCgroup) read(file string) (int64, error) {
	return memcg.ReadInt(filepath.Join(c.dir, file))
}

// add moves process pid into the cgroup.
func (c *memoryCgroup) add(pid int) error {
	return c.write("cgroup.procs", strconv.Itoa(pid))
}

// Stats reads the cgroup's peak usage and limit events.
func (c *memoryCgroup) Stats() (CgroupStats, error) {
	st := CgroupStats{Version: c.version, LimitBytes: c.limit}
	var err error
	if c.version == 1 {
		if st.PeakBytes, err = c.read("memory.max_usage_in_bytes"); err != nil {
			return st, err
		}
		if st.LimitHits, err = c.read("memory.failcnt"); err != nil {
			return st, err
		}
		b, err := os.ReadFile(filepath.Join(c.dir, "memory.oom_control"))
		if err != nil {
			return st, err
		}
		st.OOMKills = memcg.KeyedValue(string(b), "oom_kill")
		return st, nil
	}
	// memory.peak exists from Linux 5.19.
	if st.PeakBytes, err = c.read("memory.peak"); err != nil {
		return st, err
	}
	b, err := os.ReadFile(filepath.Join(c.dir, "memory.events"))
	if err != nil {
		return st, err
	}
	st.LimitHits, st.OOMKills = memcg.KeyedValue(string(b), "max"), memcg.KeyedValue(string(b), "oom_kill")
	return st, nil
}

// remove deletes the cgroup. A process still in it (a child the server
// left behind) is killed first: the kernel removes only empty cgroups.
func (c *memoryCgroup) remove() error {
	var err error
	for range 50 {
		if err = os.Remove(c.dir); err == nil || !errors.Is(err, syscall.EBUSY) {
			return err
		}
		b, _ := os.ReadFile(filepath.Join(c.dir, "cgroup.procs"))
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
	return err
}
