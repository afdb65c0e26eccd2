package main

import (
	"context"
	"log/slog"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/semcat/semcat/internal/memcg"
)

// goMemoryShare is the part of a memory cgroup's limit that Go's heap may
// grow to. The rest is left for what the kernel charges to the same cgroup
// besides: the page cache through which searches read the index's
// memory-mapped segments, and the kernel's own memory.
const goMemoryShare = 0.8

// memoryLimitPoll is how often semcat looks at its memory cgroup's limit:
// a container's limit can be changed while it runs, and a process can be
// moved into a cgroup with one.
const memoryLimitPoll = 30 * time.Second

// memoryLimitFollower keeps the Go runtime's soft memory limit at
// goMemoryShare of the tightest memory cgroup limit over semcat. Go reads
// no memory limit from cgroups, and by default collects only once its heap
// has doubled over the live heap: a rebuild, whose live heap is largest,
// would then grow past a container's limit and be killed where collecting
// sooner would have kept it within. An operator's GOMEMLIMIT is left in
// force.
type memoryLimitFollower struct {
	read   func() (limit int64, ok bool) // the tightest cgroup limit
	set    func(int64) int64             // debug.SetMemoryLimit
	logger *slog.Logger

	was     int64 // the limit before the first change, restored at the end
	applied int64 // the limit last set, 0 for none
}

// goMemoryLimit is the Go memory limit for a cgroup limit.
func goMemoryLimit(cgroupLimit int64) int64 {
	return int64(float64(cgroupLimit) * goMemoryShare)
}

// check sets the Go memory limit for the current cgroup limit, or restores
// the original one if the cgroup limit is gone.
func (f *memoryLimitFollower) check() {
	want := int64(0)
	if limit, ok := f.read(); ok {
		want = goMemoryLimit(limit)
	}
	if want == f.applied {
		return
	}
	if f.applied == 0 {
		f.was = f.set(want)
	} else if want == 0 {
		f.set(f.was)
	} else {
		f.set(want)
	}
	if want == 0 {
		f.logger.Info("memory cgroup limit gone: Go's memory limit restored")
	} else {
		f.logger.Info("following the memory cgroup's limit", "go_memory_limit_bytes", want, "share", goMemoryShare)
	}
	f.applied = want
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
			if f.applied != 0 {
				f.set(f.was)
				f.applied = 0
			}
			return
		case <-t.C:
		}
	}
}

// memoryLimit is the process's one follower, shared by the Mains that run
// in it (tests run several): the first to start starts it, the last to
// close stops it.
var memoryLimit struct {
	sync.Mutex
	users int
	stop  func()
}

// startMemoryLimit starts following the memory cgroup's limit unless
// GOMEMLIMIT is set, and returns what stops it.
func startMemoryLimit(logger *slog.Logger) (stop func()) {
	if os.Getenv("GOMEMLIMIT") != "" {
		return func() {}
	}
	memoryLimit.Lock()
	defer memoryLimit.Unlock()
	if memoryLimit.users == 0 {
		f := &memoryLimitFollower{read: cgroupMemoryLimit, set: debug.SetMemoryLimit, logger: logger}
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			f.run(ctx, memoryLimitPoll)
		}()
		memoryLimit.stop = func() { cancel(); <-done }
	}
	memoryLimit.users++
	return sync.OnceFunc(func() {
		memoryLimit.Lock()
		defer memoryLimit.Unlock()
		if memoryLimit.users--; memoryLimit.users == 0 {
			memoryLimit.stop()
		}
	})
}

// cgroupMemoryLimit is the tightest memory cgroup limit over this process.
func cgroupMemoryLimit() (int64, bool) {
	b, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	return memcg.Tightest(memcg.Limits("/sys/fs/cgroup", string(b)))
}
