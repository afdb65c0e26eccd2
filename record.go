package semcat

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"
)

// EntityRecord is the current state of one searchable entity — a catalog,
// schema, table, semantic model or metric — with the names and ids of its
// ancestors: everything its search document and its metadata are made of.
type EntityRecord struct {
	Kind                                     EntityKind
	ID                                       int64
	MetalakeID, CatalogID, SchemaID, ModelID int64
	Metalake, Catalog, Schema, Model         string
	Name                                     string
	Comment                                  *string
	Properties                               map[string]string
	Tags                                     []string
	Policies                                 []string // its own policies (SPEC §2.10), in byte order
	// Owner is the name of the entity's owner (a metric's: its model's),
	// or "" when it has none.
	Owner       string
	Audit       Audit
	CatalogType CatalogType
	Columns     []Column    // tables
	Definition  *Definition // semantic models
	Metric      *Metric     // metrics
}

// Namespace returns the entity's parent path from the metalake down.
func (e *EntityRecord) Namespace() []string {
	var ns []string
	switch e.Kind {
	case KindCatalog:
		ns = []string{e.Metalake}
	case KindSchema:
		ns = []string{e.Metalake, e.Catalog}
	case KindTable, KindSemanticModel:
		ns = []string{e.Metalake, e.Catalog, e.Schema}
	case KindMetric:
		ns = []string{e.Metalake, e.Catalog, e.Schema, e.Model}
	}
	return ns
}

// Identifier returns the dotted full identifier from the metalake down.
func (e *EntityRecord) Identifier() string {
	return strings.Join(append(e.Namespace(), e.Name), ".")
}

// MetadataPart is one scope of an entity's metadata.
type MetadataPart struct {
	Properties map[string]string `json:"properties"`
	Tags       []string          `json:"tags"`
}

// Metadata is an entity's metadata (SPEC §2.5, §4.2): user metadata is its
// properties and tags; system metadata is derived by the server.
type Metadata struct {
	System MetadataPart `json:"system"`
	User   MetadataPart `json:"user"`
}

// Metadata derives the entity's system and user metadata.
func (e *EntityRecord) Metadata() Metadata {
	sys := map[string]string{
		"entity-name":   e.Name,
		"entity-type":   string(e.Kind),
		"creation-time": e.Audit.CreateTime.UTC().Format(time.RFC3339Nano),
		"creator":       e.Audit.Creator,
	}
	if e.Comment != nil {
		sys["comment"] = *e.Comment
	}
	if len(e.Policies) > 0 {
		sys[PoliciesProperty] = strings.Join(e.Policies, ", ")
	}
	if e.Owner != "" {
		sys["owner"] = e.Owner
	}
	sysTags := []string{}
	switch e.Kind {
	case KindTable:
		sys["schema"] = ColumnsDDL(e.Columns)
	case KindSemanticModel:
		if d := e.Definition; d != nil {
			var records, datasets, sources, ai []string
			for _, ds := range d.Datasets {
				var fields []string
				for _, f := range ds.Fields {
					t := "Opaque"
					if f.Datatype != nil {
						t = string(*f.Datatype)
					}
					fields = append(fields, f.Name+" "+t)
				}
				records = append(records, ds.Name+" struct<"+strings.Join(fields, ", ")+">")
				datasets = append(datasets, ds.Name)
				if ds.Source != nil {
					sources = append(sources, strings.Join(append(append([]string{}, ds.Source.Namespace...), ds.Source.Name), "."))
				}
				ai = appendAIText(ai, ds.AIContext)
				sysTags = append(sysTags, ds.Name)
			}
			ai = appendAIText(ai, d.AIContext)
			sys["schema"] = strings.Join(records, ", ")
			sys["datasets"] = strings.Join(datasets, ", ")
			sys["sources"] = strings.Join(sources, ", ")
			if len(ai) > 0 {
				sys["ai-context"] = strings.Join(ai, " ")
			}
		}
	case KindMetric:
		if m := e.Metric; m != nil {
			var exprs, dialects []string
			if m.Expression != nil {
				for _, d := range m.Expression.Dialects {
					exprs = append(exprs, d.Expression)
					dialects = append(dialects, d.Dialect)
					sysTags = append(sysTags, d.Dialect)
				}
			}
			sys["expression"] = strings.Join(exprs, "\n")
			sys["dialects"] = strings.Join(dialects, ", ")
			sys["model"] = e.Model
			if m.Datatype != nil {
				sys["datatype"] = string(*m.Datatype)
			}
			if m.Description != nil {
				sys["description"] = *m.Description
			}
			if ai := appendAIText(nil, m.AIContext); len(ai) > 0 {
				sys["ai-context"] = strings.Join(ai, " ")
			}
		}
	}
	props := e.Properties
	if props == nil {
		props = map[string]string{}
	}
	tags := e.Tags
	if tags == nil {
		tags = []string{}
	}
	return Metadata{System: MetadataPart{Properties: sys, Tags: sysTags}, User: MetadataPart{Properties: props, Tags: tags}}
}

// appendAIText adds the searchable text of an aiContext: the string itself,
// or the string values of an object (instructions, synonyms, examples and
// any other keys), in key order.
func appendAIText(out []string, raw json.RawMessage) []string {
	if len(raw) == 0 {
		return out
	}
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return out
	}
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			if x != "" {
				out = append(out, x)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				walk(x[k])
			}
		case float64, bool:
			out = append(out, fmt.Sprint(x))
		}
	}
	walk(v)
	return out
}

