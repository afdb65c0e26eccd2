package api

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/semcat/semcat"
)

// decode reads the request body into v: at most MaxBodyBytes, exactly one
// JSON object, no unknown fields. Every failure is a semcat error with a
// message that says what is wrong and where (400, or 413 for a body over the
// limit); client input never causes an internal error.
func (h *handler) decode(w http.ResponseWriter, r *http.Request, v any) error {
	return decodeBody(w, r, h.cfg.MaxBodyBytes, v)
}

func decodeBody(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	if r.Body == nil {
		return semcat.Errorf(semcat.EINVALID, "request body is required")
	}
	body, err := io.ReadAll(newScanningReader(http.MaxBytesReader(w, r.Body, limit)))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			return semcat.Errorf(semcat.ETOOLARGE, "request body is larger than the limit of %s", formatBytes(limit))
		}
		if semcat.ErrorCode(err) == semcat.ETOOLARGE {
			return err // nested too deep, or too many values
		}
		return semcat.Errorf(semcat.EINVALID, "could not read the request body")
	}
	trimmed := bytes.TrimSpace(body)
	if len(trimmed) == 0 {
		return semcat.Errorf(semcat.EINVALID, "request body is required")
	}
	if bytes.Equal(trimmed, []byte("null")) {
		return semcat.Errorf(semcat.EINVALID, "request body: expected object, got null")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		// An unknown key, or a column type's own complaint, is found with
		// its path by walking the body; encoding/json knows neither path.
		var generic any
		if json.Unmarshal(body, &generic) == nil {
			if werr := walkKeys("", generic, reflect.TypeOf(v)); werr != nil {
				return werr
			}
		}
		return decodeError(body, err, reflect.TypeOf(v))
	}
	if rest := bytes.TrimSpace(body[dec.InputOffset():]); len(rest) > 0 {
		return semcat.Errorf(semcat.EINVALID, "request body must hold exactly one JSON value; unexpected data at byte offset %d", int64(len(body))-int64(len(rest)))
	}
	// The decoder matched keys in any letter case and let U+0000 through;
	// a scan of the bytes says when neither happened, and otherwise the
	// body decoded generically says where.
	if keysExact(body, reflect.TypeOf(v)) && !bytes.Contains(body, []byte(`\u0000`)) {
		return nil
	}
	var generic any
	if err := json.Unmarshal(body, &generic); err != nil {
		return nil // already decoded once; a second failure is not expected
	}
	if err := walkKeys("", generic, reflect.TypeOf(v)); err != nil {
		return err
	}
	return noNUL("", generic)
}

// noNUL rejects U+0000 anywhere in a decoded body, key or value, naming
// where: PostgreSQL's text and jsonb cannot hold it, so a comment or
// property holding one would otherwise fail as an internal error.
func noNUL(path string, v any) error {
	switch v := v.(type) {
	case string:
		if strings.ContainsRune(v, 0) {
			return semcat.Errorf(semcat.EINVALID, "%s: must not contain the character U+0000", orBody(path))
		}
	case map[string]any:
		for k, val := range v {
			if strings.ContainsRune(k, 0) {
				return semcat.Errorf(semcat.EINVALID, "%s: a key holds the character U+0000, which is not allowed", orBody(path))
			}
			if err := noNUL(joinPath(path, k), val); err != nil {
				return err
			}
		}
	case []any:
		for i, val := range v {
			if err := noNUL(fmt.Sprintf("%s[%d]", path, i), val); err != nil {
				return err
			}
		}
	}
	return nil
}

// orBody is path, or "request body" for the top level.
func orBody(path string) string {
	if path == "" {
		return "request body"
	}
	return path
}

