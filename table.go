package semcat

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"unicode"
)

// Limits on table schemas (SPEC §1).
const (
	MaxTypeDepth  = 32
	MaxLeafFields = 10000
)

// Table is a relational table: its columns and properties.
type Table struct {
	ID         int64             `json:"-"`
	Name       string            `json:"name"`
	Comment    *string           `json:"comment"`
	Columns    []Column          `json:"columns"`
	Properties map[string]string `json:"properties"`
	Audit      Audit             `json:"audit"`
	TableLayout
}

// TableCreate is the body of a table creation request.
type TableCreate struct {
	Name       string            `json:"name"`
	Comment    *string           `json:"comment"`
	Columns    []Column          `json:"columns"`
	Properties map[string]string `json:"properties"`
	TableLayout
}

// Validate checks the request.
func (c *TableCreate) Validate() error { return c.validateAt("") }

// validateAt checks the request, naming its fields under path (empty, or
// ending in ".").
func (c *TableCreate) validateAt(path string) error {
	if err := ValidateName(path+"name", c.Name); err != nil {
		return err
	}
	if err := ValidateColumns(path+"columns", c.Columns); err != nil {
		return err
	}
	if err := c.TableLayout.validate(path); err != nil {
		return err
	}
	return ValidateProperties(path+"properties", c.Properties)
}

// MaxBatchTables is the most tables one TableBatchCreate may hold.
const MaxBatchTables = 1000

// TableBatchCreate creates many tables of one schema at once, each with
// its tags: all of them or, on any error, none. A bulk load sends a batch
// where it would send a create and a tag association per table, so the
// catalog takes one transaction, and the index one batch, for many tables.
type TableBatchCreate struct {
	Tables []TableBatchItem `json:"tables"`
}

// TableBatchItem is one table of a batch: a TableCreate and the names of
// existing tags to associate with the new table.
type TableBatchItem struct {
	TableCreate
	Tags []string `json:"tags,omitempty"`
}

// Validate checks every table of the batch, naming the first bad field by
// its path ("tables[3].columns[0].type"); names must differ within the
// batch.
func (b *TableBatchCreate) Validate() error {
	if len(b.Tables) == 0 {
		return Errorf(EINVALID, "tables: give at least one table")
	}
	if len(b.Tables) > MaxBatchTables {
		return Errorf(EINVALID, "tables: %d tables; a batch holds at most %d", len(b.Tables), MaxBatchTables)
	}
	first := make(map[string]int, len(b.Tables))
	for i := range b.Tables {
		item := &b.Tables[i]
		path := fmt.Sprintf("tables[%d]", i)
		if err := item.validateAt(path + "."); err != nil {
			return err
		}
		if j, ok := first[item.Name]; ok {
			return Errorf(EINVALID, "%s.name: '%s' is also the name of tables[%d]", path, item.Name, j)
		}
		first[item.Name] = i
		for j, tag := range item.Tags {
			if err := ValidateName(fmt.Sprintf("%s.tags[%d]", path, j), tag); err != nil {
				return err
			}
		}
	}
	return nil
}

// Column is a top-level table column.
type Column struct {
	Name     string  `json:"name"`
	Type     *Type   `json:"type"`
	Comment  *string `json:"comment,omitempty"`
	Nullable *bool   `json:"nullable,omitempty"`
	// AutoIncrement and DefaultValue are Gravitino's (SPEC §2.10), kept
	// and returned as given.
	AutoIncrement *bool        `json:"autoIncrement,omitempty"`
	DefaultValue  *FunctionArg `json:"defaultValue,omitempty"`
}

// IsNullable reports the column's nullability (default true).
func (c Column) IsNullable() bool { return c.Nullable == nil || *c.Nullable }

