package client

import (
	"context"
	"net/http"

	"github.com/semcat/semcat"
)

var _ semcat.SemanticModelService = (*Client)(nil)

// modelsPath returns the path of the semantic models of the schema
// ns = {Metalake, Catalog, Schema}.
func modelsPath(ns semcat.Namespace) (string, error) {
	p, err := namespacePath(ns, inSchema, "a semantic model")
	return p + "/semantic-models", err
}

// modelPath returns the path of a semantic model.
func modelPath(ns semcat.Namespace, name string) (string, error) {
	p, err := modelsPath(ns)
	if err != nil {
		return "", err
	}
	return child(p, name)
}

// writeModel sends a request answered with a semantic model and sets the
// model's Version from the answer's ETag.
func (c *Client) writeModel(ctx context.Context, r request) (*semcat.SemanticModel, semcat.Position, error) {
	rep, err := c.do(ctx, r)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	m, err := member[*semcat.SemanticModel](rep, "semanticModel")
	if err != nil {
		return nil, semcat.Position{}, err
	}
	if m != nil {
		m.Version = rep.version()
	}
	pos, err := rep.position()
	return m, pos, err
}

// CreateSemanticModel creates a semantic model in the schema
// ns = {Metalake, Catalog, Schema}; its dataset sources must be tables of
// the same metalake.
func (c *Client) CreateSemanticModel(ctx context.Context, ns semcat.Namespace, req semcat.SemanticModelCreate) (*semcat.SemanticModel, semcat.Position, error) {
	p, err := modelsPath(ns)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return c.writeModel(ctx, request{method: http.MethodPost, path: p, body: req})
}

// ListSemanticModels lists the names of the semantic models of a schema,
// sorted.
func (c *Client) ListSemanticModels(ctx context.Context, ns semcat.Namespace) ([]string, error) {
	p, err := modelsPath(ns)
	if err != nil {
		return nil, err
	}
	ids, err := get[[]semcat.NameIdentifier](ctx, c, request{method: http.MethodGet, path: p}, "identifiers")
	return names(ids), err
}

// GetSemanticModel loads a semantic model; its Version is the one to pass
// as ifMatch to change it only if nobody else has since.
func (c *Client) GetSemanticModel(ctx context.Context, ns semcat.Namespace, name string) (*semcat.SemanticModel, error) {
	p, err := modelPath(ns, name)
	if err != nil {
		return nil, err
	}
	m, _, err := c.writeModel(ctx, request{method: http.MethodGet, path: p})
	return m, err
}

// AlterSemanticModel applies updates to a semantic model, in order, all or
// nothing. With ifMatch > 0 it fails with ECONFLICT, changing nothing,
// unless the model is still at that version; with 0 it always applies.
func (c *Client) AlterSemanticModel(ctx context.Context, ns semcat.Namespace, name string, updates []semcat.Update, ifMatch int64) (*semcat.SemanticModel, semcat.Position, error) {
	p, err := modelPath(ns, name)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return c.writeModel(ctx, request{method: http.MethodPut, path: p, body: semcat.UpdatesRequest{Updates: updates}, ifMatch: ifMatch})
}

// DropSemanticModel drops a semantic model, with ifMatch as for
// AlterSemanticModel. It reports false if there was no such model.
func (c *Client) DropSemanticModel(ctx context.Context, ns semcat.Namespace, name string, ifMatch int64) (bool, semcat.Position, error) {
	p, err := modelPath(ns, name)
	if err != nil {
		return false, semcat.Position{}, err
	}
	return write[bool](ctx, c, request{method: http.MethodDelete, path: p, ifMatch: ifMatch}, "dropped")
}
