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
// for the slowest, not for the sum. It costs up to two system calls a hit
// (its offset's pages, its document's), so searches ask for it only where
// the index is larger than the memory free for it (Index.LargerThanMemory).

// storedSegment is what a segment on disk (a zap file, memory-mapped) tells
// of its stored documents: its mapping, where the documents' offsets start
// (8 bytes each, big-endian) and how many documents it has. Segments still
// in memory have no mapping and need no prefetch.
type storedSegment interface {
	Data() []byte
	StoredIndexOffset() uint64
	NumDocs() uint64
}

// maxPayloadSpan bounds how much of one stored document the prefetch asks
// for. A document ends where the next begins (the offsets are in document
// order; the last ends at the offsets): a result payload is a few hundred
// bytes compressed, a table's with its columns a few KiB.
const maxPayloadSpan = 64 << 10

// prefetchPayloads asks the kernel to read in the stored documents of picks
// (and, first, the pages of their offsets, which locate them).
func prefetchPayloads(segs []*scorch.SegmentSnapshot, picks []pick) {
	if len(picks) < 2 || !canPrefetch {
		return
	}
	page := uint64(os.Getpagesize())
	// Where each pick's document's offset is: its segment's mapping, the
	// offset's place in it, and where the offsets start and end.
	type located struct {
		seg              uint64
		mem              []byte
		at, offsets, end uint64
	}
	var docs []located
	for _, p := range picks {
		s, ok := segs[p.seg].Segment().(storedSegment)
		if !ok || uint64(p.local) >= s.NumDocs() {
			continue
		}
		l := located{seg: uint64(p.seg), mem: s.Data(), offsets: s.StoredIndexOffset()}
		l.at, l.end = l.offsets+8*uint64(p.local), l.offsets+8*s.NumDocs()
		if l.end <= uint64(len(l.mem)) {
			docs = append(docs, l)
		}
	}
	// The offsets first: reading one is a fault too where it is not cached.
	// A document ends where the next begins, the last where the offsets
	// do; the two offsets are on one page but for one document in 512.
	asked := map[[2]uint64]bool{}
	for _, l := range docs {
		ask(l.mem, asked, l.seg, l.at, min(l.at+16, l.end), page)
	}
	for _, l := range docs {
		start, end := binary.BigEndian.Uint64(l.mem[l.at:l.at+8]), l.offsets
		if l.at+16 <= l.end {
			end = binary.BigEndian.Uint64(l.mem[l.at+8 : l.at+16])
		}
		if start < end && end <= l.offsets {
			ask(l.mem, asked, l.seg, start, min(end, start+maxPayloadSpan), page)
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
