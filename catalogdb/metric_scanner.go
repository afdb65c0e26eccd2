package catalogdb

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// errUnusual reports JSON that metricScanner leaves to checkMetric.
var errUnusual = errors.New("unusual metric JSON")

// metricScanner checks a stored metric in one pass over its text: the JSON
// syntax and that a strict decoding into semcat.Metric would succeed (the
// known members only, each of its Go type or null). Member names are
// matched exactly; any other name, or an escaped one, is errUnusual, since
// encoding/json matches names case-insensitively.
type metricScanner struct {
	b     []byte
	i     int
	space bool // insignificant space seen: the text needs compacting
	depth int  // nesting of the value being scanned
}

// maxScanDepth bounds the nesting the scanner follows; deeper text is left
// to encoding/json, which has its own limit, so that no stored row can
// exhaust the stack.
const maxScanDepth = 100

func (s *metricScanner) syntaxError() error {
	if s.i >= len(s.b) {
		return errors.New("unexpected end of JSON input")
	}
	return fmt.Errorf("invalid character %q at offset %d", s.b[s.i], s.i)
}

func (s *metricScanner) typeError(member, want string) error {
	return fmt.Errorf("member %s: want %s at offset %d", member, want, s.i)
}

// end checks that nothing but space follows.
func (s *metricScanner) end() error {
	s.skipSpace()
	if s.i != len(s.b) {
		return s.syntaxError()
	}
	return nil
}

func (s *metricScanner) skipSpace() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
			s.space = true
		default:
			return
		}
	}
}

func (s *metricScanner) consume(c byte) bool {
	if s.i < len(s.b) && s.b[s.i] == c {
		s.i++
		return true
	}
	return false
}

// peek returns the next byte after any space, or 0 at the end.
func (s *metricScanner) peek() byte {
	s.skipSpace()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// literal consumes lit (true, false or null).
func (s *metricScanner) literal(lit string) error {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return s.syntaxError()
	}
	s.i += len(lit)
	return nil
}

// null consumes a null if one is next.
func (s *metricScanner) null() (bool, error) {
	if s.peek() != 'n' {
		return false, nil
	}
	return true, s.literal("null")
}

// str consumes a string and returns its text between the quotes and
// whether it holds escapes.
func (s *metricScanner) str() (text []byte, escaped bool, err error) {
	if s.peek() != '"' {
		return nil, false, s.syntaxError()
	}
	b := s.b
	start := s.i + 1
	for i := start; i < len(b); {
		for i < len(b) && plain[b[i]] {
			i++
		}
		if i == len(b) {
			break
		}
		switch b[i] {
		case '"':
			s.i = i + 1
			return b[start:i], escaped, nil
		case '\\':
			escaped = true
			i++
			switch {
			case i == len(b):
			case strings.IndexByte(`"\/bfnrt`, b[i]) >= 0:
				i++
				continue
			case b[i] == 'u' && i+5 <= len(b) && isHex(b[i+1]) && isHex(b[i+2]) && isHex(b[i+3]) && isHex(b[i+4]):
				i += 5
				continue
			}
		}
		s.i = i // a control character or a bad escape
		return nil, false, s.syntaxError()
	}
	s.i = len(b)
	return nil, false, s.syntaxError()
}

// plain marks the bytes that stand for themselves in a JSON string.
var plain = func() (t [256]bool) {
	for c := 0x20; c < 256; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// stringOrNull consumes a member of Go type string or *string.
func (s *metricScanner) stringOrNull(member string) error {
	switch s.peek() {
	case '"':
		_, _, err := s.str()
		return err
	case 'n':
		return s.literal("null")
	default:
		return s.typeError(member, "a string")
	}
}

// object consumes an object (or null, when nullable), calling fn for each
// member with the scanner at the member's value; fn consumes the value.
func (s *metricScanner) object(member string, fn func(key []byte) error) error {
	if ok, err := s.null(); ok || err != nil {
		return err
	}
	if !s.consume('{') {
		if s.i < len(s.b) && isValueStart(s.b[s.i]) {
			return s.typeError(member, "an object")
		}
		return s.syntaxError()
	}
	if s.peek() == '}' {
		s.i++
		return nil
	}
	for {
		key, escaped, err := s.str()
		if err != nil {
			return err
		}
		if escaped {
			return errUnusual
		}
		if s.peek() != ':' {
			return s.syntaxError()
		}
		s.i++
		if err := fn(key); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return nil
		default:
			return s.syntaxError()
		}
	}
}