// decodeError turns an error of json.Decoder.Decode into a 400 that names
// the JSON path of the offending value where it can be found.
func decodeError(body []byte, err error, t reflect.Type) error {
	var (
		syntaxErr *json.SyntaxError
		typeErr   *json.UnmarshalTypeError
		semErr    *semcat.Error
	)
	switch {
	case errors.As(err, &syntaxErr):
		return semcat.Errorf(semcat.EINVALID, "malformed JSON at byte offset %d: %s", syntaxErr.Offset, strings.TrimPrefix(syntaxErr.Error(), "json: "))
	case errors.Is(err, io.ErrUnexpectedEOF):
		return semcat.Errorf(semcat.EINVALID, "malformed JSON at byte offset %d: unexpected end of input", len(body))
	case errors.As(err, &typeErr):
		typeErr.Field = withoutEmbedded(t, typeErr.Field)
		path := typeErrorPath(body, typeErr)
		if path == "" {
			path = "request body"
		}
		return semcat.Errorf(semcat.EINVALID, "%s: expected %s, got %s", path, describeType(typeErr.Type), typeErr.Value)
	case errors.As(err, &semErr) && semErr.Code == semcat.EINVALID:
		return semErr
	}
	// json.Decoder reports an unknown field only by its text.
	msg := err.Error()
	if name, found := strings.CutPrefix(msg, "json: unknown field "); found {
		if key, err := strconv.Unquote(name); err == nil {
			if path := uniqueKeyPath(body, key); path != "" {
				return semcat.Errorf(semcat.EINVALID, "%s: unknown field", path)
			}
		}
		return semcat.Errorf(semcat.EINVALID, "unknown field %s", name)
	}
	// Errors from a type's own UnmarshalJSON (semcat.Type: "a type must be a
	// string or an object") are about the input and say so; json does not
	// tell where they happened.
	return semcat.Errorf(semcat.EINVALID, "invalid request body: %s", strings.TrimPrefix(msg, "json: "))
}

// describeType names the JSON kind a Go type expects.
func describeType(t reflect.Type) string {
	if t == nil {
		return "a different value"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[semcat.Type]() {
		return "a type name or a nested type object"
	}
	switch t.Kind() {
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.String:
		return "string"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return "a different value"
}

// typeErrorPath returns the JSON path, with array indices, of the value a
// type error is about. json reports the path without indices
// ("columns.nullable") and a byte offset just past the start of the value,
// exact except inside a custom UnmarshalJSON. The path is that of the
// innermost value of the body that matches the reported path and kind and
// holds the offset, else of the only value that matches; failing both, the
// path without indices.
func typeErrorPath(body []byte, e *json.UnmarshalTypeError) string {
	kind, _, _ := strings.Cut(e.Value, " ")
	var (
		candidates            int
		candidate, offsetPath string
	)
	walkJSON(body, e.Field, func(v jsonValue, path func() string) {
		// Members of a map are reported with the path of the map.
		if v.kind != kind || !(v.atField || v.inField) {
			return
		}
		if candidates++; candidates == 1 {
			candidate = path()
		}
		// Inner values are walked first, so the first one is innermost.
		if offsetPath == "" && v.start < e.Offset && e.Offset <= v.end {
			offsetPath = path()
		}
	})
	switch {
	case offsetPath != "":
		return offsetPath
	case candidates == 1:
		return candidate
	}
	return e.Field
}

// withoutEmbedded drops from a dotted field path, as encoding/json reports
// it, the names of embedded structs, whose fields are the JSON object's
// own: "tables.TableCreate.name" is "tables.name".
func withoutEmbedded(t reflect.Type, field string) string {
	var out []string
	for _, seg := range strings.Split(field, ".") {
		for t.Kind() == reflect.Pointer || t.Kind() == reflect.Slice || t.Kind() == reflect.Array || t.Kind() == reflect.Map {
			t = t.Elem()
		}
		if t.Kind() != reflect.Struct {
			out = append(out, seg)
			continue
		}
		if f, ok := t.FieldByName(seg); ok && f.Anonymous {
			t = f.Type
			continue
		}
		out = append(out, seg)
		if ft, ok := cachedFields(t)[seg]; ok {
			t = ft
		} else {
			t = reflect.TypeFor[any]()
		}
	}
	return strings.Join(out, ".")
}

// uniqueKeyPath returns the path of the one object member named key, or ""
// when there is none or more than one.
func uniqueKeyPath(body []byte, key string) string {
	var (
		n     int
		first string
	)
	walkJSON(body, "", func(v jsonValue, path func() string) {
		if v.isMember && v.key == key {
			if n++; n == 1 {
				first = path()
			}
		}
	})
	if n != 1 {
		return ""
	}
	return first
}

// formatBytes prints a size limit for people: "8 MiB (8388608 bytes)".
func formatBytes(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB (%d bytes)", n>>20, n)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB (%d bytes)", n>>10, n)
	}
	return fmt.Sprintf("%d bytes", n)
}
