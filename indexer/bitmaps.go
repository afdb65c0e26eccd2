package indexer

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strconv"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	bq "github.com/blevesearch/bleve/v2/search/query"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	q "github.com/semcat/semcat/query"
)

// Searching with postings bitmaps.
//
// Most searches are one term (a word, a prefix, a key:value, a tag, a
// schema field) under filters of exact terms (metalake, type, catalog, the
// caller's visibility). Their scores depend only on which kinds of clause a
// document matched (query.TermPlan), so Bleve's searchers, which visit every
// hit through six to nine merged postings iterators to score it, do far
// more work than the answer needs. A frequent word at 1M entities has
// 160,000 hits; the answer is their count, their facet counts and 20 of
// them.
//
// Here each segment's postings are read as roaring bitmaps (zap keeps them
// so): the hits are the union of the clauses' bitmaps, intersected with the
// filters' and stripped of deleted documents; the total is its cardinality.
// Documents that matched the same kinds tie on score, so the top of a
// relevance sort is taken class by class, best score first, and within a
// class by sort key, from each segment's documents in key order
// (segColumns.byKey). Facets count the hits from the columns, as
// facetCounter does.
//
// The answer equals the searchers' to the bit: the same total, hits, scores,
// sort values, ties broken by document order as Bleve's collector breaks
// them, and facet counts (TestBitmapsAgreeWithSearchers).

// errNoPlan means the search cannot run on bitmaps; collect runs Bleve's
// searchers instead.
var errNoPlan = errors.New("search has no bitmap plan")

// bitmapOrder is a sort the bitmap search can take.
type bitmapOrder int

const (
	byScore   bitmapOrder = iota // "-_score", then sort key
	byKeyAsc                     // sort key
	byKeyDesc                    // "-" sort key
)

func bitmapOrderOf(order []string) (bitmapOrder, bool) {
	switch {
	case slices.Equal(order, sortOrders["relevance"]):
		return byScore, true
	case slices.Equal(order, sortOrders["name"]):
		return byKeyAsc, true
	case slices.Equal(order, sortOrders["-name"]):
		return byKeyDesc, true
	}
	return 0, false
}

// segBitmaps reads one segment's postings as bitmaps.
type segBitmaps struct {
	seg   segment.Segment
	size  uint64 // documents, deleted ones included
	dicts map[string]segment.TermDictionary
}

// orInto is what zap's postings lists offer: their documents, deleted ones
// included, added to a bitmap.
type orInto interface{ OrInto(*roaring.Bitmap) }

func (b *segBitmaps) dict(field string) (segment.TermDictionary, error) {
	d, ok := b.dicts[field]
	if !ok {
		var err error
		if d, err = b.seg.Dictionary(field); err != nil {
			return nil, err
		}
		b.dicts[field] = d
	}
	return d, nil
}

// term returns the documents of the segment that hold term in field.
func (b *segBitmaps) term(field, term string) (*roaring.Bitmap, error) {
	out := roaring.New()
	return out, b.orTerm(out, field, term)
}

// orTerm adds the documents of the segment that hold term in field to out.
func (b *segBitmaps) orTerm(out *roaring.Bitmap, field, term string) error {
	d, err := b.dict(field)
	if err != nil {
		return err
	}
	return orPostings(out, d, term)
}

// orPrefix adds the documents of the segment that hold a term of field
// starting with prefix to out.
func (b *segBitmaps) orPrefix(out *roaring.Bitmap, field, prefix string) error {
	d, err := b.dict(field)
	if err != nil {
		return err
	}
	it := d.AutomatonIterator(nil, []byte(prefix), prefixEnd([]byte(prefix)))
	for {
		e, err := it.Next()
		if err != nil || e == nil {
			return err
		}
		if err := orPostings(out, d, e.Term); err != nil {
			return err
		}
	}
}

