package apitest

import (
	"context"
	"log/slog"
	"testing"

	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/indexer"
	"github.com/semcat/semcat/internal/authz"
	"github.com/semcat/semcat/search"
)

// NewStackServer starts the whole API as cmd/semcat wires it over the
// database at url: the PostgreSQL store behind the authorization rules,
// search over a Bleve index (in a temp dir) that follows the outbox, simple
// authentication, and reindex for the service admin "admin". cfg supplies
// the rest (body limit, version); its Logger, when nil, discards.
func NewStackServer(tb testing.TB, url string, cfg api.Config) *Client {
	tb.Helper()
	ctx := context.Background()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.DiscardHandler)
	}
	s, err := catalogdb.Open(ctx, url, cfg.Logger)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	x, err := indexer.Open(ctx, indexer.Options{Dir: tb.TempDir(), Store: s, Consumer: "apitest", Logger: cfg.Logger, Wake: s.Commits()})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { x.Close(context.Background()) })
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		x.Run(runCtx)
	}()
	tb.Cleanup(func() { stop(); <-done })

	if cfg.Authenticate, err = api.NewAuthenticator(api.AuthConfig{Mode: api.AuthSimple}); err != nil {
		tb.Fatal(err)
	}
	cfg.Ready = s.Ping
	cfg.Reindex, cfg.ReindexProgress = x.Rebuild, x.RebuildProgress
	cfg.IsAdmin = func(user string) bool { return user == "admin" }
	svc := authz.New(s, s, []string{"admin"}, cfg.Logger)
	synonyms := &search.SynonymCache{Load: s.GetSynonyms}
	s.WatchSynonyms(synonyms.Invalidate)
	return NewServerWithConfig(tb, api.Services{
		Metalakes: svc, Catalogs: svc, Schemas: svc, Tables: svc, Models: svc, Tags: svc, Metrics: svc, Access: svc,
		Metadata: svc, Policies: svc, Search: &search.Service{Index: x, Store: s, Authorization: true, Admin: cfg.IsAdmin, Synonyms: synonyms},
		Synonyms: svc,
	}, cfg)
}
