package memcg

import (
	"path/filepath"
	"reflect"
	"testing"

	"github.com/semcat/semcat/internal/memcg/memcgtest"
)

// TestOf finds the hierarchies that may hold a memory cgroup: cgroup v1's
// memory controller (alone or with others) and v2's unified tree, in the
// file's order, and nothing else.
func TestOf(t *testing.T) {
	for _, c := range []struct {
		name, procCgroup string
		want             []Hierarchy
	}{
		{"hybrid", "9:name=systemd:/\n4:memory:/a/b\n3:cpu,cpuacct:/a/b\n0::/\n", []Hierarchy{
			{Version: 1, Mount: "/r/memory", Path: "/a/b"}, {Version: 2, Mount: "/r", Path: "/"}}},
		{"v1, memory among others", "4:cpu,memory:/a:b\n", []Hierarchy{{Version: 1, Mount: "/r/memory", Path: "/a:b"}}},
		{"v2", "0::/x/y\n", []Hierarchy{{Version: 2, Mount: "/r", Path: "/x/y"}}},
		{"none", "3:cpu:/a\n", nil},
		{"nonsense", "garbage", nil},
	} {
		if got := Of("/r", c.procCgroup); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: %+v, want %+v", c.name, got, c.want)
		}
	}
	if got := (Hierarchy{Version: 1, Mount: "/r/memory", Path: "/a"}).Dir(); got != "/r/memory/a" {
		t.Errorf("Dir %q", got)
	}
}

func TestKeyedValue(t *testing.T) {
	text := "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n"
	if got := KeyedValue(text, "oom_kill"); got != 3 {
		t.Errorf("oom_kill %d, want 3", got)
	}
	if got := KeyedValue(text, "oom"); got != 0 {
		t.Errorf("a missing key read %d", got)
	}
	if !Unlimited(9223372036854771712) || Unlimited(1<<30) {
		t.Error("Unlimited")
	}
}

// TestLimits finds every limit over a process in a made-up hybrid cgroup
// filesystem: on its own cgroup and those above it, in both versions,
// nearest first; "no limit" (v1's largest int64, v2's "max") is none.
func TestLimits(t *testing.T) {
	root := t.TempDir()
	write := func(path, value string) {
		t.Helper()
		memcgtest.WriteFiles(t, root, map[string]string{path: value})
	}
	write("memory/memory.limit_in_bytes", "9223372036854771712")
	write("memory/a/memory.limit_in_bytes", "3000")
	write("memory/a/b/memory.limit_in_bytes", "9223372036854771712")
	write("memory.max", "max")
	write("x/memory.max", "2000")
	write("x/memory.high", "max")
	write("x/y/memory.max", "5000")
	write("x/y/memory.high", "4000") // throttles below memory.max

	v1 := Hierarchy{Version: 1, Mount: filepath.Join(root, "memory"), Path: "/a/b"}
	v2 := Hierarchy{Version: 2, Mount: root, Path: "/x/y"}
	got := Limits(root, "4:memory:/a/b\n0::/x/y\n")
	want := []Limit{
		{Hierarchy: v1, Group: "/a", Bytes: 3000},
		{Hierarchy: v2, Group: "/x/y", Bytes: 4000},
		{Hierarchy: v2, Group: "/x", Bytes: 2000},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Limits:\n got %+v\nwant %+v", got, want)
	}
	if dir := got[0].GroupDir(); dir != filepath.Join(root, "memory/a") {
		t.Errorf("GroupDir %s", dir)
	}
	// Which processes a limit binds: those in its cgroup or below it.
	for _, c := range []struct {
		limit      int
		procCgroup string
		binds      bool
	}{
		{0, "4:memory:/a\n", true},
		{0, "4:memory:/a/c/d\n", true},
		{0, "4:memory:/ab\n", false}, // a sibling whose name starts alike
		{0, "4:memory:/\n", false},
		{0, "0::/a\n", false}, // the other version
		{1, "0::/x/y/z\n", true},
		{1, "0::/x\n", false},
		{2, "0::/x\n", true},
	} {
		if b := got[c.limit].Binds(root, c.procCgroup); b != c.binds {
			t.Errorf("limit of %s binds %q: %v, want %v", got[c.limit].Group, c.procCgroup, b, c.binds)
		}
	}
	if n, ok := Tightest(got); n != 2000 || !ok {
		t.Errorf("Tightest %d, %v; want 2000, true", n, ok)
	}
	if got := Limits(root, "4:memory:/\n0::/\n"); len(got) != 0 {
		t.Errorf("unlimited roots read as limits: %+v", got)
	}
	if _, ok := Tightest(nil); ok {
		t.Error("Tightest of no limits")
	}
}
