// Package semcat is the domain of the semcat metadata catalog: plain types for
// metalakes, catalogs, schemas, tables, semantic models, metrics and tags, the
// rules that validate them, the update operations that change them, and the
// service interfaces that the storage and HTTP packages implement and use.
// It performs no I/O.
package semcat

import (
	"time"
	"unicode/utf8"
)

// EntityKind names a kind of catalog entity. The values are the lower-case
// object types used in paths and in the outbox.
type EntityKind string

// Entity kinds.
const (
	KindMetalake      EntityKind = "metalake"
	KindCatalog       EntityKind = "catalog"
	KindSchema        EntityKind = "schema"
	KindTable         EntityKind = "table"
	KindSemanticModel EntityKind = "semantic_model"
	KindMetric        EntityKind = "metric"
	KindTag           EntityKind = "tag"
	KindUser          EntityKind = "user"
	KindRole          EntityKind = "role"
	KindGroup         EntityKind = "group"
	// KindColumn is a table's top-level column as an object tags attach
	// to ("catalog.schema.table.column"), as in Gravitino.
	KindColumn EntityKind = "column"
)

// Title returns the kind as it appears in exception names ("SemanticModel").
func (k EntityKind) Title() string {
	switch k {
	case KindMetalake:
		return "Metalake"
	case KindCatalog:
		return "Catalog"
	case KindSchema:
		return "Schema"
	case KindTable:
		return "Table"
	case KindSemanticModel:
		return "SemanticModel"
	case KindMetric:
		return "Metric"
	case KindTag:
		return "Tag"
	case KindUser:
		return "User"
	case KindRole:
		return "Role"
	case KindGroup:
		return "Group"
	case KindColumn:
		return "Column"
	case KindPolicy:
		return "Policy"
	}
	return "Entity"
}

// Limits on names and properties (SPEC §1).
const (
	MaxNameLength          = 64
	MaxPropertyKeyLength   = 128
	MaxPropertyValueLength = 4096
)

// namePattern is the pattern every entity name matches (SPEC §1); \w is
// an ASCII letter, digit or underscore.
const namePattern = `^\w[\w/=-]{0,63}$`

// validName reports whether name matches namePattern. Every column and
// nested field name of a table is checked, so this is a byte loop, not
// the regular expression (which was 1.3% of semcat's CPU in a bulk load).
func validName(name string) bool {
	if len(name) == 0 || len(name) > MaxNameLength {
		return false
	}
	for i := 0; i < len(name); i++ {
		switch c := name[i]; {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9', c == '_':
		case i > 0 && (c == '/' || c == '=' || c == '-'):
		default:
			return false
		}
	}
	return true
}

// ValidateName checks an entity name; field names the JSON path reported in
// the error.
func ValidateName(field, name string) error {
	switch {
	case nameOK(name):
		return nil
	case name == "":
		return Errorf(EINVALID, "%s: name is required", field)
	case name == "*":
		return Errorf(EINVALID, "%s: '*' is a reserved name", field)
	default:
		return Errorf(EINVALID, "%s: invalid name '%s': must be 1-64 characters matching %s", field, name, namePattern)
	}
}

// nameOK reports whether ValidateName accepts name.
func nameOK(name string) bool { return name != "*" && validName(name) }

// ValidateProperties checks a property map's keys and values.
func ValidateProperties(field string, props map[string]string) error {
	for k, v := range props {
		if n := utf8.RuneCountInString(k); n < 1 || n > MaxPropertyKeyLength {
			return Errorf(EINVALID, "%s: property key '%s' must be 1-%d characters", field, truncate(k, 40), MaxPropertyKeyLength)
		}
		if utf8.RuneCountInString(v) > MaxPropertyValueLength {
			return Errorf(EINVALID, "%s.%s: property value longer than %d characters", field, k, MaxPropertyValueLength)
		}
	}
	return nil
}

func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n]) + "…"
}

// Audit records who created and last modified an entity, and when. The
// server sets it; clients never write it.
type Audit struct {
	Creator          string     `json:"creator"`
	CreateTime       time.Time  `json:"createTime"`
	LastModifier     string     `json:"lastModifier,omitempty"`
	LastModifiedTime *time.Time `json:"lastModifiedTime,omitempty"`
}

// NewAudit returns the audit of an entity created by user at now.
func NewAudit(user string, now time.Time) Audit {
	now = now.UTC().Truncate(time.Millisecond)
	return Audit{Creator: user, CreateTime: now, LastModifier: user, LastModifiedTime: &now}
}

// Touch records a modification by user at now.
func (a *Audit) Touch(user string, now time.Time) {
	now = now.UTC().Truncate(time.Millisecond)
	a.LastModifier = user
	a.LastModifiedTime = &now
}

// NameIdentifier identifies an entity by its parent namespace (the full path
// from the metalake down to the parent) and its name.
type NameIdentifier struct {
	Namespace []string `json:"namespace"`
	Name      string   `json:"name"`
}

// Namespace addresses an entity's parents; fields below the addressed level
// are empty.
type Namespace struct {
	Metalake string
	Catalog  string
	Schema   string
}

// Path returns the namespace as a list from the metalake down.
func (n Namespace) Path() []string {
	p := []string{n.Metalake}
	if n.Catalog != "" {
		p = append(p, n.Catalog)
	}
	if n.Schema != "" {
		p = append(p, n.Schema)
	}
	return p
}
