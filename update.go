package semcat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"unicode/utf8"
)

// Update types (the "@type" of an update).
const (
	UpdateRename            = "rename"
	UpdateComment           = "updateComment"
	UpdateSetProperty       = "setProperty"
	UpdateRemoveProperty    = "removeProperty"
	UpdateReplaceColumns    = "replaceColumns"
	UpdateReplaceDefinition = "replaceDefinition"

	// Gravitino's table changes (table_change.go).
	UpdateAddColumn           = "addColumn"
	UpdateRenameColumn        = "renameColumn"
	UpdateColumnType          = "updateColumnType"
	UpdateColumnComment       = "updateColumnComment"
	UpdateColumnPosition      = "updateColumnPosition"
	UpdateColumnNullability   = "updateColumnNullability"
	UpdateColumnDefaultValue  = "updateColumnDefaultValue"
	UpdateColumnAutoIncrement = "updateColumnAutoIncrement"
	UpdateDeleteColumn        = "deleteColumn"
	UpdateAddTableIndex       = "addTableIndex"
	UpdateDeleteTableIndex    = "deleteTableIndex"
)

// OptionalString is a JSON string that distinguishes an absent member (Set is
// false) from an explicit null (Set true, Value nil).
type OptionalString struct {
	Set   bool
	Value *string
}

