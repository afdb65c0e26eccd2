package analyzers

import (
	"bytes"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// MinPrefixRunes and MaxPrefixRunes bound the prefixes the prefix analyzers
// index. A query prefix of that length is one term lookup in a prefix
// field; a longer one, and a one-character one, expand over the terms of
// the plain field (query: MatchPrefix).
//
// Only short prefixes are indexed: they are the ones an expansion cannot
// afford ("ra*" starts a tenth of a catalog's words, each another posting
// list to read and merge), while every indexed prefix costs ingest and
// rebuild time and index size, the longer ones most (each is a term of its
// own in a large dictionary). Prefixes up to 8 runes were 26% of a
// rebuild's CPU and 20% of the index (index-breakdown-100k.md). A longer
// prefix expands only over the words that start with it: the expansion
// skips every term with a part boundary after the prefix (query's
// partStop), so "vukut*" reads the few words starting with vukut, not the
// thousands of identifiers holding them, which made 5-7-letter prefixes
// take 15-43 ms at 100k when the n-grams stopped at 4 runes.
const (
	MinPrefixRunes = 2
	MaxPrefixRunes = 3
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