// MarshalJSON always writes nullable, defaulting to true.
func (c Column) MarshalJSON() ([]byte, error) {
	b := append(make([]byte, 0, 64), `{"name":`...)
	b = appendJSONString(b, c.Name)
	b = append(b, `,"type":`...)
	b = c.Type.appendJSON(b)
	if c.Comment != nil {
		b = append(b, `,"comment":`...)
		b = appendJSONString(b, *c.Comment)
	}
	b = append(b, `,"nullable":`...)
	b = strconv.AppendBool(b, c.IsNullable())
	if c.AutoIncrement != nil && *c.AutoIncrement {
		b = append(b, `,"autoIncrement":true`...)
	}
	if c.DefaultValue != nil {
		v, err := json.Marshal(c.DefaultValue)
		if err != nil {
			return nil, err
		}
		b = append(append(b, `,"defaultValue":`...), v...)
	}
	return append(b, '}'), nil
}

// Type is a column type: a primitive (Name set, e.g. "integer",
// "decimal(10,2)") or a nested struct, list, map or union.
type Type struct {
	// Name is the primitive type string, or "struct", "list", "map", "union".
	Name string
	// struct
	Fields []StructField
	// list
	ElementType  *Type
	ContainsNull *bool
	// map
	KeyType           *Type
	ValueType         *Type
	ValueContainsNull *bool
	// union
	Types []*Type
	// UnparsedType is the source's own name of a type Gravitino has none
	// for (Name "unparsed"), as a PostgreSQL catalog mirrors it
	// ({"type": "unparsed", "unparsedType": "tsvector"}).
	UnparsedType string
}

// StructField is a field of a struct type.
type StructField struct {
	Name     string  `json:"name"`
	Type     *Type   `json:"type"`
	Nullable *bool   `json:"nullable,omitempty"`
	Comment  *string `json:"comment,omitempty"`
}

// IsNested reports whether t is a struct, list, map or union.
func (t *Type) IsNested() bool {
	switch t.Name {
	case "struct", "list", "map", "union":
		return true
	}
	return false
}

// Keyword returns the lower-case type keyword: the nested kind, or the
// primitive name without parameters ("decimal" for "decimal(10,2)").
func (t *Type) Keyword() string {
	if i := strings.IndexByte(t.Name, '('); i >= 0 {
		return t.Name[:i]
	}
	return t.Name
}

// typeJSON is the wire form of a nested type.
type typeJSON struct {
	Type              string        `json:"type"`
	Fields            []StructField `json:"fields,omitempty"`
	ElementType       *Type         `json:"elementType,omitempty"`
	ContainsNull      *bool         `json:"containsNull,omitempty"`
	KeyType           *Type         `json:"keyType,omitempty"`
	ValueType         *Type         `json:"valueType,omitempty"`
	ValueContainsNull *bool         `json:"valueContainsNull,omitempty"`
	Types             []*Type       `json:"types,omitempty"`
	UnparsedType      string        `json:"unparsedType,omitempty"`
}

// MarshalJSON writes a primitive as a string and a nested type as an
// object: the bytes encoding/json writes for typeJSON (a struct with only
// "type" and "fields", an empty struct with "fields": [], other kinds
// without "fields"), in one pass.
// (Marshalling the nested types through encoding/json made it check and
// copy the text of a type nested n deep n times.)
func (t *Type) MarshalJSON() ([]byte, error) {
	return t.appendJSON(make([]byte, 0, 64)), nil
}

