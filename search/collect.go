package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bq "github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	q "github.com/semcat/semcat/query"
	"github.com/semcat/semcat/searchdoc"
)

// A search runs over one index snapshot: the plan (evalPlan, eval.go) gives
// each segment's hits and scores over postings bitmaps, the filters are
// bitmaps too (bitmaps.go), and the page, the sort key and the facets come
// from that snapshot's columns (columns.go), not from doc values decoded
// per search.

// collectRequest is one search over the index.
type collectRequest struct {
	plan    *q.Plan
	filters []bq.Query // what every hit must also match
	sort    string     // a sortOrders key
	after   []string   // sort values to start after (a cursor), or nil
	limit   int
	offset  int
	facets  map[string]int // facet name → how many terms
	// tagFields are the fields the tags facet counts (FieldTags,
	// FieldSystemTags, or both, as the scope allows).
	tagFields []string
	// reads, when not nil, counts what the search reads of the index.
	reads Reads
	// prefetch asks for the page's payloads at once before reading them
	// (prefetchPayloads): where the index is larger than memory.
	prefetch bool
}

// collected is a search's answer.
type collected struct {
	total  uint64
	hits   []collectedHit
	facets map[string][]facetCount
	leaves []q.Leaf
}

type collectedHit struct {
	id     string
	score  float64
	sort   []string // the hit's sort values, as a cursor carries them
	stored string   // the searchdoc.FieldStored payload
}

type facetCount struct {
	term  string
	count int
	scope string // of a tag: "user" or "system"
}

// collect runs req over the current snapshot of idx.
func collect(ctx context.Context, cache *ColumnCache, idx bleve.Index, req collectRequest) (*collected, error) {
	adv, reader, err := OpenSnapshot(idx)
	if err != nil {
		return nil, err
	}
	defer reader.Close()
	cache.SearchedBy(adv)
	cols, err := cache.forSnapshot(adv, reader)
	if err != nil {
		return nil, err
	}
	var facetFieldNames []string
	for name := range req.facets {
		field, ok := facetFields[name]
		if !ok {
			return nil, errors.New("unknown facet " + name)
		}
		if name == "tags" {
			facetFieldNames = append(facetFieldNames, req.tagFields...)
			continue
		}
		facetFieldNames = append(facetFieldNames, field)
	}
	filters, err := necessary(ctx, reader, req.filters)
	if err != nil {
		return nil, err
	}
	segs := reader.Segments()
	ev, err := evalPlan(ctx, req.plan, reader, EvalOptions{
		Filter: func(i int) (*roaring.Bitmap, error) {
			if len(filters) == 0 {
				return nil, nil
			}
			b := &segBitmaps{segPostings: newSegPostings(segs[i].Segment(), req.reads), size: segs[i].Segment().Count()}
			return b.filter(bq.NewConjunctionQuery(filters))
		},
		NameParts: func(i int) []uint8 { return cols.segs[i].nameParts },
		Unscored:  req.sort != "relevance" && req.limit == 0,
		Need:      need(req),
		Reads:     req.reads,
	})
	if err != nil {
		return nil, err
	}
	defer ev.Release()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	out := &collected{total: ev.Total, leaves: ev.Leaves}
	if len(facetFieldNames) > 0 {
		counter := newFacetCounter(cols, facetFieldNames)
		buf := make([]uint32, 512)
		for i, sr := range ev.Segments {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			it := sr.Hits.ManyIterator()
			for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
				for _, local := range buf[:n] {
					counter.countLocal(i, uint64(local))
				}
			}
		}
		out.facets = counter.tops(req.facets, req.tagFields)
	}

	if err := ctx.Err(); err != nil {
		return nil, err
	}
	picks, err := pagePicks(cols, ev, req)
	if err != nil {
		return nil, err
	}
	if req.prefetch {
		prefetchPayloads(segs, picks)
	}
	for _, p := range picks {
		id, err := segs[p.seg].DocID(uint64(p.local))
		if err != nil {
			return nil, fmt.Errorf("document %d of segment %d: %w", p.local, p.seg, err)
		}
		h := collectedHit{id: string(id), score: float64(p.score)}
		switch req.sort {
		case "relevance":
			h.sort = []string{strconv.FormatFloat(float64(p.score), 'g', -1, 32), p.key}
		case "created", "-created":
			h.sort = []string{fmt.Sprintf("%020d", p.created), p.key} // as searchdoc.CreatedKey writes it
		default:
			h.sort = []string{p.key}
		}
		if h.stored, err = segmentPayload(segs[p.seg], uint64(p.local)); err != nil {
			return nil, fmt.Errorf("document %s: %w", h.id, err)
		}
		req.reads.Add(searchdoc.FieldStored, 1, uint64(len(h.stored)))
		out.hits = append(out.hits, h)
	}
	return out, nil
}

// need is how many of the best hits a relevance page without a cursor
// reads, or 0 for a page that needs every hit scored.
func need(req collectRequest) int {
	if req.sort != "relevance" || req.after != nil {
		return 0
	}
	return req.offset + req.limit
}

