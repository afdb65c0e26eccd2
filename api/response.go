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
	if err := encodeInto(&buf, v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// encodeInto appends v's compact JSON, as marshal encodes it, to buf.
func encodeInto(buf *bytes.Buffer, v any) error {
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return err
	}
	buf.Truncate(buf.Len() - 1) // Encode's newline
	return nil
}

// bodies are the buffers responses are encoded into, kept between
// requests: a listing of 10,000 objects is a body of 600 KB, and encoding
// each one into fresh memory made the collector run several times a second
// under listings, taxing every other request (SPEC §2.11). A channel rather
// than a sync.Pool, which the collector empties: under such listings it
// runs between any two of them. At most maxPooledBodies buffers of at most
// maxPooledBody bytes stay.
var bodies = make(chan *bytes.Buffer, maxPooledBodies)

const (
	maxPooledBodies = 4
	maxPooledBody   = 4 << 20
)

func getBody() *bytes.Buffer {
	select {
	case b := <-bodies:
		return b
	default:
		return new(bytes.Buffer)
	}
}

func putBody(b *bytes.Buffer) {
	if b.Cap() > maxPooledBody {
		return
	}
	b.Reset()
	select {
	case bodies <- b:
	default:
	}
}

// writeJSON writes v with the given status. v is encoded before anything is
// written, so an encoding failure can still become an error response.
func writeJSON(w http.ResponseWriter, status int, v any) error {
	return respond(w, status, "", v)
}

func writeBody(w http.ResponseWriter, status int, b []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)+1))
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// respond encodes v, wrapped as {"code":0,"<key>":<v>} when key is not
// empty, into a pooled buffer and writes it with the given status.
func respond(w http.ResponseWriter, status int, key string, v any) error {
	return respondEncoded(w, status, key, v, nil)
}

// respondEncoded is respond that calls encoded, if not nil, once v is
// encoded and before the body is written, however slowly the client
// reads it.
func respondEncoded(w http.ResponseWriter, status int, key string, v any, encoded func()) error {
	buf := getBody()
	defer putBody(buf)
	if key != "" {
		buf.WriteString(`{"code":0,"`)
		buf.WriteString(key) // keys are constants of this package, never input
		buf.WriteString(`":`)
	}
	if err := encodeInto(buf, v); err != nil {
		return err
	}
	if key != "" {
		buf.WriteString("}")
	}
	if encoded != nil {
		encoded()
	}
	writeBody(w, status, buf.Bytes())
	return nil
}

// ok writes a success: {"code":0,"<key>":<v>}.
func ok(w http.ResponseWriter, key string, v any) error {
	return written(w, semcat.Position{}, key, v)
}

// written writes the success of a write, with its position in the
// X-Semcat-Position header (none for a zero position: nothing was written).
func written(w http.ResponseWriter, pos semcat.Position, key string, v any) error {
	if !pos.IsZero() {
		w.Header().Set(PositionHeader, pos.String())
	}
	return respond(w, http.StatusOK, key, v)
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
