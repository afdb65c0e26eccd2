package semcat

import (
	"context"
	"time"
)

// SearchRequest is a metadata search (SPEC §2.6), validated by the caller.
type SearchRequest struct {
	Metalake string
	Query    string
	Types    []string
	Catalog  string
	Schema   string
	// Catalogs, Schemas and Owners restrict a search to any of several
	// values (with Catalog and Schema when set): values of one filter are
	// alternatives, filters all apply (SPEC §2.6).
	Catalogs  []string
	Schemas   []string
	Owners    []string
	Tags      []string
	Scope     string // "", "user" or "system"
	Sort      string // "relevance" (default), "name", "-name", "created", "-created"
	Limit     int
	Offset    int
	Cursor    string
	Facets    []string // type, catalog, schema, tags, owner
	FacetSize int
	// Profile asks for the search's profile too (SearchProfile).
	Profile bool
}

// SearchEntity names the entity of a result.
type SearchEntity struct {
	Type      string   `json:"type"`
	Namespace []string `json:"namespace"`
	Name      string   `json:"name"`
}

// Match says which key of an entity, with which value, a query matched
// (SPEC §2.6). A column's (a table's) or a field's (a semantic model's)
// match has Key "column" or "field", Field its dotted path and In whether
// its name or its comment matched; Value is then the path or the comment.
type Match struct {
	Key   string `json:"key"`
	Field string `json:"field,omitempty"`
	Value string `json:"value"`
	In    string `json:"in,omitempty"`
}

// Bounds of a result's matches (SPEC §2.6).
const (
	MaxMatches     = 20
	MaxMatchLength = 256 // characters of a value
)

// SearchHit is one result.
type SearchHit struct {
	Entity   SearchEntity `json:"entity"`
	Score    float64      `json:"score"`
	Matches  []Match      `json:"matches"`
	Metadata Metadata     `json:"metadata"`
}

// FacetValue is one value of a facet with its count.
type FacetValue struct {
	Value string `json:"value"`
	Count int    `json:"count"`
	// Scope marks a tags facet value as a "user" or "system" tag.
	Scope string `json:"scope,omitempty"`
}

// SearchResult is one page of results. Total and facet counts count only
// what the caller may see; Cursor is set when more results follow.
type SearchResult struct {
	Total    uint64
	Position Position
	Results  []SearchHit
	Facets   map[string][]FacetValue
	Cursor   string
	Profile  *SearchProfile // when asked for
}

// SearchProfile says what a search read of its index, field by field: the
// postings lists of the terms it looked up (its filters' included) with
// their size on disk, the dictionary entries its expansions walked
// (prefixes, word forms, typos), and the stored documents of its page
// (field "doc", their size decoded). What a search reads must be in
// memory for it to be fast, so a profile shows which fields a kind of
// search needs kept there, as Elasticsearch's search profile shows where
// a query's time goes.
type SearchProfile struct {
	Fields []FieldRead `json:"fields"`
}

// FieldRead is what a search read of one index field.
type FieldRead struct {
	Field string `json:"field"`
	// Lists are the postings lists (or stored documents) read, Bytes
	// their size; a term of a single document is held in the dictionary,
	// and costs no bytes here.
	Lists int    `json:"lists"`
	Bytes uint64 `json:"bytes"`
	// Terms are the dictionary entries expansions walked.
	Terms int `json:"terms,omitempty"`
}

// SuggestRequest is a type-ahead request (SPEC §2.6), validated by the
// caller.
type SuggestRequest struct {
	Metalake string
	// Prefix is what the user typed: entities whose name, or a part of
	// it, starts with it (in any letter case) are suggested.
	Prefix string
	Types  []string
	Limit  int
}

// Suggestion is one entity a prefix suggests, with its name as HTML in
// which the matched characters are bold ("<b>cust</b>omer_orders").
type Suggestion struct {
	Entity    SearchEntity `json:"entity"`
	Highlight string       `json:"highlight"`
}

// SuggestResult is the suggestions of a prefix, best first.
type SuggestResult struct {
	Position    Position
	Suggestions []Suggestion
}

// SearchService searches the catalog's metadata.
type SearchService interface {
	Search(ctx context.Context, req SearchRequest) (*SearchResult, error)
	// Suggest answers a type-ahead prefix with only what the caller may
	// see: the whole name starting with it before a later part, shorter
	// names before longer, then by name.
	Suggest(ctx context.Context, req SuggestRequest) (*SuggestResult, error)
	// WaitFor blocks until search covers the write at pos, or ctx ends.
	WaitFor(ctx context.Context, pos Position) error
}

// RebuildProgress says how far the latest rebuild of the search index got
// (GET /api/admin/reindex), so that a client can draw a progress bar.
type RebuildProgress struct {
	Running bool `json:"running"`
	// Indexed is how many documents the rebuild has written; Total is how
	// many live entities there were when it began, the documents it will
	// write give or take the writes made meanwhile.
	Indexed    int64      `json:"indexed"`
	Total      int64      `json:"total"`
	StartedAt  *time.Time `json:"startedAt,omitempty"`
	FinishedAt *time.Time `json:"finishedAt,omitempty"`
}
