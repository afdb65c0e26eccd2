package memcg

import (
	"reflect"
	"testing"
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
