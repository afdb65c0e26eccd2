package indexer

import (
	"context"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	bq "github.com/blevesearch/bleve/v2/search/query"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/search"
	"github.com/semcat/semcat/searchdoc"
)

// ScrubStats says what a scrub looked at and what it repaired. Pending
// counts the differences it left alone because the tail has yet to apply a
// change to them: during a bulk load the index may lag by minutes, and an
// entity written since is not a missing document.
type ScrubStats struct {
	Checked, Reindexed, Deleted, Pending int
}

// Scrub compares a sample of entities in PostgreSQL and a sample of
// documents in the index, and repairs differences: a live entity whose
// document is missing or differs is reindexed from current state, a
// document whose entity no longer exists is deleted.
//
// The samples are compared without holding the tail loop: at 1,000,000
// entities, with PostgreSQL busy, that takes seconds (6.8 s once, while
// the tail waited and write → searchable reached 7 s). Only the suspects,
// usually none, are checked again under the tail loop's lock, from their
// current rows and against the changes the tail has yet to apply, so a
// repair never overwrites a newer document.
func (x *Indexer) Scrub(ctx context.Context, sample int) (ScrubStats, error) {
	var st ScrubStats
	idx := x.h.get()
	if idx == nil {
		return st, nil
	}
	suspects, malformed, err := x.scrubSuspects(ctx, idx, sample, &st)
	if err != nil || len(suspects) == 0 && len(malformed) == 0 {
		return st, err
	}

	x.loop.Lock()
	defer x.loop.Unlock()
	if idx = x.h.get(); idx == nil {
		return st, nil
	}
	recs, err := x.store.Records(ctx, suspects)
	if err != nil {
		return st, err
	}
	// Read after the records, so that every change they reflect and the
	// index lacks is listed.
	pending, err := x.store.PendingRefs(ctx, x.cursor)
	if err != nil {
		return st, err
	}
	// A pending change to a container (a rename, a drop) changes or
	// removes the documents of its whole subtree.
	containerPending := false
	for r := range pending {
		switch r.Kind {
		case semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema, semcat.KindSemanticModel:
			containerPending = true
		}
	}
	batch := idx.NewBatch()
	for _, id := range malformed {
		batch.Delete(id)
		st.Deleted++
	}
	live := map[catalogdb.EntityRef]bool{}
	for _, r := range recs {
		live[catalogdb.EntityRef{Kind: r.Kind, ID: r.ID}] = true
		if slices.ContainsFunc(selfAndAncestors(r), func(ref catalogdb.EntityRef) bool { return pending[ref] }) {
			st.Pending++
			continue
		}
		id, doc, stale, err := staleDocument(idx, r)
		if err != nil {
			return st, err
		}
		if stale {
			if err := addMapped(batch, id, doc); err != nil {
				return st, err
			}
			st.Reindexed++
		}
	}
	for _, r := range suspects {
		if live[r] {
			continue
		}
		if pending[r] || containerPending {
			st.Pending++
			continue
		}
		batch.Delete(refDocID(r))
		st.Deleted++
	}
	if batch.Size() == 0 {
		return st, nil
	}
	if err := idx.Batch(batch); err != nil {
		x.recover(ctx, err)
		return st, err
	}
	return st, nil
}

