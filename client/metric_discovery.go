package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

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
	page, err := c.ListSchemaMetricPage(ctx, ns, details, semcat.MetricFilter{})
	return page.Metrics, err
}

// ListSchemaMetricPage is ListSchemaMetrics narrowed and paged by f (SPEC
// §2.8): the metrics of f.Names, those f.Query matches (in search's rank
// order), at most f.Limit of them from f.Cursor on; the page's Cursor,
// when set, gives the next page with the same filter.
func (c *Client) ListSchemaMetricPage(ctx context.Context, ns semcat.Namespace, details bool, f semcat.MetricFilter) (semcat.MetricPage, error) {
	p, err := namespacePath(ns, inSchema, "a semantic model")
	if err != nil {
		return semcat.MetricPage{}, err
	}
	query := trueParam("details", details)
	if f.Filtered() {
		if query == nil {
			query = url.Values{}
		}
		if f.Names != nil {
			query["names"] = f.Names
		}
		if f.Query != "" {
			query.Set("query", f.Query)
		}
		if f.Limit != 0 {
			query.Set("limit", strconv.Itoa(f.Limit))
		}
		if f.Cursor != "" {
			query.Set("cursor", f.Cursor)
		}
	}
	rep, err := c.do(ctx, request{method: http.MethodGet, path: p + "/semantic-model-metrics", query: query})
	if err != nil {
		return semcat.MetricPage{}, err
	}
	out := semcat.MetricPage{Metrics: []semcat.SchemaMetric{}}
	if f.Filtered() {
		var body struct {
			Cursor string `json:"cursor"`
		}
		if err := json.Unmarshal(rep.body, &body); err != nil {
			return out, fmt.Errorf("client: the answer is not a JSON object: %w", err)
		}
		out.Cursor = body.Cursor
	}
	depth := len(ns.Path()) + 1
	if !details {
		ids, err := member[[]semcat.NameIdentifier](rep, "identifiers")
		if err != nil {
			return out, err
		}
		for _, id := range ids {
			if len(id.Namespace) != depth {
				return out, fmt.Errorf("client: metric %q has the namespace %q, want metalake.catalog.schema.model", id.Name, id.Namespace)
			}
			out.Metrics = append(out.Metrics, semcat.SchemaMetric{Model: id.Namespace[depth-1], Name: id.Name})
		}
		return out, nil
	}
	infos, err := member[[]struct {
		Namespace []string        `json:"namespace"`
		Metric    json.RawMessage `json:"metric"`
	}](rep, "metrics")
	if err != nil {
		return out, err
	}
	for _, info := range infos {
		var named struct {
			Name string `json:"name"`
		}
		if err := json.Unmarshal(info.Metric, &named); err != nil {
			return out, fmt.Errorf("client: decoding a metric of the answer: %w", err)
		}
		if len(info.Namespace) != depth {
			return out, fmt.Errorf("client: metric %q has the namespace %q, want metalake.catalog.schema.model", named.Name, info.Namespace)
		}
		out.Metrics = append(out.Metrics, semcat.SchemaMetric{Model: info.Namespace[depth-1], Name: named.Name, Definition: info.Metric})
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
