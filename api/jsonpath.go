package api

import (
	"encoding/json"
	"strconv"
	"strings"
)

// jsonValue is one value of a JSON document, as walkJSON reports it.
type jsonValue struct {
	kind       string // object, array, string, number, bool or null, as in json.UnmarshalTypeError.Value
	start, end int64  // byte offsets: the value is doc[start:end]
	key        string // member name, when isMember
	isMember   bool   // the value of an object member (not an array element or the root)
	// atField: the value's path without indices, as encoding/json reports
	// it ("columns.type"), is the walk's field; inField: its parent's is.
	atField, inField bool
}

// walkJSON calls fn for every value of the first JSON value in doc, inner
// values before the value that holds them; path returns the JSON path, with
// indices, of the value fn is called for ("columns[0].type"). field is a
// path without indices, as json.UnmarshalTypeError.Field spells it, that
// values are compared against. walkJSON is used only to locate errors in
// documents json.Decoder has already scanned, stops quietly at anything it
// does not understand, and builds no path it is not asked for (documents
// may be deeply nested).
func walkJSON(doc []byte, field string, fn func(v jsonValue, path func() string)) {
	w := walker{doc: doc, fn: fn}
	if field != "" {
		w.field = strings.Split(field, ".")
	}
	w.value(jsonValue{}, 0)
}

type walker struct {
	doc   []byte
	i     int
	field []string
	segs  []string // path segments of the current value: ".key" or "[n]"
	fn    func(jsonValue, func() string)
}

// path joins the current segments: "columns[0].type".
func (w *walker) path() string {
	return strings.TrimPrefix(strings.Join(w.segs, ""), ".")
}

func (w *walker) space() {
	for w.i < len(w.doc) {
		switch w.doc[w.i] {
		case ' ', '\t', '\n', '\r':
			w.i++
		default:
			return
		}
	}
}

// next reports whether the next non-space byte is c, and consumes it if so.
func (w *walker) next(c byte) bool {
	w.space()
	if w.i < len(w.doc) && w.doc[w.i] == c {
		w.i++
		return true
	}
	return false
}

// value walks one value. matched is how many segments of w.field the
// value's path without indices matches, or -1 when it has left them.
func (w *walker) value(v jsonValue, matched int) bool {
	w.space()
	if w.i >= len(w.doc) {
		return false
	}
	v.start = int64(w.i)
	v.atField = matched == len(w.field)
	switch c := w.doc[w.i]; {
	case c == '{':
		v.kind = "object"
		w.i++
		if !w.next('}') {
			for {
				w.space()
				key, ok := w.str()
				if !ok || !w.next(':') {
					return false
				}
				m := -1
				if matched >= 0 && matched < len(w.field) && w.field[matched] == key {
					m = matched + 1
				}
				w.segs = append(w.segs, "."+key)
				ok = w.value(jsonValue{key: key, isMember: true, inField: v.atField}, m)
				w.segs = w.segs[:len(w.segs)-1]
				if !ok {
					return false
				}
				if w.next(',') {
					continue
				}
				if w.next('}') {
					break
				}
				return false
			}
		}
	case c == '[':
		v.kind = "array"
		w.i++
		if !w.next(']') {
			for n := 0; ; n++ {
				// Array elements have their array's path without indices.
				w.segs = append(w.segs, "["+strconv.Itoa(n)+"]")
				ok := w.value(jsonValue{inField: v.atField}, matched)
				w.segs = w.segs[:len(w.segs)-1]
				if !ok {
					return false
				}
				if w.next(',') {
					continue
				}
				if w.next(']') {
					break
				}
				return false
			}
		}
	case c == '"':
		v.kind = "string"
		if _, ok := w.str(); !ok {
			return false
		}
	case c == 't' || c == 'f':
		v.kind = "bool"
		w.literal()
	case c == 'n':
		v.kind = "null"
		w.literal()
	case c == '-' || ('0' <= c && c <= '9'):
		v.kind = "number"
		w.literal()
	default:
		return false
	}
	v.end = int64(w.i)
	w.fn(v, w.path)
	return true
}

// literal skips a number, true, false or null.
func (w *walker) literal() {
	for w.i < len(w.doc) {
		switch c := w.doc[w.i]; {
		case c == '-' || c == '+' || c == '.' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || c == 'E':
			w.i++
		default:
			return
		}
	}
}

// str reads a string at the current position and returns it unescaped.
func (w *walker) str() (string, bool) {
	if w.i >= len(w.doc) || w.doc[w.i] != '"' {
		return "", false
	}
	start := w.i
	escaped := false
	for w.i++; w.i < len(w.doc); w.i++ {
		switch w.doc[w.i] {
		case '\\':
			escaped = true
			w.i++
		case '"':
			w.i++
			raw := w.doc[start+1 : w.i-1]
			if !escaped {
				return string(raw), true
			}
			var s string
			if json.Unmarshal(w.doc[start:w.i], &s) != nil {
				return "", false
			}
			return s, true
		}
	}
	return "", false
}
