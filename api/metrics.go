package api

import (
	"encoding/json"
	"net/http"

	"github.com/semcat/semcat"
)

// metricInfo is one entry of a detailed metric listing: the metric's full
// namespace and its definition as stored.
type metricInfo struct {
	Namespace []string        `json:"namespace"`
	Metric    json.RawMessage `json:"metric"`
}

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
	metrics, err := h.svc.Metrics.ListSchemaMetrics(r.Context(), ns, details)
	if err != nil {
		return err
	}
	RecordCount(r, len(metrics))
	path := ns.Path()
	namespace := func(model string) []string {
		return append(append(make([]string, 0, len(path)+1), path...), model)
	}
	if details {
		out := make([]metricInfo, len(metrics))
		for i, m := range metrics {
			out[i] = metricInfo{Namespace: namespace(m.Model), Metric: m.Definition}
		}
		return ok(w, "metrics", out)
	}
	out := make([]semcat.NameIdentifier, len(metrics))
	for i, m := range metrics {
		out[i] = semcat.NameIdentifier{Namespace: namespace(m.Model), Name: m.Name}
	}
	return ok(w, "identifiers", out)
}
