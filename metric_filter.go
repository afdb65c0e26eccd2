package semcat

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode/utf8"
)

// Limits of a filtered metric listing (SPEC §2.8, revision 3).
const (
	MaxMetricNames     = 1000   // names in one filter
	MaxMetricLimit     = 1000   // a page's limit
	MaxMetricQueryHits = 10_000 // search hits a query filter reads
	metricQueryPage    = 1000   // search hits per search call
)

// MetricFilter narrows and pages the metric listing of a schema, so that
// an agent receives only the definitions it asks for.
type MetricFilter struct {
	// Names keeps the metrics of these names (of any model of the schema).
	Names []string
	// Query keeps the metrics a search within the schema's metrics
	// matches, ranked as search ranks them (SPEC §5.4).
	Query string
	// Limit is the most metrics of a page; 0 means no limit.
	Limit int
	// Cursor resumes after the page that returned it.
	Cursor string
}

// Filtered reports whether the listing is narrowed or paged at all.
func (f MetricFilter) Filtered() bool {
	return f.Names != nil || f.Query != "" || f.Limit != 0 || f.Cursor != ""
}

// Validate checks the filter's arguments; each message names the argument.
func (f MetricFilter) Validate() error {
	if len(f.Names) > MaxMetricNames {
		return Errorf(EINVALID, "names: at most %d names, got %d", MaxMetricNames, len(f.Names))
	}
	for i, n := range f.Names {
		if n == "" {
			return Errorf(EINVALID, "names[%d]: a metric name must not be empty", i)
		}
	}
	if utf8.RuneCountInString(f.Query) > 4096 {
		return Errorf(EINVALID, "query: longer than 4096 characters")
	}
	if f.Limit < 0 || f.Limit > MaxMetricLimit {
		return Errorf(EINVALID, "limit: must be a whole number from 1 to %d, got %d", MaxMetricLimit, f.Limit)
	}
	return nil
}

// fingerprint ties a cursor to the filter it was made for.
func (f MetricFilter) fingerprint(ns Namespace, details bool) string {
	names := slices.Clone(f.Names)
	slices.Sort(names)
	h := sha256.Sum256(fmt.Appendf(nil, "%q|%q|%q|%t|%q|%q", ns.Metalake, ns.Catalog, ns.Schema, details, f.Query, names))
	return base64.RawURLEncoding.EncodeToString(h[:6])
}

// metricCursor is the decoded form of a cursor: the filter's fingerprint,
// and where the previous page ended — after the metric Model.Name of a
// listing in model and metric order, or at Offset of a ranked one.
type metricCursor struct {
	Filter string `json:"f"`
	Model  string `json:"m,omitempty"`
	Name   string `json:"n,omitempty"`
	Offset int    `json:"o,omitempty"`
}

func (c metricCursor) encode() string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeMetricCursor(s, fingerprint string) (metricCursor, error) {
	var c metricCursor
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || json.Unmarshal(b, &c) != nil || c.Offset < 0 {
		return c, Errorf(EINVALID, "cursor: not a cursor of a metric listing")
	}
	if c.Filter != fingerprint {
		return c, Errorf(EINVALID, "cursor: belongs to a listing with other arguments (schema, details, names or query); pass the same arguments as the call that returned it")
	}
	return c, nil
}

// MetricSelection is what a filtered listing selected from its cursor on,
// in order; Page cuts a page of it.
type MetricSelection struct {
	// Metrics are the selected metrics from the cursor on.
	Metrics []SchemaMetric
	// Limit is the filter's limit (0: none).
	Limit       int
	fingerprint string
	ranked      bool
	offset      int // the rank of Metrics[0], for a ranked selection
}

// MetricPage is one page of a filtered listing; Cursor, when set, gives
// the next.
type MetricPage struct {
	Metrics []SchemaMetric
	Cursor  string
}

// Page returns the first n selected metrics (at most the filter's limit),
// with a cursor when more follow.
func (s *MetricSelection) Page(n int) MetricPage {
	n = min(n, len(s.Metrics))
	if s.Limit > 0 {
		n = min(n, s.Limit)
	}
	p := MetricPage{Metrics: s.Metrics[:n]}
	if n < len(s.Metrics) && n > 0 {
		c := metricCursor{Filter: s.fingerprint}
		if s.ranked {
			c.Offset = s.offset + n
		} else {
			c.Model, c.Name = s.Metrics[n-1].Model, s.Metrics[n-1].Name
		}
		p.Cursor = c.encode()
	}
	return p
}

