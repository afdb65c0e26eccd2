package client

import (
	"context"
	"net/http"

	"github.com/semcat/semcat"
)

var _ semcat.MetalakeService = (*Client)(nil)

// CreateMetalake creates a metalake (POST /api/metalakes).
func (c *Client) CreateMetalake(ctx context.Context, req semcat.MetalakeCreate) (*semcat.Metalake, semcat.Position, error) {
	return write[*semcat.Metalake](ctx, c, request{method: http.MethodPost, path: "/api/metalakes", body: req}, "metalake")
}

// ListMetalakes lists the metalakes, sorted by name.
func (c *Client) ListMetalakes(ctx context.Context) ([]*semcat.Metalake, error) {
	return get[[]*semcat.Metalake](ctx, c, request{method: http.MethodGet, path: "/api/metalakes"}, "metalakes")
}

// GetMetalake loads a metalake.
func (c *Client) GetMetalake(ctx context.Context, name string) (*semcat.Metalake, error) {
	p, err := child("/api/metalakes", name)
	if err != nil {
		return nil, err
	}
	return get[*semcat.Metalake](ctx, c, request{method: http.MethodGet, path: p}, "metalake")
}

// AlterMetalake applies updates to a metalake, in order, all or nothing.
func (c *Client) AlterMetalake(ctx context.Context, name string, updates []semcat.Update) (*semcat.Metalake, semcat.Position, error) {
	p, err := child("/api/metalakes", name)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Metalake](ctx, c, request{method: http.MethodPut, path: p, body: semcat.UpdatesRequest{Updates: updates}}, "metalake")
}

// DropMetalake drops a metalake; a non-empty one only with force, which
// drops everything in it. It reports false if there was no such metalake.
func (c *Client) DropMetalake(ctx context.Context, name string, force bool) (bool, semcat.Position, error) {
	p, err := child("/api/metalakes", name)
	if err != nil {
		return false, semcat.Position{}, err
	}
	return write[bool](ctx, c, request{method: http.MethodDelete, path: p, query: trueParam("force", force)}, "dropped")
}

// SetMetalakeInUse enables or disables a metalake (SPEC §2.10).
func (c *Client) SetMetalakeInUse(ctx context.Context, name string, inUse bool) (semcat.Position, error) {
	p, err := child("/api/metalakes", name)
	if err != nil {
		return semcat.Position{}, err
	}
	return writeNothing(ctx, c, request{method: http.MethodPatch, path: p, body: semcat.InUseRequest{InUse: &inUse}})
}
