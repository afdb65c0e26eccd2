package main

import (
	"context"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"
)

// TestProfilerQueuesAPhaseWhileOneRecords: a phase that begins while a
// profile is being recorded is profiled once that ends; of several such
// phases only the latest, the others being over by then; and none is
// started once the run has ended.
func TestProfilerQueuesAPhaseWhileOneRecords(t *testing.T) {
	var mu sync.Mutex
	var started []string
	release := map[string]chan struct{}{}
	start := func(_ context.Context, _ time.Duration, path string) func() error {
		mu.Lock()
		defer mu.Unlock()
		name := filepath.Base(path)
		started = append(started, name)
		ch := make(chan struct{})
		release[name] = ch
		return func() error { <-ch; return nil }
	}
	end := func(name string) {
		mu.Lock()
		ch := release[name]
		mu.Unlock()
		close(ch)
	}
	startedNow := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(started)
	}
	waitFor := func(want ...string) {
		t.Helper()
		deadline := time.Now().Add(5 * time.Second)
		for !slices.Equal(startedNow(), want) {
			if time.Now().After(deadline) {
				t.Fatalf("profiles started: %v, want %v", startedNow(), want)
			}
			time.Sleep(time.Millisecond)
		}
	}
	p := &profiler{ctx: context.Background(), start: start, d: time.Second, dir: t.TempDir(), logf: func(string, ...any) {}}
	p.phase("ingest")
	p.phase("search")
	p.phase("hostile load")
	p.phase("full rebuild")
	waitFor("ingest.pprof")
	end("ingest.pprof")
	waitFor("ingest.pprof", "full-rebuild.pprof")
	p.phase("after")
	end("full-rebuild.pprof")
	waitFor("ingest.pprof", "full-rebuild.pprof", "after.pprof")
	p.phase("the end")
	done := make(chan struct{})
	go func() { p.wait(); close(done) }()
	for cleared := false; !cleared; time.Sleep(time.Millisecond) { // wait drops the phase left
		p.mu.Lock()
		cleared = p.pending == ""
		p.mu.Unlock()
	}
	end("after.pprof")
	<-done
	if got := startedNow(); len(got) != 3 {
		t.Errorf("a profile started after the run ended: %v", got)
	}
}
