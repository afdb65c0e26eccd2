package semcat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// Gravitino's table changes (SPEC §2.10): column and index updates of one
// table, applied with the semantics of Gravitino's managed tables. A field
// name is a path: ["address"] is a column, ["address", "city"] a field of
// that column's struct.

// ColumnPosition is where addColumn puts a column, or updateColumnPosition
// moves one: "first", "default" (last) or {"after": "column"}.
type ColumnPosition struct {
	// Kind is "first", "default" or "after".
	Kind string
	// After names the column to follow when Kind is "after".
	After string
}

// UnmarshalJSON reads "first", "default" (in any case) or {"after": "c"}.
func (p *ColumnPosition) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil {
		switch k := strings.ToLower(s); k {
		case "first", "default":
			*p = ColumnPosition{Kind: k}
			return nil
		}
		return fmt.Errorf("want \"first\", \"default\" or {\"after\": \"column\"}, got '%s'", truncate(s, 40))
	}
	var after struct {
		After *string `json:"after"`
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&after); err != nil || after.After == nil || *after.After == "" {
		return fmt.Errorf("want \"first\", \"default\" or {\"after\": \"column\"}")
	}
	*p = ColumnPosition{Kind: "after", After: *after.After}
	return nil
}

// MarshalJSON writes the wire form UnmarshalJSON reads.
func (p ColumnPosition) MarshalJSON() ([]byte, error) {
	if p.Kind == "after" {
		return json.Marshal(map[string]string{"after": p.After})
	}
	return json.Marshal(p.Kind)
}

// validateTableChange checks the members of one column or index change
// (their presence validateUpdate has checked) before anything is applied.
func validateTableChange(path string, u Update) error {
	for _, f := range []struct {
		member string
		name   []string
	}{{"fieldName", u.FieldName}, {"oldFieldName", u.OldFieldName}} {
		if f.name == nil {
			continue
		}
		if len(f.name) == 0 {
			return Errorf(EINVALID, "%s.%s: give the column's name (a path for a nested field)", path, f.member)
		}
		if len(f.name) > MaxTypeDepth {
			return Errorf(EINVALID, "%s.%s: a path of at most %d names", path, f.member, MaxTypeDepth)
		}
		for i, n := range f.name {
			if err := ValidateName(fmt.Sprintf("%s.%s[%d]", path, f.member, i), n); err != nil {
				return err
			}
		}
	}
	if u.NewFieldName != nil {
		if err := ValidateName(path+".newFieldName", *u.NewFieldName); err != nil {
			return err
		}
	}
	leaves := 0
	if u.ColumnType != nil {
		if err := validateType(fieldPath{name: path + ".type", index: -1}, u.ColumnType, 1, &leaves); err != nil {
			return err
		}
	}
	if u.NewType != nil {
		if err := validateType(fieldPath{name: path + ".newType", index: -1}, u.NewType, 1, &leaves); err != nil {
			return err
		}
	}
	for _, d := range []struct {
		member string
		v      *FunctionArg
	}{{"defaultValue", u.DefaultValue}, {"newDefaultValue", u.NewDefaultValue}} {
		if d.v != nil {
			if err := d.v.validate(path+"."+d.member, 0); err != nil {
				return err
			}
		}
	}
	// A null newComment clears the column's comment: Gravitino's Java
	// client sends it for a comment set to null.
	if u.Type == UpdateColumnPosition && u.NewPosition.Kind == "default" {
		return Errorf(EINVALID, "%s.newPosition: 'default' is a position for a new column only; move a column 'first' or after another", path)
	}
	if u.Index != nil {
		if err := u.Index.validate(path + ".index"); err != nil {
			return err
		}
	}
	if u.IndexName != nil && *u.IndexName == "" {
		return Errorf(EINVALID, "%s.name: the index's name is required", path)
	}
	return nil
}

// isTableChange reports whether u is a column or index change.
func isTableChange(u Update) bool {
	switch u.Type {
	case UpdateAddColumn, UpdateRenameColumn, UpdateColumnType, UpdateColumnComment, UpdateColumnPosition,
		UpdateColumnNullability, UpdateColumnDefaultValue, UpdateColumnAutoIncrement, UpdateDeleteColumn,
		UpdateAddTableIndex, UpdateDeleteTableIndex:
		return true
	}
	return false
}

