package api_test

import (
	"context"
	"net/http/httptest"
	"slices"
	"testing"
	"time"

	"github.com/semcat/semcat/api"
)

// TestTagObjectsWaitForASlot: a tag's objects are listed only with a slot
// of the unbounded listings; with every slot taken, the listing waits
// within its deadline and answers 503/1013 without having run, and runs
// once a slot is free.
func TestTagObjectsWaitForASlot(t *testing.T) {
	f := newFake()
	h := api.NewHandler(services(f), api.Config{})
	release := api.HoldListingSlots()
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	req := httptest.NewRequest("GET", "/api/metalakes/m/tags/t/objects", nil).WithContext(ctx)
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	if rec.Code != 503 || slices.ContainsFunc(f.calls, func(c string) bool { return c == "TagObjects m t" }) {
		t.Errorf("with every slot taken: %d %s (calls %v), want 503 and no listing", rec.Code, rec.Body, f.calls)
	}
	release()
	if res := do(t, h, "GET", "/api/metalakes/m/tags/t/objects", ""); res.status != 200 {
		t.Errorf("with a free slot: %d %v", res.status, res.body)
	}
}

// TestListingSlotsRest: a slot rests after its listing answers, nine
// times as long as the listing worked (at most a second), and is then
// given back: listings back to back take a bounded share of the machine
// however cheap each one is.
func TestListingSlotsRest(t *testing.T) {
	f := newFake()
	h := api.NewHandler(services(f), api.Config{})
	var rests []time.Duration
	api.WatchListingRests(t, func(d time.Duration) { rests = append(rests, d) })
	all := api.FreeListingSlots()
	for _, work := range []time.Duration{50 * time.Millisecond, 200 * time.Millisecond} {
		f.listing = work
		if res := do(t, h, "GET", "/api/metalakes/m/tags/t/objects", ""); res.status != 200 {
			t.Fatalf("the listing: %d %v", res.status, res.body)
		}
	}
	if len(rests) != 2 || rests[0] < 9*50*time.Millisecond || rests[0] > time.Second || rests[1] != time.Second {
		t.Errorf("rests after listings of 50 and 200 ms: %v, want 450 ms or more and at most 1 s, then 1 s", rests)
	}
	deadline := time.Now().Add(30 * time.Second)
	for api.FreeListingSlots() != all {
		if time.Now().After(deadline) {
			t.Fatalf("the listings' slots were not given back: %d of %d free", api.FreeListingSlots(), all)
		}
		time.Sleep(10 * time.Millisecond)
	}
}
