// Package jobs runs semcat's scheduled maintenance (SPEC §8) in-process: named
// jobs on cron schedules, each never overlapping itself, with panics
// recovered, every run logged and counted in Prometheus, and a synchronous
// RunNow for tests and admin triggers.
package jobs

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/robfig/cron/v3"
)

// Run results, the values of the result label of semcat_job_runs_total.
const (
	ResultSuccess = "success"
	ResultError   = "error"
	ResultPanic   = "panic"
	ResultSkipped = "skipped" // the job was still running from an earlier start
)

var (
	// ErrAlreadyRunning reports a run skipped because the job is still
	// running from an earlier start.
	ErrAlreadyRunning = errors.New("already running")
	// ErrUnknownJob reports a job name that was never added.
	ErrUnknownJob = errors.New("no such job")
	// ErrStopped reports a scheduler that has been stopped.
	ErrStopped = errors.New("scheduler stopped")
)

// Scheduler runs named jobs on cron schedules. Every run gets a context that
// Stop cancels; Stop then waits for the runs to return.
type Scheduler struct {
	logger      *slog.Logger
	cron        *cron.Cron
	ctx         context.Context // parent of every run; cancelled by Stop
	cancel      context.CancelFunc
	runs        *prometheus.CounterVec
	lastSuccess *prometheus.GaugeVec

	mu      sync.Mutex
	jobs    map[string]*job
	stopped bool
	manual  sync.WaitGroup // RunNow calls in progress; cron waits for its own
}

// job is one named job; running guards against overlapping runs, whether
// started by the schedule or by RunNow.
type job struct {
	name    string
	fn      func(ctx context.Context) error
	running atomic.Bool
}

// How a run was started, for the logs.
const (
	triggerSchedule = "schedule"
	triggerManual   = "manual"
)

// New returns a scheduler that logs to logger (nil: slog.Default()) and
// registers its metrics with reg (nil: not registered):
// semcat_job_runs_total{job,result} and
// semcat_job_last_success_timestamp_seconds{job}.
func New(logger *slog.Logger, reg prometheus.Registerer) *Scheduler {
	if logger == nil {
		logger = slog.Default()
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Scheduler{
		logger: logger,
		cron:   cron.New(cron.WithLogger(cronLogger{logger})),
		ctx:    ctx,
		cancel: cancel,
		runs: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "semcat_job_runs_total",
			Help: "Scheduled job runs by job and result (success, error, panic, skipped).",
		}, []string{"job", "result"})),
		lastSuccess: register(reg, prometheus.NewGaugeVec(prometheus.GaugeOpts{
			Name: "semcat_job_last_success_timestamp_seconds",
			Help: "Unix time at which each job last finished successfully.",
		}, []string{"job"})),
		jobs: map[string]*job{},
	}
}

