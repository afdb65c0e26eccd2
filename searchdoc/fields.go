// Package searchdoc is semcat's search document: its fields, the index
// mapping that analyzes them (analyzers referenced by name), the result
// payload stored with it, and the builder of a document from an entity.
// The indexer writes these documents, the query package plans over their
// fields and the search package reads them back; none of the three owns
// them.
package searchdoc

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The layout of a search document: the contract between the indexer, which
// writes documents with these fields (Document), the index mapping, and the
// query package's planner, which queries them. One document per catalog, schema, table,
// semantic model and metric (SPEC §4.1).
//
// Analyzers are named in package analyzers: AnalyzerValue splits a value into
// the whole value, its words and their parts (SPEC §5.2); AnalyzerExact keeps
// a value whole, lower-cased; AnalyzerSchemaField turns "a.b:type" into the
// field name, its dotted path and name:type (SPEC §5.3); "keyword" keeps a
// value as it is.
const (
	// FieldType is the entity type: catalog, schema, table, semantic_model
	// or metric. keyword; facet "type".
	FieldType = "type"
	// FieldMetalake, FieldCatalog, FieldSchema hold the names of the
	// entity's ancestors (and its own name at its level: a catalog's
	// FieldCatalog is its name). keyword; facets "catalog" and "schema";
	// filters catalog= and schema=.
	FieldMetalake = "metalake"
	FieldCatalog  = "catalog"
	FieldSchema   = "schema_name"
	// FieldOwner is the name of the entity's owner (a metric's: its
	// model's). keyword; facet and filter "owner".
	FieldOwner = "owner_name"
	// FieldMetalakeID … FieldModelID hold the decimal ids of the entity's
	// ancestors and of itself at its own level, for visibility filters.
	// keyword.
	FieldMetalakeID = "metalake_id"
	FieldCatalogID  = "catalog_id"
	FieldSchemaID   = "schema_id"
	FieldTableID    = "table_id"
	FieldModelID    = "model_id"
	// FieldNameExact is the name lower-cased, whole. AnalyzerExact; an
	// exact-name match ranks highest.
	FieldNameExact = "name_exact"
	// FieldSortKey is the name, the dotted identifier from the metalake
	// down ("m.c.s.t"; a metric "m.c.s.model.metric") and the type
	// (SortKey): keyword with doc values, the one field every sort reads.
	// Searches read it from the indexer's per-segment columns.
	FieldSortKey = "sortkey"
	// FieldCreated is the creation time as CreatedKey. keyword with doc
	// values; sort created / -created. (A datetime field indexed about
	// nine range terms per document that no query used.)
	FieldCreated = "created"

	// FieldUserValues holds every user property value and every user tag;
	// FieldSystemValues every system property value and system tag (SPEC
	// §4.2). AnalyzerValue. Bare words and phrases search these.
	FieldUserValues   = "uv"
	FieldSystemValues = "sv"
	// FieldUserExact and FieldSystemExact hold the same values whole.
	// AnalyzerExact; a whole-value match ranks above a token match.
	FieldUserExact   = "uvx"
	FieldSystemExact = "svx"
	// UserPropertyPrefix + lower-cased key holds that user property's value
	// (AnalyzerValue), and UserPropertyExactPrefix + key the value whole
	// (AnalyzerExact); the System… prefixes likewise for system properties.
	// key:value queries search these.
	UserPropertyPrefix        = "u."
	UserPropertyExactPrefix   = "ux."
	SystemPropertyPrefix      = "s."
	SystemPropertyExactPrefix = "sx."
	// FieldUserKeys and FieldSystemKeys list the lower-cased property keys.
	// AnalyzerExact; key:* and properties:key.
	FieldUserKeys   = "ukeys"
	FieldSystemKeys = "skeys"
	// FieldTags holds the user tags as given and FieldSystemTags the
	// system tags (keyword; facet "tags" and the tag= filter, SPEC §2.6);
	// FieldTagsExact and FieldSystemTagsExact the same lower-cased
	// (AnalyzerExact; tags:t and tags:t*).
	FieldTags            = "tags"
	FieldSystemTags      = "stags"
	FieldTagsExact       = "tags_exact"
	FieldSystemTagsExact = "stags_exact"
	// FieldPoliciesExact holds the names of an entity's own policies
	// lower-cased (AnalyzerExact; policies:p and policies:p*, SPEC §2.10).
	FieldPoliciesExact = "policies_exact"
	// FieldSchemaFields holds one "dotted.path:type" entry per field at any
	// depth of the entity's schema (a table's columns; a model's datasets'
	// fields as "dataset.field:datatype"). AnalyzerSchemaField; schema:f,
	// schema:f*, f:TYPE, schema:a.b. Bare words search it too.
	FieldSchemaFields = "fields"
	// FieldName, FieldDescription and FieldColumns say where a word
	// matched, for ranking (SPEC §5.4): the entity's name as identifier
	// parts (AnalyzerName); its description (a comment, a metric's
	// description; AnalyzerText); its columns' names and comments at any
	// depth, or a model's datasets' and fields' names, descriptions and
	// labels (AnalyzerText). Bare words search them, with word forms,
	// typos and prefixes (query/rank.go).
	FieldName        = "n"
	FieldDescription = "d"
	FieldColumns     = "c"
	// FieldStored holds each document's result payload (Payload),
	// stored but not indexed, so that results need no database reads.
	FieldStored = "doc"
	// FieldHas lists markers: "schema" when the entity has a schema at all
	// (schema:*). keyword.
	FieldHas = "has"
)

