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
//
// The server records one profile at a time. A phase that starts while the
// previous phase's profile is still being recorded (a phase shorter than
// the profile) has its profile started as soon as that one ends, unless a
// later phase has started by then: so a long phase after a short one (the
// rebuild after the hostile load) is still profiled, a little into it.
type profiler struct {
	ctx   context.Context
	start func(ctx context.Context, d time.Duration, path string) (wait func() error) // Server.profileCPU
	d     time.Duration
	dir   string
	logf  func(string, ...any)

	mu      sync.Mutex
	waits   []func() error
	names   []string
	busy    bool   // a profile is being recorded
	pending string // the phase whose profile starts when it ends ("": none)
}

func newProfiler(ctx context.Context, s *Server, d time.Duration, dir string, logf func(string, ...any)) *profiler {
	return &profiler{ctx: ctx, start: s.profileCPU, d: d, dir: dir, logf: logf}
}

// phase starts a profile of the phase that begins now, or once the
// profile being recorded ends.
func (p *profiler) phase(name string) {
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		p.logf("  warning: profiles: %v", err)
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.busy {
		if p.pending != "" {
			p.logf("  profile of %q skipped: phase %q began before it could start", p.pending, name)
		}
		p.pending = name
		return
	}
	p.record(name)
}

// record starts the profile of phase name; p.mu is held.
func (p *profiler) record(name string) {
	p.busy = true
	file := strings.NewReplacer(" ", "-", "→", "to", "(", "", ")", "", ",", "").Replace(name)
	path := filepath.Join(p.dir, file+".pprof")
	wait := p.start(p.ctx, p.d, path)
	var once sync.Once
	var err error
	w := func() error {
		once.Do(func() {
			err = wait()
			p.mu.Lock()
			p.busy = false
			if next := p.pending; next != "" && p.ctx.Err() == nil {
				p.pending = ""
				p.logf("  profile of %q starts now, its previous phase's having ended", next)
				p.record(next)
			}
			p.mu.Unlock()
		})
		return err
	}
	go func() { _ = w() }()
	p.waits = append(p.waits, w)
	p.names = append(p.names, path)
}

// wait waits for the profiles still being recorded at the end of the run
// (a phase still waiting to start has ended with the run: it is dropped),
// and logs where they are.
func (p *profiler) wait() {
	p.mu.Lock()
	p.pending = ""
	p.mu.Unlock()
	for i := 0; ; i++ {
		p.mu.Lock()
		if i >= len(p.waits) {
			p.mu.Unlock()
			return
		}
		w, name := p.waits[i], p.names[i]
		p.mu.Unlock()
		if err := w(); err != nil {
			p.logf("  warning: profile %s: %v", name, err)
		} else {
			p.logf("  CPU profile: %s", name)
		}
	}
}
