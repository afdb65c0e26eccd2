package main

import (
	"io"
	"log/slog"
	"math"
	"sync"
	"testing"
	"time"

	"github.com/semcat/semcat/internal/memcg/memcgtest"
)

// fakeRuntime stands in for the memory budget and the Go runtime's memory
// limit that a follower reads and sets.
type fakeRuntime struct {
	mu      sync.Mutex
	cgroup  int64 // the budget; 0: no cgroup limit
	goLimit int64
	sets    int
	gc      int // the GC percent
}

func newFakeRuntime(cgroup int64) *fakeRuntime {
	return &fakeRuntime{cgroup: cgroup, goLimit: math.MaxInt64, gc: 100}
}

// setGC is debug.SetGCPercent.
func (r *fakeRuntime) setGC(n int) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	was := r.gc
	r.gc = n
	return was
}

func (r *fakeRuntime) gcPercent() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.gc
}

func (r *fakeRuntime) budget() (int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cgroup, r.cgroup != 0
}

// set is debug.SetMemoryLimit: a negative value only reads the limit.
func (r *fakeRuntime) set(n int64) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	was := r.goLimit
	if n >= 0 {
		r.goLimit = n
		r.sets++
	}
	return was
}

func (r *fakeRuntime) state() (limit int64, sets int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.goLimit, r.sets
}

func (r *fakeRuntime) follower() *memoryLimitFollower {
	return &memoryLimitFollower{budget: r.budget, set: r.set, setGC: r.setGC, logger: slog.New(slog.NewTextHandler(io.Discard, nil))}
}

// waitForLimit waits until the fake's Go limit is want.
func (r *fakeRuntime) waitForLimit(t *testing.T, want int64) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for got, _ := r.state(); got != want; got, _ = r.state() {
		if time.Now().After(deadline) {
			t.Fatalf("Go limit %d, want %d", got, want)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestMemoryLimitFollower: a cgroup limit sets Go's memory limit to its
// share, a changed limit changes it, an unchanged one is not set again,
// and a limit removed restores what Go had. Once someone else sets the
// limit, the follower leaves it alone, at the end too.
func TestMemoryLimitFollower(t *testing.T) {
	rt := newFakeRuntime(0)
	f := rt.follower()
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
	step(10<<20, minGoMemoryLimit, 1) // a floor, not a collector that never stops
	step(0, math.MaxInt64, 2)
	step(1<<30, 858993459, 3) // 0.8 GiB
	step(1<<30, 858993459, 3)
	step(2<<30, 1717986918, 4)
	step(0, math.MaxInt64, 5)
	step(1<<30, 858993459, 6)

	rt.set(500 << 20) // an operator's, or a library's, own limit
	step(2<<30, 500<<20, 7)
	f.restore()
	if got, _ := rt.state(); got != 500<<20 {
		t.Errorf("restore overwrote a limit set from outside: %d", got)
	}
}

// TestFollowerCollectsSoonerUnderALimit: while a cgroup limit binds, the
// collector's target is limitedGCPercent, set again if something else
// (a build) changed it; once no limit binds, and at the end, the setting
// from before comes back.
func TestFollowerCollectsSoonerUnderALimit(t *testing.T) {
	rt := newFakeRuntime(0)
	rt.setGC(80)
	f := rt.follower()
	step := func(cgroup int64, want int) {
		t.Helper()
		rt.mu.Lock()
		rt.cgroup = cgroup
		rt.mu.Unlock()
		f.check()
		if got := rt.gcPercent(); got != want {
			t.Errorf("cgroup limit %d: GC percent %d, want %d", cgroup, got, want)
		}
	}
	step(0, 80)
	step(1<<30, limitedGCPercent)
	rt.setGC(200) // a build that loosened the collector before the limit came, ending
	step(1<<30, limitedGCPercent)
	step(0, 80)
	step(2<<30, limitedGCPercent)
	f.restore()
	if got := rt.gcPercent(); got != 80 {
		t.Errorf("after restore: GC percent %d, want 80", got)
	}
	// Without setGC (GOGC set), the collector is left alone.
	rt.setGC(100)
	f = &memoryLimitFollower{budget: rt.budget, set: rt.set, logger: f.logger}
	step(1<<30, 100)
}

// TestFollowerShare: Mains in one process share one follower; the limit
// is applied once the first starts, and restored only when the last
// stops; stopping twice counts once.
func TestFollowerShare(t *testing.T) {
	rt := newFakeRuntime(1 << 30)
	var share followerShare
	stop1 := share.start(rt.follower(), time.Hour)
	rt.waitForLimit(t, 858993459)
	stop2 := share.start(rt.follower(), time.Hour)
	stop1()
	stop1()
	if got, _ := rt.state(); got != 858993459 {
		t.Errorf("one of two users stopped (twice): Go limit %d, want it still applied", got)
	}
	stop2()
	if got, _ := rt.state(); got != math.MaxInt64 {
		t.Errorf("both stopped: Go limit %d, want it restored", got)
	}
	if _, sets := rt.state(); sets != 2 {
		t.Errorf("%d sets, want 2: one follower, not two", sets)
	}
}

// TestStartMemoryLimitLeavesGOMEMLIMIT: with GOMEMLIMIT set, semcat does
// not start following at all.
func TestStartMemoryLimitLeavesGOMEMLIMIT(t *testing.T) {
	t.Setenv("GOMEMLIMIT", "300MiB")
	users := func() int {
		processFollower.mu.Lock()
		defer processFollower.mu.Unlock()
		return processFollower.users
	}
	before := users()
	stop := startMemoryLimit(slog.New(slog.NewTextHandler(io.Discard, nil)), func() int { return 0 }, 0)
	defer stop()
	if got := users(); got != before {
		t.Errorf("followers in use went from %d to %d with GOMEMLIMIT set", before, got)
	}
}

// TestMemoryBudget: the tightest cgroup limit over semcat, less the
// managed PostgreSQL's budget where that limit binds PostgreSQL too (in
// the same cgroup, or below it), and never below zero.
func TestMemoryBudget(t *testing.T) {
	root := t.TempDir()
	memcgtest.WriteFiles(t, root, map[string]string{
		"memory.max":         "max",
		"box/memory.max":     "1000",
		"box/a/memory.max":   "max",
		"box/b/memory.max":   "max",
		"tiny/memory.max":    "100",
		"wide/memory.max":    "5000",
		"wide/memory.high":   "max",
		"wide/in/memory.max": "2000",
	})
	for _, c := range []struct {
		name, self, pg string
		budget         int64
		limited        bool
	}{
		{"PostgreSQL in the same cgroup", "0::/box/a\n", "0::/box/a\n", 700, true},
		{"PostgreSQL in a sibling under the limit", "0::/box/a\n", "0::/box/b\n", 700, true},
		{"PostgreSQL outside the limit", "0::/box/a\n", "0::/elsewhere\n", 1000, true},
		{"no managed PostgreSQL", "0::/box/a\n", "", 1000, true},
		{"no limit", "0::/free\n", "0::/free\n", 0, false},
		{"PostgreSQL's budget above the limit", "0::/tiny\n", "0::/tiny\n", 0, true},
		{"the tighter limit wins", "0::/wide/in\n", "", 2000, true},
	} {
		budget, limited := memoryBudget(root, c.self, c.pg, 300)
		if budget != c.budget || limited != c.limited {
			t.Errorf("%s: %d, %v; want %d, %v", c.name, budget, limited, c.budget, c.limited)
		}
	}
}