// appendJSON appends t's JSON; nil is null.
func (t *Type) appendJSON(b []byte) []byte {
	if t == nil {
		return append(b, "null"...)
	}
	if t.UnparsedType != "" {
		b = append(b, `{"type":`...)
		b = appendJSONString(b, t.Name)
		b = append(b, `,"unparsedType":`...)
		b = appendJSONString(b, t.UnparsedType)
		return append(b, '}')
	}
	if !t.IsNested() {
		return appendJSONString(b, t.Name)
	}
	b = append(b, `{"type":`...)
	b = appendJSONString(b, t.Name)
	if t.Name == "struct" {
		b = append(b, `,"fields":[`...)
		for i := range t.Fields {
			if i > 0 {
				b = append(b, ',')
			}
			b = t.Fields[i].appendJSON(b)
		}
		return append(b, "]}"...)
	}
	b = appendTypeMember(b, "elementType", t.ElementType)
	b = appendBoolMember(b, "containsNull", t.ContainsNull)
	b = appendTypeMember(b, "keyType", t.KeyType)
	b = appendTypeMember(b, "valueType", t.ValueType)
	b = appendBoolMember(b, "valueContainsNull", t.ValueContainsNull)
	if len(t.Types) > 0 {
		b = append(b, `,"types":[`...)
		for i, e := range t.Types {
			if i > 0 {
				b = append(b, ',')
			}
			b = e.appendJSON(b)
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// appendJSON appends f's JSON, as encoding/json writes a StructField.
func (f *StructField) appendJSON(b []byte) []byte {
	b = append(b, `{"name":`...)
	b = appendJSONString(b, f.Name)
	b = append(b, `,"type":`...)
	b = f.Type.appendJSON(b)
	b = appendBoolMember(b, "nullable", f.Nullable)
	if f.Comment != nil {
		b = append(b, `,"comment":`...)
		b = appendJSONString(b, *f.Comment)
	}
	return append(b, '}')
}

// appendTypeMember appends ,"name":t unless t is nil.
func appendTypeMember(b []byte, name string, t *Type) []byte {
	if t == nil {
		return b
	}
	b = append(append(append(b, `,"`...), name...), `":`...)
	return t.appendJSON(b)
}

// appendBoolMember appends ,"name":v unless v is nil.
func appendBoolMember(b []byte, name string, v *bool) []byte {
	if v == nil {
		return b
	}
	b = append(append(append(b, `,"`...), name...), `":`...)
	return strconv.AppendBool(b, *v)
}

// appendJSONString appends s as encoding/json's Marshal writes it: plain
// printable ASCII as is, anything else (escapes, HTML characters, other
// runes) through Marshal.
func appendJSONString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

// typeMembers are the members a nested type object may have; JSON keys
// match exactly (encoding/json alone would accept any letter case).
var typeMembers = map[string]bool{"type": true, "fields": true, "elementType": true, "containsNull": true,
	"keyType": true, "valueType": true, "valueContainsNull": true, "types": true, "unparsedType": true}

// UnmarshalJSON reads a primitive string or a nested object, rejecting
// unknown members. Validation of the contents happens in ValidateColumns.
func (t *Type) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if len(b) > 0 && b[0] == '"' {
		var s string
		if err := json.Unmarshal(b, &s); err != nil {
			return err
		}
		*t = Type{Name: s}
		return nil
	}
	if len(b) == 0 || b[0] != '{' {
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeFor[Type](), Offset: 1}
	}
	// The common case in one pass over the text: decode the whole tree
	// generically and build the type from it. Decoding member by member
	// instead makes encoding/json read the text of a type nested n deep
	// about 4n times (each enclosing type and field checks and decodes
	// it again): 0.9 ms against 0.27 ms for 60 columns nested up to 3 deep
	// (BenchmarkDecodeColumns, idle machine). Anything the
	// tree cannot be taken from as is (a member in other case, a value of
	// another kind, a missing "type", a member named twice, whose first
	// value the tree no longer holds) is decoded member by member, which
	// reports it as encoding/json does.
	if nt, ok := typeInOnePass(b); ok {
		*t = *nt
		return nil
	}
	return t.unmarshalMembers(b)
}

// typeInOnePass decodes the nested type object b through a generic tree;
// ok is false where it leaves b to unmarshalMembers.
func typeInOnePass(b []byte) (*Type, bool) {
	var tree any
	if json.Unmarshal(b, &tree) != nil {
		return nil, false
	}
	members := 0
	t, ok := typeFromTree(tree, 0, &members)
	return t, ok && t != nil && members == countMembers(b)
}

// unmarshalMembers decodes a nested type object member by member,
// rejecting unknown members.
func (t *Type) unmarshalMembers(b []byte) error {
	if err := exactMembers(b, typeMembers); err != nil {
		return err
	}
	var w typeJSON
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return err
	}
	if w.Type == "" {
		return fmt.Errorf(`a nested type needs "type": struct, list, map or union`)
	}
	*t = Type{Name: w.Type, Fields: w.Fields, ElementType: w.ElementType, ContainsNull: w.ContainsNull,
		KeyType: w.KeyType, ValueType: w.ValueType, ValueContainsNull: w.ValueContainsNull, Types: w.Types, UnparsedType: w.UnparsedType}
	return nil
}

