package searchdoc

import (
	"maps"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/analyzers"
)

func idString(id int64) string {
	if id == 0 {
		return ""
	}
	return strconv.FormatInt(id, 10)
}

// Document builds the search document of an entity (SPEC §4).
func Document(r *semcat.EntityRecord) (map[string]any, error) {
	md := r.Metadata()
	fields := r.SchemaFields()
	cols := r.ColumnTexts()
	var comments []semcat.ColumnText
	for _, c := range cols {
		if c.Text != "" {
			comments = append(comments, c)
		}
	}
	entity := semcat.SearchEntity{Type: string(r.Kind), Namespace: r.Namespace(), Name: r.Name}
	stored := &Payload{Entity: entity, Metadata: md, Fields: fields, Comments: comments}
	if r.Kind == semcat.KindTable {
		stored = TablePayload(entity, md, r.Columns)
	}
	payload := EncodePayload(stored)
	user, userKeys, userValues := properties(md.User.Properties)
	// The system property "schema" (a table's columns, a model's dataset
	// records) is searchable by its words and whole, like any value, but
	// not through its key: schema: searches the schema fields instead, so
	// its keyed fields (s.schema, sx.schema) would be two more copies of
	// every column list that no query can reach.
	sysProps := md.System.Properties
	ddl, hasDDL := sysProps[SchemaProperty]
	if hasDDL {
		sysProps = maps.Clone(sysProps)
		delete(sysProps, SchemaProperty)
	}
	system, systemKeys, systemValues := properties(sysProps)
	systemValues = append(systemValues, md.System.Tags...)
	// Whole values keep the schema text whole; its words leave out the
	// field names, which the schema entries index (for words and prefixes)
	// already: WordsNotIn says why no search sees the difference.
	systemExact := systemValues
	if hasDDL {
		systemKeys = append(systemKeys, SchemaProperty)
		systemExact = append(slices.Clip(systemValues), ddl)
		if rest := analyzers.WordsNotIn(ddl, fieldNames(fields)); rest != "" {
			systemValues = append(slices.Clip(systemValues), rest)
		}
	}
	userValues = append(userValues, md.User.Tags...)

	doc := map[string]any{
		FieldType:                       string(r.Kind),
		FieldMetalake:                   r.Metalake,
		FieldCatalog:                    r.Catalog,
		FieldMetalakeID:                 idString(r.MetalakeID),
		FieldCatalogID:                  idString(r.CatalogID),
		FieldNameExact:                  r.Name,
		FieldSortKey:                    SortKey(r.Name, r.Identifier(), string(r.Kind)),
		FieldCreated:                    CreatedKey(r.Audit.CreateTime),
		FieldUserValues:                 userValues,
		FieldUserExact:                  userValues,
		FieldSystemValues:               systemValues,
		FieldSystemExact:                systemExact,
		FieldUserKeys:                   userKeys,
		FieldSystemKeys:                 systemKeys,
		FieldTags:                       md.User.Tags,
		FieldSystemTags:                 md.System.Tags,
		FieldTagsExact:                  md.User.Tags,
		FieldSystemTagsExact:            md.System.Tags,
		FieldPoliciesExact:              r.Policies,
		FieldStored:                     string(payload),
		trim(UserPropertyPrefix):        user,
		trim(UserPropertyExactPrefix):   user,
		trim(SystemPropertyPrefix):      system,
		trim(SystemPropertyExactPrefix): system,
	}
	if r.Owner != "" {
		doc[FieldOwner] = r.Owner
	}
	if r.Kind != semcat.KindCatalog {
		doc[FieldSchema] = r.Schema
		doc[FieldSchemaID] = idString(r.SchemaID)
	}
	switch r.Kind {
	case semcat.KindTable:
		doc[FieldTableID] = idString(r.ID)
	case semcat.KindSemanticModel, semcat.KindMetric:
		doc[FieldModelID] = idString(r.ModelID)
	}
	doc[FieldName] = r.Name
	if d := r.Description(); d != "" {
		doc[FieldDescription] = d
	}
	if len(cols) > 0 {
		texts := make([]string, 0, 2*len(cols))
		for _, c := range cols {
			texts = append(texts, analyzers.SchemaFieldName(c.Path))
			if c.Text != "" {
				texts = append(texts, c.Text)
			}
		}
		doc[FieldColumns] = texts
	}
	if len(fields) > 0 {
		doc[FieldSchemaFields] = fields
		doc[FieldHas] = []string{"schema"}
	}
	return doc, nil
}

// fieldNames is the set of the field names of schema entries, as the
// schema field analyzer indexes them.
func fieldNames(entries []string) map[string]struct{} {
	out := make(map[string]struct{}, len(entries))
	for _, e := range entries {
		out[analyzers.SchemaFieldName(e)] = struct{}{}
	}
	return out
}

func trim(prefix string) string { return strings.TrimSuffix(prefix, ".") }

// properties returns a property map keyed by lower-cased key (keys equal
// but for case share one field and hold all their values), the lower-cased
// keys, and every value, in key order.
func properties(p map[string]string) (map[string]any, []string, []string) {
	keys := make([]string, 0, len(p))
	for k := range p {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	byKey := map[string][]string{}
	var lower, values []string
	for _, k := range keys {
		lk := strings.ToLower(k)
		if _, seen := byKey[lk]; !seen {
			lower = append(lower, lk)
		}
		byKey[lk] = append(byKey[lk], p[k])
		values = append(values, p[k])
	}
	out := make(map[string]any, len(byKey))
	for k, vs := range byKey {
		if len(vs) == 1 {
			out[k] = vs[0]
		} else {
			out[k] = vs
		}
	}
	return out, lower, values
}
