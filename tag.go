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

// TagValue is one assignment of a tag in Gravitino's tag-values request:
// the tag's name and, for a tag that takes values, one value (nil: none).
type TagValue struct {
	Name  string  `json:"name"`
	Value *string `json:"value"`
}

func (v TagValue) equal(o TagValue) bool {
	return v.Name == o.Name && (v.Value == nil) == (o.Value == nil) && (v.Value == nil || *v.Value == *o.Value)
}

// TagValuesMediaType is the content type of Gravitino's tag-values
// association request (SPEC §2.10); application/json is its tag-names one.
const TagValuesMediaType = "application/vnd.gravitino.v2+json"

// TagValuesAssociation is the body of Gravitino's tag-values request
// (content type application/vnd.gravitino.v2+json): tags to assign and
// unassign, each with or without a value.
type TagValuesAssociation struct {
	TagsToAdd    []TagValue `json:"tagsToAdd"`
	TagsToRemove []TagValue `json:"tagsToRemove"`
}

// Validate checks names and values as Gravitino does: at least one pair,
// values 1-256 characters and not blank, no pair in both lists, and no
// tag added both with and without a value.
func (a *TagValuesAssociation) Validate() error {
	if len(a.TagsToAdd) == 0 && len(a.TagsToRemove) == 0 {
		return Errorf(EINVALID, "tagsToAdd, tagsToRemove: give at least one tag value")
	}
	for _, l := range []struct {
		field string
		pairs []TagValue
	}{{"tagsToAdd", a.TagsToAdd}, {"tagsToRemove", a.TagsToRemove}} {
		for i, v := range l.pairs {
			path := fmt.Sprintf("%s[%d]", l.field, i)
			if err := ValidateName(path+".name", v.Name); err != nil {
				return err
			}
			if v.Value != nil && (strings.TrimSpace(*v.Value) == "" || len([]rune(*v.Value)) > MaxTagValueLength) {
				return Errorf(EINVALID, "%s.value: must be 1-%d characters, not blank", path, MaxTagValueLength)
			}
		}
	}
	valued := map[string]bool{}
	for i, v := range a.TagsToAdd {
		if was, seen := valued[v.Name]; seen && was != (v.Value != nil) {
			return Errorf(EINVALID, "tagsToAdd[%d]: tag '%s' is added both with and without a value", i, v.Name)
		}
		valued[v.Name] = v.Value != nil
	}
	for i, v := range a.TagsToRemove {
		if slices.ContainsFunc(a.TagsToAdd, v.equal) {
			return Errorf(EINVALID, "tagsToRemove[%d]: the same tag value is in tagsToAdd", i)
		}
	}
	return nil
}

// TagAssignments is the change an association makes, in the one form both
// requests take: Valued tells Gravitino's tag-values request (a repeated
// assignment is skipped, a valueless removal removes the valueless
// assignment only) from its tag-names one (adding a tag the object holds
// is TagAlreadyAssociatedException, removing a tag removes all its
// values). Pairs in both lists are dropped from both.
type TagAssignments struct {
	Add, Remove []TagValue
	Valued      bool
}

// Assignments is the change of a tag-names request.
func (a TagAssociation) Assignments() TagAssignments {
	e := a.Effective()
	out := TagAssignments{}
	for _, n := range e.TagsToAdd {
		out.Add = append(out.Add, TagValue{Name: n})
	}
	for _, n := range e.TagsToRemove {
		out.Remove = append(out.Remove, TagValue{Name: n})
	}
	return out
}

// Assignments is the change of a tag-values request.
func (a TagValuesAssociation) Assignments() TagAssignments {
	out := TagAssignments{Valued: true}
	for _, v := range a.TagsToAdd {
		if !slices.ContainsFunc(a.TagsToRemove, v.equal) {
			out.Add = append(out.Add, v)
		}
	}
	for _, v := range a.TagsToRemove {
		if !slices.ContainsFunc(a.TagsToAdd, v.equal) {
			out.Remove = append(out.Remove, v)
		}
	}
	return out
}

