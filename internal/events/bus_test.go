package events_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/internal/events"
)

// recorder is a listener that keeps every event it receives.
type recorder struct {
	mu     sync.Mutex
	events []semcat.Event
}

func (r *recorder) OnEvent(_ context.Context, e semcat.Event) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, e)
	return nil
}

func (r *recorder) operations() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ops := make([]string, len(r.events))
	for i, e := range r.events {
		ops[i] = e.Operation
	}
	return ops
}

// listenerFunc adapts a function to semcat.Listener.
type listenerFunc func(ctx context.Context, e semcat.Event) error

func (f listenerFunc) OnEvent(ctx context.Context, e semcat.Event) error { return f(ctx, e) }

// blocker is a listener that signals entered when it starts on an event and
// then blocks until release is closed (or its context ends).
type blocker struct {
	entered chan struct{} // receives one value per event started
	release chan struct{}
	mu      sync.Mutex
	n       int
}

func newBlocker() *blocker {
	return &blocker{entered: make(chan struct{}, 1), release: make(chan struct{})}
}

func (b *blocker) OnEvent(ctx context.Context, _ semcat.Event) error {
	select {
	case b.entered <- struct{}{}:
	default:
	}
	select {
	case <-b.release:
	case <-ctx.Done():
	}
	b.mu.Lock()
	b.n++
	b.mu.Unlock()
	return nil
}

func (b *blocker) count() int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.n
}

func event(i int) semcat.Event {
	return semcat.Event{Operation: fmt.Sprintf("op%d", i), Phase: semcat.EventPre}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

func closeBus(tb testing.TB, b *events.Bus) {
	tb.Helper()
	if err := b.Close(context.Background()); err != nil {
		tb.Fatalf("Close: %v", err)
	}
}

func TestFailingListenersDoNotStopDelivery(t *testing.T) {
	reg := prometheus.NewRegistry()
	b := events.NewBus(quietLogger(), reg, 100)
	good := &recorder{}
	b.Register("panics", listenerFunc(func(context.Context, semcat.Event) error { panic("boom") }))
	b.Register("errs", listenerFunc(func(context.Context, semcat.Event) error { return errors.New("nope") }))
	b.Register("good", good)
	b.Start()
	var want []string
	for i := range 5 {
		b.Publish(event(i))
		want = append(want, fmt.Sprintf("op%d", i))
	}
	closeBus(t, b)

	if diff := cmp.Diff(want, good.operations()); diff != "" {
		t.Errorf("good listener (-want +got):\n%s", diff)
	}
	expected := `
# HELP semcat_event_listener_errors_total Events whose listener returned an error or panicked.
# TYPE semcat_event_listener_errors_total counter
semcat_event_listener_errors_total{listener="errs"} 5
semcat_event_listener_errors_total{listener="good"} 0
semcat_event_listener_errors_total{listener="panics"} 5
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(expected), "semcat_event_listener_errors_total"); err != nil {
		t.Error(err)
	}
}

// TestSlowListenerDoesNotBlockPublish publishes ten queues' worth of events
// while a listener is stuck in its first event: every Publish returns (the
// test would hang otherwise), the stuck listener's queue takes queueSize
// events and the rest are counted as dropped.
func TestSlowListenerDoesNotBlockPublish(t *testing.T) {
	const queueSize = 8
	reg := prometheus.NewRegistry()
	b := events.NewBus(quietLogger(), reg, queueSize)
	slow := newBlocker()
	b.Register("slow", slow)
	b.Start()

	b.Publish(event(0))
	<-slow.entered // the listener now holds event 0 and waits on release
	for i := range 10 * queueSize {
		b.Publish(event(i + 1))
	}
	wantDropped := 10*queueSize - queueSize
	expected := fmt.Sprintf(`
# HELP semcat_events_dropped_total Events not delivered to a listener because its queue was full.
# TYPE semcat_events_dropped_total counter
semcat_events_dropped_total{listener="slow"} %d
`, wantDropped)
	if err := testutil.GatherAndCompare(reg, strings.NewReader(expected), "semcat_events_dropped_total"); err != nil {
		t.Error(err)
	}
	if n := slow.count(); n != 0 {
		t.Errorf("slow listener finished %d events while blocked", n)
	}

	close(slow.release)
	closeBus(t, b)
	if got, want := slow.count(), 1+queueSize; got != want {
		t.Errorf("slow listener got %d events, want %d (the one it held and a full queue)", got, want)
	}
}

// TestSlowListenerDoesNotStarveOthers: a good listener sees every event while
// another is stuck, as long as its own queue keeps up.
func TestSlowListenerDoesNotStarveOthers(t *testing.T) {
	b := events.NewBus(quietLogger(), nil, 100)
	slow := newBlocker()
	good := &recorder{}
	b.Register("slow", slow)
	b.Register("good", good)
	b.Start()
	for i := range 50 {
		b.Publish(event(i))
	}
	<-slow.entered
	close(slow.release)
	closeBus(t, b)
	if got := len(good.operations()); got != 50 {
		t.Errorf("good listener got %d events, want 50", got)
	}
}

func TestCloseDrains(t *testing.T) {
	const n = 500
	b := events.NewBus(quietLogger(), nil, n)
	rec := &recorder{}
	b.Register("rec", rec)
	// Published before Start: they wait in the queue.
	b.Publish(event(0))
	b.Start()
	for i := 1; i < n; i++ {
		b.Publish(event(i))
	}
	closeBus(t, b)
	if got := len(rec.operations()); got != n {
		t.Errorf("after Close the listener had %d events, want %d", got, n)
	}
	// After Close, Publish is a no-op and Close is idempotent.
	b.Publish(event(n))
	closeBus(t, b)
	if got := len(rec.operations()); got != n {
		t.Errorf("an event published after Close was delivered")
	}
}

// TestCloseGivesUp: when Close's context ends before the queue drains, the
// listener's context is cancelled, the rest is discarded, and Close still
// returns only after the listener goroutine has ended.
func TestCloseGivesUp(t *testing.T) {
	b := events.NewBus(quietLogger(), nil, 10)
	slow := newBlocker() // release is never closed: only cancellation frees it
	b.Register("slow", slow)
	b.Start()
	for i := range 5 {
		b.Publish(event(i))
	}
	<-slow.entered
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := b.Close(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("Close = %v, want context.Canceled", err)
	}
	if got := slow.count(); got != 1 {
		t.Errorf("listener handled %d events, want only the one it held", got)
	}
}

func TestRegisterAfterStartPanics(t *testing.T) {
	b := events.NewBus(quietLogger(), nil, 1)
	b.Start()
	defer closeBus(t, b)
	defer func() {
		if recover() == nil {
			t.Error("Register after Start did not panic")
		}
	}()
	b.Register("late", &recorder{})
}

// TestBusesShareRegistry: a second bus on the same registry reuses the
// registered counters instead of panicking.
func TestBusesShareRegistry(t *testing.T) {
	reg := prometheus.NewRegistry()
	for range 2 {
		b := events.NewBus(quietLogger(), reg, 1)
		b.Register("x", &recorder{})
		b.Start()
		closeBus(t, b)
	}
}
