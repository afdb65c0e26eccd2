package indexer

import (
	"context"

	bq "github.com/blevesearch/bleve/v2/search/query"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
)

// Service is the search service over an Indexer. With Authorization on, it
// compiles the caller's visibility (from its grants and ownerships in the
// metalake) into every query.
type Service struct {
	Indexer       *Indexer
	Store         *catalogdb.Store
	Authorization bool
}

var _ semcat.SearchService = (*Service)(nil)

// Search answers a search with only what the caller may see.
func (s *Service) Search(ctx context.Context, req semcat.SearchRequest) (*semcat.SearchResult, error) {
	var visible bq.Query
	if s.Authorization {
		g, err := s.Store.UserGrants(ctx, req.Metalake, semcat.UserFromContext(ctx))
		if err != nil {
			return nil, err
		}
		visible = Visibility(g)
	}
	res, err := s.Indexer.search(ctx, req, visible)
	if err != nil || res.Total > 0 {
		return res, err
	}
	// No hits: either nothing matches, or the metalake does not exist,
	// which every other route under it answers with 404. A search with
	// hits has shown the metalake exists without this round trip.
	if _, err := s.Store.GetMetalake(ctx, req.Metalake); err != nil {
		return nil, err
	}
	return res, nil
}

// WaitFor blocks until the index covers pos.
func (s *Service) WaitFor(ctx context.Context, pos semcat.Position) error {
	return s.Indexer.WaitFor(ctx, pos)
}