// pagePicks returns the page: the hits after req.after (or from
// req.offset) up to req.limit, in the sort's order.
func pagePicks(cols *snapshotColumns, ev *Evaluation, req collectRequest) ([]pick, error) {
	need := req.offset + req.limit
	if req.after != nil {
		need = req.limit
	}
	if need <= 0 {
		return nil, nil
	}
	var picks []pick
	switch req.sort {
	case "relevance":
		var after *scoreCursor
		if req.after != nil {
			s, err := strconv.ParseFloat(req.after[0], 32)
			if err != nil {
				return nil, errBadCursor
			}
			after = &scoreCursor{score: float32(s), key: req.after[1]}
		}
		picks = topByScore(cols, ev, need, after)
	case "created", "-created":
		var after *createdCursor
		if req.after != nil {
			c, err := strconv.ParseUint(req.after[0], 10, 64)
			if err != nil {
				return nil, errBadCursor
			}
			after = &createdCursor{created: c, key: req.after[1]}
		}
		picks = topByCreated(cols, ev, need, req.sort == "-created", after)
	default:
		desc := req.sort == "-name"
		var bound *string
		if req.after != nil {
			bound = &req.after[0]
		}
		classes := make([]*roaring.Bitmap, len(ev.Segments))
		for i, sr := range ev.Segments {
			classes[i] = sr.Hits
		}
		picks = topByKey(cols, classes, need, desc, bound)
		for i := range picks {
			p := &picks[i]
			p.score = ev.Score(p.seg, p.local)
		}
	}
	if req.after == nil {
		if req.offset >= len(picks) {
			return nil, nil
		}
		picks = picks[req.offset:]
	}
	return picks, nil
}

// errBadCursor is a cursor whose sort values do not parse.
var errBadCursor = errors.New("cursor: not a cursor of this search")

// segmentPayload reads document local's searchdoc.FieldStored payload.
func segmentPayload(seg *scorch.SegmentSnapshot, local uint64) (string, error) {
	var stored string
	err := seg.VisitDocument(local, func(field string, _ byte, value []byte, _ []uint64) bool {
		if field != searchdoc.FieldStored {
			return true
		}
		stored = string(value)
		return false
	})
	return stored, err
}

// necessary drops the term filters that every live document of the
// snapshot passes, such as the metalake of an index that holds one: each
// costs a step per hit and decides nothing.
func necessary(ctx context.Context, reader index.IndexReader, filters []bq.Query) ([]bq.Query, error) {
	docs, err := reader.DocCount()
	if err != nil {
		return nil, err
	}
	var out []bq.Query
	for _, f := range filters {
		if t, ok := f.(*bq.TermQuery); ok {
			tfr, err := reader.TermFieldReader(ctx, []byte(t.Term), t.Field(), false, false, false)
			if err != nil {
				return nil, err
			}
			n := tfr.Count()
			if err := tfr.Close(); err != nil {
				return nil, err
			}
			if n == docs {
				continue
			}
		}
		out = append(out, f)
	}
	return out, nil
}

// facetCounter counts the facet terms of hits.
type facetCounter struct {
	cols   *snapshotColumns
	want   []int     // the columnFacets entries counted
	counts [][][]int // segment → facet (columnFacets) → term number → hits
}

func newFacetCounter(cols *snapshotColumns, fields []string) *facetCounter {
	f := &facetCounter{cols: cols, counts: make([][][]int, len(cols.segs))}
	for i, name := range columnFacets {
		if slices.Contains(fields, name) {
			f.want = append(f.want, i)
		}
	}
	return f
}

func (f *facetCounter) countLocal(seg int, local uint64) {
	c, counts := f.cols.segs[seg], f.counts[seg]
	if counts == nil {
		counts = make([][]int, len(c.facets))
		for _, i := range f.want {
			counts[i] = make([]int, len(c.facets[i].terms))
		}
		f.counts[seg] = counts
	}
	for _, i := range f.want {
		fc := &c.facets[i]
		start := uint32(0)
		if local > 0 {
			start = fc.ends[local-1]
		}
		for _, ord := range fc.ords[start:fc.ends[local]] {
			counts[i][ord]++
		}
	}
}

// tops returns each requested facet's most frequent terms, at most the
// requested number (facet name → size).
// The tags facet counts the tagFields, each value marked with its scope.
func (f *facetCounter) tops(facets map[string]int, tagFields []string) map[string][]facetCount {
	out := map[string][]facetCount{}
	for name, size := range facets {
		if name != "tags" {
			out[name] = f.top(facetFields[name], size)
			continue
		}
		var all []facetCount
		for _, field := range tagFields {
			scope := "user"
			if field == searchdoc.FieldSystemTags {
				scope = "system"
			}
			for _, c := range f.top(field, -1) {
				c.scope = scope
				all = append(all, c)
			}
		}
		sortFacet(all)
		out[name] = all[:min(size, len(all))]
	}
	return out
}

// sortFacet orders facet counts most frequent first, equal counts by term
// (Bleve's facet order), then user before system.
func sortFacet(cs []facetCount) {
	sort.Slice(cs, func(i, j int) bool {
		if cs[i].count != cs[j].count {
			return cs[i].count > cs[j].count
		}
		if cs[i].term != cs[j].term {
			return cs[i].term < cs[j].term
		}
		return cs[i].scope > cs[j].scope
	})
}

// top returns field's most frequent terms over the hits (all of them when
// size < 0), most frequent first and equal counts by term (Bleve's facet
// order).
func (f *facetCounter) top(field string, size int) []facetCount {
	fi := -1
	for i, name := range columnFacets {
		if name == field {
			fi = i
		}
	}
	if fi < 0 {
		return nil
	}
	byTerm := map[string]int{}
	for s, counts := range f.counts {
		if counts == nil {
			continue
		}
		for ord, n := range counts[fi] {
			if n > 0 {
				byTerm[f.cols.segs[s].facets[fi].terms[ord]] += n
			}
		}
	}
	out := make([]facetCount, 0, len(byTerm))
	for t, n := range byTerm {
		out = append(out, facetCount{term: t, count: n})
	}
	sortFacet(out)
	if size >= 0 && len(out) > size {
		out = out[:size]
	}
	return out
}
