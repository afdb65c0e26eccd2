package semcat

import (
	"bytes"
	"encoding/json"
	"fmt"
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
// depends on Type; Validate rejects members that do not belong to it.
type Update struct {
	Type       string         `json:"@type"`
	NewName    *string        `json:"newName,omitempty"`
	NewComment OptionalString `json:"newComment,omitzero"`
	Property   *string        `json:"property,omitempty"`
	Value      *string        `json:"value,omitempty"`
	Columns    []Column       `json:"columns,omitempty"`
	Definition *Definition    `json:"definition,omitempty"`
}

// UpdatesRequest is the body of every alter (PUT) request.
type UpdatesRequest struct {
	Updates []Update `json:"updates"`
}

// validateUpdate checks that u is one of the allowed types and carries
// exactly the members its type needs. path is the JSON path of u.
func validateUpdate(path string, u Update, allowed ...string) error {
	ok := false
	for _, a := range allowed {
		ok = ok || a == u.Type
	}
	if u.Type == "" {
		return Errorf(EINVALID, "%s.@type: update type is required", path)
	}
	if !ok {
		return Errorf(EINVALID, "%s.@type: unsupported update type '%s' (want one of %v)", path, u.Type, allowed)
	}
	has := map[string]bool{
		"newName":    u.NewName != nil,
		"newComment": u.NewComment.Set,
		"property":   u.Property != nil,
		"value":      u.Value != nil,
		"columns":    u.Columns != nil,
		"definition": u.Definition != nil,
	}
	var need []string
	switch u.Type {
	case UpdateRename:
		need = []string{"newName"}
	case UpdateComment:
		need = []string{"newComment"}
	case UpdateSetProperty:
		need = []string{"property", "value"}
	case UpdateRemoveProperty:
		need = []string{"property"}
	case UpdateReplaceColumns:
		need = []string{"columns"}
	case UpdateReplaceDefinition:
		need = []string{"definition"}
	}
	for _, n := range need {
		if !has[n] {
			return Errorf(EINVALID, "%s.%s: required for update type '%s'", path, n, u.Type)
		}
		delete(has, n)
	}
	for _, member := range []string{"newName", "newComment", "property", "value", "columns", "definition"} {
		if has[member] {
			return Errorf(EINVALID, "%s.%s: not allowed for update type '%s'", path, member, u.Type)
		}
	}
	switch u.Type {
	case UpdateRename:
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
	if len(updates) == 0 {
		return Errorf(EINVALID, "updates: at least one update is required")
	}
	for i, u := range updates {
		if err := validateUpdate(fmt.Sprintf("updates[%d]", i), u, allowed...); err != nil {
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
