package catalogdb_test

import (
	"encoding/json"
	"testing"

	"github.com/semcat/semcat"
)

// TestTableStatistics: custom statistics are set, replaced, listed by
// name with their JSON values, dropped, and leave with a dropped table.
func TestTableStatistics(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	ctx := ctxAlice
	update := func(values map[string]string) error {
		req := semcat.StatisticsUpdate{Updates: map[string]json.RawMessage{}}
		for k, v := range values {
			req.Updates[k] = json.RawMessage(v)
		}
		_, err := s.UpdateTableStatistics(ctx, salesNS, "orders", req)
		return err
	}
	list := func() string {
		t.Helper()
		sts, err := s.ListTableStatistics(ctx, salesNS, "orders")
		if err != nil {
			t.Fatal(err)
		}
		out := ""
		for _, st := range sts {
			if st.Reserved || !st.Modifiable || st.Audit.Creator != "alice" {
				t.Errorf("statistic %+v", st)
			}
			out += st.Name + "=" + string(st.Value) + " "
		}
		return out
	}
	if got := list(); got != "" {
		t.Errorf("before: %q", got)
	}
	if err := update(map[string]string{"custom-rows": "10", "custom-owners": `["a", "b"]`, "custom-fresh": "true"}); err != nil {
		t.Fatal(err)
	}
	if err := update(map[string]string{"custom-rows": "12.5", "custom-shape": `{"k": 1}`}); err != nil {
		t.Fatal(err)
	}
	if got, want := list(), `custom-fresh=true custom-owners=["a", "b"] custom-rows=12.5 custom-shape={"k": 1} `; got != want {
		t.Errorf("statistics %q, want %q", got, want)
	}
	if err := update(map[string]string{"rows": "1"}); semcat.ErrorCode(err) != semcat.EINVALID {
		t.Errorf("a reserved name: %v", err)
	}
	dropped, _, err := s.DropTableStatistics(ctx, salesNS, "orders", semcat.StatisticsDrop{Names: []string{"custom-rows", "custom-none"}})
	if err != nil || !dropped {
		t.Errorf("drop: %v %v", dropped, err)
	}
	if dropped, _, _ := s.DropTableStatistics(ctx, salesNS, "orders", semcat.StatisticsDrop{Names: []string{"custom-none"}}); dropped {
		t.Error("dropping a missing statistic reported true")
	}
	if _, err := s.ListTableStatistics(ctx, salesNS, "nope"); semcat.ErrorEntity(err) != semcat.KindTable {
		t.Errorf("statistics of a missing table: %v", err)
	}
	// A dropped and recreated table starts without statistics.
	if _, _, err := s.DropTable(ctx, salesNS, "orders"); err != nil {
		t.Fatal(err)
	}
	must(t, w(s.CreateTable(ctx, salesNS, semcat.TableCreate{Name: "orders", Columns: cols("id")})))
	if got := list(); got != "" {
		t.Errorf("recreated table: %q", got)
	}
}
