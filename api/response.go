package api

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"

	"github.com/semcat/semcat"
)

// marshal encodes v as compact JSON without HTML escaping (comments and
// expressions hold SQL with '<' and '&'; escaping them only hurts reading).
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}

// writeJSON writes v with the given status. v is encoded before anything is
// written, so an encoding failure can still become an error response.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	writeBody(w, status, b)
	return nil
}

func writeBody(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// ok writes a success: {"code":0,"<key>":<v>}.
func ok(w http.ResponseWriter, key string, v any) error {
	return written(w, semcat.Position{}, key, v)
}

// written writes the success of a write, with its position in the
// X-Semcat-Position header (none for a zero position: nothing was written).
func written(w http.ResponseWriter, pos semcat.Position, key string, v any) error {
	payload, err := marshal(v)
	if err != nil {
		return err
	}
	if !pos.IsZero() {
		w.Header().Set(PositionHeader, pos.String())
	}
	var buf bytes.Buffer
	buf.Grow(len(key) + len(payload) + 16)
	buf.WriteString(`{"code":0,"`)
	buf.WriteString(key) // keys are constants of this package, never input
	buf.WriteString(`":`)
	buf.Write(payload)
	buf.WriteString("}")
	writeBody(w, http.StatusOK, buf.Bytes())
	return nil
}

// writtenNothing writes the success of a write that answers nothing but
// {"code": 0}, as Gravitino's PATCH of a metalake or catalog does.
func writtenNothing(w http.ResponseWriter, pos semcat.Position) error {
	if !pos.IsZero() {
		w.Header().Set(PositionHeader, pos.String())
	}
	writeBody(w, http.StatusOK, []byte(`{"code":0}`))
	return nil
}

// identifiers turns names, in the order the store listed them (by name, byte
// order), into name identifiers under the namespace.
func identifiers(ns semcat.Namespace, names []string) []semcat.NameIdentifier {
	ids := make([]semcat.NameIdentifier, len(names))
	path := ns.Path()
	for i, n := range names {
		ids[i] = semcat.NameIdentifier{Namespace: path, Name: n}
	}
	return ids
}

// nonNil makes an absent list encode as [] rather than null.
func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
