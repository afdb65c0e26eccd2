package events_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/internal/events"
)

func TestMetrics(t *testing.T) {
	reg := prometheus.NewRegistry()
	m := events.NewMetrics(reg)
	for _, e := range []semcat.Event{
		{Operation: "loadTable", Phase: semcat.EventPre},
		{Operation: "loadTable", Phase: semcat.EventSuccess, Duration: time.Millisecond},
		{Operation: "loadTable", Phase: semcat.EventPre},
		{Operation: "loadTable", Phase: semcat.EventFailure, ErrorCode: semcat.ENOTFOUND, Duration: time.Millisecond},
		{Operation: "loadTable", Phase: semcat.EventPre},
		{Operation: "loadTable", Phase: semcat.EventFailure, ErrorCode: semcat.ENOTFOUND, Duration: time.Millisecond},
	} {
		if err := m.OnEvent(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	expected := `
# HELP semcat_operations_total Operation events by operation, phase (pre, success, failure), error code of failures and interface (rest, mcp).
# TYPE semcat_operations_total counter
semcat_operations_total{code="",interface="rest",operation="loadTable",phase="pre"} 3
semcat_operations_total{code="",interface="rest",operation="loadTable",phase="success"} 1
semcat_operations_total{code="not_found",interface="rest",operation="loadTable",phase="failure"} 2
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(expected), "semcat_operations_total"); err != nil {
		t.Error(err)
	}
	if n, err := testutil.GatherAndCount(reg, "semcat_operation_duration_seconds"); err != nil || n != 2 {
		t.Errorf("duration histograms: %d series (err %v), want 2 (success, failure)", n, err)
	}
}
