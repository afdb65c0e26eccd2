package query

import "testing"

func TestPlanScopeError(t *testing.T) {
	if _, err := NewPlan(&Word{Text: "a"}, Options{Scope: "both"}); err == nil {
		t.Error("NewPlan with scope \"both\" succeeded, want an error")
	}
}
