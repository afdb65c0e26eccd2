package indexer

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// errNoCacheSweep says the system cannot tell which pages of a file are
// cached.
var errNoCacheSweep = errors.New("mincore is not supported")

// readCached reads the pages of the file at path that the page cache holds
// into buf, chunk by chunk, and returns how many bytes it read. Which pages
// are cached comes from mincore on a mapping of the file that is never
// touched; the reads go through a descriptor with read-ahead off, so that
// they do not bring neighbouring pages in from disk. (A page dropped
// between the two is read back: rare, and one page.)
func readCached(path string, buf []byte) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, err
	}
	size := fi.Size()
	if size == 0 {
		return 0, nil
	}
	fd := int(f.Fd())
	if err := unix.Fadvise(fd, 0, 0, unix.FADV_RANDOM); err != nil {
		return 0, fmt.Errorf("fadvise %s: %w", path, err)
	}
	page := int64(os.Getpagesize())
	vec := make([]byte, (size+page-1)/page)
	mem, err := unix.Mmap(fd, 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return 0, fmt.Errorf("mmap %s: %w", path, err)
	}
	err = mincore(mem, vec)
	unix.Munmap(mem)
	if errors.Is(err, unix.ENOSYS) {
		return 0, errNoCacheSweep
	}
	if err != nil {
		return 0, fmt.Errorf("mincore %s: %w", path, err)
	}
	var read int64
	for i := 0; i < len(vec); {
		if vec[i]&1 == 0 {
			i++
			continue
		}
		j := i
		for j < len(vec) && vec[j]&1 != 0 && int64(j-i)*page < int64(len(buf)) {
			j++
		}
		off := int64(i) * page
		n, err := f.ReadAt(buf[:min(int64(j-i)*page, size-off)], off)
		read += int64(n)
		if err != nil && n == 0 {
			return read, fmt.Errorf("reading %s: %w", path, err)
		}
		i = j
	}
	return read, nil
}

// mincore sets vec[i]&1 when page i of mem is in the page cache.
func mincore(mem, vec []byte) error {
	_, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&mem[0])), uintptr(len(mem)), uintptr(unsafe.Pointer(&vec[0])))
	if e != 0 {
		return e
	}
	return nil
}
