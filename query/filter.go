package query

import (
	"strings"

	blevequery "github.com/blevesearch/bleve/v2/search/query"

	"github.com/semcat/semcat"
)

// Filter holds the search parameters that restrict results without ranking
// them (SPEC §2.6).
type Filter struct {
	// Metalake is the searched metalake's name; always applied.
	Metalake string
	// Types keeps entities of any of these types (TypeCatalog, …). An
	// element may be a comma list ("table,metric"). None: every type.
	Types []string
	// Catalog and Schema restrict results to a namespace, by name: a
	// catalog and everything in it; a schema (named Schema, in any catalog
	// unless Catalog is set) and everything in it.
	Catalog, Schema string
	// Tags must all be user tags of the entity, exactly as given.
	Tags []string
}

// Filters returns the Bleve query for f: a conjunction of keyword-term
// queries on FieldMetalake, FieldType, FieldCatalog, FieldSchema and
// FieldTags. Put it, with the visibility filter, in the Filter clause of a
// BooleanQuery whose Must is the compiled text query: a filter clause does
// not score, so it leaves the ranking alone. It fails with an EINVALID
// error for a missing metalake or an unknown type.
func Filters(f Filter) (blevequery.Query, error) {
	if f.Metalake == "" {
		return nil, semcat.Errorf(semcat.EINVALID, "metalake: a search needs a metalake")
	}
	filters := []blevequery.Query{keyword(FieldMetalake, f.Metalake)}
	var types []blevequery.Query
	for _, list := range f.Types {
		for _, t := range strings.Split(list, ",") {
			t = strings.TrimSpace(t)
			switch t {
			case TypeCatalog, TypeSchema, TypeTable, TypeSemanticModel, TypeMetric:
				types = append(types, keyword(FieldType, t))
			default:
				return nil, semcat.Errorf(semcat.EINVALID,
					"type: unknown type '%s' (want catalog, schema, table, semantic_model or metric)", t)
			}
		}
	}
	if len(types) > 0 {
		filters = append(filters, disjunction(types))
	}
	if f.Catalog != "" {
		filters = append(filters, keyword(FieldCatalog, f.Catalog))
	}
	if f.Schema != "" {
		filters = append(filters, keyword(FieldSchema, f.Schema))
	}
	for _, t := range f.Tags {
		filters = append(filters, keyword(FieldTags, t))
	}
	if len(filters) == 1 {
		return filters[0], nil
	}
	return blevequery.NewConjunctionQuery(filters), nil
}

// keyword is a term query for value, as given, on a keyword field.
func keyword(field, value string) blevequery.Query {
	q := blevequery.NewTermQuery(value)
	q.SetField(field)
	return q
}
