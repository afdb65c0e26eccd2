package events

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/semcat/semcat"
)

// Metrics is a Listener that counts operations in Prometheus:
// semcat_operations_total{operation,phase,code,interface}, where code is
// the semcat error code of a failure and "" otherwise and interface is
// rest or mcp, and semcat_operation_duration_seconds{operation,phase,
// interface} for the success and failure phases.
type Metrics struct {
	operations *prometheus.CounterVec
	durations  *prometheus.HistogramVec
}

var _ semcat.Listener = (*Metrics)(nil)

// NewMetrics returns the metrics listener, its metrics registered with reg
// (nil: not registered).
func NewMetrics(reg prometheus.Registerer) *Metrics {
	return &Metrics{
		operations: register(reg, prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "semcat_operations_total",
			Help: "Operation events by operation, phase (pre, success, failure), error code of failures and interface (rest, mcp).",
		}, []string{"operation", "phase", "code", "interface"})),
		durations: register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "semcat_operation_duration_seconds",
			Help:    "Duration of operations by operation, outcome (success, failure) and interface (rest, mcp).",
			Buckets: prometheus.DefBuckets,
		}, []string{"operation", "phase", "interface"})),
	}
}

// OnEvent counts e.
func (m *Metrics) OnEvent(_ context.Context, e semcat.Event) error {
	code := ""
	if e.Phase == semcat.EventFailure {
		code = e.ErrorCode
	}
	iface := e.Interface
	if iface == "" {
		iface = semcat.InterfaceREST
	}
	m.operations.WithLabelValues(e.Operation, string(e.Phase), code, iface).Inc()
	if e.Phase != semcat.EventPre {
		m.durations.WithLabelValues(e.Operation, string(e.Phase), iface).Observe(e.Duration.Seconds())
	}
	return nil
}