// ObjectTag is a tag as an object carries it (SPEC §2.10, Gravitino's
// object tag listing): its own tags, then those it inherits from its
// schema and catalog, nearest first, each name once.
type ObjectTag struct {
	*Tag
	// Inherited is true for a tag of an ancestor.
	Inherited bool `json:"inherited"`
	// AssignmentValues are the values of the assignment ([] for one
	// without a value).
	AssignmentValues []string `json:"assignmentValues"`
}

// ObjectRef names a taggable object of a metalake by type and dotted full
// name without the metalake ("rel.s1.orders").
type ObjectRef struct {
	Type     EntityKind
	FullName string
}

// objectRefParts is how many dotted parts name an object of each kind
// ParseObjectRef accepts.
var objectRefParts = map[EntityKind]int{KindCatalog: 1, KindSchema: 2, KindTable: 3, KindSemanticModel: 3}

// ParseObjectRef checks the type and splits the full name into a namespace
// and name.
func ParseObjectRef(metalake, typ, fullName string) (ObjectRef, Namespace, string, error) {
	kind := EntityKind(typ)
	n, ok := objectRefParts[kind]
	if !ok {
		return ObjectRef{}, Namespace{}, "", Errorf(EINVALID, "type: unsupported object type '%s' (want catalog, schema, table or semantic_model)", typ)
	}
	if strings.Count(fullName, ".")+1 != n {
		return ObjectRef{}, Namespace{}, "", Errorf(EINVALID, "fullName: a %s is named by %d dotted parts, got '%s'", typ, n, fullName)
	}
	// The parts as substrings of fullName: authorization parses every
	// object of a listing, 10,000 and more.
	var parts [3]string
	i := 0
	for p := range strings.SplitSeq(fullName, ".") {
		if err := ValidateName("fullName", p); err != nil {
			return ObjectRef{}, Namespace{}, "", err
		}
		parts[i] = p
		i++
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

// ParseTaggable is ParseObjectRef for the objects tags attach to, which
// include a table's top-level columns, named "catalog.schema.table.column".
func ParseTaggable(metalake, typ, fullName string) (ObjectRef, error) {
	if EntityKind(typ) != KindColumn {
		obj, _, _, err := ParseObjectRef(metalake, typ, fullName)
		return obj, err
	}
	parts := strings.Split(fullName, ".")
	if len(parts) != 4 {
		return ObjectRef{}, Errorf(EINVALID, "fullName: a column is named by 4 dotted parts, got '%s'", fullName)
	}
	for _, p := range parts[:3] {
		if err := ValidateName("fullName", p); err != nil {
			return ObjectRef{}, err
		}
	}
	if parts[3] == "" {
		return ObjectRef{}, Errorf(EINVALID, "fullName: the column name is empty in '%s'", fullName)
	}
	return ObjectRef{Type: KindColumn, FullName: fullName}, nil
}

// ColumnOf splits the reference of a column (ParseTaggable) into its
// table's reference and the column's name.
func (o ObjectRef) ColumnOf() (table ObjectRef, column string) {
	i := strings.LastIndexByte(o.FullName, '.')
	return ObjectRef{Type: KindTable, FullName: o.FullName[:i]}, o.FullName[i+1:]
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
	// TagObjects lists the objects a tag is attached to, by type and name;
	// a value other than "" keeps those whose assignment has that value.
	TagObjects(ctx context.Context, metalake, name, value string) ([]TaggedObject, error)
	// ListObjectTags lists the names of an object's tags, its own and
	// inherited (see ObjectTag).
	ListObjectTags(ctx context.Context, metalake string, obj ObjectRef) ([]string, error)
	// ObjectTagInfos lists an object's tags, its own and inherited.
	ObjectTagInfos(ctx context.Context, metalake string, obj ObjectRef) ([]*ObjectTag, error)
	// AssociateTags assigns and unassigns tags of an object (Gravitino's
	// tag-names and tag-values requests, as TagAssignments) and returns the
	// names of its own tags afterwards. Tags that do not exist are ignored.
	AssociateTags(ctx context.Context, metalake string, obj ObjectRef, req TagAssignments) ([]string, Position, error)
}
