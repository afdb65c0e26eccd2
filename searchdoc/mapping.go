package searchdoc

import (
	"github.com/blevesearch/bleve/v2"
	keywordanalyzer "github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/semcat/semcat/analyzers"
)

// NewMapping returns the Bleve index mapping of the fields in fields.go: the
// contract's other half, which the indexer builds its index with and the
// query planner relies on.
func NewMapping() mapping.IndexMapping {
	im := bleve.NewIndexMapping()
	im.DefaultAnalyzer = keywordanalyzer.Name
	im.StoreDynamic = false
	im.DocValuesDynamic = false
	im.DefaultDateTimeParser = analyzers.DateTimeParserNone

	keywordField := func(docValues bool) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Store = false
		f.IncludeInAll = false
		f.IncludeTermVectors = false
		f.DocValues = docValues
		return f
	}
	// No term vectors: search explains hits from their stored metadata
	// (search.Evaluation.Leaves), and vectors made every segment larger to build, merge
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
	for _, name := range []string{FieldType, FieldCatalog, FieldSchema, FieldOwner, FieldTags, FieldSystemTags, FieldSortKey, FieldCreated} {
		doc.AddFieldMappingsAt(name, keywordField(true))
	}
	// The parents' ids also say, of a parent matched, which documents
	// carry its description as context (search/context.go).
	for _, name := range ContextFields {
		doc.AddFieldMappingsAt(name, keywordField(true))
	}
	for _, name := range []string{FieldMetalake, FieldMetalakeID, FieldTableID, FieldHas} {
		doc.AddFieldMappingsAt(name, keywordField(false))
	}

	// No prefix fields (edge n-grams): a prefix expands over the field's
	// own dictionary, reading the words that start with it (search/eval.go,
	// partStop). Fields whose terms are mostly in one document keep term
	// frequencies: Bleve stores such a term's one posting in its
	// dictionary only when its frequency is 1.
	for _, name := range []string{FieldUserValues, FieldSystemValues} {
		doc.AddFieldMappingsAt(name, textField(analyzers.AnalyzerValue))
	}
	for _, name := range WholeFields {
		doc.AddFieldMappingsAt(name, textField(analyzers.AnalyzerExact))
	}
	doc.AddFieldMappingsAt(FieldSchemaFields, textField(analyzers.AnalyzerSchemaField))

	// The ranking fields keep no frequencies or norms: scores come from
	// where and how a word matched and how rare it is (query/rank.go).
	for name, analyzer := range map[string]string{FieldName: analyzers.AnalyzerName, FieldDescription: analyzers.AnalyzerText, FieldColumns: analyzers.AnalyzerText} {
		f := textField(analyzer)
		f.SkipFreqNorm = true
		doc.AddFieldMappingsAt(name, f)
	}

	// Property maps: one dynamic field per (lower-cased) key.
	for prefix, analyzer := range map[string]string{
		UserPropertyPrefix: analyzers.AnalyzerValue, UserPropertyExactPrefix: analyzers.AnalyzerExact,
		SystemPropertyPrefix: analyzers.AnalyzerValue, SystemPropertyExactPrefix: analyzers.AnalyzerExact,
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
	doc.AddFieldMappingsAt(FieldStored, stored)

	im.DefaultMapping = doc
	return im
}
