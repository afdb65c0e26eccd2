package search

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"html"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	bq "github.com/blevesearch/bleve/v2/search/query"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/analyzers"
	"github.com/semcat/semcat/searchdoc"
)

// Type-ahead (SPEC §2.6): the entities whose name, or a part of it (split
// as analyzers.NamePartStarts), starts with a prefix. Each segment keeps,
// beside its columns and built on the first suggestion it serves, its
// documents' lower-cased names, and two arrays sorted by the text from a
// name's start and from each later part's start: a prefix is then a
// binary search and a scan of the entries that start with it, with no
// term dictionary walked and no postings read but the filters'.

// suggestColumns is one segment's type-ahead index.
type suggestColumns struct {
	lower []byte   // the lower-cased names, back to back
	ends  []uint32 // document n's name is lower[ends[n-1]:ends[n]]
	// whole lists every document, parts every (document, later part), by
	// the length of the name in runes (the first ranking key), and within
	// one length by the lower-cased text from the name's start or the
	// part's: the shortest names that start with a prefix are found first,
	// and a page stops at the first length that fills it.
	whole [][]suggestEntry
	parts [][]suggestEntry
}

// maxSuggestRunes bounds the length buckets (names have at most 64).
const maxSuggestRunes = 255

// suggestEntry is a place in a document's lower-cased name.
type suggestEntry struct {
	doc uint32
	off uint16 // byte offset into the lower-cased name
}

func (c *suggestColumns) name(doc uint32) []byte {
	start := uint32(0)
	if doc > 0 {
		start = c.ends[doc-1]
	}
	return c.lower[start:c.ends[doc]]
}

func (c *suggestColumns) text(e suggestEntry) []byte { return c.name(e.doc)[e.off:] }

// buildSuggestColumns builds a segment's type-ahead index from its sort
// keys.
func buildSuggestColumns(c *segColumns) *suggestColumns {
	n := len(c.keyEnds)
	s := &suggestColumns{ends: make([]uint32, n)}
	bucket := func(b *[][]suggestEntry, runes int, e suggestEntry) {
		runes = min(runes, maxSuggestRunes)
		for len(*b) <= runes {
			*b = append(*b, nil)
		}
		(*b)[runes] = append((*b)[runes], e)
	}
	for doc := range n {
		name := searchdoc.SortKeyName(c.sortKey(uint64(doc)))
		lower := analyzers.Lower(name)
		s.lower = append(s.lower, lower...)
		s.ends[doc] = uint32(len(s.lower))
		if lower == "" {
			continue
		}
		runes := utf8.RuneCountInString(lower)
		bucket(&s.whole, runes, suggestEntry{doc: uint32(doc)})
		for _, start := range analyzers.NamePartStarts(name) {
			off := start
			if len(lower) != len(name) { // lower-casing changed a length
				off = len(analyzers.Lower(name[:start]))
			}
			if off > 0 && off < len(lower) && off <= 0xffff {
				bucket(&s.parts, runes, suggestEntry{doc: uint32(doc), off: uint16(off)})
			}
		}
	}
	byText := func(a, b suggestEntry) int {
		return cmp.Or(bytes.Compare(s.text(a), s.text(b)), cmp.Compare(a.doc, b.doc), cmp.Compare(a.off, b.off))
	}
	for _, b := range append(slices.Clone(s.whole), s.parts...) {
		slices.SortFunc(b, byText)
	}
	return s
}

// startingWith returns the entries whose text starts with prefix.
func (c *suggestColumns) startingWith(entries []suggestEntry, prefix []byte) []suggestEntry {
	lo, _ := slices.BinarySearchFunc(entries, prefix, func(e suggestEntry, p []byte) int {
		return bytes.Compare(c.text(e), p)
	})
	hi := lo
	for hi < len(entries) && bytes.HasPrefix(c.text(entries[hi]), prefix) {
		hi++
	}
	return entries[lo:hi]
}

// suggestions returns the segment's type-ahead index, built on first use.
func (c *segColumns) suggestions() *suggestColumns {
	c.suggestOnce.Do(func() { c.suggest = buildSuggestColumns(c) })
	return c.suggest
}

// suggestPick is a candidate suggestion.
type suggestPick struct {
	seg   int
	doc   uint32
	off   uint16 // where in the lower-cased name the prefix matched
	later bool   // at a later part, not at the name's start
	runes int    // the name's length
	key   string // the sort key, last in the order
}

func compareSuggestPicks(a, b suggestPick) int {
	if a.later != b.later {
		if a.later {
			return 1
		}
		return -1
	}
	return cmp.Or(cmp.Compare(a.runes, b.runes), strings.Compare(a.key, b.key))
}

// suggestTop keeps the best n picks offered.
type suggestTop struct {
	n     int
	picks []suggestPick // sorted, best first
}

func (t *suggestTop) offer(p suggestPick) {
	if len(t.picks) == t.n && compareSuggestPicks(p, t.picks[len(t.picks)-1]) >= 0 {
		return
	}
	i, _ := slices.BinarySearchFunc(t.picks, p, compareSuggestPicks)
	t.picks = slices.Insert(t.picks, i, p)
	if len(t.picks) > t.n {
		t.picks = t.picks[:t.n]
	}
}