// ColumnsDDL renders columns as "name type, ..." with nested types spelled
// struct<...>, list<...>, map<k, v>, union<...>.
func ColumnsDDL(cols []Column) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = c.Name + " " + typeDDL(c.Type)
	}
	return strings.Join(parts, ", ")
}

func typeDDL(t *Type) string {
	if t == nil {
		return "?"
	}
	switch t.Name {
	case "struct":
		fields := make([]string, len(t.Fields))
		for i, f := range t.Fields {
			fields[i] = f.Name + " " + typeDDL(f.Type)
		}
		return "struct<" + strings.Join(fields, ", ") + ">"
	case "list":
		return "list<" + typeDDL(t.ElementType) + ">"
	case "map":
		return "map<" + typeDDL(t.KeyType) + ", " + typeDDL(t.ValueType) + ">"
	case "union":
		types := make([]string, len(t.Types))
		for i, u := range t.Types {
			types[i] = typeDDL(u)
		}
		return "union<" + strings.Join(types, ", ") + ">"
	}
	return t.Name
}

// SchemaFields lists every field of the entity's schema at any depth as
// "dotted.path:type" (SPEC §5.3): a table's columns and nested fields (struct
// fields, and the struct fields of list elements, map values and union
// branches), or a semantic model's dataset fields as "dataset.field:datatype"
// together with each field alone ("field:datatype").
func (e *EntityRecord) SchemaFields() []string {
	var out []string
	switch e.Kind {
	case KindTable:
		for _, c := range e.Columns {
			out = appendFields(out, c.Name, c.Type)
		}
	case KindSemanticModel:
		if e.Definition == nil {
			return nil
		}
		for _, ds := range e.Definition.Datasets {
			for _, f := range ds.Fields {
				t := "opaque"
				if f.Datatype != nil {
					t = strings.ToLower(string(*f.Datatype))
				}
				out = append(out, f.Name+":"+t, ds.Name+"."+f.Name+":"+t)
			}
		}
	}
	return out
}

// appendFields adds the entry of the field at path and of every field
// nested in its type.
func appendFields(out []string, path string, t *Type) []string {
	if t == nil {
		return out
	}
	out = append(out, path+":"+t.Keyword())
	return appendNested(out, path, t)
}

// appendNested adds the fields nested in t, whose own entry is at path.
// Fields inside list elements, map values and union branches keep the path
// of the column: there is no name for "the element".
func appendNested(out []string, path string, t *Type) []string {
	switch t.Name {
	case "struct":
		for _, f := range t.Fields {
			out = appendFields(out, path+"."+f.Name, f.Type)
		}
	case "list":
		if t.ElementType != nil {
			out = appendNested(out, path, t.ElementType)
		}
	case "map":
		if t.ValueType != nil {
			out = appendNested(out, path, t.ValueType)
		}
	case "union":
		for _, u := range t.Types {
			if u != nil {
				out = appendNested(out, path, u)
			}
		}
	}
	return out
}

// Description is what describes the entity as a whole (SPEC §4.1, §5.4):
// its comment, or a metric's description.
func (e *EntityRecord) Description() string {
	if e.Kind == KindMetric && e.Metric != nil && e.Metric.Description != nil {
		return *e.Metric.Description
	}
	if e.Comment != nil {
		return *e.Comment
	}
	return ""
}

// ColumnText is a column's (or a model's dataset's or field's) dotted path
// and what a person wrote about it.
type ColumnText struct {
	Path string `json:"path"`
	Text string `json:"text,omitempty"`
}

// ColumnTexts lists the entity's columns at any depth with their comments,
// or a semantic model's datasets and their fields ("dataset.field") with
// their descriptions and labels (SPEC §4.1): what ranks as a column match.
func (e *EntityRecord) ColumnTexts() []ColumnText {
	var out []ColumnText
	switch e.Kind {
	case KindTable:
		for _, c := range e.Columns {
			out = append(out, ColumnText{Path: c.Name, Text: deref(c.Comment)})
			out = appendNestedTexts(out, c.Name, c.Type)
		}
	case KindSemanticModel:
		if e.Definition == nil {
			return nil
		}
		for _, ds := range e.Definition.Datasets {
			out = append(out, ColumnText{Path: ds.Name, Text: deref(ds.Description)})
			for _, f := range ds.Fields {
				text := deref(f.Description)
				if l := deref(f.Label); l != "" {
					text = strings.TrimSpace(l + " " + text)
				}
				out = append(out, ColumnText{Path: ds.Name + "." + f.Name, Text: text})
			}
		}
	}
	return out
}

// appendNestedTexts adds the struct fields nested in t (in list elements,
// map values and union branches too, under the column's path).
func appendNestedTexts(out []ColumnText, path string, t *Type) []ColumnText {
	if t == nil {
		return out
	}
	switch t.Name {
	case "struct":
		for _, f := range t.Fields {
			p := path + "." + f.Name
			out = append(out, ColumnText{Path: p, Text: deref(f.Comment)})
			out = appendNestedTexts(out, p, f.Type)
		}
	case "list":
		out = appendNestedTexts(out, path, t.ElementType)
	case "map":
		out = appendNestedTexts(out, path, t.ValueType)
	case "union":
		for _, u := range t.Types {
			out = appendNestedTexts(out, path, u)
		}
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
