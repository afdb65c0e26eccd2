package analyzers

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// Words for ranking (SPEC §5.2, §5.4): the fields that say where a word
// matched — an entity's name, its description, its columns — index words
// the way people type them, not the way values are stored.
//
// An identifier word is split into segments at every character that is not
// a letter or a digit, and each segment into parts at camelCase and
// letter/digit boundaries: "gitlab_dotcom_users" has the segments (and
// parts) gitlab, dotcom, users; "EmpTel" the segment "emptel" and the parts
// emp, tel; "av4" the parts av, 4. A trailing possessive ('s) goes first.

// IdentifierParts returns the lower-cased segments of word followed by the
// parts of its camelCase or letter/digit compound segments, each once: the
// terms AnalyzerName indexes for a name.
func IdentifierParts(word string) []string {
	var out []string
	for _, seg := range splitSegments(word) {
		out = appendOnce(out, lowerString1(seg))
		if parts := camelParts(seg); len(parts) > 1 {
			for _, p := range parts {
				out = appendOnce(out, lowerString1(p))
			}
		}
	}
	return out
}

// Segments returns word's lower-cased segments (split at every character
// that is not a letter or digit, possessive dropped): the terms a query
// word must all find among a name's parts.
func Segments(word string) []string {
	var out []string
	for _, seg := range splitSegments(word) {
		out = append(out, lowerString1(seg))
	}
	return out
}

// TextWord returns word as AnalyzerText indexes it whole: lower-cased,
// without the punctuation around it and a trailing possessive. "" when
// nothing is left.
func TextWord(word string) string {
	return lowerString1(trimWord(word))
}

// splitSegments splits word, trimmed of its possessive, at every rune that
// is not a letter or digit.
func splitSegments(word string) []string {
	word = trimWord(word)
	var out []string
	start := -1
	for i, r := range word {
		if isWordRune(r) {
			if start < 0 {
				start = i
			}
			continue
		}
		if start >= 0 {
			out = append(out, word[start:i])
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, word[start:])
	}
	return out
}

// trimWord drops the characters around word that are not letters or
// digits, and a trailing 's or ’s.
func trimWord(word string) string {
	start, end := 0, len(word)
	for start < end {
		r, size := utf8.DecodeRuneInString(word[start:])
		if isWordRune(r) {
			break
		}
		start += size
	}
	for end > start {
		r, size := utf8.DecodeLastRuneInString(word[start:end])
		if isWordRune(r) {
			break
		}
		end -= size
	}
	w := word[start:end]
	for _, s := range []string{"'s", "’s", "'S", "’S"} {
		if len(w) > len(s) && w[len(w)-len(s):] == s {
			return w[:len(w)-len(s)]
		}
	}
	return w
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// IsWord reports whether s is letters and digits only: a prefix that, as a
// term AnalyzerName or AnalyzerText emits starts with it, has every such
// term's first segment (a term too) start with it.
func IsWord(s string) bool {
	for _, r := range s {
		if !isWordRune(r) {
			return false
		}
	}
	return s != ""
}

// EndsSegment reports whether c, a byte of a term AnalyzerName or
// AnalyzerText emitted, certainly ends an identifier segment: an ASCII
// character that is not a letter or digit. (A byte of another character is
// not judged alone; an expansion that prunes at EndsSegment keeps those.)
func EndsSegment(c byte) bool {
	return c < utf8.RuneSelf && !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9')
}

// camelParts splits a segment (letters and digits only) at lower→upper
// case changes, at the last capital of a run of capitals followed by a
// lower-case letter ("HTTPServer": HTTP, Server), and between letters and
// digits.
func camelParts(seg string) []string {
	runes := []rune(seg)
	var out []string
	start := 0
	for i := 1; i < len(runes); i++ {
		prev, cur := runes[i-1], runes[i]
		split := false
		switch {
		case unicode.IsDigit(prev) != unicode.IsDigit(cur):
			split = true
		case unicode.IsLower(prev) && unicode.IsUpper(cur):
			split = true
		case unicode.IsUpper(prev) && unicode.IsUpper(cur) && i+1 < len(runes) && unicode.IsLower(runes[i+1]):
			split = true
		}
		if split {
			out = append(out, string(runes[start:i]))
			start = i
		}
	}
	return append(out, string(runes[start:]))
}

func lowerString1(s string) string {
	b := make([]byte, 0, len(s))
	for _, r := range s {
		b = appendLower(b, r)
	}
	return string(b)
}

func appendOnce(out []string, s string) []string {
	if s == "" {
		return out
	}
	for _, o := range out {
		if o == s {
			return out
		}
	}
	return append(out, s)
}

// nameTokenizer is AnalyzerName's tokenizer: IdentifierParts of every
// whitespace-separated word of the input.
type nameTokenizer struct{}

func (nameTokenizer) Tokenize(input []byte) analysis.TokenStream {
	s := newStream(2*len(input), 8)
	forEachWord(input, func(start, end int) {
		for _, p := range IdentifierParts(string(input[start:end])) {
			s.emit([]byte(p), start, end)
		}
	})
	emitAcronyms(s, input)
	return s.tokens
}

// textTokenizer is AnalyzerText's tokenizer: for every whitespace-separated
// word of prose, the word whole (TextWord) when it is a compound, then its
// IdentifierParts. So "`dim_crm_account_id`," yields dim_crm_account_id,
// dim, crm, account, id; "GitLab's" yields gitlab, git, lab. Both
// tokenizers then add the input's acronym terms (acronyms.go).
type textTokenizer struct{}

func (textTokenizer) Tokenize(input []byte) analysis.TokenStream {
	s := newStream(3*len(input), len(input)/4+1)
	forEachWord(input, func(start, end int) {
		word := string(input[start:end])
		parts := IdentifierParts(word)
		if len(parts) > 1 {
			s.emit([]byte(TextWord(word)), start, end)
		}
		for _, p := range parts {
			s.emit([]byte(p), start, end)
		}
	})
	emitAcronyms(s, input)
	return s.tokens
}

// forEachWord calls fn with the byte range of every whitespace-separated
// word of input.
func forEachWord(input []byte, fn func(start, end int)) {
	start := -1
	for i := 0; i < len(input); {
		r, size := rune(input[i]), 1
		if input[i] >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(input[i:])
		}
		if isSpace(r) {
			if start >= 0 {
				fn(start, i)
				start = -1
			}
		} else if start < 0 {
			start = i
		}
		i += size
	}
	if start >= 0 {
		fn(start, len(input))
	}
}

