package query

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxQueryLength is the longest query Parse accepts, in characters (Unicode
// code points, not bytes): SPEC §5.1 counts characters.
const MaxQueryLength = 4096

// MaxTerms is the most terms a query may have (SPEC §2.11): each term costs
// dictionary lookups in every segment, and a prefix or typo term an
// expansion, so a query's cost is bounded by its terms.
const MaxTerms = 64

// ParseError is a query the language does not accept. Pos is the byte offset
// in the query where the problem is. The API answers it with 400.
type ParseError struct {
	Pos int
	Msg string
}

// Error says what is wrong and where: "query: unterminated quote at
// position 7".
func (e *ParseError) Error() string {
	return fmt.Sprintf("query: %s at position %d", e.Msg, e.Pos)
}

// Parse parses a query (SPEC §5.1). The query is a list of terms separated
// by whitespace:
//
//   - word, wor* — Word; a trailing * is a prefix wildcard, any other * and
//     every ? are literal characters; * alone is All.
//   - "a phrase", "a phr*" — Phrase; the quotes keep the spaces. A quoted
//     run may sit inside a term (key:"a b"); it ends at the next quote, and
//     there is no escape for a quote inside one.
//   - key:value, key:"a value", key:val*, key:* — KeyValue or KeyExists. The
//     key is everything before the first colon that is not inside quotes;
//     "key: value" (whitespace after the colon) binds the next term to the
//     key exactly as key:value does. The keys tags, policies, schema and
//     properties (in any case) are reserved: tags:t is Tag, policies:p is
//     Policy, schema:f, schema:a.b,
//     schema:f:TYPE, schema:f* are SchemaField, schema:* is HasSchema,
//     properties:k is PropertyKey.
//   - +term is required, -term excluded, other terms optional (see the
//     package comment for the shape). A + or - followed by whitespace or
//     the end is the literal word "+" or "-".
//
// Keys and values keep their case here; NewPlan lower-cases them. A term
// made only of separators parses as written and matches nothing (Simplify
// makes it Nothing).
//
// Parse fails with a *ParseError for: a query longer than MaxQueryLength
// characters (checked first, at the offset of the first character past the
// limit), an empty or blank query, an unterminated quote (at the quote), a
// key with nothing after it ("x:" at the end: key 'x' has no value, at the
// key), a query of more than MaxTerms terms (at the first term past the
// limit), and a query whose every term is excluded (at its first term).
func Parse(s string) (Q, error) {
	if utf8.RuneCountInString(s) > MaxQueryLength {
		return nil, &ParseError{Pos: runeOffset(s, MaxQueryLength),
			Msg: fmt.Sprintf("too long: more than %d characters", MaxQueryLength)}
	}
	p := &parser{in: s}
	var required, optional, excluded []Q
	first := -1
	for terms := 0; ; terms++ {
		p.skipSpace()
		if p.pos == len(p.in) {
			break
		}
		if first < 0 {
			first = p.pos
		}
		if terms == MaxTerms {
			return nil, &ParseError{Pos: p.pos, Msg: fmt.Sprintf("too many terms: at most %d", MaxTerms)}
		}
		sign, q, err := p.term()
		if err != nil {
			return nil, err
		}
		switch sign {
		case '+':
			required = append(required, q)
		case '-':
			excluded = append(excluded, &Not{Child: q})
		default:
			optional = append(optional, q)
		}
	}
	switch {
	case first < 0:
		return nil, &ParseError{Pos: 0, Msg: "empty query"}
	case len(required) == 0 && len(optional) == 0:
		return nil, &ParseError{Pos: first, Msg: "no positive term (every term is excluded)"}
	}

	var children []Q
	if len(required) > 0 {
		children = required
		if len(optional) > 0 {
			children = append(children, &Optional{Child: or(optional)})
		}
	} else {
		children = []Q{or(optional)}
	}
	children = append(children, excluded...)
	if len(children) == 1 {
		return children[0], nil
	}
	return &And{Children: children}, nil
}

// or is the Or of qs, or qs[0] alone.
func or(qs []Q) Q {
	if len(qs) == 1 {
		return qs[0]
	}
	return &Or{Children: qs}
}

// runeOffset is the byte offset of the n-th character (from 0) of s.
func runeOffset(s string, n int) int {
	i := 0
	for off := range s {
		if i == n {
			return off
		}
		i++
	}
	return len(s)
}

type parser struct {
	in  string
	pos int // byte offset of the next unread character
}

func (p *parser) skipSpace() {
	for p.pos < len(p.in) && p.spaceAt(p.pos) {
		_, size := utf8.DecodeRuneInString(p.in[p.pos:])
		p.pos += size
	}
}

func (p *parser) spaceAt(i int) bool {
	r, _ := utf8.DecodeRuneInString(p.in[i:])
	return unicode.IsSpace(r)
}

// term reads one term at p.pos (not whitespace) and returns its sign ('+',
// '-' or 0) and its node.
func (p *parser) term() (sign byte, q Q, err error) {
	if c := p.in[p.pos]; c == '+' || c == '-' {
		p.pos++
		if p.pos == len(p.in) || p.spaceAt(p.pos) {
			return 0, &Word{Text: string(c)}, nil
		}
		sign = c
	}

	keyStart := p.pos
	key, keyed := p.key()
	if keyed && (p.pos == len(p.in) || p.spaceAt(p.pos)) {
		p.skipSpace() // "key: value" binds the next term
		if p.pos == len(p.in) {
			return 0, nil, &ParseError{Pos: keyStart, Msg: fmt.Sprintf("key '%s' has no value", key)}
		}
	}
	text, quoted, err := p.value()
	if err != nil {
		return 0, nil, err
	}
	prefix := strings.HasSuffix(text, "*")
	if prefix {
		text = text[:len(text)-1]
	}
	if !keyed {
		return sign, bare(text, quoted, prefix), nil
	}
	return sign, keyedTerm(key, text, quoted, prefix), nil
}

// key reads "key:" at p.pos: a non-empty run up to the first colon, with no
// whitespace or quote before it. Without one, it reads nothing.
func (p *parser) key() (string, bool) {
	for i := p.pos; i < len(p.in); {
		r, size := utf8.DecodeRuneInString(p.in[i:])
		switch {
		case r == ':':
			if i == p.pos {
				return "", false
			}
			key := p.in[p.pos:i]
			p.pos = i + 1
			return key, true
		case r == '"' || unicode.IsSpace(r):
			return "", false
		}
		i += size
	}
	return "", false
}

// value reads the rest of a term, up to whitespace outside quotes, and
// returns it without its quotes; quoted says whether it had any.
func (p *parser) value() (text string, quoted bool, err error) {
	var b strings.Builder
	for p.pos < len(p.in) && !p.spaceAt(p.pos) {
		i := strings.IndexFunc(p.in[p.pos:], func(r rune) bool { return r == '"' || unicode.IsSpace(r) })
		if i < 0 {
			i = len(p.in) - p.pos
		}
		b.WriteString(p.in[p.pos : p.pos+i])
		p.pos += i
		if p.pos == len(p.in) || p.in[p.pos] != '"' {
			break
		}
		end := strings.IndexByte(p.in[p.pos+1:], '"')
		if end < 0 {
			return "", false, &ParseError{Pos: p.pos, Msg: "unterminated quote"}
		}
		b.WriteString(p.in[p.pos+1 : p.pos+1+end])
		p.pos += end + 2
		quoted = true
	}
	return b.String(), quoted, nil
}

// bare is the node of a term without a key.
func bare(text string, quoted, prefix bool) Q {
	switch {
	case prefix && text == "":
		return &All{}
	case quoted:
		return &Phrase{Text: text, Prefix: prefix}
	}
	return &Word{Text: text, Prefix: prefix}
}

// keyedTerm is the node of key:value; value * (an empty prefix) means "any".
func keyedTerm(key, text string, quoted, prefix bool) Q {
	switch strings.ToLower(key) {
	case "tags":
		return &Tag{Name: text, Prefix: prefix}
	case "policies":
		return &Policy{Name: text, Prefix: prefix}
	case "properties":
		return &PropertyKey{Key: text, Prefix: prefix}
	case "schema":
		if prefix && text == "" {
			return &HasSchema{}
		}
		// Field names and paths hold no ':', so the type follows the
		// last one, as the schema analyzer reads an entry.
		if i := strings.LastIndexByte(text, ':'); i >= 0 {
			return &SchemaField{Path: text[:i], Type: text[i+1:], Prefix: prefix}
		}
		return &SchemaField{Path: text, Prefix: prefix}
	}
	if prefix && text == "" {
		return &KeyExists{Key: key}
	}
	return &KeyValue{Key: key, Value: text, Phrase: quoted, Prefix: prefix}
}
