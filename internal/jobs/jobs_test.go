package jobs_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
	"github.com/semcat/semcat/internal/jobs"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// logBuffer collects log output written from several goroutines.
type logBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *logBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *logBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// newScheduler returns a scheduler with its own registry and log, stopped
// when the test ends.
func newScheduler(tb testing.TB) (*jobs.Scheduler, *prometheus.Registry, *logBuffer) {
	tb.Helper()
	reg := prometheus.NewRegistry()
	logs := &logBuffer{}
	s := jobs.New(slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug})), reg)
	tb.Cleanup(func() {
		if err := s.Stop(context.Background()); err != nil {
			tb.Error(err)
		}
	})
	return s, reg, logs
}

// runs returns semcat_job_runs_total for a job and result.
func runs(tb testing.TB, reg *prometheus.Registry, job, result string) float64 {
	tb.Helper()
	return gathered(tb, reg, "semcat_job_runs_total", map[string]string{"job": job, "result": result})
}

// gathered returns the value of the counter or gauge name with exactly
// these labels, or -1 if there is none.
func gathered(tb testing.TB, reg *prometheus.Registry, name string, labels map[string]string) float64 {
	tb.Helper()
	families, err := reg.Gather()
	if err != nil {
		tb.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
	metrics:
		for _, m := range f.GetMetric() {
			if len(m.GetLabel()) != len(labels) {
				continue
			}
			for _, l := range m.GetLabel() {
				if labels[l.GetName()] != l.GetValue() {
					continue metrics
				}
			}
			if m.GetCounter() != nil {
				return m.GetCounter().GetValue()
			}
			return m.GetGauge().GetValue()
		}
	}
	return -1
}

func noop(context.Context) error { return nil }

func TestAdd(t *testing.T) {
	t.Parallel()
	s, _, _ := newScheduler(t)
	tests := []struct {
		name, spec string
		ok         bool
	}{
		{"hourly", "@every 1h", true},
		{"nightly", "0 3 * * *", true},
		{"daily", "@daily", true},
		{"bad-field", "61 * * * *", false},
		{"gibberish", "every hour", false},
		{"bad-every", "@every soon", false},
		{"empty", "", false},
		{"hourly", "@every 2h", false}, // a name is added once
	}
	for _, tt := range tests {
		err := s.Add(tt.name, tt.spec, noop)
		if tt.ok && err != nil {
			t.Errorf("Add(%q, %q): %v", tt.name, tt.spec, err)
		}
		if !tt.ok && (err == nil || !strings.Contains(err.Error(), `"`+tt.name+`"`)) {
			t.Errorf("Add(%q, %q): %v, want an error naming the job", tt.name, tt.spec, err)
		}
	}
	if err := s.RunNow(context.Background(), "gibberish"); !errors.Is(err, jobs.ErrUnknownJob) {
		t.Errorf("running a job whose Add failed: %v, want ErrUnknownJob", err)
	}
}