// Add schedules fn as the job name. spec is a standard five-field cron
// expression or a descriptor such as "@hourly" or "@every 1h". Names are
// unique. Jobs may be added before or after Start.
func (s *Scheduler) Add(name, spec string, fn func(ctx context.Context) error) error {
	if name == "" || fn == nil {
		return errors.New("jobs: a job needs a name and a function")
	}
	schedule, err := cron.ParseStandard(spec)
	if err != nil {
		return fmt.Errorf("jobs: job %q: invalid schedule %q: %w", name, spec, err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.stopped {
		return fmt.Errorf("jobs: add job %q: %w", name, ErrStopped)
	}
	if _, dup := s.jobs[name]; dup {
		return fmt.Errorf("jobs: job %q added twice", name)
	}
	j := &job{name: name, fn: fn}
	s.jobs[name] = j
	// Every result series exists from the start, so rates and alerts work
	// before the first failure.
	for _, result := range []string{ResultSuccess, ResultError, ResultPanic, ResultSkipped} {
		s.runs.WithLabelValues(name, result)
	}
	s.cron.Schedule(schedule, cron.FuncJob(func() { s.run(s.ctx, j, triggerSchedule) }))
	return nil
}

// Start starts running jobs on their schedules. It does nothing after Stop.
func (s *Scheduler) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.stopped {
		s.cron.Start()
	}
}

// Stop stops the schedule, cancels the context of every running job and
// waits for them to return, or for ctx to end (then it returns ctx's error
// and the jobs finish on their own). After Stop no job starts again.
func (s *Scheduler) Stop(ctx context.Context) error {
	s.mu.Lock()
	s.stopped = true
	s.mu.Unlock()
	scheduled := s.cron.Stop()
	s.cancel()
	manual := make(chan struct{})
	go func() {
		s.manual.Wait()
		close(manual)
	}()
	for _, done := range []<-chan struct{}{scheduled.Done(), manual} {
		select {
		case <-done:
		case <-ctx.Done():
			return fmt.Errorf("jobs: stop: jobs still running: %w", ctx.Err())
		}
	}
	return nil
}

// RunNow runs the job name at once, in the calling goroutine, and returns its
// error. The run's context ends with ctx or with Stop. A job that is
// already running is not started again: RunNow returns ErrAlreadyRunning.
func (s *Scheduler) RunNow(ctx context.Context, name string) error {
	s.mu.Lock()
	j, ok := s.jobs[name]
	switch {
	case s.stopped:
		s.mu.Unlock()
		return fmt.Errorf("jobs: run %q: %w", name, ErrStopped)
	case !ok:
		s.mu.Unlock()
		return fmt.Errorf("jobs: run %q: %w", name, ErrUnknownJob)
	}
	s.manual.Add(1)
	s.mu.Unlock()
	defer s.manual.Done()

	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	defer context.AfterFunc(s.ctx, cancel)()
	return s.run(ctx, j, triggerManual)
}

// run runs j once unless it is already running, and logs and counts the
// outcome.
func (s *Scheduler) run(ctx context.Context, j *job, trigger string) error {
	if !j.running.CompareAndSwap(false, true) {
		s.runs.WithLabelValues(j.name, ResultSkipped).Inc()
		s.logger.Warn("job still running, run skipped", "job", j.name, "trigger", trigger)
		return fmt.Errorf("jobs: job %q: %w", j.name, ErrAlreadyRunning)
	}
	defer j.running.Store(false)

	start := time.Now()
	stack, err := call(ctx, j.fn)
	attrs := []any{"job", j.name, "trigger", trigger, "duration", time.Since(start)}
	switch {
	case stack != nil:
		s.runs.WithLabelValues(j.name, ResultPanic).Inc()
		s.logger.Error("job panicked", append(attrs, "result", ResultPanic, "error", err, "stack", string(stack))...)
		return fmt.Errorf("jobs: job %q: %w", j.name, err)
	case err != nil:
		s.runs.WithLabelValues(j.name, ResultError).Inc()
		s.logger.Error("job failed", append(attrs, "result", ResultError, "error", err)...)
		return fmt.Errorf("jobs: job %q: %w", j.name, err)
	}
	s.runs.WithLabelValues(j.name, ResultSuccess).Inc()
	s.lastSuccess.WithLabelValues(j.name).Set(float64(time.Now().UnixNano()) / 1e9)
	s.logger.Info("job done", append(attrs, "result", ResultSuccess)...)
	return nil
}

// call runs fn, turning a panic into an error and the panicking goroutine's
// stack.
func call(ctx context.Context, fn func(context.Context) error) (stack []byte, err error) {
	defer func() {
		if v := recover(); v != nil {
			stack, err = debug.Stack(), fmt.Errorf("panic: %v", v)
		}
	}()
	return nil, fn(ctx)
}

// cronLogger passes cron's own messages to slog; its routine ones (every
// wake-up and start) only at debug level.
type cronLogger struct{ logger *slog.Logger }

func (l cronLogger) Info(msg string, keysAndValues ...any) {
	l.logger.Debug("cron: "+msg, keysAndValues...)
}

func (l cronLogger) Error(err error, msg string, keysAndValues ...any) {
	l.logger.Error("cron: "+msg, append(keysAndValues, "error", err)...)
}

// register registers c with reg, or returns the collector already
// registered under its name, so that several schedulers can share a registry.
func register[C prometheus.Collector](reg prometheus.Registerer, c C) C {
	if reg == nil {
		return c
	}
	if err := reg.Register(c); err != nil {
		var are prometheus.AlreadyRegisteredError
		if errors.As(err, &are) {
			if existing, ok := are.ExistingCollector.(C); ok {
				return existing
			}
		}
		panic(fmt.Sprintf("jobs: registering metrics: %v", err))
	}
	return c
}
