package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/semcat/semcat"
)

var (
	_ semcat.MetricDiscoveryService = (*Client)(nil)
	_ semcat.MetadataService        = (*Client)(nil)
)

// ListSchemaMetrics lists the metrics of every semantic model of the schema
// ns = {Metalake, Catalog, Schema} that the caller may see, in one request,
// sorted by model then metric name. Each has its Model and Name, and with
// details its Definition exactly as stored; ModelID, internal to the
// server, stays 0. A metric's full namespace is ns.Path() followed by Model.
func (c *Client) ListSchemaMetrics(ctx context.Context, ns semcat.Namespace, details bool) ([]semcat.SchemaMetric, error) {
	p, err := namespacePath(ns, inSchema, "a semantic model")
	if err != nil {
		return nil, err
	}
	r := request{method: http.MethodGet, path: p + "/semantic-model-metrics", query: trueParam("details", details)}
	depth := len(ns.Path()) + 1
	out := []semcat.SchemaMetric{}
	if !details {
		ids, err := get[[]semcat.NameIdentifier](ctx, c, r, "identifiers")
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			if len(id.Namespace) != depth {
				return nil, fmt.Errorf("client: metric %q has the namespace %q, want metalake.catalog.schema.model", id.Name, id.Namespace)
			}
			out = append(out, semcat.SchemaMetric{Model: id.Namespace[depth-1], Name: id.Name})
		}
		return out, nil
	}
	infos, err := get[[]struct {
		Namespace []string        `json:"namespace"`
		Metric    json.RawMessage `json:"metric"`
	}](ctx, c, r, "metrics")
	if err != nil {
		return nil, err
	}
	for _, info := range infos {
		var named struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(info.Metric, &named); err != nil {
			return nil, fmt.Errorf("client: decoding a metric of the answer: %w", err)
		}
		if len(info.Namespace) != depth {
			return nil, fmt.Errorf("client: metric %q has the namespace %q, want metalake.catalog.schema.model", named.Name, info.Namespace)
		}
		out = append(out, semcat.SchemaMetric{Model: info.Namespace[depth-1], Name: named.Name, Definition: info.Metric})
	}
	return out, nil
}

// ObjectMetadata returns the system and user metadata of an object of a
// metalake (SPEC §2.5), read from PostgreSQL rather than the index.
func (c *Client) ObjectMetadata(ctx context.Context, metalake string, obj semcat.ObjectRef) (*semcat.Metadata, error) {
	p, err := objectPath(metalake, "objects", obj)
	if err != nil {
		return nil, err
	}
	return get[*semcat.Metadata](ctx, c, request{method: http.MethodGet, path: p + "/metadata"}, "metadata")
}
