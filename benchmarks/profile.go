package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// profiler records a CPU profile of the server at the start of each phase
// of the run (-profile), so a missed target comes with the profile that
// explains it: `go tool pprof -top profiles/<size>/<phase>.pprof`.
type profiler struct {
	ctx   context.Context
	s     *Server
	d     time.Duration
	dir   string
	logf  func(string, ...any)
	mu    sync.Mutex
	waits []func() error
	names []string
	busy  bool // a profile is being recorded; the server allows one at a time
}

func newProfiler(ctx context.Context, s *Server, d time.Duration, dir string, logf func(string, ...any)) *profiler {
	return &profiler{ctx: ctx, s: s, d: d, dir: dir, logf: logf}
}

// phase starts a profile of the phase that begins now, unless the previous
// one is still being recorded.
func (p *profiler) phase(name string) {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		p.logf("  warning: profiles: %v", err)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.busy {
		p.logf("  profile of %q skipped: the previous phase's profile is still being recorded", name)
		return
	}
	p.busy = true
	file := strings.NewReplacer(" ", "-", "→", "to", "(", "", ")", "", ",", "").Replace(name)
	path := filepath.Join(p.dir, file+".pprof")
	wait := p.s.profileCPU(p.ctx, p.d, path)
	var once sync.Once
	var err error
	w := func() error {
		once.Do(func() {
			err = wait()
			p.mu.Lock()
			p.busy = false
			p.mu.Unlock()
		})
		return err
	}
	go func() { _ = w() }()
	p.waits = append(p.waits, w)
	p.names = append(p.names, path)
}

// wait waits for the profiles still being recorded and logs where they are.
func (p *profiler) wait() {
	p.mu.Lock()
	waits, names := p.waits, p.names
	p.mu.Unlock()
	for i, w := range waits {
		if err := w(); err != nil {
			p.logf("  warning: profile %s: %v", names[i], err)
		} else {
			p.logf("  CPU profile: %s", names[i])
		}
	}
}
