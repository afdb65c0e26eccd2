package search

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/semcat/semcat/analyzers"
	"github.com/semcat/semcat/searchdoc"
)

// Columns: the values every search sorts and facets by, decoded once per
// index segment and kept in memory.
//
// Bleve reads a hit's sort and facet values from doc values, which it keeps
// in snappy-compressed chunks of 1,024 documents and decodes per search. A
// search with a few thousand hits spread over a 1M-document index decoded
// nearly every chunk of the sort key — half of a search's CPU, and most of
// a key:value or tag search's. Segments never change once written (a merge
// writes a new one), so their decoded values can be kept: a search then
// reads a hit's sort key and facet terms by array index.

// columnFacets are the fields of the facets (facetFields), in the order of
// segColumns.facets.
var columnFacets = slices.Sorted(slices.Values(append(slices.Collect(maps.Values(facetFields)), searchdoc.FieldSystemTags)))

// segColumns holds one segment's columns, indexed by local document number.
type segColumns struct {
	// keys holds every document's sort key back to back; document n's is
	// keys[keyEnds[n-1]:keyEnds[n]] (from 0 for n = 0).
	keys    []byte
	keyEnds []uint32
	facets  []facetColumn // one per columnFacets entry
	// byKey lists the documents in sort key order, equal keys in document
	// order; keyRank holds each document's key's place in that order (the
	// place of the first document with the same key), so that documents of
	// one segment compare by key as numbers.
	byKey   []uint32
	keyRank []uint32
	// nameParts holds each document's number of name parts (at most 255),
	// by which ranking scales a name match (EvalOptions).
	nameParts []uint8
	// created holds each document's FieldCreated key, parsed.
	created []uint64
	// suggest is the type-ahead index (suggest.go), built by the first
	// suggestion that reads the segment.
	suggestOnce sync.Once
	suggest     *suggestColumns
}

// facetColumn is one facet field of a segment: its distinct terms, and
// each document's term numbers, ords[ends[n-1]:ends[n]].
type facetColumn struct {
	terms []string
	ends  []uint32
	ords  []uint32
}

// sortKey returns document n's sort key. The string shares the column's
// memory, which is never written after it is built.
func (c *segColumns) sortKey(n uint64) string {
	start := uint32(0)
	if n > 0 {
		start = c.keyEnds[n-1]
	}
	end := c.keyEnds[n]
	if end == start {
		return ""
	}
	return unsafe.String(&c.keys[start], end-start)
}

// buildSegColumns decodes a segment's columns, one pass over its doc values.
func buildSegColumns(seg segment.Segment) (*segColumns, error) {
	dv, ok := seg.(segment.DocValueVisitable)
	if !ok {
		return nil, fmt.Errorf("index segment %T has no doc values", seg)
	}
	n := seg.Count()
	c := &segColumns{keyEnds: make([]uint32, n), facets: make([]facetColumn, len(columnFacets))}
	termOrd := make([]map[string]uint32, len(columnFacets))
	for i := range c.facets {
		c.facets[i].ends = make([]uint32, n)
		termOrd[i] = map[string]uint32{}
	}
	c.nameParts = make([]uint8, n)
	c.created = make([]uint64, n)
	fields := append([]string{searchdoc.FieldSortKey, searchdoc.FieldCreated}, columnFacets...)
	var state segment.DocVisitState
	var err error
	for doc := uint64(0); doc < n; doc++ {
		state, err = dv.VisitDocValues(doc, fields, func(field string, term []byte) {
			switch field {
			case searchdoc.FieldSortKey:
				c.keys = append(c.keys, term...)
				return
			case searchdoc.FieldCreated:
				c.created[doc], _ = strconv.ParseUint(string(term), 10, 64)
				return
			}
			for i, f := range columnFacets {
				if f != field {
					continue
				}
				fc := &c.facets[i]
				ord, seen := termOrd[i][string(term)]
				if !seen {
					ord = uint32(len(fc.terms))
					fc.terms = append(fc.terms, string(term))
					termOrd[i][fc.terms[ord]] = ord
				}
				fc.ords = append(fc.ords, ord)
			}
		}, state)
		if err != nil {
			return nil, fmt.Errorf("reading doc values of document %d: %w", doc, err)
		}
		if len(c.keys) > int(^uint32(0)) {
			return nil, fmt.Errorf("index segment too large for sort columns (%d bytes of keys)", len(c.keys))
		}
		c.keyEnds[doc] = uint32(len(c.keys))
		c.nameParts[doc] = uint8(min(255, analyzers.NamePartCount(searchdoc.SortKeyName(c.sortKey(doc)))))
		for i := range c.facets {
			c.facets[i].ends[doc] = uint32(len(c.facets[i].ords))
		}
	}
	c.byKey = make([]uint32, n)
	for i := range c.byKey {
		c.byKey[i] = uint32(i)
	}
	slices.SortStableFunc(c.byKey, func(a, b uint32) int { return strings.Compare(c.sortKey(uint64(a)), c.sortKey(uint64(b))) })
	c.keyRank = make([]uint32, n)
	for i, doc := range c.byKey {
		rank := uint32(i)
		if i > 0 && c.sortKey(uint64(c.byKey[i-1])) == c.sortKey(uint64(doc)) {
			rank = c.keyRank[c.byKey[i-1]]
		}
		c.keyRank[doc] = rank
	}
	return c, nil
}

