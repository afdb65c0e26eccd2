package main

import (
	"context"
	"io"
	"log/slog"
	"math"
	"sync"
	"testing"
	"time"
)

// fakeRuntime stands in for the cgroup filesystem and the Go runtime's
// memory limit that a follower reads and sets.
type fakeRuntime struct {
	mu      sync.Mutex
	cgroup  int64 // 0: no cgroup limit
	goLimit int64
	sets    int
}

func (r *fakeRuntime) read() (int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cgroup, r.cgroup != 0
}

func (r *fakeRuntime) set(n int64) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	was := r.goLimit
	r.goLimit = n
	r.sets++
	return was
}

func (r *fakeRuntime) state() (int64, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.goLimit, r.sets
}

// TestMemoryLimitFollower: a cgroup limit sets Go's memory limit to its
// share, a changed limit changes it, an unchanged one is not set again,
// and a limit removed, or the follower stopped, restores what Go had.
func TestMemoryLimitFollower(t *testing.T) {
	rt := &fakeRuntime{goLimit: math.MaxInt64}
	f := &memoryLimitFollower{read: rt.read, set: rt.set, logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
	step := func(cgroup, wantLimit int64, wantSets int) {
		t.Helper()
		rt.mu.Lock()
		rt.cgroup = cgroup
		rt.mu.Unlock()
		f.check()
		if got, sets := rt.state(); got != wantLimit || sets != wantSets {
			t.Errorf("cgroup limit %d: Go limit %d after %d sets; want %d after %d", cgroup, got, sets, wantLimit, wantSets)
		}
	}
	step(0, math.MaxInt64, 0)
	step(1<<30, 858993459, 1) // 0.8 GiB
	step(1<<30, 858993459, 1)
	step(2<<30, 1717986918, 2)
	step(0, math.MaxInt64, 3)
	step(1<<30, 858993459, 4)

	// run applies the limit at once and restores it when stopped.
	rt = &fakeRuntime{goLimit: math.MaxInt64, cgroup: 1 << 30}
	f = &memoryLimitFollower{read: rt.read, set: rt.set, logger: f.logger}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		f.run(ctx, time.Hour)
	}()
	deadline := time.Now().Add(10 * time.Second)
	for got, _ := rt.state(); got != 858993459; got, _ = rt.state() {
		if time.Now().After(deadline) {
			t.Fatalf("run did not apply the cgroup limit: Go limit %d", got)
		}
		time.Sleep(time.Millisecond)
	}
	cancel()
	<-done
	if got, _ := rt.state(); got != math.MaxInt64 {
		t.Errorf("stopped, the Go limit is %d, want it restored", got)
	}
}