func TestRunNowCountsResults(t *testing.T) {
	t.Parallel()
	s, reg, logs := newScheduler(t)
	errBoom := errors.New("boom")
	if err := s.Add("ok", "@every 1h", noop); err != nil {
		t.Fatal(err)
	}
	if err := s.Add("fails", "@every 1h", func(context.Context) error { return errBoom }); err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if gathered(t, reg, "semcat_job_last_success_timestamp_seconds", map[string]string{"job": "ok"}) != -1 {
		t.Error("a job that never ran has a last success time")
	}
	if runs(t, reg, "fails", jobs.ResultError) != 0 {
		t.Error("the error series does not start at 0")
	}
	before := float64(time.Now().Unix())
	for range 2 {
		if err := s.RunNow(ctx, "ok"); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.RunNow(ctx, "fails"); !errors.Is(err, errBoom) || !strings.Contains(err.Error(), `"fails"`) {
		t.Errorf("RunNow of a failing job: %v, want its error, naming the job", err)
	}
	if err := s.RunNow(ctx, "nope"); !errors.Is(err, jobs.ErrUnknownJob) {
		t.Errorf("RunNow of an unknown job: %v, want ErrUnknownJob", err)
	}

	if got := runs(t, reg, "ok", jobs.ResultSuccess); got != 2 {
		t.Errorf("ok: %v successes, want 2", got)
	}
	if got := runs(t, reg, "fails", jobs.ResultError); got != 1 {
		t.Errorf("fails: %v errors, want 1", got)
	}
	if got := gathered(t, reg, "semcat_job_last_success_timestamp_seconds", map[string]string{"job": "ok"}); got < before {
		t.Errorf("last success %v, want at least %v", got, before)
	}
	if got := gathered(t, reg, "semcat_job_last_success_timestamp_seconds", map[string]string{"job": "fails"}); got != -1 {
		t.Errorf("a job that never succeeded has last success %v", got)
	}
	out := logs.String()
	for _, want := range []string{"level=INFO msg=\"job done\" job=ok trigger=manual duration=", "level=ERROR msg=\"job failed\" job=fails", "error=boom"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
}

func TestPanicIsRecoveredAndCounted(t *testing.T) {
	t.Parallel()
	s, reg, logs := newScheduler(t)
	if err := s.Add("panics", "@every 1h", func(context.Context) error { panic("kaboom") }); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if err := s.RunNow(context.Background(), "panics"); err == nil || !strings.Contains(err.Error(), "kaboom") {
			t.Errorf("RunNow of a panicking job: %v, want an error with the panic", err)
		}
	}
	want := `
# HELP semcat_job_runs_total Scheduled job runs by job and result (success, error, panic, skipped).
# TYPE semcat_job_runs_total counter
semcat_job_runs_total{job="panics",result="error"} 0
semcat_job_runs_total{job="panics",result="panic"} 2
semcat_job_runs_total{job="panics",result="skipped"} 0
semcat_job_runs_total{job="panics",result="success"} 0
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "semcat_job_runs_total"); err != nil {
		t.Error(err)
	}
	if out := logs.String(); !strings.Contains(out, `msg="job panicked" job=panics`) || !strings.Contains(out, "jobs_test.TestPanicIsRecoveredAndCounted") {
		t.Errorf("log lacks the panic and its stack:\n%s", out)
	}
}

func TestJobDoesNotOverlapItself(t *testing.T) {
	t.Parallel()
	s, reg, _ := newScheduler(t)
	started := make(chan struct{}, 2)
	release := make(chan struct{})
	var calls atomic.Int32
	if err := s.Add("slow", "@every 1h", func(context.Context) error {
		calls.Add(1)
		started <- struct{}{}
		<-release
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	first := make(chan error, 1)
	go func() { first <- s.RunNow(context.Background(), "slow") }()
	<-started

	if err := s.RunNow(context.Background(), "slow"); !errors.Is(err, jobs.ErrAlreadyRunning) {
		t.Errorf("second RunNow while the first runs: %v, want ErrAlreadyRunning", err)
	}
	close(release)
	if err := <-first; err != nil {
		t.Errorf("first run: %v", err)
	}
	if err := s.RunNow(context.Background(), "slow"); err != nil {
		t.Errorf("RunNow after the first run ended: %v", err)
	}
	if got := calls.Load(); got != 2 {
		t.Errorf("the job ran %d times, want 2", got)
	}
	if skipped, ok := runs(t, reg, "slow", jobs.ResultSkipped), runs(t, reg, "slow", jobs.ResultSuccess); skipped != 1 || ok != 2 {
		t.Errorf("%v skipped and %v successful runs, want 1 and 2", skipped, ok)
	}
}

// blocker returns a job that signals started, waits for its context to end,
// records that it saw the end, and returns.
func blocker() (fn func(context.Context) error, started chan struct{}, sawCancel *atomic.Bool) {
	started = make(chan struct{}, 1)
	sawCancel = &atomic.Bool{}
	fn = func(ctx context.Context) error {
		select {
		case started <- struct{}{}:
		default:
		}
		<-ctx.Done()
		sawCancel.Store(true)
		return ctx.Err()
	}
	return fn, started, sawCancel
}

func TestStopCancelsAndWaitsForRunNow(t *testing.T) {
	t.Parallel()
	s, reg, _ := newScheduler(t)
	fn, started, sawCancel := blocker()
	if err := s.Add("blocks", "@every 1h", fn); err != nil {
		t.Fatal(err)
	}
	s.Start()
	result := make(chan error, 1)
	go func() { result <- s.RunNow(context.Background(), "blocks") }()
	<-started

	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !sawCancel.Load() {
		t.Error("Stop returned before the running job did")
	}
	if err := <-result; !errors.Is(err, context.Canceled) {
		t.Errorf("the stopped run returned %v, want context.Canceled", err)
	}
	if got := runs(t, reg, "blocks", jobs.ResultError); got != 1 {
		t.Errorf("%v error runs, want 1", got)
	}
	if err := s.RunNow(context.Background(), "blocks"); !errors.Is(err, jobs.ErrStopped) {
		t.Errorf("RunNow after Stop: %v, want ErrStopped", err)
	}
	if err := s.Add("late", "@every 1h", noop); !errors.Is(err, jobs.ErrStopped) {
		t.Errorf("Add after Stop: %v, want ErrStopped", err)
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Errorf("second Stop: %v", err)
	}
}

// TestStopCancelsScheduledRun waits for the schedule to start a run (within
// about a second) and stops the scheduler under it.
func TestStopCancelsScheduledRun(t *testing.T) {
	t.Parallel()
	s, reg, logs := newScheduler(t)
	fn, started, sawCancel := blocker()
	if err := s.Add("ticks", "@every 1s", fn); err != nil {
		t.Fatal(err)
	}
	s.Start()
	select {
	case <-started:
	case <-time.After(time.Minute):
		t.Fatal("the schedule did not start the job")
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Fatal(err)
	}
	if !sawCancel.Load() {
		t.Error("Stop returned before the scheduled run did")
	}
	if got := runs(t, reg, "ticks", jobs.ResultError); got != 1 {
		t.Errorf("%v error runs, want 1", got)
	}
	if out := logs.String(); !strings.Contains(out, "job=ticks trigger=schedule") {
		t.Errorf("log lacks the scheduled run:\n%s", out)
	}
}

func TestStopGivesUpWithItsContext(t *testing.T) {
	t.Parallel()
	s, _, _ := newScheduler(t)
	started := make(chan struct{})
	release := make(chan struct{})
	if err := s.Add("stubborn", "@every 1h", func(context.Context) error {
		close(started)
		<-release // ignores cancellation
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	result := make(chan error, 1)
	go func() { result <- s.RunNow(context.Background(), "stubborn") }()
	<-started

	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := s.Stop(ctx); !errors.Is(err, context.Canceled) {
		t.Errorf("Stop with an ended context while a job runs: %v, want context.Canceled", err)
	}
	close(release)
	if err := <-result; err != nil {
		t.Errorf("the stubborn run: %v", err)
	}
	if err := s.Stop(context.Background()); err != nil {
		t.Errorf("Stop once the job returned: %v", err)
	}
}

func TestRunNowEndsWithCallerContext(t *testing.T) {
	t.Parallel()
	s, _, _ := newScheduler(t)
	fn, started, _ := blocker()
	if err := s.Add("blocks", "@every 1h", fn); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() { result <- s.RunNow(ctx, "blocks") }()
	<-started
	cancel()
	if err := <-result; !errors.Is(err, context.Canceled) {
		t.Errorf("RunNow after its context ended: %v, want context.Canceled", err)
	}
}

func TestRetentionJob(t *testing.T) {
	t.Parallel()
	ctx := semcat.NewContextWithUser(context.Background(), "alice")
	store, err := catalogdb.Open(ctx, pgtest.NewDatabase(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(store.Close)
	now := time.Now()
	store.Now = func() time.Time { return now }
	if _, _, err := store.CreateMetalake(ctx, semcat.MetalakeCreate{Name: "m"}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.DropMetalake(ctx, "m", true); err != nil {
		t.Fatal(err)
	}
	now = now.Add(8 * 24 * time.Hour)

	s, reg, logs := newScheduler(t)
	logger := slog.New(slog.NewTextHandler(logs, nil))
	if err := s.Add("retention", "@every 1h", jobs.RetentionJob(store, catalogdb.RetentionPolicy{}, logger)); err != nil {
		t.Fatal(err)
	}
	if err := s.RunNow(ctx, "retention"); err != nil {
		t.Fatal(err)
	}
	if got := runs(t, reg, "retention", jobs.ResultSuccess); got != 1 {
		t.Errorf("%v successful runs, want 1", got)
	}
	if out := logs.String(); !strings.Contains(out, `msg="retention purge" metric_identities=0`) || !strings.Contains(out, "metalakes=1") {
		t.Errorf("log lacks the purge stats:\n%s", out)
	}
	if n, err := count(ctx, store, `SELECT count(*) FROM metalake_meta`); err != nil || n != 0 {
		t.Errorf("%d metalake rows left (%v)", n, err)
	}
}

func count(ctx context.Context, store *catalogdb.Store, sql string) (int, error) {
	var n int
	err := store.Pool().QueryRow(ctx, sql).Scan(&n)
	return n, err
}
