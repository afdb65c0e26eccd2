// Package indexer keeps semcat's Bleve index in step with PostgreSQL: it
// tails the transactional outbox, rebuilds documents from current state,
// applies them with the outbox cursor in one Bleve batch, and serves search
// over the index.
package indexer

import (
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/semcat/semcat/analyzers"
	q "github.com/semcat/semcat/query"
)

// fieldStored holds each document's result payload (entity and metadata as
// JSON), stored but not indexed, so results need no database reads.
const fieldStored = "doc"

// NewMapping returns the index mapping of the fields in package query.
func NewMapping() mapping.IndexMapping {
	im := bleve.NewIndexMapping()
	im.DefaultAnalyzer = keyword.Name
	im.StoreDynamic = false
	im.DocValuesDynamic = false

	keywordField := func(docValues bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = docValues
		return f
	}
	// No term vectors: search explains hits from their stored metadata
	// (query.Leaves), and vectors made every segment larger to build, merge
	// and read.
	textField := func(analyzer string) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = analyzer
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = false
		return f
	}
	doc := bleve.NewDocumentMapping()
	doc.Dynamic = false
	for _, name := range []string{q.FieldType, q.FieldCatalog, q.FieldSchema, q.FieldTags, q.FieldName, q.FieldIdentifier} {
		doc.AddFieldMappingsAt(name, keywordField(true))
	}
	for _, name := range []string{q.FieldMetalake, q.FieldModel, q.FieldMetalakeID, q.FieldCatalogID, q.FieldSchemaID,
		q.FieldTableID, q.FieldModelID, q.FieldSystemTags, q.FieldHas} {
		doc.AddFieldMappingsAt(name, keywordField(false))
	}
	created := bleve.NewDateTimeFieldMapping()
	created.Store = false
	created.IncludeInAll = false
	created.DocValues = true
	doc.AddFieldMappingsAt(q.FieldCreated, created)

	for _, name := range []string{q.FieldUserValues, q.FieldSystemValues} {
		doc.AddFieldMappingsAt(name, textField(analyzers.AnalyzerValue))
	}
	for _, name := range []string{q.FieldNameExact, q.FieldUserExact, q.FieldSystemExact, q.FieldUserKeys, q.FieldSystemKeys, q.FieldTagsExact} {
		doc.AddFieldMappingsAt(name, textField(analyzers.AnalyzerExact))
	}
	doc.AddFieldMappingsAt(q.FieldSchemaFields, textField(analyzers.AnalyzerSchemaField))

	// Property maps: one dynamic field per (lower-cased) key.
	for prefix, analyzer := range map[string]string{
		q.UserPropertyPrefix: analyzers.AnalyzerValue, q.UserPropertyExactPrefix: analyzers.AnalyzerExact,
		q.SystemPropertyPrefix: analyzers.AnalyzerValue, q.SystemPropertyExactPrefix: analyzers.AnalyzerExact,
	} {
		sub := bleve.NewDocumentMapping()
		sub.Dynamic = true
		sub.DefaultAnalyzer = analyzer
		doc.AddSubDocumentMapping(prefix[:len(prefix)-1], sub)
	}
	im.IndexDynamic = true
	// No composite "_all" field: nothing searches it, and dynamic fields
	// would copy every property value into it.
	doc.AddSubDocumentMapping("_all", bleve.NewDocumentDisabledMapping())

	stored := bleve.NewTextFieldMapping()
	stored.Index = false
	stored.Store = true
	stored.IncludeInAll = false
	stored.IncludeTermVectors = false
	stored.DocValues = false
	doc.AddFieldMappingsAt(fieldStored, stored)

	im.DefaultMapping = doc
	return im
}
