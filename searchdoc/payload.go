package searchdoc

import (
	"encoding/binary"
	"errors"
	"maps"
	"slices"

	"github.com/semcat/semcat"
)

// The stored payload of a document (FieldStored) is what a search returns
// for a hit: its entity, metadata and schema entries. It is written in a
// compact binary form rather than JSON: a search decodes a page of them
// (a table's metadata holds its whole column list), and decoding JSON was
// a sixth of a search's CPU, validating and unquoting every string.
//
// The form: a version byte, then the entity (type, namespace, name), a
// bit for each of entityProperties the metadata holds (not stored), the
// system and user metadata (properties in key order, then tags), then
// either a table's columns (below) or, for every other entity, the schema
// entries and the column texts as path, text, path, text…. A string is its
// length (uvarint) and bytes; a list or a map is its length plus one
// (uvarint), 0 for nil, then its items, so that a nil list and an empty
// one, which JSON tells apart, stay apart.
//
// A table's columns are its schema three times over: its "schema" system
// property (semcat.ColumnsDDL), its schema entries and its column texts.
// Its payload holds the columns once instead, each its name, comment and
// type (the type's name, then a struct's fields as name, comment and type,
// a list's element type, a map's key and value types, a union's types; a
// missing type is an empty name), and decoding derives the three with the
// functions the indexer derived them with. (At 100,000 entities of the
// benchmark's catalog, the stored payloads were a quarter of the index,
// 651 bytes per entity compressed, of which leaving out the schema
// entries alone saved 173 and the schema property 139.)

const payloadVersion = 3

var errPayload = errors.New("malformed stored payload")

// Payload is what the index stores with each document (FieldStored)
// and a search returns for a hit.
type Payload struct {
	Entity   semcat.SearchEntity `json:"entity"`
	Metadata semcat.Metadata     `json:"metadata"`
	Fields   []string            `json:"fields,omitempty"` // schema field entries, to report which matched
	// Comments are the columns' (a model's datasets' and fields') texts
	// that are not empty, to report which matched.
	Comments []semcat.ColumnText `json:"comments,omitempty"`
	// Columns, when not nil, are a table's columns, encoded in place of
	// its "schema" system property, Fields and Comments, which decoding
	// derives from them (TablePayload). Decoded payloads leave it nil.
	Columns []semcat.Column `json:"-"`
}

// TablePayload is the payload of a table of columns, with entity and
// metadata (whose "schema" property is the columns' DDL).
func TablePayload(entity semcat.SearchEntity, md semcat.Metadata, columns []semcat.Column) *Payload {
	if columns == nil {
		columns = []semcat.Column{}
	}
	return &Payload{Entity: entity, Metadata: md, Columns: columns}
}

// SchemaProperty is the system property holding an entity's schema as
// text: a table's columns' DDL, which its payload derives from them, or a
// model's dataset records.
const SchemaProperty = "schema"

// entityProperties are the system properties that repeat the entity's
// name and type (semcat.EntityRecord.Metadata): a payload does not store
// them, but a bit for each that the metadata holds, and decoding adds them
// back.
var entityProperties = [...]struct {
	key   string
	value func(semcat.SearchEntity) string
}{
	{"entity-name", func(e semcat.SearchEntity) string { return e.Name }},
	{"entity-type", func(e semcat.SearchEntity) string { return e.Type }},
}