// FormKey returns the key that a lower-cased English word shares with its
// plural and common inflections (SPEC §5.2): "opportunities" and
// "opportunity" → "opportunity"; "bookings", "booking" and "book" →
// "book"; "invoiced", "invoices" and "invoice" → "invoic". It is a
// conservative stemmer, so that a search for a word finds its forms and
// little else: Snowball and Porter make "customer" of "custom" too, which
// on a catalog means every custom field.
//
// In order: a plural loses its ending (ies → y; es → e, except aes, ees
// and oes; s, except us and ss), then ing or ed goes when a vowel is left
// before it (ied → y), then a final e, then the last of a doubled final
// consonant (planned → plan, billing → bill → bil, and bill → bil too).
func FormKey(w string) string {
	if len(w) < 4 || !isASCIIWord(w) {
		return w
	}
	switch {
	case strings.HasSuffix(w, "ies") && !strings.HasSuffix(w, "eies") && !strings.HasSuffix(w, "aies"):
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "es") && !strings.HasSuffix(w, "aes") && !strings.HasSuffix(w, "ees") && !strings.HasSuffix(w, "oes"):
		w = w[:len(w)-1]
	case strings.HasSuffix(w, "s") && !strings.HasSuffix(w, "us") && !strings.HasSuffix(w, "ss"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ied") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ing") && hasVowel(w[:len(w)-3]) && len(w) > 5:
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && hasVowel(w[:len(w)-2]) && len(w) > 4:
		w = w[:len(w)-2]
	}
	if len(w) > 3 && w[len(w)-1] == 'e' {
		w = w[:len(w)-1]
	}
	if n := len(w); n > 3 && w[n-1] == w[n-2] && !isVowel(w[n-1]) {
		w = w[:n-1]
	}
	return w
}

// MaxFormTail is the most letters a word has after the FormPrefix of its
// FormKey: a plural, an ing, an e and a doubled consonant together, as in
// kabbeings → kab (TestFormTail tries every shorter ending).
const MaxFormTail = 6

// FormPrefix is what every word whose FormKey is key starts with: key,
// less a final y (opportunity, opportunities).
func FormPrefix(key string) string {
	if strings.HasSuffix(key, "y") {
		return key[:len(key)-1]
	}
	return key
}

func isASCIIWord(w string) bool {
	for i := 0; i < len(w); i++ {
		if c := w[i]; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}

func isVowel(c byte) bool { return strings.IndexByte("aeiouy", c) >= 0 }

func hasVowel(s string) bool {
	for i := 0; i < len(s); i++ {
		if isVowel(s[i]) {
			return true
		}
	}
	return false
}

// stopWords are the English words that a query of several words does not
// count as matched terms (SPEC §5.2): Lucene's English stop set and the
// question and filler words people put in searches.
var stopWords = map[string]bool{}

func init() {
	for _, w := range []string{
		"a", "an", "and", "are", "as", "at", "be", "but", "by", "for", "if", "in", "into", "is", "it",
		"no", "not", "of", "on", "or", "such", "that", "the", "their", "then", "there", "these",
		"they", "this", "to", "was", "will", "with",
		"which", "what", "who", "whom", "whose", "when", "where", "why", "how", "do", "does", "did",
		"has", "have", "had", "were", "been", "being", "from", "about", "any", "each", "per", "can",
		"i", "me", "my", "we", "our", "you", "your", "its", "than", "so", "up", "s",
		"many", "much", "all", "some", "show", "find", "list", "get",
	} {
		stopWords[w] = true
	}
}

// IsStopWord reports whether a lower-cased word is a stop word.
func IsStopWord(word string) bool { return stopWords[word] }

// NamePartCount is the number of parts of a name: its segments, a
// camelCase or letter/digit compound counting each of its parts.
func NamePartCount(name string) int {
	n := 0
	for _, seg := range splitSegments(name) {
		n += len(camelParts(seg))
	}
	return n
}

// NamePartStarts returns the byte offsets in name at which its parts
// begin (the parts NamePartCount counts: segments, and the camelCase and
// letter/digit parts of compound ones), in order; type-ahead matches a
// prefix at each of them.
func NamePartStarts(name string) []int {
	var out []int
	runes := []rune(name)
	off := 0
	for i, r := range runes {
		if isWordRune(r) {
			start := i == 0 || !isWordRune(runes[i-1])
			if !start {
				prev := runes[i-1]
				start = unicode.IsDigit(prev) != unicode.IsDigit(r) ||
					unicode.IsLower(prev) && unicode.IsUpper(r) ||
					unicode.IsUpper(prev) && unicode.IsUpper(r) && i+1 < len(runes) && unicode.IsLower(runes[i+1])
			}
			if start {
				out = append(out, off)
			}
		}
		off += utf8.RuneLen(r)
	}
	return out
}

// Lower lower-cases s as the analyzers do.
func Lower(s string) string { return lowerString1(s) }
