package api

import (
	"net/http"
	"strings"
	"unicode/utf8"

	"github.com/semcat/semcat"
)

// listSchemaMetrics answers schema-level metric discovery (SPEC §2.4): every
// metric of every semantic model of the schema that the caller may see, in
// one request, as identifiers or with full definitions.
func (h *handler) listSchemaMetrics(w http.ResponseWriter, r *http.Request) error {
	ns, err := schemaObjectNamespace(r)
	if err != nil {
		return err
	}
	details, err := boolParam(r, "details")
	if err != nil {
		return err
	}
	filter, err := metricFilter(r)
	if err != nil {
		return err
	}
	if !filter.Filtered() {
		metrics, err := h.svc.Metrics.ListSchemaMetrics(r.Context(), ns, details)
		if err != nil {
			return err
		}
		RecordCount(r, len(metrics))
		writeBody(w, http.StatusOK, metricList(ns, metrics, details, ""))
		return nil
	}
	sel, err := semcat.SelectMetrics(r.Context(), h.svc.Metrics, h.svc.Search, ns, details, filter)
	if err != nil {
		return err
	}
	page := sel.Page(len(sel.Metrics))
	RecordCount(r, len(page.Metrics))
	writeBody(w, http.StatusOK, metricList(ns, page.Metrics, details, page.Cursor))
	return nil
}

// metricFilter reads the parameters that narrow and page a metric
// listing (SPEC §2.8): names (repeatable), query, limit and cursor.
func metricFilter(r *http.Request) (semcat.MetricFilter, error) {
	q, err := queryValues(r, "query", "limit", "cursor")
	if err != nil {
		return semcat.MetricFilter{}, err
	}
	f := semcat.MetricFilter{Names: q["names"], Query: q.Get("query"), Cursor: q.Get("cursor")}
	if _, given := q["query"]; given && strings.TrimSpace(f.Query) == "" {
		return f, semcat.Errorf(semcat.EINVALID, "query: must not be empty")
	}
	if _, given := q["cursor"]; given && f.Cursor == "" {
		return f, semcat.Errorf(semcat.EINVALID, "cursor: must not be empty")
	}
	if f.Limit, err = intParam(q, "limit", 0, 1, semcat.MaxMetricLimit); err != nil {
		return f, err
	}
	return f, f.Validate()
}

// metricList returns the body of a metric listing: the same bytes
// that ok would write for a []semcat.NameIdentifier under "identifiers" or,
// with details, a list of {"namespace", "metric"} under "metrics". A large
// schema lists tens of thousands of metrics that differ only in model and
// name, so the list is written directly rather than through reflection.
func metricList(ns semcat.Namespace, metrics []semcat.SchemaMetric, details bool, cursor string) []byte {
	// Every entry starts with the same namespace prefix.
	prefix := []byte(`{"namespace":[`)
	for _, p := range ns.Path() {
		prefix = appendString(prefix, p)
		prefix = append(prefix, ',')
	}
	key, member := "identifiers", `],"name":`
	if details {
		key, member = "metrics", `],"metric":`
	}
	// Room for the usual case (nothing to escape) and writeBody's newline.
	size := len(`{"code":0,"":[]}`+"\n") + len(key)
	for _, m := range metrics {
		size += len(prefix) + len(`""`) + len(m.Model) + len(member) + len(`}`) + len(`,`)
		if details {
			size += max(len(m.Definition), len("null"))
		} else {
			size += len(`""`) + len(m.Name)
		}
	}
	b := make([]byte, 0, size)
	b = append(b, `{"code":0,"`...)
	b = append(b, key...)
	b = append(b, `":[`...)
	var model []byte // the current model's name, encoded
	for i, m := range metrics {
		if i > 0 {
			b = append(b, ',')
		}
		if i == 0 || m.Model != metrics[i-1].Model {
			model = appendString(model[:0], m.Model)
		}
		b = append(b, prefix...)
		b = append(b, model...)
		b = append(b, member...)
		switch {
		case !details:
			b = appendString(b, m.Name)
		case m.Definition == nil:
			b = append(b, "null"...)
		default:
			b = append(b, m.Definition...) // compact JSON (see semcat.SchemaMetric)
		}
		b = append(b, '}')
	}
	b = append(b, ']')
	if cursor != "" {
		b = append(b, `,"cursor":`...)
		b = appendString(b, cursor)
	}
	return append(b, '}')
}

// appendString appends s as a JSON string, exactly as marshal encodes it.
// Names are plain ASCII; anything else goes through marshal.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= utf8.RuneSelf {
			q, _ := marshal(s) // a string always encodes
			return append(b, q...)
		}
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}