// prefixEnd is the first key after every key that starts with prefix, or
// nil for none.
func prefixEnd(prefix []byte) []byte {
	end := slices.Clone(prefix)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// orPostings adds the documents holding term in d to out.
func orPostings(out *roaring.Bitmap, d segment.TermDictionary, term string) error {
	pl, err := d.PostingsList([]byte(term), nil, nil)
	if err != nil || pl == nil {
		return err
	}
	o, ok := pl.(orInto)
	if !ok {
		return fmt.Errorf("%w: postings %T", errNoPlan, pl)
	}
	o.OrInto(out)
	return nil
}

func (b *segBitmaps) all() *roaring.Bitmap {
	out := roaring.New()
	out.AddRange(0, b.size)
	return out
}

// filter returns the documents a filter passes. It knows the filters
// search builds: terms, and conjunctions, disjunctions and must/must-not
// booleans of them (visibility.go).
func (b *segBitmaps) filter(f bq.Query) (*roaring.Bitmap, error) {
	switch f := f.(type) {
	case *bq.TermQuery:
		if f.Field() == "" {
			return nil, errNoPlan
		}
		return b.term(f.Field(), f.Term)
	case *bq.MatchNoneQuery:
		return roaring.New(), nil
	case *bq.MatchAllQuery:
		return b.all(), nil
	case *bq.DisjunctionQuery:
		if f.Min > 1 {
			return nil, errNoPlan
		}
		out := roaring.New()
		for _, c := range f.Disjuncts {
			bm, err := b.filter(c)
			if err != nil {
				return nil, err
			}
			out.Or(bm)
		}
		return out, nil
	case *bq.ConjunctionQuery:
		if len(f.Conjuncts) == 0 {
			return nil, errNoPlan
		}
		var out *roaring.Bitmap
		for _, c := range f.Conjuncts {
			bm, err := b.filter(c)
			if err != nil {
				return nil, err
			}
			if out == nil {
				out = bm
			} else {
				out.And(bm)
			}
		}
		return out, nil
	case *bq.BooleanQuery:
		if f.Should != nil || f.Filter != nil || f.Must == nil {
			return nil, errNoPlan
		}
		out, err := b.filter(f.Must)
		if err != nil {
			return nil, err
		}
		if f.MustNot != nil {
			not, err := b.filter(f.MustNot)
			if err != nil {
				return nil, err
			}
			out.AndNot(not)
		}
		return out, nil
	}
	return nil, errNoPlan
}

// segMatch is one segment's matches.
type segMatch struct {
	kinds [q.NumKinds]*roaring.Bitmap // documents matching a clause of each kind; nil: no clauses
	hits  *roaring.Bitmap             // live documents matching the query and the filters
}

// mask returns the kinds document local matched.
func (m *segMatch) mask(local uint32) int {
	mask := 0
	for k, bm := range m.kinds {
		if bm != nil && bm.Contains(local) {
			mask |= 1 << k
		}
	}
	return mask
}

// class returns the hits that matched exactly the kinds of mask (a
// non-empty subset of the kinds with clauses). It starts from the
// strongest kind, usually the rarest, so that a class of a few exact
// matches costs little even when the hits are many.
func (m *segMatch) class(mask int) *roaring.Bitmap {
	var out *roaring.Bitmap
	for k := q.NumKinds - 1; k >= 0; k-- {
		bm := m.kinds[k]
		if bm == nil || mask&(1<<k) == 0 {
			continue
		}
		if out == nil {
			out = roaring.And(m.hits, bm)
		} else {
			out.And(bm)
		}
		if out.IsEmpty() {
			return out
		}
	}
	if out == nil {
		return roaring.New()
	}
	for k, bm := range m.kinds {
		if bm != nil && mask&(1<<k) == 0 {
			out.AndNot(bm)
		}
	}
	return out
}

// pick is a hit chosen for the page.
type pick struct {
	seg   int
	local uint32
	key   string
	score float64
}

// collectBitmaps answers req from postings bitmaps, or fails with errNoPlan
// when it cannot.
func collectBitmaps(snap *scorch.IndexSnapshot, cols *snapshotColumns, plan *q.TermPlan, order bitmapOrder, req collectRequest, filters []bq.Query, facetFieldNames []string) (*collected, error) {
	segs := snap.Segments()
	matches := make([]segMatch, len(segs))
	out := &collected{bitmaps: true}
	for i, ss := range segs {
		b := &segBitmaps{seg: ss.Segment(), size: ss.Segment().Count(), dicts: map[string]segment.TermDictionary{}}
		m := &matches[i]
		m.hits = roaring.New()
		for k, clauses := range plan.Clauses {
			if len(clauses) == 0 {
				continue
			}
			m.kinds[k] = roaring.New()
			for _, c := range clauses {
				add := b.orTerm
				if c.Prefix {
					add = b.orPrefix
				}
				if err := add(m.kinds[k], c.Field, c.Term); err != nil {
					return nil, err
				}
			}
			m.hits.Or(m.kinds[k])
		}
		if m.hits.IsEmpty() {
			continue // the filters cannot add any
		}
		for _, f := range filters {
			bm, err := b.filter(f)
			if err != nil {
				return nil, err
			}
			m.hits.And(bm)
		}
		if del := ss.Deleted(); del != nil {
			m.hits.AndNot(del)
		}
		out.total += m.hits.GetCardinality()
	}

	if len(facetFieldNames) > 0 {
		counter := newFacetCounter(nil, cols, facetFieldNames)
		buf := make([]uint32, 512)
		for i := range matches {
			it := matches[i].hits.ManyIterator()
			for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
				for _, local := range buf[:n] {
					counter.countLocal(i, uint64(local))
				}
			}
		}
		out.facets = counter.tops(req.facets)
	}

	picks, err := topPicks(cols, plan, order, req, matches)
	if err != nil {
		return nil, err
	}
	for _, p := range picks {
		id, err := segs[p.seg].DocID(uint64(p.local))
		if err != nil {
			return nil, fmt.Errorf("document %d of segment %d: %w", p.local, p.seg, err)
		}
		h := collectedHit{id: string(id), score: p.score}
		if order == byScore {
			h.sort = []string{"_score", p.key} // as Bleve reports a score sort
		} else {
			h.sort = []string{p.key}
		}
		if h.stored, err = segmentPayload(segs[p.seg], uint64(p.local)); err != nil {
			return nil, fmt.Errorf("document %s: %w", h.id, err)
		}
		out.hits = append(out.hits, h)
	}
	return out, nil
}

