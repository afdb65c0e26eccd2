package client

import (
	"context"
	"net/http"

	"github.com/semcat/semcat"
)

var _ semcat.SchemaService = (*Client)(nil)

// schemasPath returns the path of the schemas of the catalog
// ns = {Metalake, Catalog}.
func schemasPath(ns semcat.Namespace) (string, error) {
	p, err := namespacePath(ns, inCatalog, "a schema")
	return p + "/schemas", err
}

// schemaPath returns the path of a schema.
func schemaPath(ns semcat.Namespace, name string) (string, error) {
	p, err := schemasPath(ns)
	if err != nil {
		return "", err
	}
	return child(p, name)
}

// CreateSchema creates a schema in the catalog ns = {Metalake, Catalog}.
func (c *Client) CreateSchema(ctx context.Context, ns semcat.Namespace, req semcat.SchemaCreate) (*semcat.Schema, semcat.Position, error) {
	p, err := schemasPath(ns)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Schema](ctx, c, request{method: http.MethodPost, path: p, body: req}, "schema")
}

// ListSchemas lists the names of the schemas of a catalog, sorted.
func (c *Client) ListSchemas(ctx context.Context, ns semcat.Namespace) ([]string, error) {
	p, err := schemasPath(ns)
	if err != nil {
		return nil, err
	}
	ids, err := get[[]semcat.NameIdentifier](ctx, c, request{method: http.MethodGet, path: p}, "identifiers")
	return names(ids), err
}

// GetSchema loads a schema.
func (c *Client) GetSchema(ctx context.Context, ns semcat.Namespace, name string) (*semcat.Schema, error) {
	p, err := schemaPath(ns, name)
	if err != nil {
		return nil, err
	}
	return get[*semcat.Schema](ctx, c, request{method: http.MethodGet, path: p}, "schema")
}

// AlterSchema applies updates to a schema, in order, all or nothing.
func (c *Client) AlterSchema(ctx context.Context, ns semcat.Namespace, name string, updates []semcat.Update) (*semcat.Schema, semcat.Position, error) {
	p, err := schemaPath(ns, name)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Schema](ctx, c, request{method: http.MethodPut, path: p, body: semcat.UpdatesRequest{Updates: updates}}, "schema")
}

// DropSchema drops a schema; a non-empty one only with cascade, which drops
// its tables and models too. It reports false if there was no such schema.
func (c *Client) DropSchema(ctx context.Context, ns semcat.Namespace, name string, cascade bool) (bool, semcat.Position, error) {
	p, err := schemaPath(ns, name)
	if err != nil {
		return false, semcat.Position{}, err
	}
	return write[bool](ctx, c, request{method: http.MethodDelete, path: p, query: trueParam("cascade", cascade)}, "dropped")
}
