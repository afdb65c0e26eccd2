// Package events delivers operation events (SPEC §7) to listeners without
// ever making the operation wait for them: a Bus gives each listener its own
// bounded queue and goroutine, drops what a full queue cannot take and counts
// the drops. AuditLog and Metrics are the built-in listeners.
package events

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"runtime/debug"
	"sync"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/semcat/semcat"
)

// DefaultQueueSize is the queue length of each listener when NewBus is given
// a size of 0 or less.
const DefaultQueueSize = 1024

// Bus fans events out to registered listeners. Register listeners, then
// Start; Publish from any goroutine; Close when done.
type Bus struct {
	logger    *slog.Logger
	queueSize int
	dropped   *prometheus.CounterVec
	failed    *prometheus.CounterVec

	// ctx is every listener's context; cancel ends it when Close runs out
	// of time.
	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	// mu guards the fields below. Publish holds it for reading while it
	// sends, so that Close (holding it for writing) never closes a queue
	// under a send.
	mu      sync.RWMutex
	subs    []*subscriber
	started bool
	closed  bool
}

// subscriber is one registered listener and its queue.
type subscriber struct {
	name     string
	listener semcat.Listener
	queue    chan semcat.Event
	dropped  prometheus.Counter
	failed   prometheus.Counter
}

// NewBus returns a bus whose listeners each queue up to queueSize events.
// It registers semcat_events_dropped_total and
// semcat_event_listener_errors_total with reg (nil: not registered). A nil
// logger means slog.Default().
func NewBus(logger *slog.Logger, reg prometheus.Registerer, queueSize int) *Bus {
	if logger == nil {
		logger = slog.Default()
	}
	if queueSize <= 0 {
		queueSize = DefaultQueueSize
	}
	ctx, cancel := context.WithCancel(context.Background())
	return &Bus{
		logger:    logger,
		queueSize: queueSize,
		dropped: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "semcat_events_dropped_total",
			Help: "Events not delivered to a listener because its queue was full.",
		}, []string{"listener"})),
		failed: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "semcat_event_listener_errors_total",
			Help: "Events whose listener returned an error or panicked.",
		}, []string{"listener"})),
		ctx:    ctx,
		cancel: cancel,
	}
}

// register registers c with reg, or returns the collector already
// registered under its name, so that several buses can share a registry.
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
		panic(fmt.Sprintf("events: registering metrics: %v", err))
	}
	return c
}

// Register adds a listener under name, which labels its metrics and log
// lines. It must be called before Start; it panics otherwise, or when name
// is already taken.
func (b *Bus) Register(name string, l semcat.Listener) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started || b.closed {
		panic("events: Register after Start or Close")
	}
	for _, s := range b.subs {
		if s.name == name {
			panic(fmt.Sprintf("events: listener %q registered twice", name))
		}
	}
	b.subs = append(b.subs, &subscriber{
		name:     name,
		listener: l,
		queue:    make(chan semcat.Event, b.queueSize),
		dropped:  b.dropped.WithLabelValues(name),
		failed:   b.failed.WithLabelValues(name),
	})
}

// Start starts one goroutine per listener. Events published before Start
// wait in the queues. Calling Start again, or after Close, does nothing.
func (b *Bus) Start() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.started || b.closed {
		return
	}
	b.started = true
	for _, s := range b.subs {
		b.wg.Add(1)
		go b.run(s)
	}
}

// Publish queues e for every listener and returns at once: a listener whose
// queue is full misses e, which is counted in semcat_events_dropped_total.
// After Close, Publish does nothing.
func (b *Bus) Publish(e semcat.Event) {
	b.mu.RLock()
	defer b.mu.RUnlock()
	if b.closed {
		return
	}
	for _, s := range b.subs {
		select {
		case s.queue <- e:
		default:
			s.dropped.Inc()
		}
	}
}

// Close stops accepting events and waits for the listeners to handle what
// is queued. When ctx is done first, it cancels the listeners' context,
// discards what is still queued and waits only for the events being handled
// (which is why a Listener should return once its context is done); it then
// returns ctx's error. Every goroutine of the bus has ended when Close
// returns.
func (b *Bus) Close(ctx context.Context) error {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return nil
	}
	b.closed = true
	for _, s := range b.subs {
		close(s.queue)
	}
	started := b.started
	b.mu.Unlock()
	if !started {
		b.cancel()
		return nil
	}

	done := make(chan struct{})
	go func() {
		b.wg.Wait()
		close(done)
	}()
	select {
	case <-done:
		b.cancel()
		return nil
	case <-ctx.Done():
		b.cancel()
		<-done
		return ctx.Err()
	}
}

// run delivers s's queue to its listener until the queue is closed and
// drained, or the bus's context is cancelled.
func (b *Bus) run(s *subscriber) {
	defer b.wg.Done()
	for e := range s.queue {
		if b.ctx.Err() != nil {
			// Close ran out of time: discard the rest.
			continue
		}
		b.deliver(s, e)
	}
}

// deliver hands e to s's listener; an error or a panic is logged and
// counted, and the listener keeps receiving later events.
func (b *Bus) deliver(s *subscriber, e semcat.Event) {
	defer func() {
		if v := recover(); v != nil {
			s.failed.Inc()
			b.logger.Error("event listener panicked", "listener", s.name,
				"operation", e.Operation, "phase", string(e.Phase), "panic", v, "stack", string(debug.Stack()))
		}
	}()
	if err := s.listener.OnEvent(b.ctx, e); err != nil {
		s.failed.Inc()
		b.logger.Error("event listener failed", "listener", s.name,
			"operation", e.Operation, "phase", string(e.Phase), "err", err)
	}
}
