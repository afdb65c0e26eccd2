package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	segment "github.com/blevesearch/scorch_segment_api/v2"
	"github.com/blevesearch/vellum/levenshtein"

	"github.com/semcat/semcat/analyzers"
	q "github.com/semcat/semcat/query"
	"github.com/semcat/semcat/searchdoc"
)

// Running a plan over an index snapshot.
//
// Every segment's postings are read as roaring bitmaps (zap keeps them so):
// a group's documents are the union (AllOf: the intersection) of its
// clauses' postings; a term's the union of its groups'; the hits the
// intersection of the required terms' (or the union of the optional ones',
// or everything for *), less the excluded terms', the filter's complement
// and deleted documents. Totals are bitmap cardinalities; scores (rank.go)
// are added per group into one array per segment, so that a word matching
// 100,000 documents costs a pass over them per way it matched, and none of
// Bleve's per-hit searcher merging.
//
// An evaluation stops when its context is done (SPEC §2.11: no request
// holds a core past its deadline): between clauses, every checkEvery terms
// of an expansion and every checkEvery documents scored, so that even a
// costly query stops within a fraction of a millisecond of its deadline.

// ErrNoBitmaps means a segment's postings cannot be read as bitmaps.
var ErrNoBitmaps = errors.New("index postings are not bitmaps")

// TooComplexError means a word's automaton (the terms within its typo
// distance) has more states than the engine builds: a query it cannot
// compile, the caller's to change (SPEC §2.11: 400, never 500).
type TooComplexError struct {
	Word string
}

func (e *TooComplexError) Error() string {
	w := e.Word
	if r := []rune(w); len(r) > 24 {
		w = string(r[:24]) + "…"
	}
	return fmt.Sprintf("query: the word '%s' (%d characters) is too complex to match with typos; use a shorter word", w, utf8.RuneCountInString(e.Word))
}

// EvalOptions are what a search adds to a plan.
type EvalOptions struct {
	// Filter returns the documents of segment i a result may be (nil: all).
	Filter func(i int) (*roaring.Bitmap, error)
	// NameParts returns the number of name parts of each document of
	// segment i (nil: one each), for nameNorm.
	NameParts func(i int) []uint8
	// Unscored skips the scores: the caller sorts by something else and
	// needs none.
	Unscored bool
	// Need, when above 0, is how many of the best hits the caller will
	// read (offset + limit, for a relevance page without a cursor): a
	// one-term query then scores only the hits that can be among them
	// (SegmentResult.Candidates).
	Need int
	// Reads, when not nil, counts what the evaluation reads of the index.
	Reads Reads
}

// Evaluation is a plan's answer over one snapshot.
type Evaluation struct {
	Segments []SegmentResult
	Total    uint64
	// Leaves are the terms the plan's positive terms found, for
	// explaining hits (Leaf).
	Leaves []q.Leaf

	constant   float32 // every hit's score, when isConstant
	isConstant bool
	// best is the lowest of the bestOf best scores, when scoreTiers
	// found it (bestOf 0: unknown).
	best   float32
	bestOf int
}

// Best returns the lowest of the n best scores of the candidates (of all
// of them when there are fewer), when the evaluation already knows it: a
// one-term query scored for EvalOptions.Need n.
func (e *Evaluation) Best(n int) (float32, bool) {
	return e.best, n > 0 && n == e.bestOf
}

// SegmentResult is one segment's hits and their scores.
type SegmentResult struct {
	Hits *roaring.Bitmap
	// Scores holds the score of each hit, by local document number; nil
	// when nothing is scored (no terms, or Unscored).
	Scores []float32
	// Candidates, when set, are the hits that were scored (EvalOptions
	// Need): the best hits are among them.
	Candidates *roaring.Bitmap
}

// Constant reports whether every hit scores the same, and what: a
// one-term query with one way of matching outside names (a tag, a schema
// field, schema:*), whose page is then the hits in key order.
func (e *Evaluation) Constant() (float32, bool) { return e.constant, e.isConstant }

