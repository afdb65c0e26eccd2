package events

import (
	"context"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/semcat/semcat"
)

// Metrics is a Listener that counts operations in Prometheus:
// semcat_operations_total{operation,phase,code}, where code is the semcat
// error code of a failure and "" otherwise, and
// semcat_operation_duration_seconds{operation,phase} for the success and
// failure phases.
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
			Help: "Operation events by operation, phase (pre, success, failure) and error code of failures.",
		}, []string{"operation", "phase", "code"})),
		durations: register(reg, prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "semcat_operation_duration_seconds",
			Help:    "Duration of operations by operation and outcome (success, failure).",
			Buckets: prometheus.DefBuckets,
		}, []string{"operation", "phase"})),
	}
}

// OnEvent counts e.
func (m *Metrics) OnEvent(_ context.Context, e semcat.Event) error {
	code := ""
	if e.Phase == semcat.EventFailure {
		code = e.ErrorCode
	}
	m.operations.WithLabelValues(e.Operation, string(e.Phase), code).Inc()
	if e.Phase != semcat.EventPre {
		m.durations.WithLabelValues(e.Operation, string(e.Phase)).Observe(e.Duration.Seconds())
	}
	return nil
}
