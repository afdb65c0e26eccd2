package search

import (
	"encoding/binary"
	"os"

	"github.com/blevesearch/bleve/v2/index/scorch"
)

// A page of results reads one stored document per hit, each somewhere in a
// segment file of gigabytes. Where the index fits memory those pages are
// cached; where it does not (a million entities in a 1 GiB container,
// DESIGN §6) each is a page fault, and faults wait one after the other: 20
// hits, 20 reads from disk in a row. prefetchPayloads asks the kernel for
// all of them at once first (MADV_WILLNEED starts the reads and returns),
// so that the disk serves them side by side and the reads that follow wait
// for the slowest, not for the sum. Where the pages are cached it costs a
// system call per page that finds them there.

// storedSegment is what a segment on disk (a zap file, memory-mapped) tells
// of its stored documents: its mapping, where the documents' offsets start
// (8 bytes each, big-endian) and how many documents it has. Segments still
// in memory have no mapping and need no prefetch.
type storedSegment interface {
	Data() []byte
	StoredIndexOffset() uint64
	NumDocs() uint64
}

// payloadSpan is how much of a stored document, from its start, the prefetch
// asks for: a result payload is a few hundred bytes compressed (a table's
// with its columns, up to a few KiB), so its first page and, when it starts
// late in one, the next.
const payloadSpan = 2048

// prefetchPayloads asks the kernel to read in the stored documents of picks
// (and, first, the pages of their offsets, which locate them).
func prefetchPayloads(segs []*scorch.SegmentSnapshot, picks []pick) {
	if len(picks) < 2 || !canPrefetch {
		return
	}
	page := uint64(os.Getpagesize())
	// stored returns p's segment's mapping and where p's offset is in it.
	stored := func(p pick) ([]byte, uint64, bool) {
		s, ok := segs[p.seg].Segment().(storedSegment)
		if !ok || uint64(p.local) >= s.NumDocs() {
			return nil, 0, false
		}
		mem := s.Data()
		at := s.StoredIndexOffset() + 8*uint64(p.local)
		return mem, at, at+8 <= uint64(len(mem))
	}
	// The offsets first: reading one is a fault too where it is not cached.
	asked := map[[2]uint64]bool{}
	for _, p := range picks {
		if mem, at, ok := stored(p); ok {
			ask(mem, asked, uint64(p.seg), at, at+8, page)
		}
	}
	for _, p := range picks {
		if mem, at, ok := stored(p); ok {
			off := binary.BigEndian.Uint64(mem[at : at+8])
			if off < uint64(len(mem)) {
				ask(mem, asked, uint64(p.seg), off, min(off+payloadSpan, uint64(len(mem))), page)
			}
		}
	}
}

// ask asks for the pages of mem from start to end that it has not asked
// for yet (asked is keyed by segment and page).
func ask(mem []byte, asked map[[2]uint64]bool, seg, start, end, page uint64) {
	first, last := start/page, (end-1)/page
	for first <= last && asked[[2]uint64{seg, first}] {
		first++
	}
	for last >= first && asked[[2]uint64{seg, last}] {
		last--
	}
	if first > last {
		return
	}
	for pg := first; pg <= last; pg++ {
		asked[[2]uint64{seg, pg}] = true
	}
	willNeed(mem[first*page : min((last+1)*page, uint64(len(mem)))])
}