// Score is the score of document local of segment seg, a hit.
func (e *Evaluation) Score(seg int, local uint32) float32 {
	if e.isConstant {
		return e.constant
	}
	if s := e.Segments[seg].Scores; s != nil {
		return s[local]
	}
	return 0
}

// Scored reports whether any hit has a score (else every hit scores 0).
func (e *Evaluation) Scored() bool {
	if e.isConstant {
		return true
	}
	for _, s := range e.Segments {
		if s.Scores != nil {
			return true
		}
	}
	return false
}

// Release returns the evaluation's score arrays for reuse, zeroed: only
// the scored documents' entries when they are few (a one-term query's
// candidates in a segment of a million), so that the next evaluation does
// not clear megabytes to score thousands.
func (e *Evaluation) Release() {
	for i := range e.Segments {
		sr := &e.Segments[i]
		s := sr.Scores
		if s == nil {
			continue
		}
		written := sr.Hits // every entry written is a hit's, or a candidate's
		if sr.Candidates != nil {
			written = sr.Candidates
		}
		if written.GetCardinality() > uint64(len(s)/sparseClear) {
			clear(s)
		} else {
			written.Iterate(func(d uint32) bool {
				s[d] = 0
				return true
			})
		}
		scorePool.Put(&s)
		sr.Scores = nil
	}
}

// sparseClear: Release zeroes an array entry by entry up to one entry in
// sparseClear, and clears it whole beyond.
const sparseClear = 16

// scorePool holds zeroed score arrays.
var scorePool sync.Pool

// scoreArray returns a zeroed array of n scores.
func scoreArray(n int) []float32 {
	if p, ok := scorePool.Get().(*[]float32); ok && cap(*p) >= n {
		return (*p)[:n] // zero beyond len too: nothing writes there
	}
	return make([]float32, n)
}

// termRun is one term's documents in one evaluation.
type termRun struct {
	term   *q.Term
	groups []q.Group
	bms    [][]*roaring.Bitmap // segment → group → documents (nil: none)
	hits   []*roaring.Bitmap   // segment → live documents matching any group
	df     uint64
	// segSize holds each segment's number of documents.
	segSize []uint64
	incs    []*groupIncrements // by group, once computed (increments)
	buf     []uint32           // score's, reused
}

// checkEvery is how many terms of an expansion, or documents scored, an
// evaluation goes between looks at its context.
const checkEvery = 1024

