// Package search is semcat's search engine: it answers a search request
// over the index the indexer keeps (Index), evaluating the query package's
// plan over the segments' postings for matches and scores (eval.go), the
// caller's visibility and the request's filters as postings bitmaps too,
// and the page, sort keys and facets from in-memory columns of the index's
// segments.
package search

import (
	"context"
	"runtime"
	"time"

	"github.com/blevesearch/bleve/v2"
	bq "github.com/blevesearch/bleve/v2/search/query"

	"github.com/semcat/semcat"
	q "github.com/semcat/semcat/query"
)

// Index is the index a search reads: the indexer's, which follows the
// outbox (package indexer).
type Index interface {
	// Read calls fn with the current index, open until fn returns.
	Read(fn func(bleve.Index) error) error
	// Position is how far the index has applied the outbox.
	Position() semcat.Position
	// WaitFor blocks until the index covers pos.
	WaitFor(ctx context.Context, pos semcat.Position) error
	// Columns is the cache of the index's search columns.
	Columns() *ColumnCache
	// LargerThanMemory reports whether the index is larger than the memory
	// free for it, so that searches read much of it from disk (and ask for
	// a page's payloads at once: prefetchPayloads).
	LargerThanMemory() bool
}

// Store is what the search service reads of the catalog's database
// (package catalogdb's Store).
type Store interface {
	// UserGrants loads a user's grants and ownerships in a metalake; a
	// missing metalake or user has none.
	UserGrants(ctx context.Context, metalake, user string) (*semcat.Grants, error)
	// Access loads what authorization knows of a user at a namespace
	// (CheckSearch reads the membership in it).
	Access(ctx context.Context, user string, ns semcat.Namespace, kind semcat.EntityKind, names []string) (*semcat.Access, map[string]*semcat.Access, error)
	// GetMetalake tells a metalake that exists from one that does not.
	GetMetalake(ctx context.Context, name string) (*semcat.Metalake, error)
}

// Service is the search service over an Index. With Authorization on, it
// compiles the caller's visibility (from its grants and ownerships in the
// metalake) into every query.
type Service struct {
	Index         Index
	Store         Store
	Authorization bool
	// Admin says who may see every metalake (the service admins), when
	// Authorization is on; nil: nobody.
	Admin func(user string) bool
	// Synonyms, when set, gives each search its metalake's synonym sets.
	Synonyms *SynonymCache
}

var _ semcat.SearchService = (*Service)(nil)

// Search answers a search with only what the caller may see.
func (s *Service) Search(ctx context.Context, req semcat.SearchRequest) (*semcat.SearchResult, error) {
	visible, err := s.visibility(ctx, req.Metalake)
	if err != nil {
		return nil, err
	}
	if costly(req.Query) || visibilityTerms(visible) >= heavyVisibility {
		release, err := heavySlots.acquire(ctx)
		if err != nil {
			return nil, err
		}
		defer release()
	}
	res, err := search(withSynonyms(ctx, s.Synonyms.Get(ctx, req.Metalake)), s.Index, req, visible)
	if err != nil || res.Total > 0 {
		return res, err
	}
	if err := s.exists(ctx, req.Metalake); err != nil {
		return nil, err
	}
	return res, nil
}

// Suggest answers a type-ahead prefix with only what the caller may see.
func (s *Service) Suggest(ctx context.Context, req semcat.SuggestRequest) (*semcat.SuggestResult, error) {
	visible, err := s.visibility(ctx, req.Metalake)
	if err != nil {
		return nil, err
	}
	res, err := suggest(ctx, s.Index, req, visible)
	if err != nil || len(res.Suggestions) > 0 {
		return res, err
	}
	if err := s.exists(ctx, req.Metalake); err != nil {
		return nil, err
	}
	return res, nil
}

// visibility is the query of what the caller may see of a metalake, or nil
// with authorization off.
func (s *Service) visibility(ctx context.Context, metalake string) (bq.Query, error) {
	if !s.Authorization {
		return nil, nil
	}
	user := semcat.UserFromContext(ctx)
	g, err := s.Store.UserGrants(ctx, metalake, user)
	if err != nil {
		return nil, err
	}
	return visibilityFor(g, s.Admin != nil && s.Admin(user), metalake)
}

