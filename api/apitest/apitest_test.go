package apitest_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/api/apitest"
)

// metalakes answers for one metalake, "m"; the HTTP layer needs nothing
// else here, and storage behaviour is tested with catalogdb.
type metalakes struct{ semcat.MetalakeService }

func (metalakes) GetMetalake(_ context.Context, name string) (*semcat.Metalake, error) {
	if name != "m" {
		return nil, semcat.NotFound(semcat.KindMetalake, "metalake '%s' does not exist", name)
	}
	return &semcat.Metalake{Name: name, Properties: map[string]string{}}, nil
}

func (metalakes) CreateMetalake(_ context.Context, req semcat.MetalakeCreate) (*semcat.Metalake, semcat.Position, error) {
	return &semcat.Metalake{Name: req.Name, Comment: req.Comment, Properties: req.Properties}, semcat.Position{TxID: 1}, nil
}

func TestClient(t *testing.T) {
	c := apitest.NewServer(t, api.Services{Metalakes: metalakes{}})

	_, resp := c.MustOK("GET", "/api/metalakes/m", nil)
	if got := resp["metalake"].(map[string]any)["name"]; got != "m" {
		t.Errorf("name = %v", got)
	}

	hdr, resp := c.MustOK("POST", "/api/metalakes", semcat.MetalakeCreate{Name: "n", Properties: map[string]string{"k": "v"}})
	if hdr.Get(api.PositionHeader) != "t1" || resp["metalake"].(map[string]any)["properties"].(map[string]any)["k"] != "v" {
		t.Errorf("create: header %v, body %v", hdr, resp)
	}

	status, _, resp := c.Do("POST", "/api/metalakes", `{"name":"n","bogus":true}`, "X-Request-Id", "1")
	want := map[string]any{"code": 1001.0, "type": "IllegalArgumentException", "message": "bogus: unknown field", "stack": []any{}}
	if diff := cmp.Diff(want, resp); diff != "" || status != http.StatusBadRequest {
		t.Errorf("raw body: status %d, body (-want +got):\n%s", status, diff)
	}

	status, _, resp = c.Do("GET", "/api/metalakes/x", nil)
	if status != http.StatusNotFound || resp["type"] != "NoSuchMetalakeException" {
		t.Errorf("missing metalake: status %d, body %v", status, resp)
	}
}
