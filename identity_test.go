package semcat_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
)

func TestReconcileMetrics(t *testing.T) {
	live := []semcat.MetricIdentity{{ID: 1, Name: "revenue"}, {ID: 2, Name: "orders"}, {ID: 3, Name: "margin"}}
	tests := []struct {
		name  string
		live  []semcat.MetricIdentity
		names []string
		want  semcat.MetricReconciliation
	}{
		{"first version allocates every name", nil, []string{"a", "b"},
			semcat.MetricReconciliation{Add: []string{"a", "b"}}},
		{"same names in another order keep their ids", live, []string{"margin", "revenue", "orders"},
			semcat.MetricReconciliation{Keep: []semcat.MetricIdentity{{3, "margin"}, {1, "revenue"}, {2, "orders"}}}},
		{"new name allocates, removed name retires", live, []string{"revenue", "orders", "profit"},
			semcat.MetricReconciliation{Keep: []semcat.MetricIdentity{{1, "revenue"}, {2, "orders"}}, Add: []string{"profit"}, Retire: []semcat.MetricIdentity{{3, "margin"}}}},
		{"rename is retire plus allocate", live[:1], []string{"revenue_usd"},
			semcat.MetricReconciliation{Add: []string{"revenue_usd"}, Retire: []semcat.MetricIdentity{{1, "revenue"}}}},
		{"names match exactly, case-sensitive", live[:1], []string{"Revenue"},
			semcat.MetricReconciliation{Add: []string{"Revenue"}, Retire: []semcat.MetricIdentity{{1, "revenue"}}}},
		{"no metrics retires all", live, nil,
			semcat.MetricReconciliation{Retire: live}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := semcat.ReconcileMetrics(tt.live, tt.names)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("ReconcileMetrics (-want +got):\n%s", diff)
			}
		})
	}
}