// EncodePayload encodes a payload.
func EncodePayload(st *Payload) []byte {
	b := []byte{payloadVersion}
	b = appendString(b, st.Entity.Type)
	b = appendStrings(b, st.Entity.Namespace)
	b = appendString(b, st.Entity.Name)
	derived, flags := map[string]bool{}, uint64(0)
	for i, p := range entityProperties {
		if v, ok := st.Metadata.System.Properties[p.key]; ok && v == p.value(st.Entity) {
			derived[p.key], flags = true, flags|1<<i
		}
	}
	if st.Columns != nil {
		derived[SchemaProperty] = true
	}
	b = binary.AppendUvarint(b, flags)
	for i, part := range []semcat.MetadataPart{st.Metadata.System, st.Metadata.User} {
		if part.Properties == nil {
			b = binary.AppendUvarint(b, 0)
		} else {
			keys := slices.Sorted(maps.Keys(part.Properties))
			if i == 0 {
				keys = slices.DeleteFunc(keys, func(k string) bool { return derived[k] })
			}
			b = binary.AppendUvarint(b, uint64(len(keys))+1)
			for _, k := range keys {
				b = appendString(b, k)
				b = appendString(b, part.Properties[k])
			}
		}
		b = appendStrings(b, part.Tags)
	}
	if st.Columns != nil {
		b = binary.AppendUvarint(b, uint64(len(st.Columns))+1)
		for _, c := range st.Columns {
			b = appendString(b, c.Name)
			b = appendString(b, deref(c.Comment))
			b = appendType(b, c.Type)
		}
		return b
	}
	b = binary.AppendUvarint(b, 0)
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

// appendType encodes a column's type: its name, then what the DDL, the
// schema entries and the column texts read of its children.
func appendType(b []byte, t *semcat.Type) []byte {
	if t == nil {
		return appendString(b, "")
	}
	b = appendString(b, t.Name)
	switch t.Name {
	case "struct":
		b = binary.AppendUvarint(b, uint64(len(t.Fields)))
		for _, f := range t.Fields {
			b = appendString(b, f.Name)
			b = appendString(b, deref(f.Comment))
			b = appendType(b, f.Type)
		}
	case "list":
		b = appendType(b, t.ElementType)
	case "map":
		b = appendType(b, t.KeyType)
		b = appendType(b, t.ValueType)
	case "union":
		b = binary.AppendUvarint(b, uint64(len(t.Types)))
		for _, u := range t.Types {
			b = appendType(b, u)
		}
	}
	return b
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
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
	flags, size := uvarint(d.p)
	if size <= 0 || flags >= 1<<len(entityProperties) {
		return nil, errPayload
	}
	d.p = d.p[size:]
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
	if flags != 0 && !d.err {
		if st.Metadata.System.Properties == nil {
			return nil, errPayload // the bits say it held them
		}
		for i, p := range entityProperties {
			if flags&(1<<i) != 0 {
				st.Metadata.System.Properties[p.key] = p.value(st.Entity)
			}
		}
	}
	if n := d.count(); n > 0 {
		cols := make([]semcat.Column, 0, min(n-1, len(d.p)))
		for range n - 1 {
			c := semcat.Column{Name: d.string()}
			if comment := d.string(); comment != "" {
				c.Comment = &comment
			}
			c.Type = d.columnType(0)
			cols = append(cols, c)
		}
		if d.err || len(d.p) > 0 {
			return nil, errPayload
		}
		if st.Metadata.System.Properties == nil {
			st.Metadata.System.Properties = map[string]string{}
		}
		st.Metadata.System.Properties[SchemaProperty] = semcat.ColumnsDDL(cols)
		table := &semcat.EntityRecord{Kind: semcat.KindTable, Columns: cols}
		st.Fields = table.SchemaFields()
		for _, c := range table.ColumnTexts() {
			if c.Text != "" {
				st.Comments = append(st.Comments, c)
			}
		}
		return st, nil
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

// maxTypeDepth bounds how deep a decoded type nests, so that a corrupt
// payload cannot recurse without end (semcat.ValidateColumns allows far
// less).
const maxTypeDepth = 64

// columnType decodes a type appendType encoded, at nesting depth.
func (d *payloadDecoder) columnType(depth int) *semcat.Type {
	name := d.string()
	if name == "" || d.err {
		return nil
	}
	if depth > maxTypeDepth {
		d.err, d.p = true, ""
		return nil
	}
	t := &semcat.Type{Name: name}
	switch name {
	case "struct":
		n := d.items()
		t.Fields = make([]semcat.StructField, 0, n)
		for range n {
			f := semcat.StructField{Name: d.string()}
			if comment := d.string(); comment != "" {
				f.Comment = &comment
			}
			f.Type = d.columnType(depth + 1)
			t.Fields = append(t.Fields, f)
		}
	case "list":
		t.ElementType = d.columnType(depth + 1)
	case "map":
		t.KeyType = d.columnType(depth + 1)
		t.ValueType = d.columnType(depth + 1)
	case "union":
		n := d.items()
		for range n {
			t.Types = append(t.Types, d.columnType(depth+1))
		}
	}
	return t
}

// items reads a count of items, each at least a byte long.
func (d *payloadDecoder) items() int {
	n, size := uvarint(d.p)
	if size <= 0 || n > uint64(len(d.p)-size) {
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
