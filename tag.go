package semcat

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Tag is a label defined in a metalake and attached to catalog objects.
type Tag struct {
	ID         int64             `json:"-"`
	Name       string            `json:"name"`
	Comment    *string           `json:"comment"`
	Properties map[string]string `json:"properties"`
	// AllowedValues are the values an assignment of the tag may carry, as
	// in Gravitino: absent (nil) any, [] none.
	AllowedValues []string `json:"allowedValues,omitzero"`
	Audit         Audit    `json:"audit"`
}

// TagCreate is the body of a tag creation request.
type TagCreate struct {
	Name          string            `json:"name"`
	Comment       *string           `json:"comment"`
	Properties    map[string]string `json:"properties"`
	AllowedValues []string          `json:"allowedValues"`
}

// MaxTagValueLength bounds a tag's allowed value, as in Gravitino.
const MaxTagValueLength = 256

// Validate checks the request and drops repeated allowed values.
func (c *TagCreate) Validate() error {
	if err := ValidateName("name", c.Name); err != nil {
		return err
	}
	if c.AllowedValues != nil {
		seen := map[string]bool{}
		values := []string{}
		for i, v := range c.AllowedValues {
			if strings.TrimSpace(v) == "" || len([]rune(v)) > MaxTagValueLength {
				return Errorf(EINVALID, "allowedValues[%d]: must be 1-%d characters, not blank", i, MaxTagValueLength)
			}
			if !seen[v] {
				seen[v] = true
				values = append(values, v)
			}
		}
		c.AllowedValues = values
	}
	return ValidateProperties("properties", c.Properties)
}

// TaggedObject is an object a tag is attached to, as Gravitino lists it.
type TaggedObject struct {
	Type     EntityKind `json:"type"`
	FullName string     `json:"fullName"`
}

// TagAssociation is the body of a request that changes an object's tags.
type TagAssociation struct {
	TagsToAdd    []string `json:"tagsToAdd"`
	TagsToRemove []string `json:"tagsToRemove"`
}

// Validate checks the tag names, and that the request names at least one
// of the two lists (as Gravitino's TagsAssociateRequest does).
func (a *TagAssociation) Validate() error {
	if a.TagsToAdd == nil && a.TagsToRemove == nil {
		return Errorf(EINVALID, "tagsToAdd, tagsToRemove: give at least one of the two lists")
	}
	for i, n := range a.TagsToAdd {
		if err := ValidateName(fmt.Sprintf("tagsToAdd[%d]", i), n); err != nil {
			return err
		}
	}
	for i, n := range a.TagsToRemove {
		if err := ValidateName(fmt.Sprintf("tagsToRemove[%d]", i), n); err != nil {
			return err
		}
	}
	return nil
}

// Effective is the change a request makes: a tag named in both lists is
// left as it is (as in Gravitino), rather than added and then removed.
func (a TagAssociation) Effective() TagAssociation {
	both := func(n string) bool { return slices.Contains(a.TagsToAdd, n) && slices.Contains(a.TagsToRemove, n) }
	var out TagAssociation
	for _, n := range a.TagsToAdd {
		if !both(n) {
			out.TagsToAdd = append(out.TagsToAdd, n)
		}
	}
	for _, n := range a.TagsToRemove {
		if !both(n) {
			out.TagsToRemove = append(out.TagsToRemove, n)
		}
	}
	return out
}

// ObjectRef names a taggable object of a metalake by type and dotted full
// name without the metalake ("rel.s1.orders").
type ObjectRef struct {
	Type     EntityKind
	FullName string
}

// ParseObjectRef checks the type and splits the full name into a namespace
// and name.
func ParseObjectRef(metalake, typ, fullName string) (ObjectRef, Namespace, string, error) {
	kind := EntityKind(typ)
	want := map[EntityKind]int{KindCatalog: 1, KindSchema: 2, KindTable: 3, KindSemanticModel: 3}
	n, ok := want[kind]
	if !ok {
		return ObjectRef{}, Namespace{}, "", Errorf(EINVALID, "type: unsupported object type '%s' (want catalog, schema, table or semantic_model)", typ)
	}
	parts := strings.Split(fullName, ".")
	if len(parts) != n {
		return ObjectRef{}, Namespace{}, "", Errorf(EINVALID, "fullName: a %s is named by %d dotted parts, got '%s'", typ, n, fullName)
	}
	for _, p := range parts {
		if err := ValidateName("fullName", p); err != nil {
			return ObjectRef{}, Namespace{}, "", err
		}
	}
	ns := Namespace{Metalake: metalake}
	if n >= 2 {
		ns.Catalog = parts[0]
	}
	if n >= 3 {
		ns.Schema = parts[1]
	}
	return ObjectRef{Type: kind, FullName: fullName}, ns, parts[n-1], nil
}

// TagService manages tags and their association with objects.
type TagService interface {
	CreateTag(ctx context.Context, metalake string, req TagCreate) (*Tag, Position, error)
	GetTag(ctx context.Context, metalake, name string) (*Tag, error)
	ListTags(ctx context.Context, metalake string) ([]string, error)
	DropTag(ctx context.Context, metalake, name string) (bool, Position, error)
	// AlterTag applies rename, updateComment, setProperty and
	// removeProperty updates, all or nothing.
	AlterTag(ctx context.Context, metalake, name string, updates []Update) (*Tag, Position, error)
	// ListTagInfos lists a metalake's tags in name order.
	ListTagInfos(ctx context.Context, metalake string) ([]*Tag, error)
	// TagObjects lists the objects a tag is attached to, by type and name.
	TagObjects(ctx context.Context, metalake, name string) ([]TaggedObject, error)
	ListObjectTags(ctx context.Context, metalake string, obj ObjectRef) ([]string, error)
	AssociateTags(ctx context.Context, metalake string, obj ObjectRef, req TagAssociation) ([]string, Position, error)
}