// ColumnCache keeps the columns of the segments of the open index, keyed
// by the index and the segment's id (unique and immutable within an index).
// The indexer, which opens indexes and swaps them, warms it (Warm,
// WarmSnapshot) so that searches do not wait for columns.
type ColumnCache struct {
	mu   sync.Mutex
	segs map[segKey]*cachedColumns
	// searched is when a search last asked for columns (Unix ns), and
	// searchedIndex the index it searched; incoming is a rebuilt index
	// about to replace it.
	searched      atomic.Int64
	searchedIndex atomic.Pointer[scorch.Scorch]
	incoming      atomic.Pointer[scorch.Scorch]
	// suggested is when a type-ahead last read the columns (Unix ns): while
	// type-aheads run, warming a segment builds its type-ahead index too.
	suggested atomic.Int64
}

type segKey struct {
	owner index.Index
	id    uint64
}

// cachedColumns builds a segment's columns once, whoever asks first.
type cachedColumns struct {
	once  sync.Once
	cols  *segColumns
	err   error
	built atomic.Bool // once has run: cols and err are set
	// live is when a snapshot last held the segment (or when it was
	// warmed, before any snapshot held it); guarded by ColumnCache.mu.
	live time.Time
}

func (e *cachedColumns) build(seg segment.Segment) {
	e.once.Do(func() {
		e.cols, e.err = buildSegColumns(seg)
		e.built.Store(true)
	})
}

// keepUnseen is how long the cache keeps the columns of a segment no
// snapshot holds: a segment a merge replaced, which a search that opened
// its snapshot earlier may still ask for, or one warmed before Scorch puts
// it into a snapshot.
const keepUnseen = 10 * time.Second

// SearchedBy records a search of owner.
func (cc *ColumnCache) SearchedBy(owner index.Index) {
	cc.searched.Store(time.Now().UnixNano())
	if s, ok := owner.(*scorch.Scorch); ok && cc.searchedIndex.Load() != s {
		cc.searchedIndex.Store(s)
	}
}

// Recent reports whether a search asked for columns in the last minute.
func (cc *ColumnCache) Recent() bool {
	return time.Since(time.Unix(0, cc.searched.Load())) <= time.Minute
}

// suggestedBy records a type-ahead (which also records a search).
func (cc *ColumnCache) suggestedBy(owner index.Index) {
	cc.SearchedBy(owner)
	cc.suggested.Store(time.Now().UnixNano())
}

// warmSuggest builds the type-ahead index of c when a type-ahead ran in
// the last ten minutes: at 1M entities a merged segment's takes about a
// second, which the first type-ahead to read it would otherwise wait.
func (cc *ColumnCache) warmSuggest(c *segColumns) {
	if c != nil && time.Since(time.Unix(0, cc.suggested.Load())) <= 10*time.Minute {
		c.suggestions()
	}
}