// TargetSchema is the schema a table of schema current is in after
// updates: the newSchemaName of the last rename that has one, or current.
func TargetSchema(updates []Update, current string) string {
	for _, u := range slices.Backward(updates) {
		if u.Type == UpdateRename && u.NewSchemaName != nil {
			return *u.NewSchemaName
		}
	}
	return current
}

// ApplyTableUpdates applies a validated update list to t in order, all of
// them or, on the first error, none: t is changed only when every update
// applies and the resulting columns are valid.
func ApplyTableUpdates(t *Table, updates []Update) error {
	next := *t
	next.Columns = slices.Clone(t.Columns)
	next.Indexes = slices.Clone(t.Indexes)
	next.Properties = maps.Clone(t.Properties)
	for i, u := range updates {
		path := fmt.Sprintf("updates[%d]", i)
		switch {
		case ApplyCommon(u, &next.Name, &next.Comment, &next.Properties):
		case u.Type == UpdateReplaceColumns:
			next.Columns = cloneColumns(u.Columns)
		case u.Type == UpdateAddTableIndex:
			if err := addIndex(&next, *u.Index, path); err != nil {
				return err
			}
		case u.Type == UpdateDeleteTableIndex:
			j := slices.IndexFunc(next.Indexes, func(x Index) bool { return x.Name != nil && *x.Name == *u.IndexName })
			if j < 0 && (u.IfExists == nil || !*u.IfExists) {
				return Errorf(EINVALID, "%s.name: the table has no index '%s'", path, *u.IndexName)
			}
			if j >= 0 {
				next.Indexes = slices.Delete(next.Indexes, j, j+1)
			}
		case isTableChange(u):
			name := u.FieldName
			if u.Type == UpdateRenameColumn {
				name = u.OldFieldName
			}
			cols, err := changeColumns(next.Columns, name, 0, u, path)
			if err != nil {
				return err
			}
			next.Columns = cols
		}
	}
	if err := ValidateColumns("columns", next.Columns); err != nil {
		return Errorf(EINVALID, "updates: after these updates, %s", ErrorMessage(err))
	}
	*t = next
	return nil
}

// addIndex adds an index whose fields are columns of t and whose name, if
// it has one, no other index has.
func addIndex(t *Table, x Index, path string) error {
	for i, f := range x.FieldNames {
		if len(f) == 0 || !slices.ContainsFunc(t.Columns, func(c Column) bool { return c.Name == f[0] }) {
			return Errorf(EINVALID, "%s.index.fieldNames[%d]: the table has no column '%s'", path, i, strings.Join(f, "."))
		}
	}
	if x.Name != nil && slices.ContainsFunc(t.Indexes, func(y Index) bool { return y.Name != nil && *y.Name == *x.Name }) {
		return Errorf(EINVALID, "%s.index.name: the table already has an index '%s'", path, *x.Name)
	}
	if x.IndexType == "PRIMARY_KEY" && slices.ContainsFunc(t.Indexes, func(y Index) bool { return y.IndexType == "PRIMARY_KEY" }) {
		return Errorf(EINVALID, "%s.index.indexType: the table already has a primary key", path)
	}
	t.Indexes = append(t.Indexes, x)
	return nil
}

