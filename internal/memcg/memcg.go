// Package memcg reads where a process's memory cgroup is, in either cgroup
// version, and the figures its files hold: what semcat's indexer asks
// before using memory it may not have, and what the benchmark harness
// needs to run the server under a memory limit.
package memcg

import (
	"cmp"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// Hierarchy is a process's cgroup in one hierarchy that has the memory
// controller: cgroup v1's memory controller, or cgroup v2's unified tree
// (which has it unless a hybrid layout keeps memory on v1).
type Hierarchy struct {
	Version int    // 1 or 2
	Mount   string // where the hierarchy is mounted: <root>/memory (v1) or <root> (v2)
	Path    string // the process's cgroup below Mount, starting with "/"
}

// Of lists the hierarchies of procCgroup (the text of /proc/<pid>/cgroup)
// that may hold a memory cgroup, in the file's order, for cgroup
// filesystems mounted under root (/sys/fs/cgroup).
func Of(root, procCgroup string) []Hierarchy {
	var out []Hierarchy
	for line := range strings.Lines(procCgroup) {
		// "hierarchy-id:controllers:path"
		parts := strings.SplitN(strings.TrimSpace(line), ":", 3)
		if len(parts) != 3 {
			continue
		}
		path := filepath.Clean("/" + parts[2])
		switch {
		case parts[0] == "0" && parts[1] == "":
			out = append(out, Hierarchy{Version: 2, Mount: root, Path: path})
		case slices.Contains(strings.Split(parts[1], ","), "memory"):
			out = append(out, Hierarchy{Version: 1, Mount: filepath.Join(root, "memory"), Path: path})
		}
	}
	return out
}

// Limit is a memory limit set on a process's memory cgroup or on a cgroup
// above it.
type Limit struct {
	Hierarchy        // the process's cgroup in the hierarchy the limit is in
	Group     string // the cgroup that sets the limit, below Mount, starting with "/"
	Bytes     int64
}

// GroupDir is the directory of the cgroup that sets the limit.
func (l Limit) GroupDir() string { return filepath.Join(l.Mount, l.Group) }

// Binds reports whether the limit binds a process whose cgroups are
// procCgroup (the text of /proc/<pid>/cgroup): whether that process is in
// the limiting cgroup or below it. A child stays in its parent's cgroup
// unless moved, so a managed PostgreSQL shares semcat's limits.
func (l Limit) Binds(root, procCgroup string) bool {
	for _, h := range Of(root, procCgroup) {
		if h.Version == l.Version && h.Mount == l.Mount &&
			(l.Group == "/" || h.Path == l.Group || strings.HasPrefix(h.Path, l.Group+"/")) {
			return true
		}
	}
	return false
}

// Limits lists the memory limits that bind a process: those set on its
// cgroup and on every cgroup above it, in each hierarchy of Of(root,
// procCgroup), nearest first. A container's limit is often set above the
// cgroup its processes are in, and a hybrid layout may limit memory in
// either version. On cgroup v2, memory.high (where the kernel throttles
// and reclaims hard, as Kubernetes' memory QoS sets it) counts as a limit
// too when it is below memory.max.
func Limits(root, procCgroup string) []Limit {
	var out []Limit
	for _, h := range Of(root, procCgroup) {
		for group := h.Path; ; group = filepath.Dir(group) {
			dir := filepath.Join(h.Mount, group)
			limit, limited := int64(0), false
			files := []string{h.LimitFile()}
			if h.Version == 2 {
				files = append(files, "memory.high")
			}
			for _, f := range files {
				if n, err := ReadInt(filepath.Join(dir, f)); err == nil && !Unlimited(n) && (!limited || n < limit) {
					limit, limited = n, true
				}
			}
			if limited {
				out = append(out, Limit{Hierarchy: h, Group: group, Bytes: limit})
			}
			if group == "/" {
				break
			}
		}
	}
	return out
}

// Tightest is the least of limits, or 0 and false if there is none.
func Tightest(limits []Limit) (int64, bool) {
	if len(limits) == 0 {
		return 0, false
	}
	return slices.MinFunc(limits, func(a, b Limit) int { return cmp.Compare(a.Bytes, b.Bytes) }).Bytes, true
}

// Dir is the directory of the process's cgroup.
func (h Hierarchy) Dir() string { return filepath.Join(h.Mount, h.Path) }

// LimitFile is the file holding a cgroup's memory limit: v2 writes "max"
// for none, v1 the largest page-aligned int64 (see Unlimited).
func (h Hierarchy) LimitFile() string {
	if h.Version == 1 {
		return "memory.limit_in_bytes"
	}
	return "memory.max"
}

// UsageFile is the file holding a cgroup's memory usage, the page cache
// charged to it included.
func (h Hierarchy) UsageFile() string {
	if h.Version == 1 {
		return "memory.usage_in_bytes"
	}
	return "memory.current"
}

// InactiveFileKey is the memory.stat key of a cgroup's inactive file
// pages (v1's counts the cgroups below too, as v2's does).
func (h Hierarchy) InactiveFileKey() string {
	if h.Version == 1 {
		return "total_inactive_file"
	}
	return "inactive_file"
}

// Unlimited reports whether a limit read from LimitFile is no limit: v1
// writes "no limit" as the largest page-aligned int64 (v2's "max" does not
// parse as a number at all).
func Unlimited(limit int64) bool { return limit >= 1<<62 }

// ReadInt reads a file holding one integer.
func ReadInt(path string) (int64, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}

// KeyedValue is the value of key in text of "key value" lines (memory.stat,
// memory.events, memory.oom_control), or 0.
func KeyedValue(text, key string) int64 {
	for line := range strings.Lines(text) {
		if k, v, ok := strings.Cut(strings.TrimSpace(line), " "); ok && k == key {
			n, _ := strconv.ParseInt(v, 10, 64)
			return n
		}
	}
	return 0
}

// FileValue is KeyedValue of the file at path, or 0 if it cannot be read.
func FileValue(path, key string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	return KeyedValue(string(b), key)
}
