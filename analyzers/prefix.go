package analyzers

import (
	"bytes"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// MaxPrefixRunes is the longest prefix the prefix analyzers index. A query
// prefix up to this length is one term lookup in a prefix field; a longer
// one, which is selective anyway, expands over the terms of the plain field.
const MaxPrefixRunes = 12

// prefixFilter turns each term into its leading 1…MaxPrefixRunes
// characters (edge n-grams), each distinct prefix once: the index-time half
// of prefix search (DESIGN §4), so that a query "kof*" reads one posting
// list instead of merging those of every term starting with "kof".
type prefixFilter struct {
	// skip reports terms whose prefixes no prefix query can ask for (a
	// whole multi-word value: word prefixes have no spaces).
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
			s.emit(t.Term[:end], t.Start, t.End)
		}
	}
	return s.tokens
}

// hasSpace reports a multi-word term.
func hasSpace(term []byte) bool { return bytes.IndexByte(term, ' ') >= 0 }

// isTypedEntry reports a schema entry with its type ("name:type",
// "path:type"): prefixes of those are asked with the type spelled out and
// are left to prefix expansion.
func isTypedEntry(term []byte) bool { return bytes.IndexByte(term, ':') >= 0 }
