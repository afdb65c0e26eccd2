package api

import (
	"io"

	"github.com/semcat/semcat"
)

// Body limits beyond size (SPEC §2.11): a body is refused as soon as it
// nests deeper than maxBodyDepth or holds more than maxBodyValues JSON
// values, while it is read, so that megabytes of tiny values never become
// millions of decoded objects. A column type nests at most 32 deep (SPEC
// §1), three JSON levels each; a batch of 1,000 tables of a hundred
// columns holds about 400,000 values.
const (
	maxBodyDepth  = 128
	maxBodyValues = 500_000
)

// scanningReader counts a JSON body's nesting and values as it is read. It
// knows JSON only as far as strings and brackets: a malformed body is the
// decoder's to describe.
type scanningReader struct {
	r              io.Reader
	depth, values  int
	inString, esc  bool
	offset         int64
	maxDepth, maxN int
	prevScalar     bool // the last byte read was inside a number or literal
}

func newScanningReader(r io.Reader) *scanningReader {
	return &scanningReader{r: r, maxDepth: maxBodyDepth, maxN: maxBodyValues}
}

func (s *scanningReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	for i, c := range p[:n] {
		switch {
		case s.esc:
			s.esc = false
		case s.inString:
			switch c {
			case '\\':
				s.esc = true
			case '"':
				s.inString = false
			}
		case c == '"':
			s.inString = true
			s.values++ // a string, or a key
		case c == '{' || c == '[':
			s.values++
			if s.depth++; s.depth > s.maxDepth {
				return i, semcat.Errorf(semcat.ETOOLARGE, "request body nests deeper than %d levels (at byte offset %d)", s.maxDepth, s.offset+int64(i))
			}
		case c == '}' || c == ']':
			s.depth--
		case c == ',' || c == ':':
			// counted with what follows (a string or a container), or below
		case c >= '0' && c <= '9' || c == '-' || c == 't' || c == 'f' || c == 'n':
			// The start of a number or literal; its other bytes follow at
			// once, so count only a first one.
			if i == 0 && s.prevScalar || i > 0 && isScalarByte(p[i-1]) {
				break
			}
			s.values++
		}
		if s.values > s.maxN {
			return i, semcat.Errorf(semcat.ETOOLARGE, "request body holds more than %d JSON values (at byte offset %d)", s.maxN, s.offset+int64(i))
		}
	}
	if n > 0 {
		s.prevScalar = !s.inString && isScalarByte(p[n-1])
	}
	s.offset += int64(n)
	return n, err
}

// isScalarByte reports whether c can be inside a number or literal.
func isScalarByte(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c == '-' || c == '+' || c == '.' || c == 'E'
}
