package analyzers

import (
	"bytes"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// MinPrefixRunes and MaxPrefixRunes bound the prefixes the prefix analyzers
// index. A query prefix of that length is one term lookup in a prefix
// field; a longer one, selective anyway, and a one-character one expand
// over the terms of the plain field. Every indexed prefix costs ingest time
// and index size, so the range is kept to what most prefix queries use.
const (
	MinPrefixRunes = 2
	MaxPrefixRunes = 8
)

// prefixFilter turns each term into its leading MinPrefixRunes…MaxPrefixRunes
// characters (edge n-grams), each distinct prefix once: the index-time half
// of prefix search (DESIGN §4), so that a query "kof*" reads one posting
// list instead of merging those of every term starting with "kof".
type prefixFilter struct {
	// skip, when set, reports terms whose prefixes are not indexed.
	skip func(term []byte) bool
}

func (f prefixFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	s := newStream(0, len(in)*4)
	for _, t := range in {
		if f.skip != nil && f.skip(t.Term) {
			continue
		}
		n, end := 0, 0
		for end < len(t.Term) && n < MaxPrefixRunes {
			_, size := utf8.DecodeRune(t.Term[end:])
			end += size
			n++
			if n >= MinPrefixRunes {
				s.emit(t.Term[:end], t.Start, t.End)
			}
		}
	}
	return s.tokens
}

// isNotFieldName reports a schema entry other than a field's name: a
// dotted path or an entry with a type. Prefixes of those are rarer in
// queries and are left to prefix expansion.
func isNotFieldName(term []byte) bool { return bytes.ContainsAny(term, ".:") }
