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