// Eval runs the plan over snap. It fails with ctx's error once ctx is done.
func evalPlan(ctx context.Context, p *q.Plan, snap *scorch.IndexSnapshot, opts EvalOptions) (*Evaluation, error) {
	segs := snap.Segments()
	readers := make([]*segReader, len(segs))
	dfas := map[typoKey]*levenshtein.DFA{}
	for i, ss := range segs {
		readers[i] = &segReader{segPostings: newSegPostings(ss.Segment(), opts.Reads), ctx: ctx, deleted: ss.Deleted(), dfas: dfas}
	}
	leaves := q.NewLeafSet()
	run := func(t *q.Term, collect bool) (*termRun, error) {
		r := &termRun{term: t, groups: t.Groups}
		var lv *q.LeafSet
		if collect {
			lv = leaves
		}
		if err := r.read(readers, lv); err != nil {
			return nil, err
		}
		if len(t.Typos) == 0 || r.df > maxMisspelledDF {
			return r, r.addContext(readers, collect)
		}
		var typoLeaves *q.LeafSet
		if collect {
			typoLeaves = q.NewLeafSet()
		}
		typos := &termRun{term: t, groups: t.Typos}
		if err := typos.read(readers, typoLeaves); err != nil {
			return nil, err
		}
		// A word the index does not hold is looked for by its typos; so
		// is one it holds only as a rare misspelling of a common word.
		if r.df > 0 && typos.df < max(minCorrectedDF, misspelledRatio*r.df) {
			return r, r.addContext(readers, collect)
		}
		if typoLeaves != nil {
			for _, l := range typoLeaves.List() {
				lv.Add(l.Field, l.Text, l.Prefix)
			}
		}
		if r.df == 0 {
			return typos, typos.addContext(readers, collect)
		}
		r.merge(typos)
		return r, r.addContext(readers, collect)
	}
	var required, optional, excluded []*termRun
	for _, part := range []struct {
		terms   []*q.Term
		runs    *[]*termRun
		collect bool
	}{{p.Required, &required, true}, {p.Optional, &optional, true}, {p.Excluded, &excluded, false}} {
		for _, t := range part.terms {
			r, err := run(t, part.collect)
			if err != nil {
				return nil, err
			}
			*part.runs = append(*part.runs, r)
		}
	}
	docs, err := snap.DocCount()
	if err != nil {
		return nil, err
	}
	scoring := append(slices.Clip(required), optional...)
	restrictTogether(scoring)
	idfs := make([]float64, len(scoring))
	for i, r := range scoring {
		idfs[i] = idf(r.df, docs) * r.term.Scale
	}

	out := &Evaluation{Segments: make([]SegmentResult, len(segs)), Leaves: leaves.List()}
	for i, rd := range readers {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		var hits *roaring.Bitmap
		switch {
		case len(required) > 0:
			for _, r := range required {
				if hits == nil {
					hits = r.hits[i].Clone()
				} else {
					hits.And(r.hits[i])
				}
			}
		case p.All:
			hits = roaring.New()
			hits.AddRange(0, rd.seg.Count())
			if rd.deleted != nil {
				hits.AndNot(rd.deleted)
			}
		default:
			hits = roaring.New()
			for _, r := range optional {
				if !r.term.BoostOnly {
					hits.Or(r.hits[i])
				}
			}
		}
		for _, r := range excluded {
			hits.AndNot(r.hits[i])
		}
		if opts.Filter != nil && !hits.IsEmpty() {
			f, err := opts.Filter(i)
			if err != nil {
				return nil, err
			}
			if f != nil {
				hits.And(f)
			}
		}
		out.Segments[i].Hits = hits
		out.Total += hits.GetCardinality()
	}
	if opts.Unscored || len(scoring) == 0 {
		return out, nil
	}
	nameParts := func(i int) []uint8 {
		if opts.NameParts == nil {
			return nil
		}
		return opts.NameParts(i)
	}
	if c, ok := scoring[0].constant(idfs[0]); ok && len(scoring) == 1 {
		// Every hit scores the same: no arrays to fill.
		out.constant, out.isConstant = c, true
		return out, nil
	}
	if len(scoring) == 1 && opts.Need > 0 {
		if err := scoring[0].scoreTiers(ctx, out, idfs[0], nameParts, opts.Need); err != nil {
			out.Release()
			return nil, err
		}
		return out, nil
	}
	for i, rd := range readers {
		hits := out.Segments[i].Hits
		if hits.IsEmpty() {
			continue
		}
		scores := scoreArray(int(rd.seg.Count()))
		out.Segments[i].Scores = scores
		parts := nameParts(i)
		for ti, r := range scoring {
			if err := r.score(ctx, i, -1, hits, idfs[ti], parts, scores); err != nil {
				out.Release()
				return nil, err
			}
		}
	}
	if err := addCoverage(ctx, out, scoring, idfs, docs); err != nil {
		out.Release()
		return nil, err
	}
	return out, nil
}