// suggest answers a type-ahead request over the index; visible, when not
// nil, is the caller's visibility.
func suggest(ctx context.Context, x Index, req semcat.SuggestRequest, visible bq.Query) (*semcat.SuggestResult, error) {
	prefix := []byte(analyzers.Lower(req.Prefix))
	filters := baseFilters(req.Metalake, req.Types)
	if visible != nil {
		filters = append(filters, visible)
	}
	out := &semcat.SuggestResult{Position: x.Position(), Suggestions: []semcat.Suggestion{}}
	if len(prefix) == 0 || req.Limit <= 0 {
		return out, nil
	}
	err := x.Read(func(idx bleve.Index) error {
		adv, reader, err := OpenSnapshot(idx)
		if err != nil {
			return err
		}
		defer reader.Close()
		x.Columns().suggestedBy(adv)
		cols, err := x.Columns().forSnapshot(adv, reader)
		if err != nil {
			return err
		}
		filters, err := necessary(ctx, reader, filters)
		if err != nil {
			return err
		}
		segs := reader.Segments()
		passes := make([]*roaring.Bitmap, len(segs))
		pass := func(i int) (*roaring.Bitmap, error) {
			if passes[i] == nil {
				seg := segs[i].Segment()
				b := &segBitmaps{segPostings: newSegPostings(seg, nil), size: seg.Count()}
				bm := b.all()
				if len(filters) > 0 {
					if bm, err = b.filter(bq.NewConjunctionQuery(filters)); err != nil {
						return nil, err
					}
				}
				if d := segs[i].Deleted(); d != nil {
					bm.AndNot(d)
				}
				passes[i] = bm
			}
			return passes[i], nil
		}
		top := &suggestTop{n: req.Limit}
		// By name length, the first ranking key: whole names of each
		// length, then (only when they are too few to fill the page) later
		// parts of each length; a length that fills the page ends the scan.
		seen := make([]map[uint32]bool, len(segs))
		scan := func(later bool) error {
			for runes := utf8.RuneCount(prefix); runes <= maxSuggestRunes; runes++ {
				if err := ctx.Err(); err != nil {
					return err
				}
				longer := false
				for i := range segs {
					sc := cols.segs[i].suggestions()
					buckets := sc.whole
					if later {
						buckets = sc.parts
					}
					if runes >= len(buckets) {
						continue
					}
					longer = longer || runes+1 < len(buckets)
					matches := sc.startingWith(buckets[runes], prefix)
					if len(matches) == 0 {
						continue
					}
					ok, err := pass(i)
					if err != nil {
						return err
					}
					for _, e := range matches {
						if !ok.Contains(e.doc) {
							continue
						}
						if later {
							if bytes.HasPrefix(sc.name(e.doc), prefix) || seen[i][e.doc] {
								continue // a whole-name match, or offered already
							}
							if seen[i] == nil {
								seen[i] = map[uint32]bool{}
							}
							seen[i][e.doc] = true
						}
						top.offer(suggestPick{seg: i, doc: e.doc, off: e.off, later: later, runes: runes, key: cols.segs[i].sortKey(uint64(e.doc))})
					}
				}
				if len(top.picks) == top.n || !longer {
					return nil
				}
			}
			return nil
		}
		if err := scan(false); err != nil {
			return err
		}
		if len(top.picks) < top.n {
			if err := scan(true); err != nil {
				return err
			}
		}
		for _, p := range top.picks {
			entity, ok := entityOfKey(p.key)
			if !ok { // not a key SortKey writes: read the entity stored
				stored, err := segmentPayload(segs[p.seg], uint64(p.doc))
				if err != nil {
					return err
				}
				st, err := searchdoc.DecodePayload(stored)
				if err != nil {
					return fmt.Errorf("suggest: document %d of segment %d: %w", p.doc, p.seg, err)
				}
				entity = st.Entity
			}
			out.Suggestions = append(out.Suggestions, semcat.Suggestion{Entity: entity, Highlight: highlight(entity.Name, int(p.off), len(prefix))})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("suggest: %w", err)
	}
	return out, nil
}

// entityOfKey returns the entity a sort key (query.SortKey) names: its
// identifier is the namespace and the name joined by dots, which no name
// holds (semcat.ValidateName), so a suggestion needs no read of its
// stored payload, a page of the index each that a search under a memory
// limit may find evicted.
func entityOfKey(key string) (semcat.SearchEntity, bool) {
	name, identifier, typ, ok := searchdoc.SplitSortKey(key)
	if !ok {
		return semcat.SearchEntity{}, false
	}
	parts := strings.Split(identifier, ".")
	if len(parts) < 2 || parts[len(parts)-1] != name {
		return semcat.SearchEntity{}, false
	}
	return semcat.SearchEntity{Type: typ, Namespace: parts[:len(parts)-1], Name: name}, true
}

// highlight returns name as HTML with the characters that a prefix of
// lowerLen lower-cased bytes matched, from lowerOff in the lower-cased
// name, in bold.
func highlight(name string, lowerOff, lowerLen int) string {
	start, end, at := -1, len(name), 0
	for i, r := range name {
		if at == lowerOff && start < 0 {
			start = i
		}
		if start >= 0 && at >= lowerOff+lowerLen {
			end = i
			break
		}
		at += len(analyzers.Lower(string(r)))
	}
	if start < 0 {
		return html.EscapeString(name)
	}
	return html.EscapeString(name[:start]) + "<b>" + html.EscapeString(name[start:end]) + "</b>" + html.EscapeString(name[end:])
}
