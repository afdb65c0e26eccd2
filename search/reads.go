package search

import (
	"cmp"
	"slices"

	segment "github.com/blevesearch/scorch_segment_api/v2"

	"github.com/semcat/semcat"
)

// Reads counts what an evaluation read of the index, by field: a query's
// profile (EvalOptions.Reads, semcat.SearchProfile), to see which fields a
// kind of search reads, and so which must stay in memory for it to be
// fast. Nil counts nothing.
type Reads map[string]*semcat.FieldRead

func (r Reads) field(name string) *semcat.FieldRead {
	f := r[name]
	if f == nil {
		f = &semcat.FieldRead{Field: name}
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

// term counts a dictionary entry an expansion of field walked.
func (r Reads) term(field string) {
	if r == nil {
		return
	}
	r.field(field).Terms++
}

// Sorted lists the fields read, the most bytes first, then by name.
func (r Reads) Sorted() []semcat.FieldRead {
	out := make([]semcat.FieldRead, 0, len(r))
	for _, f := range r {
		out = append(out, *f)
	}
	slices.SortFunc(out, func(a, b semcat.FieldRead) int {
		return cmp.Or(cmp.Compare(b.Bytes, a.Bytes), cmp.Compare(b.Terms, a.Terms), cmp.Compare(a.Field, b.Field))
	})
	return out
}
