package catalogdb_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/semcat/semcat"
)

// statisticsOf makes an update of n statistics named custom-<prefix>-<i>.
func statisticsOf(prefix string, n int, value string) semcat.StatisticsUpdate {
	req := semcat.StatisticsUpdate{Updates: map[string]json.RawMessage{}}
	for i := range n {
		req.Updates[fmt.Sprintf("custom-%s-%d", prefix, i)] = json.RawMessage(value)
	}
	return req
}

// TestTableStatisticsBounded: a table holds at most 1,000 statistics
// however many updates set them — an update that would pass the bound is
// refused whole, naming updates — replacing ones it holds is not adding,
// two concurrent updates cannot together pass it, and a value is at most
// 64 KB (SPEC §2.11).
func TestTableStatisticsBounded(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	ctx := ctxAlice
	count := func(table string) int {
		t.Helper()
		sts, err := s.ListTableStatistics(ctx, salesNS, table)
		if err != nil {
			t.Fatal(err)
		}
		return len(sts)
	}
	for i := range 3 {
		if _, err := s.UpdateTableStatistics(ctx, salesNS, "orders", statisticsOf(fmt.Sprint(i), 300, "1")); err != nil {
			t.Fatalf("update %d: %v", i, err)
		}
	}
	_, err := s.UpdateTableStatistics(ctx, salesNS, "orders", statisticsOf("3", 300, "1"))
	if semcat.ErrorCode(err) != semcat.EINVALID || !strings.HasPrefix(semcat.ErrorMessage(err), "updates:") {
		t.Errorf("an update past 1,000 statistics: %v, want EINVALID naming updates", err)
	}
	if n := count("orders"); n != 900 {
		t.Errorf("after a refused update the table holds %d statistics, want 900", n)
	}
	// Replacing statistics the table holds adds none.
	if _, err := s.UpdateTableStatistics(ctx, salesNS, "orders", statisticsOf("0", 300, "2")); err != nil {
		t.Errorf("replacing 300: %v", err)
	}
	if _, err := s.UpdateTableStatistics(ctx, salesNS, "orders", statisticsOf("4", 100, "1")); err != nil {
		t.Errorf("up to exactly 1,000: %v", err)
	}
	if _, err := s.UpdateTableStatistics(ctx, salesNS, "orders", statisticsOf("5", 1, "1")); semcat.ErrorCode(err) != semcat.EINVALID {
		t.Errorf("the 1,001st: %v, want EINVALID", err)
	}
	if n := count("orders"); n != 1000 {
		t.Errorf("the table holds %d statistics, want 1000", n)
	}

	// Two updates at once, each under the bound alone: one is refused.
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Go(func() {
			_, errs[i] = s.UpdateTableStatistics(ctx, salesNS, "customers", statisticsOf(fmt.Sprint("c", i), 600, "1"))
		})
	}
	wg.Wait()
	if (errs[0] == nil) == (errs[1] == nil) || count("customers") != 600 {
		t.Errorf("two concurrent updates of 600: %v, %v, and %d statistics; want one refused and 600", errs[0], errs[1], count("customers"))
	}

	// A value of 64 KB is the most.
	at := `"` + strings.Repeat("x", semcat.MaxStatisticValueBytes-2) + `"`
	if _, err := s.UpdateTableStatistics(ctx, salesNS, "customers", semcat.StatisticsUpdate{Updates: map[string]json.RawMessage{"custom-big": json.RawMessage(at)}}); err != nil {
		t.Errorf("a 64 KB value: %v", err)
	}
	_, err = s.UpdateTableStatistics(ctx, salesNS, "customers", semcat.StatisticsUpdate{Updates: map[string]json.RawMessage{"custom-big": json.RawMessage(at + " ")}})
	if semcat.ErrorCode(err) != semcat.EINVALID || !strings.HasPrefix(semcat.ErrorMessage(err), "updates.custom-big:") {
		t.Errorf("a value of 64 KB and a byte: %v, want EINVALID naming updates.custom-big", err)
	}
}