// scrubSuspects compares the samples without holding the tail loop. It
// returns the entities whose document is missing, differs or outlives
// them, and the documents whose id names no entity.
func (x *Indexer) scrubSuspects(ctx context.Context, idx bleve.Index, sample int, st *ScrubStats) (suspects []catalogdb.EntityRef, malformed []string, err error) {
	seen := map[catalogdb.EntityRef]bool{}
	suspect := func(r catalogdb.EntityRef) {
		if !seen[r] {
			seen[r] = true
			suspects = append(suspects, r)
		}
	}
	recs, err := x.store.SampleEntities(ctx, sample)
	if err != nil {
		return nil, nil, err
	}
	for _, r := range recs {
		st.Checked++
		_, _, stale, err := staleDocument(idx, r)
		if err != nil {
			return nil, nil, err
		}
		if stale {
			suspect(catalogdb.EntityRef{Kind: r.Kind, ID: r.ID})
		}
	}
	// Documents whose entity is gone: a window of the index.
	ids, err := randomWindow(idx, sample)
	if err != nil {
		return nil, nil, err
	}
	var refs []catalogdb.EntityRef
	for _, docID := range ids {
		kind, id, ok := strings.Cut(docID, ":")
		n, err := strconv.ParseInt(id, 10, 64)
		if !ok || err != nil {
			malformed = append(malformed, docID)
			continue
		}
		refs = append(refs, catalogdb.EntityRef{Kind: semcat.EntityKind(kind), ID: n})
	}
	recs, err = x.store.Records(ctx, refs)
	if err != nil {
		return nil, nil, err
	}
	live := map[catalogdb.EntityRef]bool{}
	for _, r := range recs {
		live[catalogdb.EntityRef{Kind: r.Kind, ID: r.ID}] = true
	}
	for _, r := range refs {
		st.Checked++
		if !live[r] {
			suspect(r)
		}
	}
	return suspects, malformed, nil
}

// staleDocument returns r's document id and current document, and whether
// the document in idx is missing or differs from it.
func staleDocument(idx bleve.Index, r *semcat.EntityRecord) (id string, doc map[string]any, stale bool, err error) {
	if doc, err = searchdoc.Document(r); err != nil {
		return "", nil, false, err
	}
	id = DocID(r.Kind, r.ID)
	got, err := storedPayload(idx, id)
	if err != nil {
		return "", nil, false, err
	}
	return id, doc, got != doc[searchdoc.FieldStored], nil
}

// randomWindow returns the ids of up to n documents in a row of idx, from
// a random position in its own order: walking document numbers reads no
// stored data, and only the window's ids are looked up. (The window was a
// match-all search sorted by id, which read every document's stored id and
// kept a hit for each document before the window: at 1,000,000 entities,
// every scrub mapped all of the index's stored documents, 570 MiB of the
// server's RSS.)
func randomWindow(idx bleve.Index, n int) ([]string, error) {
	_, snap, err := search.OpenSnapshot(idx)
	if err != nil {
		return nil, err
	}
	defer snap.Close()
	count, err := snap.DocCount()
	if err != nil {
		return nil, err
	}
	skip := 0
	if int(count) > n {
		skip = rand.IntN(int(count) - n + 1)
	}
	docs, err := snap.DocIDReaderAll()
	if err != nil {
		return nil, err
	}
	defer docs.Close()
	var ids []string
	for len(ids) < n {
		doc, err := docs.Next()
		if err != nil {
			return nil, err
		}
		if doc == nil {
			break
		}
		if skip > 0 {
			skip--
			continue
		}
		id, err := snap.ExternalID(doc)
		if err != nil {
			return nil, err
		}
		ids = append(ids, id)
	}
	return ids, nil
}

// selfAndAncestors names an entity and the containers above it.
func selfAndAncestors(r *semcat.EntityRecord) []catalogdb.EntityRef {
	return []catalogdb.EntityRef{{Kind: r.Kind, ID: r.ID}, {Kind: semcat.KindMetalake, ID: r.MetalakeID},
		{Kind: semcat.KindCatalog, ID: r.CatalogID}, {Kind: semcat.KindSchema, ID: r.SchemaID}, {Kind: semcat.KindSemanticModel, ID: r.ModelID}}
}

// storedPayload returns a document's stored payload, or "" if the index has
// no such document.
func storedPayload(idx bleve.Index, id string) (string, error) {
	sr := bleve.NewSearchRequestOptions(bq.NewDocIDQuery([]string{id}), 1, 0, false)
	sr.Fields = []string{searchdoc.FieldStored}
	res, err := idx.Search(sr)
	if err != nil || len(res.Hits) == 0 {
		return "", err
	}
	s, _ := res.Hits[0].Fields[searchdoc.FieldStored].(string)
	return s, nil
}
