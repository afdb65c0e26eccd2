package search

import (
	"encoding/binary"
	"errors"
	"slices"

	"github.com/semcat/semcat"
)

// The stored payload of a document (query.FieldStored) is what a search returns
// for a hit: its entity, metadata and schema entries. It is written in a
// compact binary form rather than JSON: a search decodes a page of them
// (a table's metadata holds its whole column list), and decoding JSON was
// a sixth of a search's CPU, validating and unquoting every string.
//
// The form: a version byte, then the entity (type, namespace, name), the
// system and user metadata (properties in key order, then tags) and the
// schema entries, then the column texts as path, text, path, text…. A string is its length (uvarint) and bytes; a list or a
// map is its length plus one (uvarint), 0 for nil, then its items, so that
// a nil list and an empty one, which JSON tells apart, stay apart.

const payloadVersion = 2

var errPayload = errors.New("malformed stored payload")

// Payload is what the index stores with each document (query.FieldStored)
// and a search returns for a hit.
type Payload struct {
	Entity   semcat.SearchEntity `json:"entity"`
	Metadata semcat.Metadata     `json:"metadata"`
	Fields   []string            `json:"fields,omitempty"` // schema field entries, to report which matched
	// Comments are the columns' (a model's datasets' and fields') texts
	// that are not empty, to report which matched.
	Comments []semcat.ColumnText `json:"comments,omitempty"`
}

// EncodePayload encodes a payload.
func EncodePayload(st *Payload) []byte {
	b := []byte{payloadVersion}
	b = appendString(b, st.Entity.Type)
	b = appendStrings(b, st.Entity.Namespace)
	b = appendString(b, st.Entity.Name)
	for _, part := range []semcat.MetadataPart{st.Metadata.System, st.Metadata.User} {
		if part.Properties == nil {
			b = binary.AppendUvarint(b, 0)
		} else {
			b = binary.AppendUvarint(b, uint64(len(part.Properties))+1)
			for _, k := range sortedKeys(part.Properties) {
				b = appendString(b, k)
				b = appendString(b, part.Properties[k])
			}
		}
		b = appendStrings(b, part.Tags)
	}
	b = appendStrings(b, st.Fields)
	var comments []string
	if st.Comments != nil {
		comments = make([]string, 0, 2*len(st.Comments))
		for _, c := range st.Comments {
			comments = append(comments, c.Path, c.Text)
		}
	}
	return appendStrings(b, comments)
}

func appendString(b []byte, s string) []byte {
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}

func appendStrings(b []byte, ss []string) []byte {
	if ss == nil {
		return binary.AppendUvarint(b, 0)
	}
	b = binary.AppendUvarint(b, uint64(len(ss))+1)
	for _, s := range ss {
		b = appendString(b, s)
	}
	return b
}

// DecodePayload decodes a payload. Its strings share p's memory.
func DecodePayload(p string) (*Payload, error) {
	if len(p) == 0 || p[0] != payloadVersion {
		return nil, errPayload
	}
	d := payloadDecoder{p: p[1:]}
	st := &Payload{}
	st.Entity.Type = d.string()
	st.Entity.Namespace = d.strings()
	st.Entity.Name = d.string()
	for _, part := range []*semcat.MetadataPart{&st.Metadata.System, &st.Metadata.User} {
		if n := d.count(); n > 0 {
			part.Properties = make(map[string]string, n-1)
			for range n - 1 {
				k := d.string()
				part.Properties[k] = d.string()
			}
		}
		part.Tags = d.strings()
	}
	st.Fields = d.strings()
	if comments := d.strings(); comments != nil {
		if len(comments)%2 != 0 {
			return nil, errPayload
		}
		st.Comments = make([]semcat.ColumnText, 0, len(comments)/2)
		for i := 0; i < len(comments); i += 2 {
			st.Comments = append(st.Comments, semcat.ColumnText{Path: comments[i], Text: comments[i+1]})
		}
	}
	if d.err || len(d.p) > 0 {
		return nil, errPayload
	}
	return st, nil
}

type payloadDecoder struct {
	p   string
	err bool
}

// count reads a length or a count plus one, never more than the bytes
// left could hold (each item takes at least one), so a corrupt length
// cannot allocate much.
func (d *payloadDecoder) count() int {
	n, size := uvarint(d.p)
	if size <= 0 || n > uint64(len(d.p)-size)+1 {
		d.err, d.p = true, ""
		return 0
	}
	d.p = d.p[size:]
	return int(n)
}

func (d *payloadDecoder) string() string {
	n := d.count()
	if n > len(d.p) {
		d.err, d.p = true, ""
		return ""
	}
	s := d.p[:n]
	d.p = d.p[n:]
	return s
}

func (d *payloadDecoder) strings() []string {
	n := d.count()
	if n == 0 {
		return nil
	}
	out := make([]string, 0, min(n-1, len(d.p)))
	for range n - 1 {
		out = append(out, d.string())
	}
	return slices.Clip(out)
}

// uvarint is binary.Uvarint over a string.
func uvarint(s string) (uint64, int) {
	var x uint64
	var shift uint
	for i := 0; i < len(s) && i < binary.MaxVarintLen64; i++ {
		c := s[i]
		if c < 0x80 {
			if i == binary.MaxVarintLen64-1 && c > 1 {
				return 0, -1
			}
			return x | uint64(c)<<shift, i + 1
		}
		x |= uint64(c&0x7f) << shift
		shift += 7
	}
	return 0, 0
}
