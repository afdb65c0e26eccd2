package search

import (
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
	"unsafe"

	"github.com/blevesearch/bleve/v2"
	"golang.org/x/sys/unix"

	"github.com/semcat/semcat/searchdoc"
)

// TestPrefetchReadsPayloadPagesIn drops an index's files from the page
// cache and checks that prefetchPayloads brings in the pages of the picked
// documents' payloads, and not those of the others.
func TestPrefetchReadsPayloadPagesIn(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "idx")
	idx, err := bleve.New(dir, searchdoc.NewMapping())
	if err != nil {
		t.Fatal(err)
	}
	// 3,000 payloads of 6 KiB that do not compress, each over two or three
	// pages: a stored section of about 18 MiB, far more than read-ahead
	// around what opening reads.
	const docs = 3000
	batch := idx.NewBatch()
	for i := range docs {
		raw := make([]byte, 4608)
		rand.Read(raw)
		batch.Index(fmt.Sprint(i), map[string]any{searchdoc.FieldType: searchdoc.TypeTable, searchdoc.FieldStored: base64.StdEncoding.EncodeToString(raw)})
	}
	if err := idx.Batch(batch); err != nil {
		t.Fatal(err)
	}
	if err := idx.Close(); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dir, "store", "*.zap"))
	if len(files) == 0 {
		t.Fatal("no segment files")
	}
	for _, f := range files {
		dropCached(t, f)
	}

	idx, err = bleve.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer idx.Close()
	_, snap, err := OpenSnapshot(idx)
	if err != nil {
		t.Fatal(err)
	}
	defer snap.Close()
	segs := snap.Segments()
	// No read-around on the test's own faults (reading the offsets below):
	// on a disk that reads ahead megabytes it would bring pages in while
	// the test counts them.
	for _, s := range segs {
		if st, ok := s.Segment().(storedSegment); ok {
			if err := unix.Madvise(st.Data(), unix.MADV_RANDOM); err != nil {
				t.Fatal(err)
			}
		}
	}
	var picks, others []pick
	for i, s := range segs {
		n := uint32(s.Count())
		for local := uint32(0); local < n; local += 61 {
			if len(picks) < 20 {
				picks = append(picks, pick{seg: i, local: local})
			} else if local%2 == 0 {
				others = append(others, pick{seg: i, local: local + 1})
			}
		}
	}
	if len(others) == 0 {
		t.Fatalf("segments %d: too few documents to compare", len(segs))
	}
	// pageOf is whether every page of p's stored document is cached (it
	// ends where the next document begins); it reads the offsets from the
	// mapping (8 bytes a document, all in a few pages).
	pageOf := func(p pick) bool {
		s := segs[p.seg].Segment().(storedSegment)
		mem := s.Data()
		at := s.StoredIndexOffset() + 8*uint64(p.local)
		start, end := binary.BigEndian.Uint64(mem[at:at+8]), s.StoredIndexOffset()
		if uint64(p.local)+1 < s.NumDocs() {
			end = binary.BigEndian.Uint64(mem[at+8 : at+16])
		}
		page := uint64(os.Getpagesize())
		first, last := start/page, (end-1)/page
		vec := make([]byte, last-first+1)
		if _, _, e := unix.Syscall(unix.SYS_MINCORE, uintptr(unsafe.Pointer(&mem[first*page])), uintptr((last-first+1)*page), uintptr(unsafe.Pointer(&vec[0]))); e != 0 {
			t.Fatal(e)
		}
		for _, v := range vec {
			if v&1 == 0 {
				return false
			}
		}
		return true
	}
	cached := func(ps []pick) (n int) {
		for _, p := range ps {
			if pageOf(p) {
				n++
			}
		}
		return n
	}
	if n := cached(picks); n > len(picks)/4 {
		t.Skipf("%d of %d payload pages cached after FADV_DONTNEED (a file system that keeps them?)", n, len(picks))
	}

	// Opening the index faulted pages in, and a fault there read around
	// itself (as much as the device's read-ahead, megabytes on some): some
	// of the others may be cached already.
	othersBefore := cached(others)
	prefetchPayloads(segs, picks)
	deadline := time.Now().Add(10 * time.Second)
	for cached(picks) < len(picks) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := cached(picks); n < len(picks) {
		t.Errorf("%d of the %d picked payloads' pages cached after the prefetch, want all", n, len(picks))
	}
	if n := cached(others); n > othersBefore {
		t.Errorf("%d of %d payload pages not picked are cached after the prefetch, %d before: it read more than it was asked", n, len(others), othersBefore)
	}
}

// dropCached has the kernel drop the file at path from the page cache.
func dropCached(t *testing.T, path string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
}
