package query

import (
	"cmp"
	"slices"

	segment "github.com/blevesearch/scorch_segment_api/v2"
)

// Reads counts what an evaluation read of the index, by field: a query's
// profile (EvalOptions.Reads), to see which fields a kind of search
// reads, and so which must stay in memory for it to be fast. Nil counts
// nothing.
type Reads map[string]*FieldReads

// FieldReads is what an evaluation read of one field, over every segment.
type FieldReads struct {
	Field string
	// Lists and Bytes are the postings lists read and their encoded size
	// on disk (a term of one document is held in the dictionary itself:
	// no bytes).
	Lists int
	Bytes uint64
	// Terms are the dictionary entries expansions walked (prefixes, word
	// forms, typos), each a step through the field's dictionary.
	Terms int
}

func (r Reads) field(name string) *FieldReads {
	f := r[name]
	if f == nil {
		f = &FieldReads{Field: name}
		r[name] = f
	}
	return f
}

// Postings counts one postings list read of field.
func (r Reads) Postings(field string, pl segment.PostingsList) {
	if r == nil || pl == nil {
		return
	}
	r.Add(field, 1, pl.BytesRead())
}

// Add counts lists (postings lists, or stored documents) of bytes in all
// read of field.
func (r Reads) Add(field string, lists int, bytes uint64) {
	if r == nil {
		return
	}
	f := r.field(field)
	f.Lists += lists
	f.Bytes += bytes
}

// terms counts dictionary entries an expansion of field walked.
func (r Reads) terms(field string, n int) {
	if r == nil || n == 0 {
		return
	}
	r.field(field).Terms += n
}

// Sorted lists the fields read, the most bytes first, then by name.
func (r Reads) Sorted() []FieldReads {
	out := make([]FieldReads, 0, len(r))
	for _, f := range r {
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b FieldReads) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(b.Terms, a.Terms), cmp.Compare(a.Field, b.Field))
	})
	return out
}
