package searchdoc

import (
	"testing"
	"time"
)

// TestCreatedKeyOrder: the byte order of keys is the order of the times,
// before and after 1970 and at nanosecond steps.
func TestCreatedKeyOrder(t *testing.T) {
	times := []time.Time{
		time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC),
		time.Unix(-1, 0),
		time.Unix(0, 0),
		time.Unix(0, 1),
		time.Date(2026, 11, 30, 1, 2, 3, 4, time.FixedZone("x", 3600)),
		time.Date(2026, 11, 30, 1, 2, 3, 5, time.FixedZone("x", 3600)),
		time.Date(2200, 1, 1, 0, 0, 0, 0, time.UTC),
	}
	for i := 1; i < len(times); i++ {
		a, b := CreatedKey(times[i-1]), CreatedKey(times[i])
		if len(a) != 20 || len(b) != 20 || a >= b {
			t.Errorf("CreatedKey(%v) = %q, CreatedKey(%v) = %q: want 20 digits in time order", times[i-1], a, times[i], b)
		}
	}
}

// TestSplitSortKey: SplitSortKey takes apart what SortKey joined, and
// nothing SortKey could not have written.
func TestSplitSortKey(t *testing.T) {
	key := SortKey("orders", "m.c.s.orders", "table")
	name, identifier, typ, ok := SplitSortKey(key)
	if !ok || name != "orders" || identifier != "m.c.s.orders" || typ != "table" {
		t.Errorf("SplitSortKey(%q) = %q, %q, %q, %v", key, name, identifier, typ, ok)
	}
	if got := SortKeyName(key); got != "orders" {
		t.Errorf("SortKeyName(%q) = %q", key, got)
	}
	for _, bad := range []string{"orders", "orders\x00m.c.s.orders", "orders\x00m.c.s.orders\x00", "a\x00b\x00c\x00d"} {
		if _, _, _, ok := SplitSortKey(bad); ok {
			t.Errorf("SplitSortKey(%q) took it for a sort key", bad)
		}
	}
}
