package search

import (
	"context"
	"sync"

	q "github.com/semcat/semcat/query"
)

// SynonymCache holds each metalake's synonym sets (SPEC §2.6) ready for
// planning, loaded on a metalake's first search and dropped whole on
// Invalidate: wire it to catalogdb.Store.WatchSynonyms, which calls it
// after a change commits here and when another server's change shows in
// the outbox. A search then plans with the sets of the latest change
// known to this server: on the server that wrote it, the next search.
type SynonymCache struct {
	// Load reads a metalake's sets (catalogdb.Store.GetSynonyms).
	Load func(ctx context.Context, metalake string) ([][]string, error)

	mu  sync.Mutex
	gen uint64 // bumped by Invalidate, so that a load begun before it is not kept
	m   map[string]*q.Synonyms
}

// maxCachedMetalakes bounds the cache; beyond it, it starts over.
const maxCachedMetalakes = 4096

// Get returns a metalake's synonyms; nil for none, and when they cannot be
// read (a metalake that does not exist: the search says so).
func (c *SynonymCache) Get(ctx context.Context, metalake string) *q.Synonyms {
	if c == nil || c.Load == nil {
		return nil
	}
	c.mu.Lock()
	syn, ok := c.m[metalake]
	gen := c.gen
	c.mu.Unlock()
	if ok {
		return syn
	}
	sets, err := c.Load(ctx, metalake)
	if err != nil {
		return nil
	}
	if len(sets) > 0 {
		syn = q.NewSynonyms(sets)
	}
	c.mu.Lock()
	if c.gen == gen {
		if c.m == nil || len(c.m) >= maxCachedMetalakes {
			c.m = map[string]*q.Synonyms{}
		}
		c.m[metalake] = syn
	}
	c.mu.Unlock()
	return syn
}

// Invalidate drops every cached set.
func (c *SynonymCache) Invalidate() {
	c.mu.Lock()
	c.gen++
	c.m = nil
	c.mu.Unlock()
}

type synonymsKey struct{}

// withSynonyms gives a search the metalake's synonyms.
func withSynonyms(ctx context.Context, syn *q.Synonyms) context.Context {
	if syn == nil {
		return ctx
	}
	return context.WithValue(ctx, synonymsKey{}, syn)
}

func synonymsFrom(ctx context.Context) *q.Synonyms {
	syn, _ := ctx.Value(synonymsKey{}).(*q.Synonyms)
	return syn
}
