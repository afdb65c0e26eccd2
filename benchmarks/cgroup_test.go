package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseBytes(t *testing.T) {
	for in, want := range map[string]int64{"1073741824": 1 << 30, "512MiB": 512 << 20, "1GiB": 1 << 30, "64KiB": 64 << 10} {
		if got, err := parseBytes(in); err != nil || got != want {
			t.Errorf("parseBytes(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1GiB", "1.5GiB", "1GB", "GiB", "99999999999GiB"} {
		if _, err := parseBytes(in); err == nil {
			t.Errorf("parseBytes(%q) accepted", in)
		}
	}
}

// TestMemoryCgroupFiles makes the cgroup in made-up cgroup filesystems of
// both versions and reads its statistics the way the kernel writes them.
func TestMemoryCgroupFiles(t *testing.T) {
	mkfile := func(path, value string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(value), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}

	t.Run("v1", func(t *testing.T) {
		root := t.TempDir()
		mkfile(filepath.Join(root, "memory/h/x/memory.limit_in_bytes"), "9223372036854771712\n")
		c, err := newMemoryCgroup(root, "4:memory:/h/x\n3:cpu:/h/x\n0::/\n", "b", 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, "memory/h/x/b")
		if c.dir != dir || c.version != 1 {
			t.Fatalf("made %s (v%d), want %s (v1)", c.dir, c.version, dir)
		}
		if got := read(filepath.Join(dir, "memory.limit_in_bytes")); got != "1073741824" {
			t.Errorf("limit %q", got)
		}
		mkfile(filepath.Join(dir, "memory.max_usage_in_bytes"), "734003200\n")
		mkfile(filepath.Join(dir, "memory.failcnt"), "17\n")
		mkfile(filepath.Join(dir, "memory.oom_control"), "oom_kill_disable 0\nunder_oom 0\noom_kill 1\n")
		st, err := c.Stats()
		if err != nil {
			t.Fatal(err)
		}
		if want := (CgroupStats{Version: 1, LimitBytes: 1 << 30, PeakBytes: 734003200, LimitHits: 17, OOMKills: 1}); st != want {
			t.Errorf("stats %+v, want %+v", st, want)
		}
	})

	t.Run("v2", func(t *testing.T) {
		root := t.TempDir()
		mkfile(filepath.Join(root, "h/cgroup.controllers"), "cpu io memory pids\n")
		mkfile(filepath.Join(root, "h/cgroup.subtree_control"), "cpu\n")
		c, err := newMemoryCgroup(root, "0::/h\n", "b", 512<<20)
		if err != nil {
			t.Fatal(err)
		}
		dir := filepath.Join(root, "h/b")
		if c.dir != dir || c.version != 2 {
			t.Fatalf("made %s (v%d), want %s (v2)", c.dir, c.version, dir)
		}
		if got := read(filepath.Join(root, "h/cgroup.subtree_control")); got != "+memory" {
			t.Errorf("the memory controller was not enabled below the parent: %q", got)
		}
		if got := read(filepath.Join(dir, "memory.max")); got != "536870912" {
			t.Errorf("limit %q", got)
		}
		mkfile(filepath.Join(dir, "memory.peak"), "400000000\n")
		mkfile(filepath.Join(dir, "memory.events"), "low 0\nhigh 0\nmax 3\noom 0\noom_kill 0\n")
		st, err := c.Stats()
		if err != nil {
			t.Fatal(err)
		}
		if want := (CgroupStats{Version: 2, LimitBytes: 512 << 20, PeakBytes: 400000000, LimitHits: 3}); st != want {
			t.Errorf("stats %+v, want %+v", st, want)
		}
	})

	t.Run("v1 in a container without a cgroup namespace", func(t *testing.T) {
		root := t.TempDir()
		// The container sees its own cgroup at the mount's root; the
		// host's path in /proc/self/cgroup does not exist inside it.
		mkfile(filepath.Join(root, "memory/memory.limit_in_bytes"), "9223372036854771712\n")
		c, err := newMemoryCgroup(root, "4:memory:/docker/0123abcd\n", "b", 1<<30)
		if err != nil {
			t.Fatal(err)
		}
		if want := filepath.Join(root, "memory/b"); c.dir != want {
			t.Errorf("made %s, want %s", c.dir, want)
		}
	})

	t.Run("none", func(t *testing.T) {
		root := t.TempDir()
		// A hybrid layout's v2 tree has no cgroup.controllers at the mount's
		// root here, and there is no v1 memory controller.
		if _, err := newMemoryCgroup(root, "3:cpu:/h\n0::/\n", "b", 1<<30); err == nil {
			t.Error("made a cgroup without a memory controller")
		}
	})
}

// TestMemoryCgroupLimitsAProcess puts a real process into a real memory
// cgroup, where this machine lets the test make one (as root), and sees
// the file it then writes charged to the cgroup, as semcat's index files
// are.
func TestMemoryCgroupLimitsAProcess(t *testing.T) {
	procCgroup, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		t.Skip("no /proc/self/cgroup:", err)
	}
	dir := t.TempDir()
	c, err := newMemoryCgroup("/sys/fs/cgroup", string(procCgroup), "semcat-bench-test-"+filepath.Base(dir), 256<<20)
	if err != nil {
		t.Skip("cannot make a memory cgroup here:", err)
	}
	file := filepath.Join(dir, "written")
	// The process writes 20 MiB once it has been moved (a line on stdin).
	cmd := exec.Command("sh", "-c", `read go; dd if=/dev/zero of="$0" bs=1M count=20 2>/dev/null; exec sleep 5`, file)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		c.remove()
		t.Fatal(err)
	}
	defer func() {
		cmd.Process.Kill()
		cmd.Wait()
		if err := c.remove(); err != nil {
			t.Errorf("removing the cgroup: %v", err)
		}
	}()
	if err := c.add(cmd.Process.Pid); err != nil {
		t.Fatal(err)
	}
	in, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(cmd.Process.Pid), "cgroup"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(in), "/"+filepath.Base(c.dir)+"\n") {
		t.Errorf("the process is not in %s:\n%s", c.dir, in)
	}
	stdin.Write([]byte("go\n"))
	for i := 0; i < 300; i++ {
		if fi, err := os.Stat(file); err == nil && fi.Size() == 20<<20 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	st, err := c.Stats()
	if err != nil {
		t.Fatal(err)
	}
	if st.Version == 0 || st.LimitBytes != 256<<20 || st.OOMKills != 0 {
		t.Errorf("stats %+v", st)
	}
	t.Logf("%+v", st)
	if st.PeakBytes < 10<<20 || st.PeakBytes > 256<<20 {
		t.Errorf("peak usage %d bytes after writing 20 MiB under a 256 MiB limit", st.PeakBytes)
	}
}
