// Package indexer keeps semcat's Bleve index in step with PostgreSQL: it
// tails the transactional outbox, rebuilds documents from current state,
// applies them with the outbox cursor in one Bleve batch, and manages the
// index's generations, rebuilds, merges and page cache. Searching the index
// is package search's.
package indexer

import (
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/semcat/semcat/searchdoc"
)

// newMapping returns the index mapping: the search document's (package searchdoc).
func newMapping() mapping.IndexMapping { return searchdoc.NewMapping() }
