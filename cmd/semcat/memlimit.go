package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/semcat/semcat/internal/memcg"
)

// goMemoryShare is the part of semcat's memory budget (memoryBudget) that
// the Go runtime may grow to. The rest is left for what the kernel charges
// to the same cgroup besides: the page cache through which searches read
// the index's memory-mapped segments, and the kernel's own memory.
const goMemoryShare = 0.8

// limitedGCPercent is the garbage collector's target (GOGC) while a memory
// cgroup limit binds semcat: the heap may grow half its live size between
// collections instead of all of it. Under a limit, heap and the page cache
// that holds the index share one budget, and the kernel reclaims the cache,
// never the heap: at 1,000,000 entities under 1 GiB the live heap was 191
// MiB and Go's default let it reach 382 MiB before collecting, beside
// about 690 MiB of cache for a 2.6 GiB index; half that slack is up to 95
// MiB more cache. A tighter target costs
// more frequent collections, which a search barely notices beside a read
// from disk.
const limitedGCPercent = 50

// memoryLimitPoll is how often semcat looks at its memory cgroup's limit:
// a container's limit can be changed while it runs, and a process can be
// moved into a cgroup with one.
const memoryLimitPoll = 30 * time.Second

// memoryLimitFollower keeps the Go runtime's soft memory limit at
// goMemoryShare of semcat's memory budget under the memory cgroup limits
// over it. Go reads no memory limit from cgroups, and by default collects
// only once its heap has doubled over the live heap: a rebuild, whose live
// heap is largest, would then grow past a container's limit and be killed
// where collecting sooner would have kept it within.
type memoryLimitFollower struct {
	budget func() (bytes int64, limited bool) // memoryBudget
	set    func(int64) int64                  // debug.SetMemoryLimit; a negative value only reads
	// setGC is debug.SetGCPercent, nil to leave the collector's target
	// alone (GOGC set: the operator's choice).
	setGC  func(int) int
	logger *slog.Logger

	was     int64 // the limit before the first change, restored at the end
	applied int64 // the limit last set, 0 for none
	ceded   bool  // someone else set the limit since: leave it to them

	gcWas     int  // the GC percent before limitedGCPercent was set
	gcApplied bool // limitedGCPercent is set
}

// goMemoryLimit is the Go memory limit for a memory budget: its share,
// but not below minGoMemoryLimit, under which the collector would run
// without pause and semcat barely serve.
func goMemoryLimit(budget int64) int64 {
	return max(int64(float64(budget)*goMemoryShare), minGoMemoryLimit)
}

const minGoMemoryLimit = 64 << 20

// check sets the Go memory limit for the current budget, or restores the
// original limit if no cgroup limit is left. If the limit is no longer
// the one it set, whoever changed it owns it from then on.
func (f *memoryLimitFollower) check() {
	if f.ceded {
		return
	}
	if f.applied != 0 {
		if now := f.set(-1); now != f.applied {
			f.ceded, f.applied = true, 0
			f.logger.Warn("Go's memory limit was changed from outside; no longer following the memory cgroup's limit", "go_memory_limit_bytes", now)
			return
		}
	}
	want := int64(0)
	budget, limited := f.budget()
	if limited {
		want = goMemoryLimit(budget)
	}
	f.checkGC(limited)
	if want == f.applied {
		return
	}
	switch {
	case f.applied == 0:
		f.was = f.set(want)
	case want == 0:
		f.set(f.was)
	default:
		f.set(want)
	}
	f.applied = want
	if want == 0 {
		f.logger.Info("no memory cgroup limit any more: Go's memory limit restored")
		return
	}
	f.logger.Info("following the memory cgroup's limit", "budget_bytes", budget, "go_memory_limit_bytes", want, "share", goMemoryShare)
	if want == minGoMemoryLimit {
		f.logger.Warn("semcat's memory budget under its cgroup limit is very small: expect slow garbage collection, or the kernel to kill semcat", "budget_bytes", budget)
	}
}

// checkGC sets limitedGCPercent while limited, again at every check (a
// build that loosened the collector before the limit came puts its own
// setting back when it ends), and restores what was set before once no
// limit binds.
func (f *memoryLimitFollower) checkGC(limited bool) {
	switch {
	case f.setGC == nil:
	case limited:
		was := f.setGC(limitedGCPercent)
		if !f.gcApplied {
			f.gcWas, f.gcApplied = was, true
			f.logger.Info("collecting garbage sooner under the memory cgroup's limit, leaving the index more page cache", "gc_percent", limitedGCPercent)
		}
	case f.gcApplied:
		f.setGC(f.gcWas)
		f.gcApplied = false
	}
}

// restore puts back the limit there was before the first change, unless
// someone else has changed it since.
func (f *memoryLimitFollower) restore() {
	f.checkGC(false)
	if f.applied != 0 && f.set(-1) == f.applied {
		f.set(f.was)
	}
	f.applied = 0
}

// run checks every poll until ctx is done, then restores the original
// limit.
func (f *memoryLimitFollower) run(ctx context.Context, poll time.Duration) {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		f.check()
		select {
		case <-ctx.Done():
			f.restore()
			return
		case <-t.C:
		}
	}
}

// followerShare runs one follower for the Mains of a process (tests run
// several at once, and the memory limit is the process's): the first to
// start starts it, the last to stop stops it.
type followerShare struct {
	mu    sync.Mutex
	users int
	stop  func()
}

// start starts f if no follower runs yet and returns what ends this use.
func (s *followerShare) start(f *memoryLimitFollower, poll time.Duration) (stop func()) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.users == 0 {
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			f.run(ctx, poll)
		}()
		s.stop = func() { cancel(); <-done }
	}
	s.users++
	return sync.OnceFunc(func() {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.users--; s.users == 0 {
			s.stop()
		}
	})
}

var processFollower followerShare

// startMemoryLimit follows the memory cgroup's limit, unless GOMEMLIMIT
// is set (the operator's choice wins), and returns what stops it. pgPID
// gives the managed PostgreSQL's postmaster PID (0: none) and pgBudget is
// its memory budget.
func startMemoryLimit(logger *slog.Logger, pgPID func() int, pgBudget int64) (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	budget := func() (int64, bool) {
		self, err := os.ReadFile("/proc/self/cgroup")
		if err != nil {
			return 0, false
		}
		var pg []byte
		if pid := pgPID(); pid > 0 { // it changes when the server is restarted
			pg, _ = os.ReadFile(fmt.Sprintf("/proc/%d/cgroup", pid))
		}
		return memoryBudget("/sys/fs/cgroup", string(self), string(pg), pgBudget)
	}
	f := &memoryLimitFollower{budget: budget, set: debug.SetMemoryLimit, logger: logger}
	if os.Getenv("GOGC") == "" {
		f.setGC = debug.SetGCPercent
	}
	return processFollower.start(f, memoryLimitPoll)
}

// memoryBudget is the memory semcat may use under the memory cgroup
// limits over it (procSelf, the text of /proc/self/cgroup), the tightest
// of them: a limit that also binds the managed PostgreSQL (procPG; a child
// stays in its parent's cgroup unless moved) leaves semcat that limit less
// pgBudget. It reports false if no limit binds semcat.
func memoryBudget(root, procSelf, procPG string, pgBudget int64) (budget int64, limited bool) {
	for _, l := range memcg.Limits(root, procSelf) {
		b := l.Bytes
		if procPG != "" && l.Binds(root, procPG) {
			b -= pgBudget
		}
		if !limited || b < budget {
			budget, limited = b, true
		}
	}
	return max(budget, 0), limited
}