// array consumes an array (or null), calling fn for each element with the
// scanner at the element; fn consumes the element.
func (s *metricScanner) array(member string, fn func() error) error {
	if ok, err := s.null(); ok || err != nil {
		return err
	}
	if !s.consume('[') {
		if s.i < len(s.b) && isValueStart(s.b[s.i]) {
			return s.typeError(member, "an array")
		}
		return s.syntaxError()
	}
	if s.peek() == ']' {
		s.i++
		return nil
	}
	for {
		s.skipSpace()
		if err := fn(); err != nil {
			return err
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.syntaxError()
		}
	}
}

func isValueStart(c byte) bool {
	return c == '"' || c == '{' || c == '[' || c == '-' || '0' <= c && c <= '9' || c == 't' || c == 'f' || c == 'n'
}

// value consumes any JSON value.
func (s *metricScanner) value() error {
	if s.depth++; s.depth > maxScanDepth {
		return errUnusual
	}
	defer func() { s.depth-- }()
	switch s.peek() {
	case '"':
		_, _, err := s.str()
		return err
	case '{':
		s.i++
		if s.peek() == '}' {
			s.i++
			return nil
		}
		for {
			if _, _, err := s.str(); err != nil {
				return err
			}
			if s.peek() != ':' {
				return s.syntaxError()
			}
			s.i++
			if err := s.value(); err != nil {
				return err
			}
			switch s.peek() {
			case ',':
				s.i++
			case '}':
				s.i++
				return nil
			default:
				return s.syntaxError()
			}
		}
	case '[':
		return s.array("", s.value)
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	default:
		return s.number()
	}
}

// number consumes a number: -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *metricScanner) number() error {
	s.consume('-')
	switch {
	case s.consume('0'):
	case s.i < len(s.b) && '1' <= s.b[s.i] && s.b[s.i] <= '9':
		s.digits()
	default:
		return s.syntaxError()
	}
	if s.consume('.') {
		if !s.digits() {
			return s.syntaxError()
		}
	}
	if s.consume('e') || s.consume('E') {
		if !s.consume('+') {
			s.consume('-')
		}
		if !s.digits() {
			return s.syntaxError()
		}
	}
	return nil
}

// digits consumes [0-9]* and reports whether there was one.
func (s *metricScanner) digits() bool {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i > start
}

// metric consumes one element of a metrics array and returns its name ("" if
// it has none). Type rules are those of encoding/json decoding into
// semcat.Metric: null leaves a member unset.
func (s *metricScanner) metric() ([]byte, error) {
	var name []byte
	if c := s.peek(); c != '{' && c != 'n' {
		if isValueStart(c) {
			return nil, s.typeError("metric", "an object")
		}
		return nil, s.syntaxError()
	}
	err := s.object("metric", func(key []byte) error {
		switch string(key) {
		case "name":
			if s.peek() != '"' {
				return s.stringOrNull("name")
			}
			text, escaped, err := s.str()
			if err != nil {
				return err
			}
			if escaped || !utf8.Valid(text) {
				return errUnusual // encoding/json decodes these
			}
			name = text
			return nil
		case "expression":
			return s.object("expression", s.expression)
		case "description":
			return s.stringOrNull("description")
		case "datatype":
			return s.stringOrNull("datatype")
		case "aiContext":
			return s.value()
		case "customExtensions":
			return s.array("customExtensions", s.customExtension)
		default:
			return errUnusual
		}
	})
	return name, err
}

// expression consumes a member of semcat.Expression.
func (s *metricScanner) expression(key []byte) error {
	if string(key) != "dialects" {
		return errUnusual
	}
	return s.array("dialects", s.dialect)
}

// dialect consumes a semcat.DialectExpression.
func (s *metricScanner) dialect() error {
	return s.object("dialects", func(key []byte) error {
		if string(key) != "dialect" && string(key) != "expression" {
			return errUnusual
		}
		return s.stringOrNull("dialect")
	})
}

// customExtension consumes a semcat.CustomExtension.
func (s *metricScanner) customExtension() error {
	return s.object("customExtensions", func(key []byte) error {
		if string(key) != "vendorName" && string(key) != "data" {
			return errUnusual
		}
		return s.stringOrNull("customExtensions")
	})
}
