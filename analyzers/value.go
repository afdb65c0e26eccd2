package analyzers

import (
	"bytes"
	"unsafe"

	"github.com/blevesearch/bleve/v2/analysis"
)

// valueTokenizer is AnalyzerValue's tokenizer (SPEC §5.2): each word
// followed by its parts. The whole value is indexed whole by AnalyzerExact
// in the exact fields, which whole-value queries search; as a token it
// could only match a query term with a space, which token terms never
// have, so it is not emitted here (a one-word value is its word).
type valueTokenizer struct{}

// wordsOnStack is how many words fit the tokenizer's stack buffer; a typical
// value has one to eight.
const wordsOnStack = 16

func (valueTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var buf [wordsOnStack]span
	low, words := lowerWords(make([]byte, 0, len(input)), input, buf[:0])
	if len(words) == 0 {
		return nil
	}
	// The words and the parts each total at most len(low) bytes, so the
	// arena never grows.
	s := newStream(2*len(low), 2*len(words))
	for _, w := range words {
		s.emit(low[w.lowStart:w.lowEnd], w.start, w.end)
		emitParts(s, input, low, w)
	}
	return s.tokens
}

// emitParts emits the parts of word w split at its separators. The input
// word and its lower-cased form hold the same separators in the same order
// (they are ASCII, and lower-casing neither makes nor removes one), so they
// are split side by side: the terms come from low, the offsets from input.
func emitParts(s *stream, input, low []byte, w span) {
	i, li := w.start, w.lowStart
	for {
		e, le := i, li
		for e < w.end && !isSeparator(input[e]) {
			e++
		}
		for le < w.lowEnd && !isSeparator(low[le]) {
			le++
		}
		s.emit(low[li:le], i, e)
		if e >= w.end || le >= w.lowEnd {
			return
		}
		i, li = e+1, le+1
	}
}

// separators are the characters that split a word into parts (SPEC §5.2).
const separators = "-_.,:;/"

// isSeparator reports whether c is one of separators.
func isSeparator(c byte) bool {
	switch c {
	case '-', '_', '.', ',', ':', ';', '/':
		return true
	}
	return false
}

// exactTokenizer is AnalyzerExact's tokenizer: the whole value as one term.
type exactTokenizer struct{}

func (exactTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var buf [wordsOnStack]span
	low, words := lowerWords(make([]byte, 0, len(input)), input, buf[:0])
	if len(words) == 0 {
		return nil
	}
	s := newStream(len(low), 1)
	s.emit(low, words[0].start, words[len(words)-1].end)
	return s.tokens
}

// Normalize returns the term AnalyzerExact indexes for value: lower-cased,
// whitespace runs collapsed to one space, trimmed, and cut to MaxTermBytes;
// "" when value is blank. The query compiler uses it for exact-value and
// prefix terms, which Bleve does not analyse.
func Normalize(value string) string {
	var buf [wordsOnStack]span
	low, _ := lowerWords(make([]byte, 0, len(value)), []byte(value), buf[:0])
	return string(truncate(low))
}

// ValueHas reports whether AnalyzerValue makes of value a term equal to
// term or, with prefix, a term that starts with term: what explaining a
// search hit asks of each value. It builds no tokens, so it costs one pass
// over value: a table's schema text has hundreds of terms, and analyzing
// it for each hit was most of a search's time.
func ValueHas(value, term string, prefix bool) bool {
	var buf [wordsOnStack]span
	var lowBuf [256]byte
	low, words := lowerString(lowBuf[:0], value, buf[:0])
	for _, w := range words {
		word := low[w.lowStart:w.lowEnd]
		if termIs(word, term, prefix) {
			return true
		}
		// Its parts, split at separators as emitParts splits them.
		start := 0
		for i := 0; i <= len(word); i++ {
			if i == len(word) || isSeparator(word[i]) {
				if termIs(word[start:i], term, prefix) {
					return true
				}
				start = i + 1
			}
		}
	}
	return false
}

// ExactHas reports whether AnalyzerExact's term for value (the whole value
// lower-cased, whitespace collapsed, cut to MaxTermBytes) equals term or,
// with prefix, starts with it, without allocating for a short value.
func ExactHas(value, term string, prefix bool) bool {
	var buf [wordsOnStack]span
	var lowBuf [256]byte
	low, _ := lowerString(lowBuf[:0], value, buf[:0])
	return termIs(low, term, prefix)
}

// lowerString is lowerWords over a string's bytes, which lowerWords only
// reads.
func lowerString(low []byte, value string, words []span) ([]byte, []span) {
	return lowerWords(low, unsafe.Slice(unsafe.StringData(value), len(value)), words)
}

// termIs reports whether the term an analyzer emits for t (cut to
// MaxTermBytes; none when empty) equals term or, with prefix, starts with
// it.
func termIs(t []byte, term string, prefix bool) bool {
	t = truncate(t)
	if len(t) == 0 {
		return false
	}
	if prefix {
		return bytes.HasPrefix(t, []byte(term))
	}
	return string(t) == term
}
