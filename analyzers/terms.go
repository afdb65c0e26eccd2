package analyzers

import (
	"bytes"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// span is one whitespace-separated word: its byte range in the input and
// the range of its lower-cased form in the buffer lowerWords builds.
type span struct {
	start, end       int // in the input
	lowStart, lowEnd int // in the lower-cased buffer
}

// lowerWords splits input into its whitespace-separated words (as
// strings.Fields does), appends them to low lower-cased (as strings.ToLower
// does) and joined by single spaces, and appends each word's place in both
// to words. What it appends to low is the whole value, trimmed and
// whitespace-collapsed.
func lowerWords(low, input []byte, words []span) ([]byte, []span) {
	first := len(words)
	inWord := false
	for i := 0; i < len(input); {
		c := input[i]
		r, size := rune(c), 1
		if c >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(input[i:])
		}
		if isSpace(r) {
			if inWord {
				words[len(words)-1].end = i
				words[len(words)-1].lowEnd = len(low)
				inWord = false
			}
			i += size
			continue
		}
		if !inWord {
			if len(words) > first {
				low = append(low, ' ')
			}
			words = append(words, span{start: i, lowStart: len(low)})
			inWord = true
		}
		low = appendLower(low, r)
		i += size
	}
	if inWord {
		words[len(words)-1].end = len(input)
		words[len(words)-1].lowEnd = len(low)
	}
	return low, words
}

// isSpace is unicode.IsSpace with a fast path for ASCII.
func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || ('\t' <= r && r <= '\r') // isASCIISpace, spelt out to stay inlinable
	}
	return unicode.IsSpace(r)
}

// appendLower appends r lower-cased. An invalid byte arrives as
// utf8.RuneError and is written as U+FFFD, as strings.ToLower writes it, so
// every term is valid UTF-8.
func appendLower(dst []byte, r rune) []byte {
	if r < utf8.RuneSelf {
		return append(dst, lowerASCII(byte(r)))
	}
	return utf8.AppendRune(dst, unicode.ToLower(r))
}

// truncate cuts term to at most MaxTermBytes without splitting a character.
func truncate(term []byte) []byte { return cut(term, MaxTermBytes) }

// cut cuts term to at most n bytes without splitting a character.
func cut(term []byte, n int) []byte {
	if len(term) <= n {
		return term
	}
	for n > 0 && !utf8.RuneStart(term[n]) {
		n--
	}
	return term[:n]
}

// stream collects the tokens of one input: each distinct term once, at
// consecutive positions from 1. Every term is copied into arena, so no two
// tokens share bytes and a filter that rewrites a term in place cannot
// corrupt another.
type stream struct {
	arena  []byte
	store  []analysis.Token // backs tokens: one allocation, not one each
	tokens analysis.TokenStream
	seen   map[string]struct{} // built once tokens outgrow a linear scan
}

// linearDedupe is how many tokens are checked for duplicates by scanning
// before a set is built; typical values have fewer.
const linearDedupe = 16

func newStream(arenaCap, tokenCap int) *stream {
	return &stream{
		arena:  make([]byte, 0, arenaCap),
		store:  make([]analysis.Token, 0, tokenCap),
		tokens: make(analysis.TokenStream, 0, tokenCap),
	}
}

// emit adds term, spanning input bytes [start, end), unless it is empty or
// already emitted.
func (s *stream) emit(term []byte, start, end int) {
	term = truncate(term)
	if len(term) == 0 || s.has(term) {
		return
	}
	from := len(s.arena)
	s.arena = append(s.arena, term...)
	t := s.arena[from:len(s.arena):len(s.arena)]
	// Tokens already handed out keep pointing into the old store if it
	// grows, which is fine: nothing writes to a stored token again.
	s.store = append(s.store, analysis.Token{
		Term:     t,
		Start:    start,
		End:      end,
		Position: len(s.tokens) + 1,
		Type:     analysis.AlphaNumeric,
	})
	s.tokens = append(s.tokens, &s.store[len(s.store)-1])
	if s.seen != nil {
		s.seen[string(t)] = struct{}{}
	}
}

func (s *stream) has(term []byte) bool {
	if s.seen != nil {
		_, ok := s.seen[string(term)]
		return ok
	}
	for _, t := range s.tokens {
		if bytes.Equal(t.Term, term) {
			return true
		}
	}
	if len(s.tokens) >= linearDedupe {
		s.seen = make(map[string]struct{}, 2*len(s.tokens))
		for _, t := range s.tokens {
			s.seen[string(t.Term)] = struct{}{}
		}
	}
	return false
}
