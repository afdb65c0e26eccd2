package search

import (
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
	index "github.com/blevesearch/bleve_index_api"
	segment "github.com/blevesearch/scorch_segment_api/v2"

	q "github.com/semcat/semcat/query"
	"github.com/semcat/semcat/searchdoc"
)

// Context from parents (SPEC §5.4, revision 3): a table also carries its
// schema's and its catalog's descriptions, a metric its semantic model's,
// at a low weight. A word found in the description of such a parent
// matches the parent's tables (or metrics) in a group of their own
// (InContext), read at query time from the parents' postings: a change of
// a schema's description needs no table reindexed.
//
// The weight keeps context below a document's own text: a document whose
// best way of matching a word is its context scores query.ContextWeight, less than
// any own match (the least is a typo in a value, wOther × kTypo); one that
// matched the word itself gains wContextAlso more, enough to decide between
// documents that match equally by their own text and too little to
// reorder unequal ones (the smallest step of the own weights, nameNorm's
// between long names, is larger for names of up to 20 parts).
const (
	wContextAlso = 0.01
	// maxContextParents: a word found in more parents' descriptions
	// than this is too common to tell their children apart, and is not
	// looked for as context.
	maxContextParents = 64
)

// parentKinds are the parents whose descriptions are context: the field
// that holds a parent's id in its own and its children's documents, and
// the type of the children that carry it.
var parentKinds = []struct{ parent, idField, child string }{
	{searchdoc.TypeSchema, searchdoc.FieldSchemaID, searchdoc.TypeTable},
	{searchdoc.TypeCatalog, searchdoc.FieldCatalogID, searchdoc.TypeTable},
	{searchdoc.TypeSemanticModel, searchdoc.FieldModelID, searchdoc.TypeMetric},
}

type parentID struct {
	kind int // of parentKinds
	id   string
}

// addContext adds to a term's run the group of documents whose parents'
// descriptions it matched (nothing when collect is false: an excluded
// term excludes by a document's own text).
func (r *termRun) addContext(readers []*segReader, collect bool) error {
	if !collect || r.term.BoostOnly {
		return nil
	}
	var desc []int
	for k, g := range r.groups {
		if g.Where == q.InDescription {
			desc = append(desc, k)
		}
	}
	if len(desc) == 0 {
		return nil
	}
	parents := map[parentID]bool{}
	n := 0
	for i, rd := range readers {
		var own []*roaring.Bitmap
		for _, k := range desc {
			if bm := r.bms[i][k]; bm != nil {
				own = append(own, bm)
			}
		}
		if len(own) == 0 {
			continue
		}
		matched := roaring.FastOr(own...)
		for kind, pk := range parentKinds {
			typ, err := rd.term(searchdoc.FieldType, pk.parent)
			if err != nil {
				return err
			}
			ps := roaring.And(matched, typ)
			n += int(ps.GetCardinality())
			if n > maxContextParents {
				return nil
			}
			if ps.IsEmpty() {
				continue
			}
			if err := rd.docValues(ps, pk.idField, func(id string) { parents[parentID{kind, id}] = true }); err != nil {
				return err
			}
		}
	}
	if len(parents) == 0 {
		return nil
	}
	r.groups = append(slices.Clip(r.groups), q.Group{Where: q.InContext, How: q.Exact, Weight: q.ContextWeight})
	for i, rd := range readers {
		var found *roaring.Bitmap
		children := map[string]*roaring.Bitmap{}
		for p := range parents {
			pk := parentKinds[p.kind]
			kids, err := rd.term(pk.idField, p.id)
			if err != nil {
				return err
			}
			if kids.IsEmpty() {
				continue
			}
			typ := children[pk.child]
			if typ == nil {
				if typ, err = rd.term(searchdoc.FieldType, pk.child); err != nil {
					return err
				}
				children[pk.child] = typ
			}
			kids.And(typ)
			if found == nil {
				found = kids
			} else {
				found.Or(kids)
			}
		}
		if found != nil && rd.deleted != nil {
			found.AndNot(rd.deleted)
		}
		if found != nil && found.IsEmpty() {
			found = nil
		}
		r.bms[i] = append(slices.Clip(r.bms[i]), found)
		if found != nil {
			r.hits[i] = roaring.Or(r.hits[i], found)
		}
	}
	return nil
}

// docValues calls fn with field's value in each document of docs.
func (rd *segReader) docValues(docs *roaring.Bitmap, field string, fn func(string)) error {
	dv, ok := rd.seg.(segment.DocValueVisitable)
	if !ok {
		return nil
	}
	var state segment.DocVisitState
	fields := []string{field}
	var visitor index.DocValueVisitor = func(_ string, term []byte) { fn(string(term)) }
	it := docs.Iterator()
	for it.HasNext() {
		var err error
		if state, err = dv.VisitDocValues(uint64(it.Next()), fields, visitor, state); err != nil {
			return err
		}
	}
	return nil
}
