package api

import (
	"encoding/json"
	"strconv"
)

// jsonValue is one value of a JSON document and where it is.
type jsonValue struct {
	path        string // with indices: "columns[0].type"
	plain       string // as encoding/json reports it, without indices: "columns.type"
	parentPlain string // plain path of the enclosing object or array
	key         string // member name, when isMember
	isMember    bool   // the value of an object member (not an array element or the root)
	kind        string // object, array, string, number, bool or null, as in json.UnmarshalTypeError.Value
	start, end  int64  // byte offsets: the value is doc[start:end]
}

// walkJSON calls fn for every value of the first JSON value in doc, inner
// values before the value that holds them. It is used only to locate errors
// in documents json.Decoder has already scanned, and stops quietly at
// anything it does not understand.
func walkJSON(doc []byte, fn func(jsonValue)) {
	w := walker{doc: doc, fn: fn}
	w.value(jsonValue{})
}

type walker struct {
	doc []byte
	i   int
	fn  func(jsonValue)
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

// value walks one value; v holds its path, key and parent.
func (w *walker) value(v jsonValue) bool {
	w.space()
	if w.i >= len(w.doc) {
		return false
	}
	v.start = int64(w.i)
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
				member := jsonValue{key: key, isMember: true, path: join(v.path, key), plain: join(v.plain, key), parentPlain: v.plain}
				if !w.value(member) {
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
				elem := jsonValue{path: v.path + "[" + strconv.Itoa(n) + "]", plain: v.plain, parentPlain: v.plain}
				if !w.value(elem) {
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
	w.fn(v)
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
	for w.i++; w.i < len(w.doc); w.i++ {
		switch w.doc[w.i] {
		case '\\':
			w.i++
		case '"':
			w.i++
			var s string
			if json.Unmarshal(w.doc[start:w.i], &s) != nil {
				return "", false
			}
			return s, true
		}
	}
	return "", false
}

// join appends a member name to a path.
func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}