// UnmarshalJSON implements json.Unmarshaler; it is called for null too.
func (o *OptionalString) UnmarshalJSON(b []byte) error {
	o.Set = true
	if bytes.Equal(b, []byte("null")) {
		o.Value = nil
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	o.Value = &s
	return nil
}

// MarshalJSON implements json.Marshaler.
func (o OptionalString) MarshalJSON() ([]byte, error) {
	return json.Marshal(o.Value)
}

// IsZero lets `omitzero` drop an absent member.
func (o OptionalString) IsZero() bool { return !o.Set }

// Update is one change in an alter request. Which members are meaningful
// depends on Type (updateMembers); Validate rejects members that do not
// belong to it. The column and index members are Gravitino's table changes
// (table_change.go).
type Update struct {
	Type    string  `json:"@type"`
	NewName *string `json:"newName,omitempty"`
	// NewSchemaName, on a table's rename, moves it to another schema of
	// its catalog (Gravitino's TableChange.rename(name, schema)).
	NewSchemaName *string        `json:"newSchemaName,omitempty"`
	NewComment    OptionalString `json:"newComment,omitzero"`
	Property      *string        `json:"property,omitempty"`
	Value         *string        `json:"value,omitempty"`
	Columns       []Column       `json:"columns,omitempty"`
	Definition    *Definition    `json:"definition,omitempty"`

	FieldName       []string        `json:"fieldName,omitempty"`
	OldFieldName    []string        `json:"oldFieldName,omitempty"`
	NewFieldName    *string         `json:"newFieldName,omitempty"`
	ColumnType      *Type           `json:"type,omitempty"`
	Comment         OptionalString  `json:"comment,omitzero"`
	Position        *ColumnPosition `json:"position,omitempty"`
	DefaultValue    *FunctionArg    `json:"defaultValue,omitempty"`
	Nullable        *bool           `json:"nullable,omitempty"`
	AutoIncrement   *bool           `json:"autoIncrement,omitempty"`
	NewType         *Type           `json:"newType,omitempty"`
	NewPosition     *ColumnPosition `json:"newPosition,omitempty"`
	NewDefaultValue *FunctionArg    `json:"newDefaultValue,omitempty"`
	IfExists        *bool           `json:"ifExists,omitempty"`
	Index           *Index          `json:"index,omitempty"`
	IndexName       *string         `json:"name,omitempty"`
}

// UpdatesRequest is the body of every alter (PUT) request.
type UpdatesRequest struct {
	Updates []Update `json:"updates"`
}

// updateMembers lists, for each update type, the members it needs and the
// ones it may carry besides.
var updateMembers = map[string]struct{ need, may []string }{
	UpdateRename:              {need: []string{"newName"}, may: []string{"newSchemaName"}},
	UpdateComment:             {need: []string{"newComment"}},
	UpdateSetProperty:         {need: []string{"property", "value"}},
	UpdateRemoveProperty:      {need: []string{"property"}},
	UpdateReplaceColumns:      {need: []string{"columns"}},
	UpdateReplaceDefinition:   {need: []string{"definition"}},
	UpdateAddColumn:           {need: []string{"fieldName", "type"}, may: []string{"comment", "position", "defaultValue", "nullable", "autoIncrement"}},
	UpdateRenameColumn:        {need: []string{"oldFieldName", "newFieldName"}},
	UpdateColumnType:          {need: []string{"fieldName", "newType"}},
	UpdateColumnComment:       {need: []string{"fieldName", "newComment"}},
	UpdateColumnPosition:      {need: []string{"fieldName", "newPosition"}},
	UpdateColumnNullability:   {need: []string{"fieldName", "nullable"}},
	UpdateColumnDefaultValue:  {need: []string{"fieldName", "newDefaultValue"}},
	UpdateColumnAutoIncrement: {need: []string{"fieldName", "autoIncrement"}},
	UpdateDeleteColumn:        {need: []string{"fieldName"}, may: []string{"ifExists"}},
	UpdateAddTableIndex:       {need: []string{"index"}},
	UpdateDeleteTableIndex:    {need: []string{"name"}, may: []string{"ifExists"}},
}

// members reports which members u carries, in the order of the wire form.
func (u Update) members() []string {
	var out []string
	for _, m := range []struct {
		name string
		set  bool
	}{
		{"newName", u.NewName != nil}, {"newSchemaName", u.NewSchemaName != nil}, {"newComment", u.NewComment.Set}, {"property", u.Property != nil},
		{"value", u.Value != nil}, {"columns", u.Columns != nil}, {"definition", u.Definition != nil},
		{"fieldName", u.FieldName != nil}, {"oldFieldName", u.OldFieldName != nil}, {"newFieldName", u.NewFieldName != nil},
		{"type", u.ColumnType != nil}, {"comment", u.Comment.Set}, {"position", u.Position != nil},
		{"defaultValue", u.DefaultValue != nil}, {"nullable", u.Nullable != nil}, {"autoIncrement", u.AutoIncrement != nil},
		{"newType", u.NewType != nil}, {"newPosition", u.NewPosition != nil}, {"newDefaultValue", u.NewDefaultValue != nil},
		{"ifExists", u.IfExists != nil}, {"index", u.Index != nil}, {"name", u.IndexName != nil},
	} {
		if m.set {
			out = append(out, m.name)
		}
	}
	return out
}

// validateUpdate checks that u is one of the allowed types and carries
// exactly the members its type needs (and may carry); only a table's
// rename (moves) may carry newSchemaName. path is the JSON path of u.
func validateUpdate(path string, u Update, moves bool, allowed ...string) error {
	if u.Type == "" {
		return Errorf(EINVALID, "%s.@type: update type is required", path)
	}
	if !slices.Contains(allowed, u.Type) {
		return Errorf(EINVALID, "%s.@type: unsupported update type '%s' (want one of %v)", path, u.Type, allowed)
	}
	spec := updateMembers[u.Type]
	has := u.members()
	for _, n := range spec.need {
		if !slices.Contains(has, n) {
			return Errorf(EINVALID, "%s.%s: required for update type '%s'", path, n, u.Type)
		}
	}
	for _, m := range has {
		if !slices.Contains(spec.need, m) && !slices.Contains(spec.may, m) {
			return Errorf(EINVALID, "%s.%s: not allowed for update type '%s'", path, m, u.Type)
		}
	}
	switch u.Type {
	case UpdateRename:
		if u.NewSchemaName != nil {
			if !moves {
				return Errorf(EINVALID, "%s.newSchemaName: not allowed for update type 'rename' (only a table moves to another schema)", path)
			}
			if err := ValidateName(path+".newSchemaName", *u.NewSchemaName); err != nil {
				return err
			}
		}
		return ValidateName(path+".newName", *u.NewName)
	case UpdateSetProperty:
		if n := utf8.RuneCountInString(*u.Property); n < 1 || n > MaxPropertyKeyLength {
			return Errorf(EINVALID, "%s.property: property key '%s' must be 1-%d characters", path, truncate(*u.Property, 40), MaxPropertyKeyLength)
		}
		if utf8.RuneCountInString(*u.Value) > MaxPropertyValueLength {
			return Errorf(EINVALID, "%s.value: property value longer than %d characters", path, MaxPropertyValueLength)
		}
	case UpdateRemoveProperty:
		if *u.Property == "" {
			return Errorf(EINVALID, "%s.property: must not be empty", path)
		}
	}
	return nil
}

// ValidateUpdates checks a whole update list before anything is applied.
func ValidateUpdates(updates []Update, allowed ...string) error {
	return validateUpdates(updates, false, allowed...)
}

func validateUpdates(updates []Update, moves bool, allowed ...string) error {
	if len(updates) == 0 {
		return Errorf(EINVALID, "updates: at least one update is required")
	}
	for i, u := range updates {
		if err := validateUpdate(fmt.Sprintf("updates[%d]", i), u, moves, allowed...); err != nil {
			return err
		}
	}
	return nil
}

// CommonUpdates are the update types every entity accepts.
var CommonUpdates = []string{UpdateRename, UpdateComment, UpdateSetProperty, UpdateRemoveProperty}

// ApplyCommon applies a rename, comment or property update to the given
// fields. It reports false for update types it does not handle.
func ApplyCommon(u Update, name *string, comment **string, props *map[string]string) bool {
	switch u.Type {
	case UpdateRename:
		*name = *u.NewName
	case UpdateComment:
		*comment = u.NewComment.Value
	case UpdateSetProperty:
		if *props == nil {
			*props = map[string]string{}
		}
		(*props)[*u.Property] = *u.Value
	case UpdateRemoveProperty:
		delete(*props, *u.Property)
	default:
		return false
	}
	return true
}
