package search

import (
	"context"
	"slices"
	"strconv"

	"github.com/blevesearch/bleve/v2/mapping"
	bsearch "github.com/blevesearch/bleve/v2/search"
	bq "github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/searchdoc"
)

// levelField is the document field holding the id of the ancestor (or the
// entity itself) at each level.
var levelField = map[semcat.EntityKind]string{
	semcat.KindMetalake:      searchdoc.FieldMetalakeID,
	semcat.KindCatalog:       searchdoc.FieldCatalogID,
	semcat.KindSchema:        searchdoc.FieldSchemaID,
	semcat.KindTable:         searchdoc.FieldTableID,
	semcat.KindSemanticModel: searchdoc.FieldModelID,
}

// Visibility compiles SPEC §6's rules for one user into a Bleve query that
// matches exactly the documents the user may see, so that totals, facets and
// pages never count anything else. It mirrors semcat.Access: owners of an
// object or an ancestor, or privileges allowed at some level of the
// document's ancestry and denied at none.
func Visibility(g *semcat.Grants) bq.Query {
	v := visibility{allow: map[semcat.Privilege]map[semcat.EntityKind][]string{}, deny: map[semcat.Privilege]map[semcat.EntityKind][]string{}}
	for _, b := range g.Bindings {
		m := v.allow
		if b.Condition == semcat.Deny {
			m = v.deny
		} else if b.Condition != semcat.Allow {
			continue
		}
		if m[b.Privilege] == nil {
			m[b.Privilege] = map[semcat.EntityKind][]string{}
		}
		m[b.Privilege][b.Kind] = append(m[b.Privilege][b.Kind], strconv.FormatInt(b.ID, 10))
	}
	v.owned = map[semcat.EntityKind][]string{}
	owned := g.Owned
	if ids := owned[semcat.KindMetalake]; len(ids) > 0 {
		// Every rule passes for the metalake's owner: what else it owns
		// adds nothing.
		owned = map[semcat.EntityKind][]int64{semcat.KindMetalake: ids}
	}
	for kind, ids := range owned {
		for _, id := range ids {
			v.owned[kind] = append(v.owned[kind], strconv.FormatInt(id, 10))
		}
		slices.Sort(v.owned[kind])
		v.owned[kind] = slices.Compact(v.owned[kind])
	}
	schemaAccess := v.or(v.owns(semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema),
		v.and(v.has(semcat.UseCatalog), v.has(semcat.UseSchema)))
	see := func(kind semcat.EntityKind, read, modify semcat.Privilege) bq.Query {
		return v.and(schemaAccess, v.or(v.owns(semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema, kind), v.has(read), v.has(modify)))
	}
	model := see(semcat.KindSemanticModel, semcat.SelectSemanticModel, semcat.ModifySemanticModel)
	return v.or(
		v.and(typeIs(searchdoc.TypeCatalog), v.or(v.owns(semcat.KindMetalake, semcat.KindCatalog), v.has(semcat.UseCatalog))),
		v.and(typeIs(searchdoc.TypeSchema), schemaAccess),
		v.and(typeIs(searchdoc.TypeTable), see(semcat.KindTable, semcat.SelectTable, semcat.ModifyTable)),
		v.and(typeIs(searchdoc.TypeSemanticModel), model),
		v.and(typeIs(searchdoc.TypeMetric), model),
	)
}

type visibility struct {
	allow, deny map[semcat.Privilege]map[semcat.EntityKind][]string
	owned       map[semcat.EntityKind][]string
}

func typeIs(t string) bq.Query { return term(searchdoc.FieldType, t) }

func term(field, value string) bq.Query {
	t := bq.NewTermQuery(value)
	t.SetField(field)
	return t
}

// none matches nothing.
func none() bq.Query { return bq.NewMatchNoneQuery() }

// anyID matches documents whose level ids are among ids; a level's ids
// from idSetMin on are one idSet.
func anyID(byLevel map[semcat.EntityKind][]string, levels ...semcat.EntityKind) bq.Query {
	var qs []bq.Query
	for _, l := range levels {
		if ids := byLevel[l]; len(ids) >= idSetMin {
			qs = append(qs, &idSet{field: levelField[l], ids: ids})
			continue
		}
		for _, id := range byLevel[l] {
			qs = append(qs, term(levelField[l], id))
		}
	}
	if len(qs) == 0 {
		return none()
	}
	return bq.NewDisjunctionQuery(qs)
}

func (v visibility) owns(levels ...semcat.EntityKind) bq.Query { return anyID(v.owned, levels...) }

// has: allowed at some level, denied at none.
func (v visibility) has(p semcat.Privilege) bq.Query {
	levels := []semcat.EntityKind{semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema, semcat.KindTable, semcat.KindSemanticModel}
	allowed := anyID(v.allow[p], levels...)
	if isNone(allowed) {
		return allowed
	}
	denied := anyID(v.deny[p], levels...)
	if isNone(denied) {
		return allowed
	}
	b := bq.NewBooleanQuery([]bq.Query{allowed}, nil, []bq.Query{denied})
	return b
}

func isNone(x bq.Query) bool { _, ok := x.(*bq.MatchNoneQuery); return ok }

func (v visibility) and(qs ...bq.Query) bq.Query {
	var keep []bq.Query
	for _, x := range qs {
		if isNone(x) {
			return none()
		}
		keep = append(keep, x)
	}
	return bq.NewConjunctionQuery(keep)
}

func (v visibility) or(qs ...bq.Query) bq.Query {
	var keep []bq.Query
	for _, x := range qs {
		if !isNone(x) {
			keep = append(keep, x)
		}
	}
	switch len(keep) {
	case 0:
		return none()
	case 1:
		return keep[0]
	}
	return bq.NewDisjunctionQuery(keep)
}

// idSetMin is the number of ids of one level from which they are compiled
// as an idSet rather than one term each.
const idSetMin = 32

// idSet matches the documents whose field holds one of ids (sorted,
// distinct): a large set of ids, typically the objects a user owns, as one
// filter, which segBitmaps reads in what the segment holds of them rather
// than in one dictionary lookup per id (segBitmaps.idSet). As a Bleve
// query it is the disjunction of its terms.
type idSet struct {
	field string
	ids   []string
}

func (s *idSet) Searcher(ctx context.Context, i index.IndexReader, m mapping.IndexMapping, options bsearch.SearcherOptions) (bsearch.Searcher, error) {
	qs := make([]bq.Query, len(s.ids))
	for j, id := range s.ids {
		qs[j] = term(s.field, id)
	}
	return bq.NewDisjunctionQuery(qs).Searcher(ctx, i, m, options)
}

// visibilityTerms counts the ids a visibility filter looks up: what its
// evaluation costs at most per segment.
func visibilityTerms(x bq.Query) int {
	switch x := x.(type) {
	case *bq.TermQuery:
		return 1
	case *idSet:
		return len(x.ids)
	case *bq.DisjunctionQuery:
		n := 0
		for _, c := range x.Disjuncts {
			n += visibilityTerms(c)
		}
		return n
	case *bq.ConjunctionQuery:
		n := 0
		for _, c := range x.Conjuncts {
			n += visibilityTerms(c)
		}
		return n
	case *bq.BooleanQuery:
		return visibilityTerms(x.Must) + visibilityTerms(x.MustNot)
	}
	return 0
}
