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
//
// Shorter is not cheaper overall. Rebuilding 100k entities (CPU of one
// rebuild, the same data, one machine): up to 8 runes 111-125 s, up to 5
// 94 s, up to 4 87 s, no prefixes at all 78 s. But with 4, prefixes of 5
// to 7 letters of common words expand over dictionaries that hold every
// name, path and composite token of the catalog: "vukut*", "ralus*",
// "struct*", "schema:ralus*" and "schema:vukut*" took 15-43 ms instead
// of 3-9 ms at 100k, and expansion grows with the dictionary, so at 1M
// they would miss DESIGN §6's prefix bound (p99 ≤ 60 ms) that the n-grams
// keep.
const (
	MinPrefixRunes = 2
	MaxPrefixRunes = 8
)

// prefixFilter turns each term into its leading MinPrefixRunes…MaxPrefixRunes
// characters (edge n-grams), each distinct prefix once: the index-time half
// of prefix search (DESIGN §4), so that a query "kof*" reads one posting
// list instead of merging those of every term starting with "kof".
type prefixFilter struct {
	// cut, when set, returns the part of a term whose prefixes are indexed.
	cut func(term []byte) []byte
}

func (f prefixFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	s := newStream(0, len(in)*4)
	for _, t := range in {
		term := t.Term
		if f.cut != nil {
			term = f.cut(term)
		}
		n, end := 0, 0
		for end < len(term) && n < MaxPrefixRunes {
			_, size := utf8.DecodeRune(term[end:])
			end += size
			n++
			if n >= MinPrefixRunes {
				s.emit(term[:end], t.Start, t.End)
			}
		}
	}
	return s.tokens
}

// firstName returns a schema entry up to its first "." or ":": the field
// name it starts with (a dataset's name, for a model's "dataset.field"
// entries). Prefixes with a dot or colon are rarer in queries and left to
// prefix expansion, so prefixes of the rest of an entry are not indexed.
func firstName(term []byte) []byte {
	if i := bytes.IndexAny(term, ".:"); i >= 0 {
		return term[:i]
	}
	return term
}
