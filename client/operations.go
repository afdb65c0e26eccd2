package client

import (
	"context"
	"net/http"
	"time"

	"github.com/semcat/semcat"
)

// Health reports whether the server process is up (GET /healthz).
func (c *Client) Health(ctx context.Context) error {
	_, err := c.do(ctx, request{method: http.MethodGet, path: "/healthz"})
	return err
}

// Ready reports whether the server can serve requests: PostgreSQL answers
// and the index is open (GET /readyz).
func (c *Client) Ready(ctx context.Context) error {
	_, err := c.do(ctx, request{method: http.MethodGet, path: "/readyz"})
	return err
}

// Version returns the server's semcat version (GET /api/version; its
// "version" field is the Gravitino API version, SPEC §2.10).
func (c *Client) Version(ctx context.Context) (string, error) {
	v, err := get[struct {
		Version string `json:"semcatVersion"`
	}](ctx, c, request{method: http.MethodGet, path: "/api/version"}, "version")
	return v.Version, err
}

// OpenAPI returns the OpenAPI 3 description of the API, as YAML.
func (c *Client) OpenAPI(ctx context.Context) ([]byte, error) {
	rep, err := c.do(ctx, request{method: http.MethodGet, path: "/api/openapi.yaml"})
	if err != nil {
		return nil, err
	}
	return rep.body, nil
}

// Reindex rebuilds the server's search index from PostgreSQL into a new
// directory and swaps it in, while search keeps serving; it returns when
// the new index serves, with the time the rebuild took. Only service admins
// may call it. The rebuild runs to its end on the server even if ctx ends
// first.
func (c *Client) Reindex(ctx context.Context) (time.Duration, error) {
	ms, err := get[int64](ctx, c, request{method: http.MethodPost, path: "/api/admin/reindex"}, "tookMs")
	return time.Duration(ms) * time.Millisecond, err
}

// ReindexProgress reports how far the server's latest rebuild of the search
// index got (GET /api/admin/reindex), for a progress bar while Reindex
// runs. Only service admins may call it.
func (c *Client) ReindexProgress(ctx context.Context) (semcat.RebuildProgress, error) {
	return get[semcat.RebuildProgress](ctx, c, request{method: http.MethodGet, path: "/api/admin/reindex"}, "rebuild")
}