// Searching reports whether searches run and owner is the index they
// search, or the one about to replace it.
func (cc *ColumnCache) Searching(owner *scorch.Scorch) bool {
	return cc.Recent() && (cc.searchedIndex.Load() == owner || cc.incoming.Load() == owner)
}

// Warm builds the columns of segment id of owner, which no snapshot may
// hold yet.
func (cc *ColumnCache) Warm(owner index.Index, id uint64, seg segment.Segment) {
	cc.mu.Lock()
	e := cc.entry(segKey{owner: owner, id: id}, time.Now())
	cc.mu.Unlock()
	e.build(seg)
	cc.warmSuggest(e.cols)
	cc.mu.Lock()
	e.live = time.Now()
	cc.mu.Unlock()
}

// snapshotColumns holds the columns of a snapshot's segments, in the
// snapshot's order, for one search.
type snapshotColumns struct {
	segs []*segColumns
}

// entry returns the cache entry of k, made if missing, and marks it held
// at now; cc.mu is held.
func (cc *ColumnCache) entry(k segKey, now time.Time) *cachedColumns {
	if cc.segs == nil {
		cc.segs = map[segKey]*cachedColumns{}
	}
	e := cc.segs[k]
	if e == nil {
		e = &cachedColumns{}
		cc.segs[k] = e
	}
	e.live = now
	return e
}

// forSnapshot returns the columns of every segment of snap, building those
// not yet cached, and forgets segments no snapshot has held for keepUnseen
// (merged away, or of an index that was replaced).
func (cc *ColumnCache) forSnapshot(owner index.Index, snap *scorch.IndexSnapshot) (*snapshotColumns, error) {
	segs := snap.Segments()
	out := &snapshotColumns{segs: make([]*segColumns, len(segs))}
	entries := make([]*cachedColumns, len(segs))
	now := time.Now()
	cc.mu.Lock()
	for i, s := range segs {
		entries[i] = cc.entry(segKey{owner: owner, id: s.Id()}, now)
	}
	for k, e := range cc.segs {
		if now.Sub(e.live) > keepUnseen {
			delete(cc.segs, k)
		}
	}
	cc.mu.Unlock()

	for i, s := range segs {
		e := entries[i]
		e.build(s.Segment())
		if e.err != nil {
			return nil, e.err
		}
		out.segs[i] = e.cols
	}
	return out, nil
}

// OpenSnapshot opens a reader of the current snapshot of idx; the caller
// closes it.
func OpenSnapshot(idx bleve.Index) (index.Index, *scorch.IndexSnapshot, error) {
	adv, err := idx.Advanced()
	if err != nil {
		return nil, nil, err
	}
	reader, err := adv.Reader()
	if err != nil {
		return nil, nil, err
	}
	snap, ok := reader.(*scorch.IndexSnapshot)
	if !ok {
		reader.Close()
		return nil, nil, fmt.Errorf("index reader %T is not a scorch snapshot", reader)
	}
	return adv, snap, nil
}

// WarmSnapshot builds the columns of every segment of snap, a snapshot of
// owner.
func (cc *ColumnCache) WarmSnapshot(owner index.Index, snap *scorch.IndexSnapshot) error {
	cols, err := cc.forSnapshot(owner, snap)
	if err != nil {
		return err
	}
	for _, c := range cols.segs {
		cc.warmSuggest(c)
	}
	return nil
}

// SetIncoming names a rebuilt index about to replace the searched one (nil:
// none), so that its segments are warmed too.
func (cc *ColumnCache) SetIncoming(s *scorch.Scorch) { cc.incoming.Store(s) }

// Swapped records that next replaced prev: if searches searched prev, they
// now search next.
func (cc *ColumnCache) Swapped(prev, next *scorch.Scorch) {
	cc.searchedIndex.CompareAndSwap(prev, next)
}

// Built reports whether the columns of segment id of owner are built.
func (cc *ColumnCache) Built(owner index.Index, id uint64) bool {
	cc.mu.Lock()
	defer cc.mu.Unlock()
	e := cc.segs[segKey{owner: owner, id: id}]
	return e != nil && e.built.Load()
}