// maxTreeDepth bounds the nesting typeFromTree follows; deeper types (which
// ValidateColumns rejects anyway) are decoded member by member.
const maxTreeDepth = 4 * MaxTypeDepth

// typeFromTree returns the type a generically decoded JSON value stands
// for, exactly as decoding it member by member would (if no object of the
// text names a member twice), or ok false if it cannot tell (see
// Type.UnmarshalJSON). null is a nil type. It adds the members of the
// objects it reads to *members.
func typeFromTree(v any, depth int, members *int) (t *Type, ok bool) {
	switch v := v.(type) {
	case nil:
		return nil, true
	case string:
		return &Type{Name: v}, true
	case map[string]any:
		if depth > maxTreeDepth {
			return nil, false
		}
		t = &Type{}
		*members += len(v)
		for k, m := range v {
			switch k {
			case "type":
				t.Name, ok = m.(string)
			case "fields":
				t.Fields, ok = fieldsFromTree(m, depth+1, members)
			case "elementType":
				t.ElementType, ok = typeFromTree(m, depth+1, members)
			case "containsNull":
				t.ContainsNull, ok = boolFromTree(m)
			case "keyType":
				t.KeyType, ok = typeFromTree(m, depth+1, members)
			case "valueType":
				t.ValueType, ok = typeFromTree(m, depth+1, members)
			case "valueContainsNull":
				t.ValueContainsNull, ok = boolFromTree(m)
			case "types":
				t.Types, ok = typesFromTree(m, depth+1, members)
			case "unparsedType":
				t.UnparsedType, ok = m.(string)
			default:
				ok = false
			}
			if !ok {
				return nil, false
			}
		}
		return t, t.Name != ""
	}
	return nil, false
}