// topPicks returns the page: the hits after req.after (or from
// req.offset) up to req.limit, in the order's order.
func topPicks(cols *snapshotColumns, plan *q.TermPlan, order bitmapOrder, req collectRequest, matches []segMatch) ([]pick, error) {
	need := req.offset + req.limit
	if req.after != nil {
		need = req.limit
	}
	if need <= 0 {
		return nil, nil
	}
	var picks []pick
	if order != byScore {
		desc := order == byKeyDesc
		var bound *string
		if req.after != nil {
			bound = &req.after[0]
		}
		classes := make([]*roaring.Bitmap, len(matches))
		for i := range matches {
			classes[i] = matches[i].hits
		}
		picks = topByKey(cols, classes, need, desc, bound)
		for i := range picks {
			p := &picks[i]
			p.score = plan.Score(matches[p.seg].mask(p.local))
		}
	} else {
		// The masks the clauses can make, grouped by score, best first.
		present := 0
		for k, clauses := range plan.Clauses {
			if len(clauses) > 0 {
				present |= 1 << k
			}
		}
		byScore := map[float64][]int{}
		for mask := 1; mask < 1<<q.NumKinds; mask++ {
			if mask&^present == 0 {
				s := plan.Score(mask)
				byScore[s] = append(byScore[s], mask)
			}
		}
		scores := make([]float64, 0, len(byScore))
		for s := range byScore {
			scores = append(scores, s)
		}
		slices.Sort(scores)
		slices.Reverse(scores)

		var afterScore float64
		if req.after != nil {
			// As Bleve reads a cursor's score: 0 when it is no number.
			if s, err := strconv.ParseFloat(req.after[0], 64); err == nil {
				afterScore = s
			}
		}
		for _, s := range scores {
			var bound *string
			if req.after != nil {
				if s > afterScore {
					continue // before the cursor
				}
				if s == afterScore {
					bound = &req.after[1]
				}
			}
			classes := make([]*roaring.Bitmap, len(matches))
			for i := range matches {
				if matches[i].hits.IsEmpty() {
					continue
				}
				for _, mask := range byScore[s] {
					c := matches[i].class(mask)
					if classes[i] == nil {
						classes[i] = c
					} else {
						classes[i].Or(c)
					}
				}
			}
			class := topByKey(cols, classes, need-len(picks), false, bound)
			for i := range class {
				class[i].score = s
			}
			picks = append(picks, class...)
			if len(picks) == need {
				break
			}
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

// comparePicks orders picks by key (descending if desc), then by document
// order, as Bleve's collector breaks ties.
func comparePicks(a, b pick, desc bool) int {
	c := cmp.Compare(a.key, b.key)
	if desc {
		c = -c
	}
	if c != 0 {
		return c
	}
	if c := cmp.Compare(a.seg, b.seg); c != 0 {
		return c
	}
	return cmp.Compare(a.local, b.local)
}

// topByKey returns the first n documents of classes (one bitmap per
// segment, nil for none) by sort key, after bound if it is set.
func topByKey(cols *snapshotColumns, classes []*roaring.Bitmap, n int, desc bool, bound *string) []pick {
	var all []pick
	for seg, class := range classes {
		if class != nil && !class.IsEmpty() {
			all = append(all, segTopByKey(cols.segs[seg], seg, class, n, desc, bound)...)
		}
	}
	slices.SortFunc(all, func(a, b pick) int { return comparePicks(a, b, desc) })
	if len(all) > n {
		all = all[:n]
	}
	return all
}

// segTopByKey returns the first n documents of one segment's class by sort
// key, after bound if it is set (or more, on ties; the caller cuts). It
// walks the segment's documents in key order when the class is dense
// enough for that to find n of them sooner than visiting the whole class.
func segTopByKey(c *segColumns, seg int, class *roaring.Bitmap, n int, desc bool, bound *string) []pick {
	after := func(key string) bool {
		if bound == nil {
			return true
		}
		if desc {
			return key < *bound
		}
		return key > *bound
	}
	size := uint64(len(c.byKey))
	card := class.GetCardinality()
	var out []pick
	if card*card > uint64(n)*size {
		// Walk the key order from the bound. Equal keys are in document
		// order, so an ascending walk finds them in Bleve's order; a
		// descending one takes the whole run of the n-th key.
		if !desc {
			i := 0
			if bound != nil {
				i = sort.Search(len(c.byKey), func(i int) bool { return c.sortKey(uint64(c.byKey[i])) > *bound })
			}
			for ; i < len(c.byKey) && len(out) < n; i++ {
				if local := c.byKey[i]; class.Contains(local) {
					out = append(out, pick{seg: seg, local: local, key: c.sortKey(uint64(local))})
				}
			}
			return out
		}
		i := len(c.byKey) - 1
		if bound != nil {
			i = sort.Search(len(c.byKey), func(i int) bool { return c.sortKey(uint64(c.byKey[i])) >= *bound }) - 1
		}
		for ; i >= 0; i-- {
			local := c.byKey[i]
			if !class.Contains(local) {
				continue
			}
			key := c.sortKey(uint64(local))
			if len(out) >= n && key != out[len(out)-1].key {
				break
			}
			out = append(out, pick{seg: seg, local: local, key: key})
		}
		return out
	}
	// Visit the class: keep the best n in order when n is a page, or take
	// every document and sort when it is deep (an offset of thousands),
	// where inserting into the kept ones would move thousands each time.
	keep := n <= insertionPicks
	it := class.ManyIterator()
	buf := make([]uint32, 256)
	for k := it.NextMany(buf); k > 0; k = it.NextMany(buf) {
		for _, local := range buf[:k] {
			key := c.sortKey(uint64(local))
			if !after(key) {
				continue
			}
			p := pick{seg: seg, local: local, key: key}
			if !keep {
				out = append(out, p)
				continue
			}
			if len(out) == n && comparePicks(p, out[n-1], desc) >= 0 {
				continue
			}
			at, _ := slices.BinarySearchFunc(out, p, func(a, b pick) int { return comparePicks(a, b, desc) })
			out = slices.Insert(out, at, p)
			if len(out) > n {
				out = out[:n]
			}
		}
	}
	if !keep {
		slices.SortFunc(out, func(a, b pick) int { return comparePicks(a, b, desc) })
		out = out[:min(n, len(out))]
	}
	return out
}

// insertionPicks is the most picks segTopByKey keeps in order as it goes.
const insertionPicks = 64