// scoreTiers scores the hits of a one-term query only as far as its best
// need results require. The hits whose best way of matching is group k
// (tier k) score at most bound(k); tiers are scored best first until the
// need-th best score so far beats every later tier's bound. A word that
// matches 100,000 documents mostly in values then costs a pass over the
// few that matched it in a name. Candidates holds the hits scored; the
// others cannot reach the page.
func (r *termRun) scoreTiers(ctx context.Context, out *Evaluation, idf float64, nameParts func(int) []uint8, need int) error {
	bounds := r.bounds(idf)
	covered := make([]*roaring.Bitmap, len(out.Segments)) // hits in the tiers so far
	best := NewTopScores(need)
	buf := make([]uint32, 256)
	for k := range r.groups {
		if k > 0 && best.full() && float64(best.Min()) > bounds[k] {
			break
		}
		for i := range out.Segments {
			sr := &out.Segments[i]
			bm := r.bms[i][k]
			if bm == nil || sr.Hits.IsEmpty() {
				continue
			}
			tier := roaring.And(bm, sr.Hits)
			if covered[i] == nil {
				covered[i] = roaring.New()
			} else {
				tier.AndNot(covered[i])
			}
			if tier.IsEmpty() {
				continue
			}
			covered[i].Or(tier)
			if sr.Scores == nil {
				sr.Scores = scoreArray(int(r.segSize[i]))
			}
			if err := r.score(ctx, i, k, tier, idf, nameParts(i), sr.Scores); err != nil {
				return err
			}
			it := tier.ManyIterator()
			for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
				for _, d := range buf[:n] {
					best.Add(sr.Scores[d])
				}
			}
		}
	}
	for i := range out.Segments {
		if covered[i] == nil {
			covered[i] = roaring.New()
		}
		out.Segments[i].Candidates = covered[i]
	}
	if best.Len() > 0 {
		out.best, out.bestOf = best.Min(), need
	}
	return nil
}

// TopScores keeps the n highest scores it is given, unordered, and the
// place of the lowest.
type TopScores struct {
	n      int
	scores []float32
	lo     int
}

// NewTopScores returns a TopScores of the n highest.
func NewTopScores(n int) *TopScores { return &TopScores{n: n} }

func (t *TopScores) full() bool { return len(t.scores) >= t.n }

// Len is how many scores it holds (at most n).
func (t *TopScores) Len() int { return len(t.scores) }

// Min is the lowest score it holds.
func (t *TopScores) Min() float32 { return t.scores[t.lo] }

// Add offers a score.
func (t *TopScores) Add(s float32) {
	switch {
	case !t.full():
		t.scores = append(t.scores, s)
		if s < t.scores[t.lo] {
			t.lo = len(t.scores) - 1
		}
		return
	case s <= t.scores[t.lo]:
		return
	}
	t.scores[t.lo] = s
	for j, v := range t.scores {
		if v < t.scores[t.lo] {
			t.lo = j
		}
	}
}

// bounds returns, for each group k, the highest score a hit whose best
// way of matching is group k can have: its weight, and the also share of
// every group after it, all at the highest name norm.
func (r *termRun) bounds(idf float64) []float64 {
	out := make([]float64, len(r.groups))
	for k := range r.groups {
		var rest float64
		for _, g := range r.groups[k:] {
			rest += g.Weight * maxNorm(g)
		}
		g := r.groups[k]
		out[k] = idf * ((1-alsoShare)*g.Weight*maxNorm(g) + alsoShare*rest) * (1 + 1e-6)
	}
	// A later tier may hold a group of higher weight than an earlier
	// one's only if the groups were not sorted; keep the bounds falling.
	for k := len(out) - 2; k >= 0; k-- {
		out[k] = max(out[k], out[k+1])
	}
	return out
}

// constant returns the score every document matching the term has, when
// it has one way of matching, outside names: the score score would add,
// to the bit.
func (r *termRun) constant(idf float64) (float32, bool) {
	if len(r.groups) != 1 || r.groups[0].Where == q.InName {
		return 0, false
	}
	w := r.groups[0].Weight * idf
	norm := 1.0
	var s float32
	for _, share := range []float64{1 - alsoShare, alsoShare} {
		s += float32(w * share * norm)
	}
	return s, true
}

// maxNorm is the most nameNorm can scale a group's weight by.
func maxNorm(g q.Group) float64 {
	if g.Where == q.InName && !g.WholeName() {
		return maxNameNorm
	}
	return 1
}

// Misspellings: a word of the index that matches at most maxMisspelledDF
// documents is taken for a misspelling, and looked for by its typos too,
// when they match at least misspelledRatio times as many and at least
// minCorrectedDF ("subscripton", in ten column names of a catalog that
// says "subscription" in hundreds of documents).
const (
	maxMisspelledDF = 20
	misspelledRatio = 10
	minCorrectedDF  = 10
)

