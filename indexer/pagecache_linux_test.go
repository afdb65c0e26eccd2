package indexer

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/semcat/semcat/internal/memcg/memcgtest"
)

// cachedPages reports which pages of the file at path are in the page
// cache.
func cachedPages(tb testing.TB, path string) []bool {
	tb.Helper()
	mem := mapFile(tb, path)
	defer unix.Munmap(mem)
	page := os.Getpagesize()
	vec := make([]byte, (len(mem)+page-1)/page)
	if err := mincore(mem, vec); err != nil {
		tb.Fatal(err)
	}
	out := make([]bool, len(vec))
	for i, v := range vec {
		out[i] = v&1 != 0
	}
	return out
}

// mapFile maps the whole file at path, read-only and shared; the caller
// unmaps it.
func mapFile(tb testing.TB, path string) []byte {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		tb.Fatal(err)
	}
	mem, err := unix.Mmap(int(f.Fd()), 0, int(fi.Size()), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		tb.Fatal(err)
	}
	return mem
}

// halfDropped writes a file of 4 MiB and a bit and has the kernel drop its
// second half (and the tail page) from the page cache. It returns the
// file's path and its page count without the tail page, or skips the test
// where the file system keeps pages cached regardless.
func halfDropped(t *testing.T) (string, int) {
	t.Helper()
	page := os.Getpagesize()
	// 4 MiB, so that the dropped half starts at a 2 MiB boundary: the
	// kernel caches a file in folios of up to that, and drops only whole
	// ones.
	pages := 4 << 20 / page
	path := filepath.Join(t.TempDir(), "seg")
	if err := os.WriteFile(path, bytes.Repeat([]byte{7}, pages*page+100), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	// Written pages are cached; drop the second half (and the tail page).
	if err := unix.Fadvise(int(f.Fd()), int64(pages/2*page), 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	f.Close()
	before := cachedPages(t, path)
	for i := pages / 2; i < len(before); i++ {
		if before[i] {
			t.Skipf("the file system kept page %d cached after FADV_DONTNEED (tmpfs?)", i)
		}
	}
	for i := range pages / 2 {
		if !before[i] {
			t.Skipf("page %d of a file just written is not cached", i)
		}
	}
	return path, pages
}

// TestReadCachedReadsOnlyCachedPages: of a file whose second half the
// kernel dropped, readCached without load reads the first half and leaves
// the second half on disk.
func TestReadCachedReadsOnlyCachedPages(t *testing.T) {
	path, pages := halfDropped(t)
	page := os.Getpagesize()
	cached, loaded, err := readCached(path, make([]byte, 5*page), false) // runs span several buffers
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(pages / 2 * page); cached != want || loaded != 0 {
		t.Errorf("readCached read %d cached bytes and loaded %d, want the %d cached ones and none", cached, loaded, want)
	}
	after := cachedPages(t, path)
	for i := range after {
		if after[i] != (i < pages/2) {
			t.Errorf("after readCached, page %d cached: %v, want %v", i, after[i], i < pages/2)
		}
	}
}

// TestReadCachedLoadsDroppedPages: with load, readCached reads the dropped
// half back too, and says how much of what it read was cached.
func TestReadCachedLoadsDroppedPages(t *testing.T) {
	path, pages := halfDropped(t)
	page := os.Getpagesize()
	cached, loaded, err := readCached(path, make([]byte, 5*page), true)
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(pages / 2 * page); cached != want || loaded != want+100 {
		t.Errorf("readCached read %d cached bytes and loaded %d, want %d and %d", cached, loaded, want, want+100)
	}
	for i, in := range cachedPages(t, path) {
		if !in {
			t.Errorf("after readCached with load, page %d is not cached", i)
		}
	}
}

// TestRoomFor: an index the size of a page fits on any machine that
// runs the tests; one of an exbibyte on none.
func TestRoomFor(t *testing.T) {
	if !roomFor(int64(os.Getpagesize())) {
		t.Error("no room to load a page")
	}
	if roomFor(1 << 60) {
		t.Error("room to load an exbibyte")
	}
}

// TestMemoryCgroupFree reads both cgroup versions' memory limits from a
// made-up cgroup filesystem: the tightest of the process's cgroup and
// those above it counts, "no limit" (v2's "max", v1's largest int64) does
// not, inactive file pages count as free, and controllers other than
// memory are ignored.
func TestMemoryCgroupFree(t *testing.T) {
	root := t.TempDir()
	write := func(path, value string) {
		t.Helper()
		memcgtest.WriteFiles(t, root, map[string]string{path: value})
	}
	const v1Unlimited = "9223372036854771712"
	// Version 1: a limit on the parent of the process's cgroup.
	write("memory/memory.limit_in_bytes", v1Unlimited)
	write("memory/memory.usage_in_bytes", "5000000")
	write("memory/a/memory.limit_in_bytes", "1000")
	write("memory/a/memory.usage_in_bytes", "300")
	write("memory/a/b/memory.limit_in_bytes", v1Unlimited)
	write("memory/a/b/memory.usage_in_bytes", "100")
	write("memory/free/memory.limit_in_bytes", v1Unlimited)
	write("memory/free/memory.usage_in_bytes", "100")
	write("cpu/a/b/memory.limit_in_bytes", "1") // not the memory controller
	// Version 2: limits at two levels; the lower one is tighter.
	write("x/memory.max", "max")
	write("x/memory.current", "2000")
	write("x/y/memory.max", "9000")
	write("x/y/memory.current", "1000")
	write("x/y/z/memory.max", "6000")
	write("x/y/z/memory.current", "1000")
	write("w/memory.max", "max")
	write("w/memory.current", "1000")
	// Usage at the limit, most of it inactive page cache.
	write("c/memory.max", "4000")
	write("c/memory.current", "4000")
	write("c/memory.stat", "anon 1000\nfile 3000\nactive_file 500\ninactive_file 2500\n")
	write("memory/c/memory.limit_in_bytes", "4000")
	write("memory/c/memory.usage_in_bytes", "4000")
	write("memory/c/memory.stat", "cache 3000\ninactive_file 9\ntotal_inactive_file 2500\n")

	for _, c := range []struct {
		name, procCgroup string
		free             int64
		limited          bool
	}{
		{"v1, hybrid layout", "4:memory:/a/b\n3:cpu,cpuacct:/a/b\n0::/\n", 700, true},
		{"v1, memory among other controllers", "4:cpu,memory:/a/b\n", 700, true},
		{"v1, no limit", "4:memory:/free\n0::/\n", 0, false},
		{"v2", "0::/x/y/z\n", 5000, true},
		{"v2, limit above", "0::/x/y\n", 8000, true},
		{"v2, no limit", "0::/w\n", 0, false},
		{"v2, full of inactive cache", "0::/c\n", 2500, true},
		{"v1, full of inactive cache", "4:memory:/c\n", 2500, true},
		{"no memory cgroup", "3:cpu:/a/b\n", 0, false},
		{"nonsense", "garbage", 0, false},
	} {
		free, limited := memoryCgroupFree(root, c.procCgroup)
		if free != c.free || limited != c.limited {
			t.Errorf("%s: free %d, limited %v; want %d, %v", c.name, free, limited, c.free, c.limited)
		}
	}
}

// mappedBytes maps the file at path, reads one byte at each offset through
// the mapping, and returns how much of the mapping is then resident (its
// Rss in /proc/self/smaps): what those reads added to the process's RSS.
func mappedBytes(tb testing.TB, path string, offsets []int) int64 {
	tb.Helper()
	mem := mapFile(tb, path)
	defer unix.Munmap(mem)
	var sum byte
	for _, off := range offsets {
		sum += mem[off]
	}
	if sum != byte(len(offsets)*7) {
		tb.Fatalf("read %d through the mapping, want %d", sum, byte(len(offsets)*7))
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		tb.Fatal(err)
	}
	head := fmt.Sprintf("%x-", uintptr(unsafe.Pointer(&mem[0])))
	in := false
	for line := range strings.Lines(string(smaps)) {
		if strings.HasPrefix(line, head) {
			in = true
			continue
		}
		if rest, ok := strings.CutPrefix(line, "Rss:"); ok && in {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			if err != nil {
				tb.Fatal(err)
			}
			return kb << 10
		}
	}
	tb.Fatalf("no mapping at %s in /proc/self/smaps", head)
	return 0
}

// TestCacheInSmallPages: a file just written, read at scattered places
// through a mapping, maps no more than the kernel's fault-around window
// per read once cacheInSmallPages has had it read back, where it mapped
// whole large folios before; and the file is then cached whole.
func TestCacheInSmallPages(t *testing.T) {
	const size, reads = 32 << 20, 40
	path := filepath.Join(t.TempDir(), "seg")
	if err := os.WriteFile(path, bytes.Repeat([]byte{7}, size), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	err = f.Sync()
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	offsets := make([]int, reads)
	for i := range offsets {
		offsets[i] = i*(size/reads) + 12345 // 800 KiB apart, mid-page
	}
	before := mappedBytes(t, path, offsets)
	const window = 64 << 10 // the kernel's default fault-around
	if before <= reads*window {
		t.Skipf("this kernel caches a written file in small pages already: %d reads mapped %d KiB", reads, before>>10)
	}
	if !roomFor(size) {
		t.Skip("no memory to spare for reading the file back")
	}
	if err := cacheInSmallPages(path); err != nil {
		t.Fatal(err)
	}
	after := mappedBytes(t, path, offsets)
	t.Logf("%d reads mapped %d KiB of the file as written, %d KiB after cacheInSmallPages", reads, before>>10, after>>10)
	if after > reads*window || after*4 > before {
		t.Errorf("%d reads mapped %d KiB after cacheInSmallPages (%d KiB before); want at most %d KiB", reads, after>>10, before>>10, reads*window>>10)
	}
	for i, in := range cachedPages(t, path) {
		if !in {
			t.Fatalf("page %d of %d is not cached after cacheInSmallPages", i, size/os.Getpagesize())
		}
	}
}
