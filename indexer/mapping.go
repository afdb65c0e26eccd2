// Package indexer keeps semcat's Bleve index in step with PostgreSQL: it
// tails the transactional outbox, rebuilds documents from current state,
// applies them with the outbox cursor in one Bleve batch, and serves search
// over the index.
package indexer

import (
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"

	q "github.com/semcat/semcat/query"
)

// fieldStored holds each document's result payload (entity and metadata as
// JSON), stored but not indexed, so results need no database reads.
const fieldStored = "doc"

// newMapping returns the query package's mapping plus the stored payload.
func newMapping() mapping.IndexMapping {
	im := q.NewMapping().(*mapping.IndexMappingImpl)
	stored := bleve.NewTextFieldMapping()
	stored.Index = false
	stored.Store = true
	stored.IncludeInAll = false
	stored.IncludeTermVectors = false
	stored.DocValues = false
	im.DefaultMapping.AddFieldMappingsAt(fieldStored, stored)
	return im
}