// merge adds other's groups, of the same term, to r's, keeping them in
// the order of weight that score relies on.
func (r *termRun) merge(other *termRun) {
	groups := append(slices.Clip(r.groups), other.groups...)
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		if groups[a].Before(groups[b]) {
			return -1
		}
		if groups[b].Before(groups[a]) {
			return 1
		}
		return 0
	})
	r.groups = make([]q.Group, len(groups))
	for k, i := range order {
		r.groups[k] = groups[i]
	}
	r.df = 0
	for s := range r.bms {
		all := append(slices.Clip(r.bms[s]), other.bms[s]...)
		r.bms[s] = make([]*roaring.Bitmap, len(all))
		for k, i := range order {
			r.bms[s][k] = all[i]
		}
		r.hits[s].Or(other.hits[s])
		r.df += r.hits[s].GetCardinality()
	}
}

// read finds the term's documents in every segment.
func (r *termRun) read(readers []*segReader, leaves *q.LeafSet) error {
	r.bms = make([][]*roaring.Bitmap, len(readers))
	r.hits = make([]*roaring.Bitmap, len(readers))
	r.segSize = make([]uint64, len(readers))
	for i, rd := range readers {
		r.segSize[i] = rd.seg.Count()
		r.bms[i] = make([]*roaring.Bitmap, len(r.groups))
		var found []*roaring.Bitmap
		for gi, g := range r.groups {
			bm, err := rd.group(g, leaves)
			if err != nil {
				return err
			}
			if bm != nil && !bm.IsEmpty() {
				if rd.deleted != nil {
					bm.AndNot(rd.deleted)
				}
				r.bms[i][gi] = bm
				found = append(found, bm)
			}
		}
		// One union of all the groups, lazily, rather than one per group.
		r.hits[i] = roaring.FastOr(found...)
		r.df += r.hits[i].GetCardinality()
	}
	return nil
}

