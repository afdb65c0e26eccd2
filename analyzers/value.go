package analyzers

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"unicode/utf8"
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

// IsSeparator reports whether c is one of separators: AnalyzerValue's
// terms are words and their parts, and a part holds no separator. So the
// terms that start with a prefix holding none have among them, for every
// document, a part starting with it (the first part of each word), and an
// expansion of the prefix can skip every term with a separator after it.
func IsSeparator(c byte) bool { return isSeparator(c) }

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
	term := wholeTerm(truncate(low))
	s := newStream(len(term), 1)
	s.emit(term, words[0].start, words[len(words)-1].end)
	return s.tokens
}

// Long whole values. AnalyzerExact indexes a whole value of at most
// MaxWholeBytes (after Normalize) as it is, and a longer one as its first
// MaxWholeBytes (cut at a character boundary) followed by the first half of
// the SHA-256 of all of it, in hex (32 bytes).
//
//   - Equality stays exact: the query side (WholeTerm) makes the same term
//     of the same value, and a long value's term is never as short as a
//     short value's.
//   - A query prefix of up to MaxWholePrefixBytes still matches exactly the
//     values that start with it, since every long value's term starts with
//     at least that much of the value. A longer query prefix is cut to that
//     length (WholePrefix): it matches the values that start with its first
//     MaxWholePrefixBytes.
//
// Long values are, in practice, a table's schema text: hundreds to
// thousands of bytes, one distinct term per table, which the term
// dictionary held whole (42 of an index's 280 MiB at 100,000 entities) and
// every segment build and merge wrote again.
const (
	MaxWholeBytes = 256
	// MaxWholePrefixBytes is the shortest a long value's cut can be: a cut
	// backs off at most utf8.UTFMax-1 bytes to a character boundary.
	MaxWholePrefixBytes = MaxWholeBytes - (utf8.UTFMax - 1)
	// wholeHashBytes is how much of the SHA-256 a long value's term keeps:
	// 128 bits, so that no two values of a catalog share one.
	wholeHashBytes = 16
)

// wholeTerm is AnalyzerExact's term for a normalized value.
func wholeTerm(norm []byte) []byte {
	if len(norm) <= MaxWholeBytes {
		return norm
	}
	sum := sha256.Sum256(norm)
	head := cut(norm, MaxWholeBytes)
	out := make([]byte, len(head), len(head)+hex.EncodedLen(wholeHashBytes))
	copy(out, head)
	return hex.AppendEncode(out, sum[:wholeHashBytes])
}

// WholeTerm returns the term AnalyzerExact indexes for a value whose
// normalized form (Normalize) is norm: the term an equality query on an
// AnalyzerExact field looks for.
func WholeTerm(norm string) string {
	if len(norm) <= MaxWholeBytes {
		return norm
	}
	return string(wholeTerm([]byte(norm)))
}

// WholePrefix returns the term a prefix query on an AnalyzerExact field
// looks for to find the values that start with norm (normalized): norm cut
// to MaxWholePrefixBytes, the part of a long value that its term keeps.
func WholePrefix(norm string) string {
	if len(norm) <= MaxWholePrefixBytes {
		return norm
	}
	return string(cut([]byte(norm), MaxWholePrefixBytes))
}

// Normalize returns value as the analyzers normalize it: lower-cased,
// whitespace runs collapsed to one space, trimmed, and cut to MaxTermBytes;
// "" when value is blank. It is the term AnalyzerExact indexes for a value
// of up to MaxWholeBytes (WholeTerm makes a longer one's). The query
// compiler uses it for exact-value and prefix terms, which Bleve does not
// analyse.
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
	if has, ascii := asciiValueHas(value, term, prefix); has || ascii {
		return has
	}
	var buf [wordsOnStack]span
	var lowBuf [256]byte
	low, words := lowerString(lowBuf[:0], value, buf[:0])
	is := func(t []byte) bool { return termIs(t, term, prefix) }
	for _, w := range words {
		if wordOrPartIs(low[w.lowStart:w.lowEnd], is) {
			return true
		}
	}
	return false
}

// wordOrPartIs reports whether is holds for word or for one of its parts,
// split at separators as emitParts splits them: the terms ValueHas asks
// about.
func wordOrPartIs[S ~string | ~[]byte](word S, is func(S) bool) bool {
	if is(word) {
		return true
	}
	start := 0
	for i := 0; i <= len(word); i++ {
		if i == len(word) || isSeparator(word[i]) {
			if is(word[start:i]) {
				return true
			}
			start = i + 1
		}
	}
	return false
}

