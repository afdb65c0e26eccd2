package indexer

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/semcat/semcat/internal/memcg"
)

// errNoCacheSweep says the system cannot tell which pages of a file are
// cached.
var errNoCacheSweep = errors.New("mincore is not supported")

// readCached reads the pages of the file at path that the page cache holds
// into buf, chunk by chunk, and with load the pages it does not hold too.
// It returns how many bytes it read that were cached and how many it
// loaded from disk. Which pages are cached comes from mincore on a mapping
// of the file that is never touched; the reads go through a descriptor
// with read-ahead off, so that they do not bring neighbouring pages in from
// disk. (A page dropped between the two is read back: rare, and one page.)
func readCached(path string, buf []byte, load bool) (cached, loaded int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, 0, err
	}
	size := fi.Size()
	if size == 0 {
		return 0, 0, nil
	}
	fd := int(f.Fd())
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_RANDOM); err != nil {
		return 0, 0, fmt.Errorf("fadvise %s: %w", path, err)
	}
	page := int64(os.Getpagesize())
	vec := make([]byte, (size+page-1)/page)
	mem, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, 0, fmt.Errorf("mmap %s: %w", path, err)
	}
	err = mincore(mem, vec)
	unix.Munmap(mem)
	if errors.Is(err, unix.ENOSYS) {
		return 0, 0, errNoCacheSweep
	}
	if err != nil {
		return 0, 0, fmt.Errorf("mincore %s: %w", path, err)
	}
	// Runs of pages alike (all cached, or all not), each read in chunks of
	// at most len(buf).
	for i := 0; i < len(vec); {
		in := vec[i]&1 != 0
		j := i + 1
		for j < len(vec) && (vec[j]&1 != 0) == in && int64(j-i)*page < int64(len(buf)) {
			j++
		}
		if in || load {
			off := int64(i) * page
			n, err := f.ReadAt(buf[:min(int64(j-i)*page, size-off)], off)
			if in {
				cached += int64(n)
			} else {
				loaded += int64(n)
			}
			if err != nil && n == 0 {
				return cached, loaded, fmt.Errorf("reading %s: %w", path, err)
			}
		}
		i = j
	}
	return cached, loaded, nil
}

// roomFor reports whether there is memory to spare for size more bytes
// (an index read back into the page cache, a build's second batch):
// MemAvailable is at least twice size, and so is what semcat's memory
// cgroup (either version) may still use if it, or one above it, has a
// limit.
func roomFor(size int64) bool {
	avail, ok := memAvailable()
	if !ok || avail < 2*size {
		return false
	}
	if free, limited := cgroupFree(); limited && free < 2*size {
		return false
	}
	return true
}

// memAvailable is MemAvailable of /proc/meminfo, in bytes.
func memAvailable() (int64, bool) {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0, false
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, "MemAvailable:"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(rest), " kB"), 10, 64)
			return kb << 10, err == nil
		}
	}
	return 0, false
}

// cgroupFree is what this process's memory cgroup may still use: the
// least, over it and the cgroups above it, of a limit less its usage (the
// kernel charges page cache to it) but for its inactive file pages, which
// it reclaims first, and whether any has a limit.
// Both cgroup versions count: version 2 (memory.max, memory.current), and
// version 1's memory controller (memory.limit_in_bytes,
// memory.usage_in_bytes), which hosts still on cgroup v1, or a hybrid
// layout, give containers.
func cgroupFree() (int64, bool) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	return memoryCgroupFree("/sys/fs/cgroup", string(b))
}

// memoryCgroupFree is cgroupFree for cgroup filesystems mounted under root
// and the process's /proc/self/cgroup text.
func memoryCgroupFree(root, procCgroup string) (free int64, limited bool) {
	for _, l := range memcg.Limits(root, procCgroup) {
		used, err := memcg.ReadInt(filepath.Join(l.GroupDir(), l.UsageFile()))
		if err != nil {
			continue
		}
		// Inactive file pages are the cache the kernel reclaims first, as
		// MemAvailable counts them.
		used -= memcg.FileValue(filepath.Join(l.GroupDir(), "memory.stat"), l.InactiveFileKey())
		if !limited || l.Bytes-used < free {
			free, limited = l.Bytes-used, true
		}
	}
	return free, limited
}

// mincore sets vec[i]&1 when page i of mem is in the page cache.
func mincore(mem, vec []byte) error {
	_, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)), uintptr(unsafe.Pointer(&vec[0])))
	if e != 0 {
		return e
	}
	return nil
}

