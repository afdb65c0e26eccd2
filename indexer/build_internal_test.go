package indexer

import (
	"runtime/debug"
	"testing"
	"time"
)

// gcPercent is the garbage collector's current setting.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// TestBuildGC: a build loosens the garbage collector and its end restores
// it, also when builds overlap (the first sets it, the last restores it);
// an operator's GOGC is left alone.
func TestBuildGC(t *testing.T) {
	loose := looseGCPercent()
	if loose == 0 {
		t.Skip("this machine has no memory to spare for a looser garbage collector")
	}
	t.Setenv("GOGC", "") // as when unset: the runtime read it at start
	defer debug.SetGCPercent(debug.SetGCPercent(150))

	first := buildGC()
	if got := gcPercent(); got != loose {
		t.Fatalf("during a build, GC percent = %d; want %d", got, loose)
	}
	second := buildGC()
	first()
	if got := gcPercent(); got != loose {
		t.Errorf("after the first of two overlapping builds ended, GC percent = %d; want %d", got, loose)
	}
	second()
	if got := gcPercent(); got != 150 {
		t.Errorf("after both builds ended, GC percent = %d; want 150 as before", got)
	}

	t.Setenv("GOGC", "150")
	restore := buildGC()
	if got := gcPercent(); got != 150 {
		t.Errorf("with GOGC set, a build made GC percent %d; want the operator's 150", got)
	}
	restore()
}

// TestLoadGC: the tail loosens the collector on a poll of a load's size,
// keeps it loose through quiet polls for loadGCQuiet, then restores it;
// polls of a trickle of writes leave it alone.
func TestLoadGC(t *testing.T) {
	loose := looseGCPercent()
	if loose == 0 {
		t.Skip("this machine has no memory to spare for a looser garbage collector")
	}
	t.Setenv("GOGC", "")
	defer debug.SetGCPercent(debug.SetGCPercent(150))

	var g loadGC
	defer g.end()
	for _, rows := range []int{0, 3, loadRows - 1} {
		if g.polled(rows); gcPercent() != 150 {
			t.Fatalf("after a poll of %d rows, GC percent = %d; want 150", rows, gcPercent())
		}
	}
	g.polled(loadRows)
	if got := gcPercent(); got != loose {
		t.Fatalf("after a poll of %d rows, GC percent = %d; want %d", loadRows, got, loose)
	}
	g.polled(2 * loadRows)
	g.polled(0)
	if got := gcPercent(); got != loose {
		t.Errorf("right after a load's polls, GC percent = %d; want %d", got, loose)
	}
	g.last = g.last.Add(-loadGCQuiet - time.Second)
	g.polled(1)
	if got := gcPercent(); got != 150 {
		t.Errorf("%v after a load's last poll, GC percent = %d; want 150 as before", loadGCQuiet, got)
	}
}