// ExactHas reports whether AnalyzerExact's term for value (the whole value
// lower-cased, whitespace collapsed, cut to MaxTermBytes, and a long one
// cut and hashed as wholeTerm says) equals term or, with prefix, starts
// with it. It reads value no further than the first byte that differs and
// allocates only for a term longer than MaxWholePrefixBytes. Terms come
// from WholeTerm and WholePrefix.
func ExactHas(value, term string, prefix bool) bool {
	// Whatever the case below, a term that matches starts with the
	// normalized value's first bytes, up to the shortest cut of a long
	// value; and a term no longer than that cut is decided by them. That
	// is most terms, and most differ within a few bytes, where a table's
	// schema text is a kilobyte to normalize.
	n := min(len(term), MaxWholePrefixBytes)
	has, longer := normalizedPrefix(value, term[:n])
	switch {
	case !has:
		return false
	case n == len(term) && n > 0:
		// Equal to a value of n bytes, whose term is itself; or a prefix
		// of the value, and so of its term (a long value's keeps its
		// first MaxWholePrefixBytes at least).
		return prefix || !longer
	}
	var buf [wordsOnStack]span
	var lowBuf [256]byte
	low, _ := lowerString(lowBuf[:0], value, buf[:0])
	low = truncate(low)
	if len(low) > MaxWholeBytes {
		// A long value's term is its head and a hash. A prefix no longer
		// than the head is a prefix of the value itself, and a term of
		// another length than the long form cannot be the value's; only
		// what is left needs the hash.
		head := cut(low, MaxWholeBytes)
		switch {
		case prefix && len(term) <= len(head):
			return bytes.HasPrefix(head, []byte(term))
		case !prefix && len(term) != len(head)+hex.EncodedLen(wholeHashBytes):
			return false
		}
		low = wholeTerm(low)
	}
	return termIs(low, term, prefix)
}

// asciiValueHas is ValueHas for the ASCII words of value, which it reads
// in place, lower-casing as it compares: a table's schema text is a
// kilobyte whose words lowerWords would copy and record. ascii is false
// when value has a byte beyond ASCII before term is found: then only
// lowerWords can tell.
func asciiValueHas(value, term string, prefix bool) (has, ascii bool) {
	// Each term ValueHas compares is a piece of the lower-cased value, so
	// the words before term's first occurrence cannot hold it, and none do
	// if it does not occur: most values, when a hit is explained.
	from := 0
	if term != "" {
		from = -1
		for i := 0; i < len(value); i++ {
			c := value[i]
			if c >= utf8.RuneSelf {
				return false, false
			}
			if lowerASCII(c) == term[0] && hasLowerPrefix(value[i:], term) {
				from = i
				break
			}
		}
		if from < 0 {
			return false, true
		}
		for from > 0 && !isASCIISpace(value[from-1]) {
			from--
		}
	}
	is := func(t string) bool {
		t = t[:min(len(t), MaxTermBytes)]
		if t == "" || len(t) < len(term) || !prefix && len(t) != len(term) {
			return false
		}
		return hasLowerPrefix(t, term)
	}
	for i := from; i < len(value); {
		for i < len(value) && isASCIISpace(value[i]) {
			i++
		}
		start := i
		for ; i < len(value) && !isASCIISpace(value[i]); i++ {
			if value[i] >= utf8.RuneSelf {
				return false, false
			}
		}
		word := value[start:i]
		if word == "" {
			break
		}
		if wordOrPartIs(word, is) {
			return true, true
		}
	}
	return false, true
}

func isASCIISpace(c byte) bool { return c == ' ' || '\t' <= c && c <= '\r' }

// hasLowerPrefix reports whether s with its ASCII letters lower-cased
// starts with prefix.
func hasLowerPrefix(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := range len(prefix) {
		if lowerASCII(s[i]) != prefix[i] {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// normalizedPrefix reports whether value, normalized as lowerWords
// normalizes it (lower-cased, whitespace runs collapsed to one space,
// trimmed), starts with p, and if so whether it is longer than p. It stops
// at the first byte that differs.
func normalizedPrefix(value, p string) (has, longer bool) {
	var enc [utf8.UTFMax]byte
	j := 0                        // bytes of p matched
	space, inText := false, false // a space is due before the next word
	for i := 0; i < len(value); {
		c := value[i]
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(value[i:])
		}
		i += size
		if isSpace(r) {
			space = inText
			continue
		}
		if space {
			if j == len(p) {
				return true, true
			}
			if p[j] != ' ' {
				return false, false
			}
			j++
			space = false
		}
		inText = true
		for _, b := range appendLower(enc[:0], r) {
			if j == len(p) {
				return true, true
			}
			if p[j] != b {
				return false, false
			}
			j++
		}
	}
	return j == len(p), false
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