// adviseRandom gives the kernel advice on reading the segment files at
// paths, in every mapping of them this process holds: random (MADV_RANDOM:
// a page fault reads that page) or normal (a fault reads the pages around
// it too).
//
// A fault on a mapping advised normal reads as much around it as the
// device's read-ahead: 128 KiB by default, 8 MiB on the benchmark machine's
// disk. Where the index does not fit memory, a search faults in a page of
// each payload, dictionary and postings list it reads, each far from the
// last, and the pages read around them are ones a later search almost
// never reads; they push out pages that searches do read. Where the index
// fits, read-ahead costs nothing and helps whatever reads a file in order
// (merges), so the advice is normal there.
func adviseRandom(paths []string, random bool) error {
	maps, err := os.ReadFile("/proc/self/maps")
	if err != nil {
		return err
	}
	advice := unix.MADV_NORMAL
	if random {
		advice = unix.MADV_RANDOM
	}
	for _, path := range paths {
		// The kernel names a mapped file by its real path (an index's
		// generation, not the symlink to it).
		real, err := filepath.EvalSymlinks(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // merged away since
		}
		if err != nil {
			return err
		}
		for _, m := range fileMappings(string(maps), real) {
			// An unmapped range (the segment closed meanwhile) is ENOMEM,
			// harmless: nothing is left to advise.
			if _, _, e := unix.Syscall(unix.SYS_MADVISE, uintptr(m.start), uintptr(m.end-m.start), uintptr(advice)); e != 0 && e != unix.ENOMEM {
				return fmt.Errorf("madvise %s: %w", path, e)
			}
		}
	}
	return nil
}

// fileMapping is one line of /proc/self/maps.
type fileMapping struct {
	start, end uint64
}

// fileMappings returns the mappings of the file at path in maps, the text
// of /proc/self/maps.
func fileMappings(maps, path string) []fileMapping {
	var out []fileMapping
	for line := range strings.Lines(maps) {
		fields := strings.Fields(line)
		// address perms offset dev inode path (a path may hold spaces)
		if len(fields) < 6 || strings.Join(fields[5:], " ") != path {
			continue
		}
		from, to, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(from, 16, 64)
		end, err2 := strconv.ParseUint(to, 16, 64)
		if err1 != nil || err2 != nil || end <= start {
			continue
		}
		out = append(out, fileMapping{start: start, end: end})
	}
	return out
}

// smallPagesChunk is how much of a file one read-ahead request asks for:
// the kernel reads no more than the device's read-ahead window (8 MiB on
// the benchmark machine) per request, and splits what it reads into 2 MiB
// parts itself.
const smallPagesChunk = 2 << 20

// cacheInSmallPages drops the page cache's copy of the file at path, which
// must be clean (zap syncs a segment before it opens it), and, where there
// is room for it (roomFor), has the kernel read it back ahead of use.
//
// Linux caches a file just written in large folios (ext4 since 6.16, XFS
// before), up to 2 MiB each, and maps a whole folio into the process at
// its first touch. Scorch maps every segment file, and a search reads a
// few KiB here and there in it (a word search at 1M entities: 207 KiB in
// 89 postings lists), so each touch used to map up to 2 MiB: on the
// benchmark machine 100 one-byte reads at random places in a freshly
// written 512 MiB file mapped 90 MiB, and at 1M entities searches left
// 1.47 GiB of the 1.92 GiB index in semcat's resident memory. Pages read
// back by a read-ahead request (FADV_WILLNEED) are cached one base page
// each, and a touch then maps no more than the kernel's fault-around
// window (64 KiB): the same 100 reads mapped 6 MiB, in a sixth of the
// time. The request is asynchronous; a touch before the read completes
// waits for that page only.
func cacheInSmallPages(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	fd := int(f.Fd())
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_DONTNEED); err != nil {
		return fmt.Errorf("fadvise %s: %w", path, err)
	}
	if !roomFor(fi.Size()) {
		return nil // a search's page fault reads what it needs
	}
	for off := int64(0); off < fi.Size(); off += smallPagesChunk {
		if err := unix.Fadvise(fd, off, smallPagesChunk, unix.FADV_WILLNEED); err != nil {
			return fmt.Errorf("fadvise %s: %w", path, err)
		}
	}
	return nil
}

// errNoUnmap says the system cannot unmap a mapping's resident pages.
var errNoUnmap = errors.New("madvise(MADV_DONTNEED) is not supported")

// fileResident is how much of the process's resident memory is mapped
// files (and shared memory): the third field of /proc/self/statm.
func fileResident() (int64, error) {
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, err
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return 0, fmt.Errorf("/proc/self/statm: %q", b)
	}
	pages, err := strconv.ParseInt(f[2], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("/proc/self/statm: %w", err)
	}
	return pages * int64(os.Getpagesize()), nil
}

// unmapPages drops the resident pages of mem, a read-only shared mapping
// of a file, from the process: the page cache keeps them, and the next
// read of one maps it again.
func unmapPages(mem []byte) error {
	if len(mem) == 0 {
		return nil
	}
	if err := unix.Madvise(mem, unix.MADV_DONTNEED); err != nil {
		if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EINVAL) {
			return fmt.Errorf("%w: %v", errNoUnmap, err)
		}
		return err
	}
	return nil
}
