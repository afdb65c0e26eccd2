package indexer

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/search"
	"github.com/blevesearch/bleve/v2/search/collector"
	bq "github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	q "github.com/semcat/semcat/query"
)

// A search runs Bleve's searcher and top-N collector itself, over one
// index snapshot, instead of through bleve.Index.Search: so that the sort
// key and the facets come from that snapshot's columns (columns.go), not
// from doc values decoded per search.

// collectRequest is one search over the index.
type collectRequest struct {
	query   bq.Query
	filters []bq.Query // what every hit must also match, unscored
	order   []string   // sortOrders entry
	after   []string   // sort values to start after (a cursor), or nil
	limit   int
	offset  int
	facets  map[string]int // facet name → how many terms
}

// collected is a search's answer.
type collected struct {
	bitmaps bool // answered from postings bitmaps (bitmaps.go)
	total   uint64
	hits    []collectedHit
	facets  map[string][]facetCount
}

type collectedHit struct {
	id     string
	score  float64
	sort   []string
	stored string // the fieldStored payload
}

type facetCount struct {
	term  string
	count int
}

// collect runs req over the current snapshot of idx.
func (x *Indexer) collect(ctx context.Context, idx bleve.Index, req collectRequest) (*collected, error) {
	adv, reader, err := openSnapshot(idx)
	if err != nil {
		return nil, err
	}
	defer reader.Close()
	x.columns.searchedBy(adv)
	cols, err := x.columns.forSnapshot(adv, reader)
	if err != nil {
		return nil, err
	}

	var facetFieldNames []string
	for name := range req.facets {
		field, ok := facetFields[name]
		if !ok {
			return nil, errors.New("unknown facet " + name)
		}
		facetFieldNames = append(facetFieldNames, field)
	}

	filters, err := necessary(ctx, reader, req.filters)
	if err != nil {
		return nil, err
	}
	if plan, ok := q.PlanOf(req.query); ok && !x.searchersOnly {
		if border, ok := bitmapOrderOf(req.order); ok {
			out, err := collectBitmaps(reader, cols, plan, border, req, filters, facetFieldNames)
			if !errors.Is(err, errNoPlan) {
				return out, err
			}
		}
	}
	order := search.ParseSortOrderStrings(req.order)
	for i, o := range order {
		if f, ok := o.(*search.SortField); ok {
			if f.Field == q.FieldSortKey {
				order[i] = &sortKeySort{cols: cols, desc: f.Desc}
			} else {
				f.Type = search.SortFieldAsString // keys, never numbers
			}
		}
	}
	var coll *collector.TopNCollector
	if req.after != nil {
		coll = collector.NewTopNCollectorAfter(req.limit, order, req.after)
	} else {
		coll = collector.NewTopNCollector(req.limit, req.offset, order)
	}

	query := bq.NewBooleanQuery([]bq.Query{req.query}, nil, nil)
	if len(filters) > 0 {
		query.AddFilter(bq.NewConjunctionQuery(filters))
	}
	s, err := query.Searcher(ctx, reader, idx.Mapping(), search.SearcherOptions{})
	if err != nil {
		return nil, err
	}
	var counter *facetCounter
	if len(req.facets) > 0 {
		counter = newFacetCounter(s, cols, facetFieldNames)
		s = counter
	}
	err = coll.Collect(ctx, s, reader)
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, err
	}

	out := &collected{total: coll.Total()}
	segs := reader.Segments()
	for _, d := range coll.Results() {
		// By the hit's segment and number, not its id, which would
		// cost a dictionary lookup in every segment.
		seg, local := cols.segment(d.IndexInternalID)
		h := collectedHit{id: d.ID, score: d.Score, sort: d.Sort}
		if h.stored, err = segmentPayload(segs[seg], local); err != nil {
			return nil, fmt.Errorf("document %s: %w", d.ID, err)
		}
		out.hits = append(out.hits, h)
	}
	if counter != nil {
		out.facets = counter.tops(req.facets)
	}
	return out, nil
}

// segmentPayload reads document local's fieldStored payload.
func segmentPayload(seg *scorch.SegmentSnapshot, local uint64) (string, error) {
	var stored string
	err := seg.VisitDocument(local, func(field string, _ byte, value []byte, _ []uint64) bool {
		if field != fieldStored {
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

// sortKeySort is a Bleve sort by FieldSortKey that reads the key from the
// columns.
type sortKeySort struct {
	cols *snapshotColumns
	desc bool
}

func (s *sortKeySort) UpdateVisitor(string, []byte) {}

func (s *sortKeySort) Value(d *search.DocumentMatch) string {
	c, n := s.cols.locate(d.IndexInternalID)
	return c.sortKey(n)
}

func (s *sortKeySort) DecodeValue(v string) string { return v }
func (s *sortKeySort) Descending() bool            { return s.desc }
func (s *sortKeySort) RequiresDocID() bool         { return false }
func (s *sortKeySort) RequiresScoring() bool       { return false }
func (s *sortKeySort) RequiresFields() []string    { return nil }
func (s *sortKeySort) Reverse()                    { s.desc = !s.desc }

func (s *sortKeySort) Copy() search.SearchSort {
	c := *s
	return &c
}

// facetCounter is a searcher that counts the facet terms of every hit its
// child returns: the collector takes every hit from it, so it sees the
// same hits as the total.
type facetCounter struct {
	search.Searcher
	cols   *snapshotColumns
	want   []int     // the columnFacets entries counted
	counts [][][]int // segment → facet (columnFacets) → term number → hits
}

func newFacetCounter(s search.Searcher, cols *snapshotColumns, fields []string) *facetCounter {
	f := &facetCounter{Searcher: s, cols: cols, counts: make([][][]int, len(cols.segs))}
	for i, name := range columnFacets {
		if slices.Contains(fields, name) {
			f.want = append(f.want, i)
		}
	}
	return f
}

func (f *facetCounter) Next(ctx *search.SearchContext) (*search.DocumentMatch, error) {
	d, err := f.Searcher.Next(ctx)
	if d != nil {
		f.count(d.IndexInternalID)
	}
	return d, err
}

func (f *facetCounter) Advance(ctx *search.SearchContext, id index.IndexInternalID) (*search.DocumentMatch, error) {
	d, err := f.Searcher.Advance(ctx, id)
	if d != nil {
		f.count(d.IndexInternalID)
	}
	return d, err
}

func (f *facetCounter) count(id index.IndexInternalID) {
	f.countLocal(f.cols.segment(id))
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
func (f *facetCounter) tops(facets map[string]int) map[string][]facetCount {
	out := map[string][]facetCount{}
	for name, size := range facets {
		out[name] = f.top(facetFields[name], size)
	}
	return out
}

// top returns field's most frequent terms over the hits, most frequent
// first and equal counts by term (Bleve's facet order).
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
	sort.Slice(out, func(i, j int) bool {
		if out[i].count != out[j].count {
			return out[i].count > out[j].count
		}
		return out[i].term < out[j].term
	})
	if len(out) > size {
		out = out[:size]
	}
	return out
}