// score adds the term's score of each hit of segment i to scores. With
// tier k (not -1) the hits are a tier of scoreTiers: all match group k
// and none an earlier one.
func (r *termRun) score(ctx context.Context, i, tier int, hits *roaring.Bitmap, idf float64, parts []uint8, scores []float32) error {
	from := max(tier, 0)
	var seen *roaring.Bitmap
	all := false // seen holds every hit: no later group is any hit's best
	if r.buf == nil {
		r.buf = make([]uint32, checkEvery)
	}
	buf := r.buf
	for gi := from; gi < len(r.groups); gi++ {
		bm := r.bms[i][gi]
		if bm == nil {
			continue
		}
		matched := hits // a tier's hits are all in its group
		if gi != tier {
			matched = roaring.And(bm, hits)
		}
		if matched.IsEmpty() {
			continue
		}
		inc := r.increments(gi, idf, parts != nil)
		// A document's best group adds its (1 - alsoShare) share, then
		// every group it matched its alsoShare, in group order: the same
		// additions whichever documents are scored together, so that
		// scoreTiers agrees to the bit.
		add := func(b *roaring.Bitmap, shares ...*[256]float32) error {
			it := b.ManyIterator()
			for n := it.NextMany(buf); n > 0; n = it.NextMany(buf) {
				if err := ctx.Err(); err != nil {
					return err
				}
				for _, share := range shares {
					if inc.normed {
						for _, d := range buf[:n] {
							scores[d] += share[parts[d]]
						}
					} else {
						v := share[0]
						for _, d := range buf[:n] {
							scores[d] += v
						}
					}
				}
			}
			return nil
		}
		var err error
		switch {
		case seen == nil:
			// The first group: its best and its matches are the same
			// documents, in one pass.
			err = add(matched, &inc.best, &inc.also)
			// seen is written only while it is not every hit: never when it
			// is the tier itself.
			seen, all = matched, matched.GetCardinality() == hits.GetCardinality()
		case all:
			err = add(matched, &inc.also)
		default:
			best := roaring.AndNot(matched, seen)
			if best.IsEmpty() {
				err = add(matched, &inc.also)
				break
			}
			seen.Or(best) // the first group's matches, no longer read
			if err = add(best, &inc.best); err == nil {
				err = add(matched, &inc.also)
			}
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// groupIncrements is what a group adds to the score of a document it
// matched, by the document's number of name parts (index 0 for every
// document when the group is not normed): as its best group, and as
// another group it matched.
type groupIncrements struct {
	haveParts, normed bool
	best, also        [256]float32
}

// increments returns group gi's increments at idf, computed once per
// evaluation: the float32 of weight × idf × share × nameNorm, as score has
// always added them.
func (r *termRun) increments(gi int, idf float64, haveParts bool) *groupIncrements {
	if r.incs == nil {
		r.incs = make([]*groupIncrements, len(r.groups))
	}
	if inc := r.incs[gi]; inc != nil && inc.haveParts == haveParts {
		return inc
	}
	g := r.groups[gi]
	w := g.Weight * idf
	inc := &groupIncrements{haveParts: haveParts, normed: g.Where == q.InName && !g.WholeName() && haveParts}
	alsoW := w * alsoShare
	if g.Where == q.InContext {
		alsoW = idf * wContextAlso
	}
	n := 1
	if inc.normed {
		n = len(nameNorms)
	}
	for p := range n {
		norm := 1.0
		if inc.normed {
			norm = nameNorms[p]
		}
		inc.best[p] = float32(w * (1 - alsoShare) * norm)
		inc.also[p] = float32(alsoW * norm)
	}
	r.incs[gi] = inc
	return inc
}

// segReader reads one segment for an evaluation: its postings
// (segPostings), its deleted documents and the typo automata.
type segReader struct {
	segPostings // its reads are shared by the evaluation's segments
	ctx         context.Context
	deleted     *roaring.Bitmap
	dfas        map[typoKey]*levenshtein.DFA // shared by the evaluation's segments
}

type typoKey struct {
	term     string
	distance int
}

// group returns the documents of the segment (deleted ones included) that
// match a group, or nil for none.
func (rd *segReader) group(g q.Group, leaves *q.LeafSet) (*roaring.Bitmap, error) {
	var out *roaring.Bitmap
	for _, c := range g.Clauses {
		bm := roaring.New()
		if err := rd.clause(bm, c, leaves); err != nil {
			return nil, err
		}
		switch {
		case out == nil:
			out = bm
		case g.AllOf:
			out.And(bm)
		default:
			out.Or(bm)
		}
		if g.AllOf && out.IsEmpty() {
			return nil, nil
		}
	}
	return out, nil
}

// Expansion bounds: a form or typo clause looks at no more terms than
// these in one segment's dictionary of one field.
const (
	maxFormTerms = 4096
	maxTypoTerms = 4096
)

// clause adds the documents holding a term of c to out.
func (rd *segReader) clause(out *roaring.Bitmap, c q.Clause, leaves *q.LeafSet) error {
	if err := rd.ctx.Err(); err != nil {
		return err
	}
	d, err := rd.dict(c.Field)
	if err != nil {
		return err
	}
	switch c.Mode {
	case q.MatchTerm:
		found, err := rd.postings(out, d, c.Field, c.Term)
		if found {
			leaves.Add(c.Field, c.Term, false)
		}
		return err
	case q.MatchPrefix:
		var a segment.Automaton
		if stop := partStop(c.Field, c.Term); stop != nil && !c.Boundary {
			a = partsAutomaton{prefix: c.Term, stop: stop}
		}
		it := termsOf(d, a, []byte(c.Term), prefixEnd([]byte(c.Term)))
		found := false
		for n := 1; ; n++ {
			if n%checkEvery == 0 {
				if err := rd.ctx.Err(); err != nil {
					return err
				}
			}
			e, err := it.Next()
			if err != nil || e == nil {
				if found {
					leaves.Add(c.Field, c.Term, true)
				}
				return err
			}
			rd.reads.term(c.Field)
			if c.Boundary && !atBoundary(e.Term[len(c.Term):]) {
				continue
			}
			found = true
			if _, err := rd.postings(out, d, c.Field, e.Term); err != nil {
				return err
			}
		}
	case q.MatchForm:
		start := analyzers.FormPrefix(c.Term)
		it := termsOf(d, formAutomaton(start), []byte(start), prefixEnd([]byte(start)))
		for n := 1; n <= maxFormTerms; n++ {
			if n%checkEvery == 0 {
				if err := rd.ctx.Err(); err != nil {
					return err
				}
			}
			e, err := it.Next()
			if err != nil || e == nil {
				return err
			}
			rd.reads.term(c.Field)
			if e.Term == c.Word || analyzers.StemKey(e.Term) != c.Term {
				continue
			}
			leaves.Add(c.Field, e.Term, false)
			if _, err := rd.postings(out, d, c.Field, e.Term); err != nil {
				return err
			}
		}
		return nil
	case q.MatchTypo:
		k := typoKey{c.Term, c.Distance}
		dfa := rd.dfas[k]
		if dfa == nil {
			if dfa, err = typoAutomaton(c.Term, c.Distance); err != nil {
				return err
			}
			rd.dfas[k] = dfa
		}
		it := termsOf(d, dfa, nil, nil)
		for n := 1; n <= maxTypoTerms; n++ {
			if n%checkEvery == 0 {
				if err := rd.ctx.Err(); err != nil {
					return err
				}
			}
			e, err := it.Next()
			if err != nil || e == nil {
				return err
			}
			rd.reads.term(c.Field)
			if strings.HasPrefix(e.Term, analyzers.AcronymMarker) {
				continue // an acronym term, no word
			}
			leaves.Add(c.Field, e.Term, false)
			if _, err := rd.postings(out, d, c.Field, e.Term); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("query: unknown clause mode %d", c.Mode)
}

// termsOf iterates over the terms of d that a accepts (nil: all) from
// start to end, without reading each term's postings for its count where
// the dictionary can (zap's can): the expansions read the postings of the
// terms they keep themselves.
func termsOf(d segment.TermDictionary, a segment.Automaton, start, end []byte) segment.DictionaryIterator {
	if oc, ok := d.(omitCounter); ok {
		return oc.AutomatonIteratorOmitCount(a, start, end)
	}
	return d.AutomatonIterator(a, start, end)
}

type omitCounter interface {
	AutomatonIteratorOmitCount(a segment.Automaton, start, end []byte) segment.DictionaryIterator
}

// partStop returns, when a prefix expansion of field may skip the terms in
// which a byte after prefix ends a part, the test of such a byte (nil:
// none may be skipped). Those are the fields whose analyzers index every
// word's leading part as a term of its own (a schema's every field name),
// when prefix lies within one part: a document with a term starting with
// prefix then has one with no part boundary after it. The expansion of
// "vukut" then reads the words that start with it, not the thousands of
// identifiers ("vukut_ralus_26", "vukut-bar", "vukut.id:integer") that
// do, each another posting list read for documents the words already
// found.
//
// This is what makes prefixes fast without indexing them. The index used
// to hold every term's leading 2-8 characters (edge n-grams, so that a
// prefix was one posting list): 26% of a rebuild's CPU and 20% of the
// index at 100k (benchmarks/results/index-breakdown-100k.md, before). An
// unpruned expansion over dictionaries holding every identifier took
// 15-43 ms for 5-7-letter prefixes at 100k; a pruned one reads the words
// of the vocabulary that start with the prefix, a few dozen at most for
// two letters, and each document's postings once per word.
func partStop(field, prefix string) func(byte) bool {
	var stop func(byte) bool
	switch {
	case field == searchdoc.FieldSchemaFields:
		// A path's segments keep inner spaces ("my col.id"), a name is
		// trimmed: a prefix with a space (which no query word has) is
		// left whole.
		if strings.Contains(prefix, " ") {
			return nil
		}
		stop = analyzers.EndsName
	case field == searchdoc.FieldUserValues || field == searchdoc.FieldSystemValues ||
		strings.HasPrefix(field, searchdoc.UserPropertyPrefix) || strings.HasPrefix(field, searchdoc.SystemPropertyPrefix):
		stop = analyzers.IsSeparator
	case field == searchdoc.FieldName || field == searchdoc.FieldDescription || field == searchdoc.FieldColumns:
		if !analyzers.IsWord(prefix) {
			return nil
		}
		stop = analyzers.EndsSegment
	default:
		return nil
	}
	for i := 0; i < len(prefix); i++ {
		if stop(prefix[i]) {
			return nil // the prefix spans parts: every term starting with it counts
		}
	}
	return stop
}

// partsAutomaton accepts the terms that are prefix followed by bytes of
// which none is a stop (partStop): the iteration skips a term's whole
// subtree at its first stop byte.
type partsAutomaton struct {
	prefix string
	stop   func(byte) bool
}

func (a partsAutomaton) Start() int { return 0 }

// IsMatch: a state is the number of prefix bytes accepted, -1 for none
// will be.
func (a partsAutomaton) IsMatch(s int) bool { return s >= len(a.prefix) }

func (a partsAutomaton) CanMatch(s int) bool { return s >= 0 }

func (a partsAutomaton) WillAlwaysMatch(int) bool { return false }

func (a partsAutomaton) Accept(s int, b byte) int {
	switch {
	case s < 0:
		return -1
	case s < len(a.prefix):
		if b == a.prefix[s] {
			return s + 1
		}
		return -1
	case a.stop(b):
		return -1
	}
	return s
}

// formAutomaton accepts the terms that can be forms of a word whose form
// key starts with prefix (analyzers.FormPrefix): prefix, then at most
// analyzers.MaxStemTail letters a–z. StemKey leaves any other term as it
// is, so no other term has the key but the key itself, which starts with
// prefix and is all letters. The iteration then skips the terms that merely
// start with the word ("sezu_birema_26" for "sezu", thousands of them in a
// field of identifiers) instead of reading each.
type formAutomaton string

func (a formAutomaton) Start() int { return 0 }

// IsMatch: a state is the number of bytes accepted, -1 for none will be.
func (a formAutomaton) IsMatch(s int) bool { return s >= len(a) }

func (a formAutomaton) CanMatch(s int) bool { return s >= 0 }

func (a formAutomaton) WillAlwaysMatch(int) bool { return false }

func (a formAutomaton) Accept(s int, b byte) int {
	switch {
	case s < 0:
		return -1
	case s < len(a):
		if b == a[s] {
			return s + 1
		}
		return -1
	case b < 'a' || b > 'z' || s-len(a) >= analyzers.MaxStemTail:
		return -1
	}
	return s + 1
}

// atBoundary reports whether rest, what follows a Boundary prefix in a
// term, starts a new part: it is empty or starts with a character that is
// not a letter or digit, after an optional plural ending (s, es), so that
// "greenhouse_job" starts greenhouse_jobs_source too.
func atBoundary(rest string) bool {
	for _, plural := range []string{"es", "s", ""} {
		if r := strings.TrimPrefix(rest, plural); len(r) < len(rest) || plural == "" {
			if r == "" {
				return true
			}
			if c, _ := utf8.DecodeRuneInString(r); !unicode.IsLetter(c) && !unicode.IsDigit(c) {
				return true
			}
		}
	}
	return false
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

// typoBuilders build Levenshtein automata with transpositions, one per
// distance; building one costs milliseconds, so each is built once.
var typoBuilders [3]struct {
	once sync.Once
	b    *levenshtein.LevenshteinAutomatonBuilder
	err  error
}

func typoAutomaton(term string, distance int) (*levenshtein.DFA, error) {
	if distance < 1 || distance > 2 {
		return nil, fmt.Errorf("query: typo distance %d", distance)
	}
	tb := &typoBuilders[distance]
	tb.once.Do(func() { tb.b, tb.err = levenshtein.NewLevenshteinAutomatonBuilder(uint8(distance), true) })
	if tb.err != nil {
		return nil, tb.err
	}
	dfa, err := tb.b.BuildDfa(term, uint8(distance))
	if errors.Is(err, levenshtein.ErrTooManyStates) {
		return nil, &TooComplexError{Word: term}
	}
	return dfa, err
}
