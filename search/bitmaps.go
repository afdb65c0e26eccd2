package search

import (
	"cmp"
	"errors"
	"math"
	"slices"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"
	bq "github.com/blevesearch/bleve/v2/search/query"
	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// Filters and pages over postings bitmaps.
//
// A search's matches and scores come from evalPlan (eval.go), one bitmap of
// hits and one array of scores per segment. Here the search's filters
// (metalake, type, catalog, schema, tags, the caller's visibility) become
// bitmaps too, and the page is taken from the hits: by score, then sort
// key (a bounded heap); by sort key alone, from each segment's documents in
// key order (segColumns.byKey); or by creation time.

// segBitmaps reads one segment's filters as bitmaps.
type segBitmaps struct {
	segPostings
	size uint64 // documents, deleted ones included
}

// idSet returns the documents of the segment that hold one of s's ids:
// each id looked up in the field's dictionary, or, when the dictionary
// holds fewer terms in the ids' range than there are ids, the dictionary
// walked and merged with them, so that a large set costs what the segment
// holds of it, not its size in every segment.
func (b *segBitmaps) idSet(s *idSet) (*roaring.Bitmap, error) {
	out := roaring.New()
	if len(s.ids) == 0 {
		return out, nil
	}
	d, err := b.dict(s.field)
	if err != nil {
		return nil, err
	}
	// add adds the documents of one id, reusing one postings list.
	var pl segment.PostingsList
	add := func(id string) error {
		var err error
		if pl, err = d.PostingsList([]byte(id), nil, pl); err != nil || pl == nil {
			return err
		}
		return b.orList(out, s.field, pl)
	}
	if d.Cardinality() >= len(s.ids) {
		for _, id := range s.ids {
			if err := add(id); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	it := dictTerms(d, []byte(s.ids[0]), []byte(s.ids[len(s.ids)-1]+"\x00"))
	next := 0
	for {
		e, err := it.Next()
		if err != nil || e == nil {
			return out, err
		}
		for next < len(s.ids) && s.ids[next] < e.Term {
			next++
		}
		if next == len(s.ids) {
			return out, nil
		}
		if s.ids[next] == e.Term {
			if err := add(e.Term); err != nil {
				return nil, err
			}
		}
	}
}

// dictTerms iterates over the terms of d from start to end, without
// reading each term's postings for its count where the dictionary can
// (zap's can).
func dictTerms(d segment.TermDictionary, start, end []byte) segment.DictionaryIterator {
	if oc, ok := d.(interface {
		AutomatonIteratorOmitCount(a segment.Automaton, start, end []byte) segment.DictionaryIterator
	}); ok {
		return oc.AutomatonIteratorOmitCount(nil, start, end)
	}
	return d.AutomatonIterator(nil, start, end)
}

func (b *segBitmaps) all() *roaring.Bitmap {
	out := roaring.New()
	out.AddRange(0, b.size)
	return out
}

// errUnknownFilter is a filter segBitmaps cannot read: a bug in the
// search's filters.
var errUnknownFilter = errors.New("search filter is not a term, conjunction, disjunction or must/must-not boolean")

// filter returns the documents a filter passes. It knows the filters
// search builds: terms, and conjunctions, disjunctions and must/must-not
// booleans of them (visibility.go).
func (b *segBitmaps) filter(f bq.Query) (*roaring.Bitmap, error) {
	switch f := f.(type) {
	case *bq.TermQuery:
		if f.Field() == "" {
			return nil, errUnknownFilter
		}
		return b.term(f.Field(), f.Term)
	case *idSet:
		return b.idSet(f)
	case *bq.MatchNoneQuery:
		return roaring.New(), nil
	case *bq.MatchAllQuery:
		return b.all(), nil
	case *bq.DisjunctionQuery:
		if f.Min > 1 {
			return nil, errUnknownFilter
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
			return nil, errUnknownFilter
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
			return nil, errUnknownFilter
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
	return nil, errUnknownFilter
}

// pick is a hit chosen for the page.
type pick struct {
	seg     int
	local   uint32
	key     string
	score   float32
	created uint64
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
	// Visit the class, with the bound as a rank: a key is after it when
	// its rank is from (ascending) or below (descending) the place of the
	// first key past it in key order.
	passes := func(uint32) bool { return true }
	if bound != nil {
		if desc {
			end := uint32(sort.Search(len(c.byKey), func(i int) bool { return c.sortKey(uint64(c.byKey[i])) >= *bound }))
			passes = func(local uint32) bool { return c.keyRank[local] < end }
		} else {
			from := uint32(sort.Search(len(c.byKey), func(i int) bool { return c.sortKey(uint64(c.byKey[i])) > *bound }))
			passes = func(local uint32) bool { return c.keyRank[local] >= from }
		}
	}
	top := newKeyTop(c, n, desc)
	it := class.ManyIterator()
	buf := make([]uint32, 256)
	for k := it.NextMany(buf); k > 0; k = it.NextMany(buf) {
		for _, local := range buf[:k] {
			if passes(local) {
				top.offer(local)
			}
		}
	}
	return top.picks(seg)
}

// keyTop keeps the first n documents of a segment it is offered, by sort
// key: in order as it goes when n is a page, or all of them, sorted at the
// end, when it is deep (an offset of thousands), where inserting into the
// kept ones would move thousands each time. Keys compare by their rank,
// equal keys by document: the order comparePicks gives, without reading a
// key.
type keyTop struct {
	c      *segColumns
	n      int
	desc   bool
	keep   bool
	locals []uint32
	// last is the last of locals when keep, and lastRank its key rank.
	last, lastRank uint32
}

func newKeyTop(c *segColumns, n int, desc bool) *keyTop {
	return &keyTop{c: c, n: n, desc: desc, keep: n <= insertionPicks}
}

// before reports whether document a comes before document b.
func (t *keyTop) before(a, b uint32) bool {
	return t.beforeRanked(a, t.c.keyRank[a], b, t.c.keyRank[b])
}

// beforeRanked is before of documents a and b of key ranks ra and rb.
func (t *keyTop) beforeRanked(a, ra, b, rb uint32) bool {
	if ra != rb {
		return ra < rb != t.desc
	}
	return a < b
}

func (t *keyTop) offer(local uint32) {
	switch {
	case !t.keep:
		t.locals = append(t.locals, local)
	case len(t.locals) == t.n && !t.beforeRanked(local, t.c.keyRank[local], t.last, t.lastRank):
	default:
		at := sort.Search(len(t.locals), func(i int) bool { return t.before(local, t.locals[i]) })
		t.locals = slices.Insert(t.locals, at, local)
		if len(t.locals) > t.n {
			t.locals = t.locals[:t.n]
		}
		t.last = t.locals[len(t.locals)-1]
		t.lastRank = t.c.keyRank[t.last]
	}
}

// picks returns the first n documents, in order, as picks of segment seg.
func (t *keyTop) picks(seg int) []pick {
	if !t.keep {
		slices.SortFunc(t.locals, func(a, b uint32) int {
			if t.before(a, b) {
				return -1
			}
			return 1
		})
		t.locals = t.locals[:min(t.n, len(t.locals))]
	}
	out := make([]pick, 0, len(t.locals))
	for _, local := range t.locals {
		out = append(out, pick{seg: seg, local: local, key: t.c.sortKey(uint64(local))})
	}
	return out
}

// insertionPicks is the most picks segTopByKey keeps in order as it goes.
const insertionPicks = 64

// betterByScore orders picks by score, best first, then as comparePicks
// orders them by key.
func betterByScore(a, b pick) int {
	if a.score != b.score {
		if a.score > b.score {
			return -1
		}
		return 1
	}
	return comparePicks(a, b, false)
}

// scoreCursor is where a relevance page starts: after the hit that scored
// score with sort key key.
type scoreCursor struct {
	score float32
	key   string
}

// topByScore returns the first n hits by score, then sort key, after the
// cursor if one is set. It keeps the n best in a heap whose root is the
// worst kept, so that most hits cost one comparison of scores.
func topByScore(cols *snapshotColumns, ev *Evaluation, n int, after *scoreCursor) []pick {
	c, constant := ev.Constant()
	if constant || !ev.Scored() {
		// Every hit scores c (one way of matching), or 0 (`*` under
		// filters): the order is the sort key's, which the columns hold
		// sorted.
		var bound *string
		switch {
		case after != nil && after.score < c:
			return nil
		case after != nil && after.score == c:
			bound = &after.key
		}
		classes := make([]*roaring.Bitmap, len(ev.Segments))
		for i, sr := range ev.Segments {
			classes[i] = sr.Hits
		}
		return withScore(topByKey(cols, classes, n, false, bound), c)
	}
	var picks []pick
	below := float32(math.Inf(1)) // the scores to take are below this
	if after != nil {
		// The rest of the cursor's own score class first, in key order.
		picks = withScore(topByKey(cols, scoreClass(ev, after.score), n, false, &after.key), after.score)
		if len(picks) == n {
			return picks
		}
		below = after.score
	}
	return append(picks, topBelow(cols, ev, n-len(picks), below)...)
}

// candidates returns the hits of a segment that can be on the page.
func candidates(sr SegmentResult) *roaring.Bitmap {
	if sr.Candidates != nil {
		return sr.Candidates
	}
	return sr.Hits
}

// eachScored calls fn with every candidate of ev and its score.
func eachScored(ev *Evaluation, fn func(seg int, local uint32, score float32)) {
	buf := make([]uint32, 256)
	for seg, sr := range ev.Segments {
		if sr.Scores == nil {
			continue
		}
		it := candidates(sr).ManyIterator()
		for k := it.NextMany(buf); k > 0; k = it.NextMany(buf) {
			for _, local := range buf[:k] {
				fn(seg, local, sr.Scores[local])
			}
		}
	}
}

// scoreClass returns, per segment, the candidates that scored score.
func scoreClass(ev *Evaluation, score float32) []*roaring.Bitmap {
	out := make([]*roaring.Bitmap, len(ev.Segments))
	eachScored(ev, func(seg int, local uint32, s float32) {
		if s == score {
			if out[seg] == nil {
				out[seg] = roaring.New()
			}
			out[seg].Add(local)
		}
	})
	return out
}

func withScore(picks []pick, score float32) []pick {
	for i := range picks {
		picks[i].score = score
	}
	return picks
}

// topBelow returns the first n candidates scoring below bound, by score,
// then sort key. It finds the n-th best score first (one pass comparing
// scores, unless the evaluation knows it), then in one more pass takes the
// few that score above it with their keys, and the first of its class in
// each segment by key rank, so that a page of hits that tie, as a tag's
// all do, costs no key comparison per hit.
func topBelow(cols *snapshotColumns, ev *Evaluation, n int, bound float32) []pick {
	if n <= 0 {
		return nil
	}
	last, known := ev.Best(n)
	if !known || !math.IsInf(float64(bound), 1) {
		best := NewTopScores(n)
		eachScored(ev, func(_ int, _ uint32, s float32) {
			if s < bound {
				best.Add(s)
			}
		})
		if best.Len() == 0 {
			return nil
		}
		last = best.Min() // the n-th best score, or the lowest of fewer
	}
	var above []pick
	ties := make([]*keyTop, len(ev.Segments))
	eachScored(ev, func(seg int, local uint32, s float32) {
		switch {
		case s < last || s >= bound:
		case s > last:
			above = append(above, pick{seg: seg, local: local, key: cols.segs[seg].sortKey(uint64(local)), score: s})
		default:
			if ties[seg] == nil {
				ties[seg] = newKeyTop(cols.segs[seg], n, false)
			}
			ties[seg].offer(local)
		}
	})
	slices.SortFunc(above, betterByScore)
	var tied []pick
	for seg, t := range ties {
		if t != nil {
			tied = append(tied, t.picks(seg)...)
		}
	}
	slices.SortFunc(tied, func(a, b pick) int { return comparePicks(a, b, false) })
	return append(above, withScore(tied[:min(len(tied), n-len(above))], last)...)
}

// topByCreated returns the first n hits by creation time (newest first
// when desc), then sort key, after the cursor's values if set.
func topByCreated(cols *snapshotColumns, ev *Evaluation, n int, desc bool, after *createdCursor) []pick {
	cmpCreated := func(a, b pick) int {
		c := 0
		switch {
		case a.created < b.created:
			c = -1
		case a.created > b.created:
			c = 1
		}
		if desc {
			c = -c
		}
		if c != 0 {
			return c
		}
		return comparePicks(a, b, desc)
	}
	h := &pickHeap{cmp: cmpCreated}
	buf := make([]uint32, 256)
	for seg, sr := range ev.Segments {
		c := cols.segs[seg]
		it := sr.Hits.ManyIterator()
		for k := it.NextMany(buf); k > 0; k = it.NextMany(buf) {
			for _, local := range buf[:k] {
				p := pick{seg: seg, local: local, created: c.created[local], key: c.sortKey(uint64(local))}
				p.score = ev.Score(seg, local)
				if after != nil && cmpCreated(p, pick{created: after.created, key: after.key, seg: math.MaxInt}) <= 0 {
					continue
				}
				h.offer(p, n)
			}
		}
	}
	return h.sorted()
}

// createdCursor is where a page by creation time starts.
type createdCursor struct {
	created uint64
	key     string
}

// pickHeap keeps the best n picks by cmp (negative: a comes first), the
// worst of them at the root.
type pickHeap struct {
	picks []pick
	cmp   func(a, b pick) int
}

func (h *pickHeap) offer(p pick, n int) {
	if n <= 0 {
		return
	}
	if len(h.picks) < n {
		h.picks = append(h.picks, p)
		h.up(len(h.picks) - 1)
		return
	}
	if h.cmp(p, h.picks[0]) >= 0 {
		return
	}
	h.picks[0] = p
	h.down(0)
}

// worse reports whether pick i comes after pick j: the heap's order.
func (h *pickHeap) worse(i, j int) bool { return h.cmp(h.picks[i], h.picks[j]) > 0 }

func (h *pickHeap) up(i int) {
	for i > 0 {
		parent := (i - 1) / 2
		if !h.worse(i, parent) {
			return
		}
		h.picks[i], h.picks[parent] = h.picks[parent], h.picks[i]
		i = parent
	}
}

func (h *pickHeap) down(i int) {
	for {
		l, r, worst := 2*i+1, 2*i+2, i
		if l < len(h.picks) && h.worse(l, worst) {
			worst = l
		}
		if r < len(h.picks) && h.worse(r, worst) {
			worst = r
		}
		if worst == i {
			return
		}
		h.picks[i], h.picks[worst] = h.picks[worst], h.picks[i]
		i = worst
	}
}

// sorted returns the kept picks, best first.
func (h *pickHeap) sorted() []pick {
	out := slices.Clone(h.picks)
	slices.SortFunc(out, h.cmp)
	return out
}