// changeColumns applies one column change to the field full[at:] names
// within cols (the fields at depth at of the column path full) and returns
// the changed list; cols itself is not modified.
func changeColumns(cols []Column, full []string, at int, u Update, path string) ([]Column, error) {
	member := path + ".fieldName"
	if u.Type == UpdateRenameColumn {
		member = path + ".oldFieldName"
	}
	shown := strings.Join(full[:at+1], ".")
	j := slices.IndexFunc(cols, func(c Column) bool { return c.Name == full[at] })
	if at < len(full)-1 {
		if u.Type == UpdateColumnDefaultValue || u.Type == UpdateColumnAutoIncrement ||
			(u.Type == UpdateAddColumn && (u.DefaultValue != nil || (u.AutoIncrement != nil && *u.AutoIncrement))) {
			return nil, Errorf(EINVALID, "%s: a nested field has no default value or auto-increment; only a column has", member)
		}
		if j < 0 {
			return nil, Errorf(EINVALID, "%s: '%s' does not exist", member, shown)
		}
		if cols[j].Type.Name != "struct" {
			return nil, Errorf(EINVALID, "%s: '%s' is a %s, not a struct with fields", member, shown, cols[j].Type.Keyword())
		}
		sub, err := changeColumns(fieldsToColumns(cols[j].Type.Fields), full, at+1, u, path)
		if err != nil {
			return nil, err
		}
		out := slices.Clone(cols)
		t := *out[j].Type
		t.Fields = columnsToFields(sub)
		out[j].Type = &t
		return out, nil
	}
	if u.Type == UpdateAddColumn {
		if j >= 0 {
			return nil, Errorf(EINVALID, "%s: '%s' already exists", member, shown)
		}
		c := Column{Name: full[at], Type: u.ColumnType.clone(), Comment: u.Comment.Value, Nullable: u.Nullable,
			AutoIncrement: u.AutoIncrement, DefaultValue: u.DefaultValue}
		return insertColumn(slices.Clone(cols), c, u.Position, path+".position")
	}
	if j < 0 {
		if u.Type == UpdateDeleteColumn && u.IfExists != nil && *u.IfExists {
			return cols, nil
		}
		return nil, Errorf(EINVALID, "%s: '%s' does not exist", member, shown)
	}
	out := slices.Clone(cols)
	c := &out[j]
	switch u.Type {
	case UpdateRenameColumn:
		if *u.NewFieldName != c.Name && slices.ContainsFunc(cols, func(x Column) bool { return x.Name == *u.NewFieldName }) {
			return nil, Errorf(EINVALID, "%s.newFieldName: '%s' already exists", path, *u.NewFieldName)
		}
		c.Name = *u.NewFieldName
	case UpdateColumnType:
		c.Type = u.NewType.clone()
	case UpdateColumnComment:
		c.Comment = u.NewComment.Value
	case UpdateColumnNullability:
		c.Nullable = u.Nullable
	case UpdateColumnDefaultValue:
		c.DefaultValue = u.NewDefaultValue
	case UpdateColumnAutoIncrement:
		c.AutoIncrement = u.AutoIncrement
	case UpdateColumnPosition:
		if u.NewPosition.Kind == "after" && u.NewPosition.After == c.Name {
			return nil, Errorf(EINVALID, "%s.newPosition.after: a column cannot follow itself", path)
		}
		moved := *c
		return insertColumn(slices.Delete(out, j, j+1), moved, u.NewPosition, path+".newPosition")
	case UpdateDeleteColumn:
		return slices.Delete(out, j, j+1), nil
	}
	return out, nil
}

// insertColumn inserts c into cols at pos (nil or "default": last).
func insertColumn(cols []Column, c Column, pos *ColumnPosition, path string) ([]Column, error) {
	switch {
	case pos == nil || pos.Kind == "default":
		return append(cols, c), nil
	case pos.Kind == "first":
		return slices.Insert(cols, 0, c), nil
	}
	k := slices.IndexFunc(cols, func(x Column) bool { return x.Name == pos.After })
	if k < 0 {
		return nil, Errorf(EINVALID, "%s.after: '%s' does not exist", path, pos.After)
	}
	return slices.Insert(cols, k+1, c), nil
}

func fieldsToColumns(fields []StructField) []Column {
	out := make([]Column, len(fields))
	for i, f := range fields {
		out[i] = Column{Name: f.Name, Type: f.Type, Comment: f.Comment, Nullable: f.Nullable}
	}
	return out
}

func columnsToFields(cols []Column) []StructField {
	out := make([]StructField, len(cols))
	for i, c := range cols {
		out[i] = StructField{Name: c.Name, Type: c.Type, Comment: c.Comment, Nullable: c.Nullable}
	}
	return out
}

// cloneColumns copies columns deeply enough that the copy shares no type
// with the original.
func cloneColumns(cols []Column) []Column {
	out := slices.Clone(cols)
	for i := range out {
		out[i].Type = out[i].Type.clone()
	}
	return out
}

// clone copies t and every type within it.
func (t *Type) clone() *Type {
	if t == nil {
		return nil
	}
	c := *t
	if t.Fields != nil {
		c.Fields = make([]StructField, len(t.Fields))
		for i, f := range t.Fields {
			f.Type = f.Type.clone()
			c.Fields[i] = f
		}
	}
	c.ElementType, c.KeyType, c.ValueType = t.ElementType.clone(), t.KeyType.clone(), t.ValueType.clone()
	if t.Types != nil {
		c.Types = make([]*Type, len(t.Types))
		for i, u := range t.Types {
			c.Types[i] = u.clone()
		}
	}
	return &c
}