func fieldsFromTree(v any, depth int, members *int) ([]StructField, bool) {
	if v == nil {
		return nil, true
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	fields := make([]StructField, len(list))
	for i, e := range list {
		obj, ok := e.(map[string]any)
		if !ok {
			return nil, false
		}
		f := &fields[i]
		*members += len(obj)
		for k, m := range obj {
			switch k {
			case "name":
				f.Name, ok = m.(string)
			case "type":
				f.Type, ok = typeFromTree(m, depth+1, members)
			case "nullable":
				f.Nullable, ok = boolFromTree(m)
			case "comment":
				f.Comment, ok = stringFromTree(m)
			default:
				ok = false
			}
			if !ok {
				return nil, false
			}
		}
	}
	return fields, true
}

func typesFromTree(v any, depth int, members *int) ([]*Type, bool) {
	if v == nil {
		return nil, true
	}
	list, ok := v.([]any)
	if !ok {
		return nil, false
	}
	types := make([]*Type, len(list))
	for i, e := range list {
		if types[i], ok = typeFromTree(e, depth, members); !ok {
			return nil, false
		}
	}
	return types, true
}

// countMembers counts the members of every object in the JSON text b
// (valid JSON): its colons outside strings.
func countMembers(b []byte) int {
	n := 0
	for i := 0; i < len(b); i++ {
		switch b[i] {
		case ':':
			n++
		case '"':
			for i++; i < len(b) && b[i] != '"'; i++ {
				if b[i] == '\\' {
					i++
				}
			}
		}
	}
	return n
}

func boolFromTree(v any) (*bool, bool) {
	switch v := v.(type) {
	case nil:
		return nil, true
	case bool:
		return &v, true
	}
	return nil, false
}

func stringFromTree(v any) (*string, bool) {
	switch v := v.(type) {
	case nil:
		return nil, true
	case string:
		return &v, true
	}
	return nil, false
}

// exactMembers fails if the JSON object b has a member not in allowed
// (compared exactly, unlike encoding/json's case-insensitive matching).
func exactMembers(b []byte, allowed map[string]bool) error {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(b, &members); err != nil {
		return err
	}
	for k := range members {
		if !allowed[k] {
			// The text encoding/json uses, so callers report it alike.
			return fmt.Errorf("json: unknown field %q", k)
		}
	}
	return nil
}

var structFieldMembers = map[string]bool{"name": true, "type": true, "nullable": true, "comment": true}

// TypeJSONProblem finds what Type.UnmarshalJSON would reject in a
// generically decoded type (a string, or a nested type object): a member
// it does not know, in any letter case, or a nested object without
// "type". It returns where, as a path below the type ("" for the type
// itself, "fields[0].NAME"), and what, or "" and "" for nothing; the API
// puts the type's own path in front, since UnmarshalJSON cannot know it.
// Members are checked in name order, so the answer is always the same.
func TypeJSONProblem(v any) (path, problem string) {
	obj, ok := v.(map[string]any)
	if !ok {
		return "", ""
	}
	for _, k := range slices.Sorted(maps.Keys(obj)) {
		if !typeMembers[k] {
			return k, "unknown field"
		}
	}
	if _, ok := obj["type"]; !ok {
		return "", `a nested type needs "type": struct, list, map or union`
	}
	below := func(prefix string, v any) (string, string) {
		p, problem := TypeJSONProblem(v)
		if problem == "" {
			return "", ""
		}
		if p == "" {
			return prefix, problem
		}
		return prefix + "." + p, problem
	}
	fields, _ := obj["fields"].([]any)
	for i, f := range fields {
		fobj, _ := f.(map[string]any)
		for _, k := range slices.Sorted(maps.Keys(fobj)) {
			if !structFieldMembers[k] {
				return fmt.Sprintf("fields[%d].%s", i, k), "unknown field"
			}
		}
		if p, problem := below(fmt.Sprintf("fields[%d].type", i), fobj["type"]); problem != "" {
			return p, problem
		}
	}
	for _, m := range []string{"elementType", "keyType", "valueType"} {
		if p, problem := below(m, obj[m]); problem != "" {
			return p, problem
		}
	}
	types, _ := obj["types"].([]any)
	for i, t := range types {
		if p, problem := below(fmt.Sprintf("types[%d]", i), t); problem != "" {
			return p, problem
		}
	}
	return "", ""
}

// UnmarshalJSON reads a struct field, matching member names exactly.
func (f *StructField) UnmarshalJSON(b []byte) error {
	if err := exactMembers(b, structFieldMembers); err != nil {
		return err
	}
	type plain StructField
	return json.Unmarshal(b, (*plain)(f))
}

// jsonKind names the kind of a JSON value by its first byte.
func jsonKind(b []byte) string {
	if len(b) == 0 {
		return "empty value"
	}
	switch b[0] {
	case '[':
		return "array"
	case 't', 'f':
		return "bool"
	case 'n':
		return "null"
	}
	return "number"
}

var primitiveTypes = map[string]bool{
	"boolean": true, "byte": true, "short": true, "integer": true, "long": true, "float": true,
	"double": true, "date": true, "time": true, "timestamp": true, "timestamp_tz": true,
	"string": true, "uuid": true, "binary": true,
}

// primitiveProblem says what is wrong with s as a primitive type name, or
// "" when nothing is: one of primitiveTypes, decimal(p,s) with 1 <= p <=
// 38 and s <= p (one or two digits each, white space allowed after the
// comma), or varchar(n) or char(n) with n of up to nine digits, no leading
// zero. (Parsed by hand: validating a bulk create ran a regular expression
// and fmt.Sscan for every sized column.)
func primitiveProblem(s string) string {
	if primitiveTypes[s] {
		return ""
	}
	if args, ok := typeArgs(s, "decimal"); ok {
		ps, ss, comma := strings.Cut(args, ",")
		ss = strings.TrimLeft(ss, " \t\n\f\r")
		if comma && allDigits(ps, 2) && allDigits(ss, 2) {
			p, _ := strconv.Atoi(ps)
			sc, _ := strconv.Atoi(ss)
			if p < 1 || p > 38 || sc > p {
				return fmt.Sprintf("invalid decimal precision/scale in '%s' (1 <= p <= 38, 0 <= s <= p)", s)
			}
			return ""
		}
	}
	for _, sized := range [...]string{"varchar", "char"} {
		if n, ok := typeArgs(s, sized); ok && allDigits(n, 9) {
			if n[0] == '0' {
				return fmt.Sprintf("invalid length in '%s'", s)
			}
			return ""
		}
	}
	return fmt.Sprintf("unknown type '%s'", s)
}

// typeArgs returns what is between the parentheses of s when s is
// name(…).
func typeArgs(s, name string) (string, bool) {
	rest, ok := strings.CutPrefix(s, name+"(")
	if !ok {
		return "", false
	}
	return strings.CutSuffix(rest, ")")
}

// allDigits reports whether s is 1 to most ASCII digits.
func allDigits(s string, most int) bool {
	if len(s) == 0 || len(s) > most {
		return false
	}
	for i := range len(s) {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// ValidateColumns checks column names, types, nesting depth and the leaf
// field limit.
func ValidateColumns(path string, cols []Column) error {
	if cols == nil {
		return Errorf(EINVALID, "%s: columns are required", path)
	}
	root := fieldPath{name: path, index: -1}
	seen := map[string]bool{}
	leaves := 0
	auto := ""
	for i, c := range cols {
		p := root.at("", i)
		if !nameOK(c.Name) {
			return ValidateName(p.String()+".name", c.Name)
		}
		if seen[c.Name] {
			return Errorf(EINVALID, "%s.name: duplicate column name '%s'", p.String(), c.Name)
		}
		seen[c.Name] = true
		if c.Type == nil {
			return Errorf(EINVALID, "%s.type: column type is required", p.String())
		}
		if err := validateType(p.child(".type"), c.Type, 1, &leaves); err != nil {
			return err
		}
		if c.DefaultValue != nil {
			if err := c.DefaultValue.validate(p.String()+".defaultValue", 0); err != nil {
				return err
			}
		}
		if c.AutoIncrement != nil && *c.AutoIncrement {
			if auto != "" {
				return Errorf(EINVALID, "%s.autoIncrement: only one column may auto-increment (%s does)", p.String(), auto)
			}
			auto = c.Name
		}
	}
	return nil
}

// fieldPath is where a value sits in a request body, such as
// "columns[3].type.fields[0]", spelled out only when an error names it. A
// batch create validates every column and field of up to MaxBatchTables
// tables, and formatting each one's path beforehand was most of that work
// (6% of a bulk load's CPU, validation included, in its profile at 100k
// entities).
type fieldPath struct {
	parent *fieldPath
	name   string // appended as it is: "columns", ".type"
	index  int    // when not negative, "[index]" follows name
}

// child is the path of name under p.
func (p *fieldPath) child(name string) fieldPath { return fieldPath{parent: p, name: name, index: -1} }

// at is the path of item i of name under p.
func (p *fieldPath) at(name string, i int) fieldPath {
	return fieldPath{parent: p, name: name, index: i}
}

func (p *fieldPath) String() string {
	var b strings.Builder
	p.write(&b)
	return b.String()
}

func (p *fieldPath) write(b *strings.Builder) {
	if p.parent != nil {
		p.parent.write(b)
	}
	b.WriteString(p.name)
	if p.index >= 0 {
		b.WriteByte('[')
		b.WriteString(strconv.Itoa(p.index))
		b.WriteByte(']')
	}
}

func validateType(path fieldPath, t *Type, depth int, leaves *int) error {
	if t == nil {
		return Errorf(EINVALID, "%s: type is required", path.String())
	}
	if depth > MaxTypeDepth {
		return Errorf(EINVALID, "%s: nesting deeper than %d levels", path.String(), MaxTypeDepth)
	}
	if t.UnparsedType != "" && t.Name != "unparsed" {
		return Errorf(EINVALID, "%s.unparsedType: only an unparsed type has one", path.String())
	}
	switch t.Name {
	case "unparsed":
		// Gravitino's type for one only its source knows
		// ({"type": "unparsed", "unparsedType": "tsvector"}).
		switch u := t.UnparsedType; {
		case strings.TrimSpace(u) == "":
			return Errorf(EINVALID, "%s.unparsedType: give the source's name of the type", path.String())
		case len(u) > 256 || strings.ContainsAny(u, ";\x00") || strings.Contains(u, "--") || strings.Contains(u, "/*") || strings.IndexFunc(u, unicode.IsControl) >= 0:
			return Errorf(EINVALID, "%s.unparsedType: '%s' is not a type name", path.String(), truncate(u, 40))
		}
		*leaves++
	case "struct":
		seen := map[string]bool{}
		for i, f := range t.Fields {
			p := path.at(".fields", i)
			if !nameOK(f.Name) {
				return ValidateName(p.String()+".name", f.Name)
			}
			if seen[f.Name] {
				return Errorf(EINVALID, "%s.name: duplicate field name '%s'", p.String(), f.Name)
			}
			seen[f.Name] = true
			if err := validateType(p.child(".type"), f.Type, depth+1, leaves); err != nil {
				return err
			}
		}
		if len(t.Fields) == 0 {
			*leaves++
		}
	case "list":
		if err := validateType(path.child(".elementType"), t.ElementType, depth+1, leaves); err != nil {
			return err
		}
	case "map":
		if err := validateType(path.child(".keyType"), t.KeyType, depth+1, leaves); err != nil {
			return err
		}
		if err := validateType(path.child(".valueType"), t.ValueType, depth+1, leaves); err != nil {
			return err
		}
	case "union":
		if len(t.Types) == 0 {
			return Errorf(EINVALID, "%s.types: a union needs at least one type", path.String())
		}
		for i, u := range t.Types {
			if err := validateType(path.at(".types", i), u, depth+1, leaves); err != nil {
				return err
			}
		}
	default:
		if problem := primitiveProblem(t.Name); problem != "" {
			return Errorf(EINVALID, "%s: %s", path.String(), problem)
		}
		*leaves++
	}
	if *leaves > MaxLeafFields {
		return Errorf(EINVALID, "%s: a table has at most %d leaf fields", path.String(), MaxLeafFields)
	}
	return nil
}

// TableService manages tables.
type TableService interface {
	CreateTable(ctx context.Context, ns Namespace, req TableCreate) (*Table, Position, error)
	// CreateTables creates every table of a batch with its tags, or none.
	CreateTables(ctx context.Context, ns Namespace, req TableBatchCreate) ([]*Table, Position, error)
	GetTable(ctx context.Context, ns Namespace, name string) (*Table, error)
	ListTables(ctx context.Context, ns Namespace) ([]string, error)
	AlterTable(ctx context.Context, ns Namespace, name string, updates []Update) (*Table, Position, error)
	DropTable(ctx context.Context, ns Namespace, name string) (bool, Position, error)
	// ListTableStatistics lists a table's statistics by name.
	ListTableStatistics(ctx context.Context, ns Namespace, name string) ([]*Statistic, error)
	// UpdateTableStatistics sets statistics of a table (StatisticsUpdate).
	UpdateTableStatistics(ctx context.Context, ns Namespace, name string, req StatisticsUpdate) (Position, error)
	// DropTableStatistics drops statistics of a table; dropped reports
	// whether any existed.
	DropTableStatistics(ctx context.Context, ns Namespace, name string, req StatisticsDrop) (bool, Position, error)
}

// TableUpdates are the update types a table accepts.
var TableUpdates = append(append([]string{}, CommonUpdates...), UpdateReplaceColumns,
	UpdateAddColumn, UpdateRenameColumn, UpdateColumnType, UpdateColumnComment, UpdateColumnPosition,
	UpdateColumnNullability, UpdateColumnDefaultValue, UpdateColumnAutoIncrement, UpdateDeleteColumn,
	UpdateAddTableIndex, UpdateDeleteTableIndex)

// ValidateTableUpdates checks a whole update list of a table, including the
// columns of every replaceColumns and the members of every column and index
// change, before anything is read or written; ApplyTableUpdates then checks
// each against the table.
func ValidateTableUpdates(updates []Update) error {
	if err := validateUpdates(updates, true, TableUpdates...); err != nil {
		return err
	}
	for i, u := range updates {
		path := fmt.Sprintf("updates[%d]", i)
		var err error
		switch {
		case u.Type == UpdateReplaceColumns:
			err = ValidateColumns(path+".columns", u.Columns)
		case isTableChange(u):
			err = validateTableChange(path, u)
		}
		if err != nil {
			return err
		}
	}
	return nil
}