// SortKey is FieldSortKey's value for an entity: names hold no zero byte,
// so the byte order of keys is the order by name, then identifier, then
// type — the last because a table and a semantic model of one schema may
// share a name and so an identifier, and cursors need a total order.
func SortKey(name, identifier, typ string) string {
	return name + "\x00" + identifier + "\x00" + typ
}

// SortKeyName is the name at the head of a sort key (SortKey).
func SortKeyName(key string) string {
	name, _, _ := strings.Cut(key, "\x00")
	return name
}

// SplitSortKey returns the parts SortKey joined into key; ok is false for a
// key SortKey did not write.
func SplitSortKey(key string) (name, identifier, typ string, ok bool) {
	name, rest, ok := strings.Cut(key, "\x00")
	if !ok {
		return "", "", "", false
	}
	identifier, typ, ok = strings.Cut(rest, "\x00")
	if !ok || typ == "" || strings.Contains(typ, "\x00") {
		return "", "", "", false
	}
	return name, identifier, typ, true
}

// CreatedKey is FieldCreated's value for a creation time: its Unix
// nanoseconds, offset to be unsigned, in 20 digits, so that byte order is
// time order.
func CreatedKey(t time.Time) string {
	return fmt.Sprintf("%020d", uint64(t.UnixNano())^(1<<63))
}

// WholeFields are the fields AnalyzerExact indexes, besides the property
// fields under UserPropertyExactPrefix and SystemPropertyExactPrefix.
var WholeFields = []string{FieldNameExact, FieldUserExact, FieldSystemExact, FieldUserKeys, FieldSystemKeys, FieldTagsExact, FieldSystemTagsExact, FieldPoliciesExact}

// IsWholeField reports whether AnalyzerExact indexes field, whose terms
// are then WholeTerm's (a long value is cut and hashed).
func IsWholeField(field string) bool {
	return slices.Contains(WholeFields, field) ||
		strings.HasPrefix(field, UserPropertyExactPrefix) || strings.HasPrefix(field, SystemPropertyExactPrefix)
}

// ContextFields are the id fields of the parents whose descriptions are
// their children's context (query's ranking reads them per segment); they
// keep doc values (NewMapping).
var ContextFields = []string{FieldSchemaID, FieldCatalogID, FieldModelID}

// Entity types, the values of FieldType.
const (
	TypeCatalog       = "catalog"
	TypeSchema        = "schema"
	TypeTable         = "table"
	TypeSemanticModel = "semantic_model"
	TypeMetric        = "metric"
)
