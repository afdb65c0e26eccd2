package search

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
)

// TestSynonymCache: sets load once per metalake, Invalidate makes the next
// Get load again, and a load begun before an Invalidate is not kept.
func TestSynonymCache(t *testing.T) {
	var loads atomic.Int32
	version := atomic.Int32{}
	c := &SynonymCache{Load: func(_ context.Context, metalake string) ([][]string, error) {
		loads.Add(1)
		if version.Load() == 0 {
			return nil, nil
		}
		return [][]string{{"ios", "glacier"}}, nil
	}}
	ctx := context.Background()
	first, second := c.Get(ctx, "m"), c.Get(ctx, "m")
	if first != nil || second != nil || loads.Load() != 1 {
		t.Fatalf("no sets: want nil, loaded once; loaded %d times", loads.Load())
	}
	version.Store(1)
	if c.Get(ctx, "m") != nil {
		t.Fatal("a change not yet announced showed")
	}
	c.Invalidate()
	if syn := c.Get(ctx, "m"); syn.Len() != 2 {
		t.Fatalf("after Invalidate: %v, want the new sets", syn)
	}
	// A load that an Invalidate overtakes is not cached.
	version.Store(0)
	stale := &SynonymCache{}
	stale.Load = func(context.Context, string) ([][]string, error) {
		stale.Invalidate() // a change commits while this load reads
		return [][]string{{"a", "b"}}, nil
	}
	stale.Get(ctx, "m")
	if _, ok := stale.m["m"]; ok {
		t.Error("a load overtaken by Invalidate was cached")
	}
	// Concurrent use.
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 100 {
				if i%4 == 0 {
					c.Invalidate()
				}
				c.Get(ctx, "m")
			}
		}()
	}
	wg.Wait()
}
