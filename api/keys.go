package api

import (
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strings"

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
