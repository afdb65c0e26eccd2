package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"
	"sync"

	"github.com/semcat/semcat"
)

var (
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
	typeType        = reflect.TypeFor[semcat.Type]()
)

// walkKeys checks that every object key of v (a body decoded into any)
// names a field of t exactly. encoding/json matches keys
// case-insensitively, so {"NAME": "x"} would otherwise pass as "name";
// SPEC §1 rejects unknown fields, and a key that differs in case is one.
// Types with their own UnmarshalJSON check their own members.
func walkKeys(path string, v any, t reflect.Type) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == typeType {
		// A column type checks its own members, but cannot say where it
		// is: its path goes in front here.
		if p, problem := semcat.TypeJSONProblem(v); problem != "" {
			if p != "" {
				path = joinPath(path, p)
			}
			return semcat.Errorf(semcat.EINVALID, "%s: %s", orBody(path), problem)
		}
		return nil
	}
	if reflect.PointerTo(t).Implements(unmarshalerType) {
		return nil
	}
	switch t.Kind() {
	case reflect.Struct:
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		fields := jsonFields(t)
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			val := obj[k]
			ft, ok := fields[k]
			if !ok {
				return semcat.Errorf(semcat.EINVALID, "%s: unknown field", joinPath(path, k))
			}
			if err := walkKeys(joinPath(path, k), val, ft); err != nil {
				return err
			}
		}
	case reflect.Slice, reflect.Array:
		arr, _ := v.([]any)
		for i, val := range arr {
			if err := walkKeys(fmt.Sprintf("%s[%d]", path, i), val, t.Elem()); err != nil {
				return err
			}
		}
	case reflect.Map:
		obj, _ := v.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(obj)) {
			if err := walkKeys(joinPath(path, k), obj[k], t.Elem()); err != nil {
				return err
			}
		}
	}
	return nil
}

// jsonFields maps the JSON names of a struct's fields to their types.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out, embedded := map[string]reflect.Type{}, map[string]reflect.Type{}
	for f := range t.Fields() {
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if f.Anonymous && name == "" && f.Type.Kind() == reflect.Struct {
			// An embedded struct's fields are the outer object's, as
			// encoding/json reads them (the outer's own win).
			maps.Copy(embedded, jsonFields(f.Type))
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	for k, ft := range embedded {
		if _, own := out[k]; !own {
			out[k] = ft
		}
	}
	return out
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// fieldsCache holds jsonFields of each struct type keysExact meets.
var fieldsCache sync.Map // reflect.Type → map[string]reflect.Type

func cachedFields(t reflect.Type) map[string]reflect.Type {
	if f, ok := fieldsCache.Load(t); ok {
		return f.(map[string]reflect.Type)
	}
	f := jsonFields(t)
	fieldsCache.Store(t, f)
	return f
}

// keysExact reports whether every object key of a body that decoded into
// a t names a field of t exactly, as walkKeys checks, by scanning the
// body's bytes (with jsonpath.go's walker) rather than decoding it again
// into maps (which took more CPU than the decoding itself for a batch of
// tables). false means "not sure": walkKeys then finds the key. Values of
// types that decode themselves (a column type matches its members
// exactly) are skipped.
func keysExact(body []byte, t reflect.Type) bool {
	s := keyScanner{walker{doc: body}}
	if !s.value(t) {
		return false
	}
	s.space()
	return s.i == len(s.doc)
}

// keyScanner walks a body by the type it decoded into.
type keyScanner struct{ walker }

// value scans one value that decoded into a t (nil: any).
func (s *keyScanner) value(t reflect.Type) bool {
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t != nil && (t == typeType || reflect.PointerTo(t).Implements(unmarshalerType)) {
		t = nil // checks its own members
	}
	s.space()
	if s.i >= len(s.doc) {
		return false
	}
	var fields map[string]reflect.Type
	var elem reflect.Type
	if t != nil {
		switch t.Kind() {
		case reflect.Struct:
			fields = cachedFields(t)
		case reflect.Map, reflect.Slice, reflect.Array:
			elem = t.Elem()
		}
	}
	switch s.doc[s.i] {
	case '{':
		s.i++
		return s.items('}', func() bool {
			key, ok := s.rawString()
			if !ok || !s.next(':') {
				return false
			}
			vt := elem
			if fields != nil {
				if vt, ok = fields[string(key)]; !ok {
					return false
				}
			}
			return s.value(vt)
		})
	case '[':
		s.i++
		return s.items(']', func() bool { return s.value(elem) })
	case '"':
		_, ok := s.rawString()
		return ok
	default: // a number, true, false or null: the decoder checked it
		s.literal()
		return true
	}
}

// items scans an object's members or an array's elements, each by item,
// through the closing byte.
func (s *keyScanner) items(closing byte, item func() bool) bool {
	if s.next(closing) {
		return true
	}
	for {
		s.space()
		if !item() {
			return false
		}
		if !s.next(',') {
			return s.next(closing)
		}
	}
}

// rawString scans a string and returns its bytes as written (walker.str
// unescapes): a key with an escape is then no field's name, and is left
// to walkKeys.
func (s *keyScanner) rawString() ([]byte, bool) {
	if s.i >= len(s.doc) || s.doc[s.i] != '"' {
		return nil, false
	}
	start := s.i + 1
	for i := start; i < len(s.doc); i++ {
		switch s.doc[i] {
		case '\\':
			i++
		case '"':
			s.i = i + 1
			return s.doc[start:i], true
		}
	}
	return nil, false
}