// SelectMetrics lists the metrics of schema ns (as list does, with the
// caller's visibility) and keeps those f selects, from f's cursor on: in
// model and metric order, or with a query in the order search ranks them
// (search finds them; a metric search has found but the listing no longer
// has is left out).
func SelectMetrics(ctx context.Context, list MetricDiscoveryService, search SearchService, ns Namespace, details bool, f MetricFilter) (*MetricSelection, error) {
	if err := f.Validate(); err != nil {
		return nil, err
	}
	sel := &MetricSelection{Limit: f.Limit, fingerprint: f.fingerprint(ns, details), ranked: f.Query != ""}
	var cur metricCursor
	if f.Cursor != "" {
		var err error
		if cur, err = decodeMetricCursor(f.Cursor, sel.fingerprint); err != nil {
			return nil, err
		}
	}
	metrics, err := list.ListSchemaMetrics(ctx, ns, details)
	if err != nil {
		return nil, err
	}
	if f.Names != nil {
		keep := make(map[string]bool, len(f.Names))
		for _, n := range f.Names {
			keep[n] = true
		}
		metrics = slices.DeleteFunc(metrics, func(m SchemaMetric) bool { return !keep[m.Name] })
	}
	if f.Query != "" {
		if metrics, err = rankMetrics(ctx, search, ns, f.Query, metrics); err != nil {
			return nil, err
		}
		sel.offset = min(cur.Offset, len(metrics))
		sel.Metrics = metrics[sel.offset:]
		return sel, nil
	}
	if f.Cursor != "" {
		// Sorted by model, then name (byte order): resume after the last.
		i, _ := slices.BinarySearchFunc(metrics, cur, func(m SchemaMetric, c metricCursor) int {
			if r := strings.Compare(m.Model, c.Model); r != 0 {
				return r
			}
			return strings.Compare(m.Name, c.Name)
		})
		for i < len(metrics) && metrics[i].Model == cur.Model && metrics[i].Name == cur.Name {
			i++
		}
		metrics = metrics[i:]
	}
	sel.Metrics = metrics
	return sel, nil
}

// rankMetrics keeps the metrics that query matches among the schema's
// metrics, in search's order.
func rankMetrics(ctx context.Context, search SearchService, ns Namespace, query string, metrics []SchemaMetric) ([]SchemaMetric, error) {
	if search == nil {
		return nil, Errorf(EUNSUPPORTED, "query: this server has no search index to rank metrics with")
	}
	rank := map[[2]string]int{}
	req := SearchRequest{Metalake: ns.Metalake, Query: query, Types: []string{"metric"}, Catalog: ns.Catalog, Schema: ns.Schema,
		Limit: metricQueryPage, FacetSize: 1}
	for len(rank) < MaxMetricQueryHits {
		res, err := search.Search(ctx, req)
		if err != nil {
			return nil, atQuery(err)
		}
		for _, h := range res.Results {
			if len(h.Entity.Namespace) != 4 {
				continue
			}
			key := [2]string{h.Entity.Namespace[3], h.Entity.Name}
			if _, seen := rank[key]; !seen {
				rank[key] = len(rank)
			}
		}
		if res.Cursor == "" || len(res.Results) == 0 {
			break
		}
		req.Cursor = res.Cursor
	}
	out := make([]SchemaMetric, 0, min(len(rank), len(metrics)))
	for _, m := range metrics {
		if _, ok := rank[[2]string{m.Model, m.Name}]; ok {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b SchemaMetric) int {
		return rank[[2]string{a.Model, a.Name}] - rank[[2]string{b.Model, b.Name}]
	})
	return out, nil
}

// atQuery names the query argument in an invalid query's message.
func atQuery(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Code == EINVALID && !strings.HasPrefix(e.Message, "query") {
		return &Error{Code: EINVALID, Type: e.Type, Message: "query: " + e.Message}
	}
	return err
}
