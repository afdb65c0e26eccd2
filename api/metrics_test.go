package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/semcat/semcat/api"
)

// metricModel is a model over newStoreServer's tables with the given metrics
// (name → expression); nil gives a model without a metrics member.
func metricModel(name string, metrics ...string) string {
	def := map[string]any{"datasets": []any{map[string]any{"name": "orders",
		"source": map[string]any{"namespace": []any{"rel", "sales"}, "name": "orders"}}}}
	if metrics != nil {
		list := []any{}
		for _, m := range metrics {
			list = append(list, map[string]any{"name": m, "description": "about " + m,
				"expression": map[string]any{"dialects": []any{map[string]any{"dialect": "ANSI_SQL", "expression": "SUM(" + m + ")"}}},
				"aiContext":  map[string]any{"synonyms": []any{m + "_syn"}, "custom": map[string]any{"k": 1}}})
		}
		def["metrics"] = list
	}
	b, _ := json.Marshal(map[string]any{"name": name, "definition": def})
	return string(b)
}

func TestSchemaMetricDiscovery(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	path := salesPath + "/semantic-model-metrics"

	// Empty schema.
	for _, q := range []string{"", "?details=false"} {
		_, resp := c.MustOK("GET", path+q, nil)
		if got := canonical(t, resp); got != `{"code":0,"identifiers":[]}` {
			t.Errorf("empty schema%s: %s", q, got)
		}
	}
	_, resp := c.MustOK("GET", path+"?details=true", nil)
	if got := canonical(t, resp); got != `{"code":0,"metrics":[]}` {
		t.Errorf("empty schema details: %s", got)
	}

	c.MustOK("POST", salesPath+"/semantic-models", metricModel("b_model", "zeta", "Alpha", "beta"))
	c.MustOK("POST", salesPath+"/semantic-models", metricModel("B_model", "x"))
	c.MustOK("POST", salesPath+"/semantic-models", metricModel("a_model", "a", "B"))
	c.MustOK("POST", salesPath+"/semantic-models", metricModel("no_metrics"))
	c.MustOK("POST", salesPath+"/semantic-models", metricModel("empty_metrics", []string{}...))

	// Byte order: upper case before lower case, model first, then metric.
	want := [][2]string{{"B_model", "x"}, {"a_model", "B"}, {"a_model", "a"}, {"b_model", "Alpha"}, {"b_model", "beta"}, {"b_model", "zeta"}}
	_, resp = c.MustOK("GET", path, nil)
	ids := resp["identifiers"].([]any)
	if len(ids) != len(want) {
		t.Fatalf("got %d identifiers, want %d: %v", len(ids), len(want), ids)
	}
	for i, w := range want {
		id := ids[i].(map[string]any)
		if got := canonical(t, id); got != canonical(t, map[string]any{"namespace": []string{"m", "rel", "sales", w[0]}, "name": w[1]}) {
			t.Errorf("identifier %d: %s, want %v", i, got, w)
		}
	}

	// Details: the same order, each metric exactly as stored (and as the
	// model returns it).
	_, resp = c.MustOK("GET", path+"?details=true", nil)
	infos := resp["metrics"].([]any)
	if len(infos) != len(want) {
		t.Fatalf("got %d metrics, want %d", len(infos), len(want))
	}
	models := map[string][]any{}
	for _, m := range []string{"B_model", "a_model", "b_model"} {
		_, got := c.MustOK("GET", salesPath+"/semantic-models/"+m, nil)
		models[m] = got["semanticModel"].(map[string]any)["definition"].(map[string]any)["metrics"].([]any)
	}
	for i, w := range want {
		info := infos[i].(map[string]any)
		if canonical(t, info["namespace"]) != canonical(t, []string{"m", "rel", "sales", w[0]}) {
			t.Errorf("metric %d namespace %v", i, info["namespace"])
		}
		var stored any
		for _, m := range models[w[0]] {
			if m.(map[string]any)["name"] == w[1] {
				stored = m
			}
		}
		if canonical(t, info["metric"]) != canonical(t, stored) {
			t.Errorf("metric %v: %s, stored %s", w, canonical(t, info["metric"]), canonical(t, stored))
		}
	}

	// Errors.
	for _, tt := range []struct {
		path   string
		status int
		typ    string
	}{
		{"/api/metalakes/m/catalogs/rel/schemas/nope/semantic-model-metrics", 404, "NoSuchSchemaException"},
		{"/api/metalakes/m/catalogs/nope/schemas/sales/semantic-model-metrics", 404, "NoSuchCatalogException"},
		{"/api/metalakes/m/catalogs/files/schemas/any/semantic-model-metrics", 501, "UnsupportedOperationException"},
		{path + "?details=yes", 400, "IllegalArgumentException"},
	} {
		status, _, resp := c.Do("GET", tt.path, nil)
		if status != tt.status || resp["type"] != tt.typ {
			t.Errorf("GET %s: %d %v, want %d %s", tt.path, status, resp, tt.status, tt.typ)
		}
	}
}

// TestMetricIdentifiersDoNotReadDefinitions corrupts the stored metrics of a
// model's current version: the identifier listing, which reads only the
// identity table, still answers; the detailed listing fails as a whole,
// without partial results.
func TestMetricIdentifiersDoNotReadDefinitions(t *testing.T) {
	t.Parallel()
	c, s := newStoreServer(t, api.Config{})
	c.MustOK("POST", salesPath+"/semantic-models", metricModel("good", "m1"))
	c.MustOK("POST", salesPath+"/semantic-models", metricModel("bad", "m2", "m3"))
	path := salesPath + "/semantic-model-metrics"
	for _, corrupt := range []string{`{"not":"an array"}`, `[{"name":"m2","expression":{"dialects":"nope"}}]`, `[{"description":"no name"}]`} {
		t.Run(corrupt, func(t *testing.T) {
			_, err := s.Pool().Exec(context.Background(), `UPDATE semantic_model_version_info v SET metrics = $1::json
				FROM semantic_model_meta m WHERE m.semantic_model_id = v.semantic_model_id AND m.semantic_model_name = 'bad'`, corrupt)
			if err != nil {
				t.Fatal(err)
			}
			_, resp := c.MustOK("GET", path, nil)
			if got := len(resp["identifiers"].([]any)); got != 3 {
				t.Errorf("identifiers: %d, want 3", got)
			}
			status, _, resp := c.Do("GET", path+"?details=true", nil)
			if status != 500 || resp["code"] != 1002.0 || resp["metrics"] != nil {
				t.Errorf("details over a corrupt definition: %d %v, want 500/1002 and no metrics", status, resp)
			}
			if msg := fmt.Sprint(resp["message"]); strings.Contains(msg, "SELECT") || strings.Contains(msg, "json") {
				t.Errorf("internal details leak into the message: %q", msg)
			}
		})
	}
}