// visibilityFor is the query of what a user with grants g may see of
// metalake; admin: the user is a service admin, who may see that every
// metalake exists (and, of its objects, what g grants). A metalake the
// user is not in is one that does not exist (SPEC §6, no existence
// oracles), as authz answers on every route under it.
func visibilityFor(g *semcat.Grants, admin bool, metalake string) (bq.Query, error) {
	if !g.Member && !admin {
		return nil, semcat.NoSuchMetalake(metalake)
	}
	return Visibility(g), nil
}

// exists checks, for an answer with nothing in it, that the metalake
// exists, which every other route under it answers with 404; an answer
// with hits has shown it without this round trip.
func (s *Service) exists(ctx context.Context, metalake string) error {
	// The lookup is one indexed row: a database that takes longer than
	// existsTimeout is hanging (stopped, or a stalled standby holding
	// every connection), and the index can answer instead of the request
	// waiting until its own deadline.
	lookup, cancel := context.WithTimeout(ctx, existsTimeout)
	_, err := s.Store.GetMetalake(lookup, metalake)
	cancel()
	switch {
	case err == nil:
		return nil
	case semcat.ErrorCode(err) == semcat.ENOTFOUND || ctx.Err() != nil:
		return err
	}
	// The database did not answer (an outage): searches keep answering
	// from the index, and an index holding anything of the metalake shows
	// it exists as well as the database would. Only an empty (or missing)
	// metalake then has no answer.
	held, ierr := search(ctx, s.Index, semcat.SearchRequest{Metalake: metalake, Query: "*", Limit: 1}, nil)
	if ierr == nil && held.Total > 0 {
		return nil
	}
	if semcat.ErrorCode(err) == semcat.EDEADLINE {
		return semcat.Errorf(semcat.EUNAVAILABLE, "the database did not answer within %s, so whether metalake '%s' exists is unknown; try again shortly", existsTimeout, metalake)
	}
	return err
}

// existsTimeout bounds exists' lookup of the metalake in the database.
const existsTimeout = time.Second

// heavySlots admits the costliest searches, many terms or many prefixes
// (up to the limits of SPEC §2.11), to half the machine's cores, so that a
// few callers sending them back to back cannot take every core from
// everyone else's searches (DESIGN §6, hostile load). A costly search waits
// for a slot within its own deadline; others never wait.
var heavySlots = newSlots(max(1, runtime.GOMAXPROCS(0)/2))

// A query is costly from heavyPrefixes prefix terms or heavyTerms terms:
// each prefix expands to every indexed word it starts (thousands for one
// letter), and each term is a posting list read and scored.
const (
	heavyPrefixes = 4
	heavyTerms    = 16
)

// heavyVisibility is the number of ids in a caller's visibility (its
// owned objects, mostly) from which its searches are costly too: each id
// is a dictionary lookup in the segment that holds it.
const heavyVisibility = 4096

// costly reports whether query is one heavySlots admits, weighing its
// parsed terms (q.Weigh): quoted prefixes ("a*") are prefixes as bare ones
// are. A query that does not parse is refused before it costs anything.
func costly(query string) bool {
	parsed, err := q.Parse(query)
	if err != nil {
		return false
	}
	terms, prefixes := q.Weigh(parsed)
	return prefixes >= heavyPrefixes || terms >= heavyTerms
}

// slots is a counting semaphore whose wait ends with a context.
type slots chan struct{}

func newSlots(n int) slots { return make(slots, n) }

func (s slots) acquire(ctx context.Context) (release func(), err error) {
	select {
	case s <- struct{}{}:
		return func() { <-s }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// WaitFor blocks until the index covers pos.
func (s *Service) WaitFor(ctx context.Context, pos semcat.Position) error {
	return s.Index.WaitFor(ctx, pos)
}
