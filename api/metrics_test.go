package api_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/api/apitest"
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
		{"/api/metalakes/m/catalogs/files/schemas/any/semantic-model-metrics", 405, "UnsupportedOperationException"},
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

// BenchmarkSchemaMetricDiscovery measures discovery over HTTP, through the
// whole handler, at DESIGN §6's size: 1,000 models × 20 metrics. Each
// operation reads the whole response; the decoded variants also decode it
// as a client would (as the benchmark harness does), which on a small
// machine costs about as much as answering.
func BenchmarkSchemaMetricDiscovery(b *testing.B) {
	const models, metrics = 1000, 20
	c, s := newStoreServer(b, api.Config{Logger: slog.New(slog.DiscardHandler)})
	ns := semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "sales"}
	ctx := semcat.NewContextWithUser(context.Background(), "alice")
	decimal := semcat.Datatype("Decimal")
	for i := range models {
		def := &semcat.Definition{Datasets: []semcat.Dataset{{Name: "orders", Source: &semcat.Source{Namespace: []string{"rel", "sales"}, Name: "orders"}}}}
		for j := range metrics {
			name := fmt.Sprintf("metric_%02d_of_model_%04d", (j*7)%metrics, i)
			desc := "The " + name + " of every order, summed over the reporting period"
			dialects := []semcat.DialectExpression{{Dialect: "ANSI_SQL", Expression: "SUM(amount)"}}
			if j%3 == 0 {
				dialects = append(dialects, semcat.DialectExpression{Dialect: "SNOWFLAKE", Expression: "SUM(amount)"})
			}
			def.Metrics = append(def.Metrics, semcat.Metric{Name: name, Description: &desc, Datatype: &decimal,
				Expression: &semcat.Expression{Dialects: dialects}})
		}
		if _, _, err := s.CreateSemanticModel(ctx, ns, semcat.SemanticModelCreate{Name: fmt.Sprintf("sm_%04d", (i*37)%models), Definition: def}); err != nil {
			b.Fatal(err)
		}
	}
	if _, err := s.Pool().Exec(context.Background(), "ANALYZE"); err != nil {
		b.Fatal(err)
	}
	for _, tt := range []struct {
		name    string
		details bool
		decoded any // what the response decodes into; nil: not decoded
	}{
		{"details=false", false, nil},
		{"details=true", true, nil},
		{"details=false/decoded", false, &struct {
			Identifiers []semcat.NameIdentifier `json:"identifiers"`
		}{}},
		{"details=true/decoded", true, &struct {
			Metrics []struct {
				Namespace []string        `json:"namespace"`
				Metric    json.RawMessage `json:"metric"`
			} `json:"metrics"`
		}{}},
	} {
		b.Run(tt.name, func(b *testing.B) {
			b.ReportAllocs()
			url := fmt.Sprintf("%s%s/semantic-model-metrics?details=%t", c.URL, salesPath, tt.details)
			for b.Loop() {
				resp, err := c.HTTP.Get(url)
				if err != nil {
					b.Fatal(err)
				}
				var n int64
				if tt.decoded == nil {
					n, err = io.Copy(io.Discard, resp.Body)
				} else {
					var body []byte
					if body, err = io.ReadAll(resp.Body); err == nil {
						n, err = int64(len(body)), json.Unmarshal(body, tt.decoded)
					}
				}
				resp.Body.Close()
				if err != nil || resp.StatusCode != http.StatusOK {
					b.Fatalf("%d %v", resp.StatusCode, err)
				}
				b.SetBytes(n)
			}
		})
	}
}

// listedMetrics is a MetricDiscoveryService that lists fixed metrics.
type listedMetrics []semcat.SchemaMetric

func (l listedMetrics) ListSchemaMetrics(context.Context, semcat.Namespace, bool) ([]semcat.SchemaMetric, error) {
	return l, nil
}

// TestSchemaMetricListEncoding checks that both listings are, byte for byte,
// what encoding/json writes for them (see marshal), whatever the names hold.
func TestSchemaMetricListEncoding(t *testing.T) {
	t.Parallel()
	metrics := listedMetrics{
		{Model: "a", Name: "x", Definition: json.RawMessage(`{"name":"x"}`)},
		{Model: "a", Name: "y", Definition: json.RawMessage(`{"name":"y","description":"a<b & \"c\" \u003c é\u2028"}`)},
		{Model: "a", Name: "z", Definition: nil},
	}
	// Each string needs a different escape, or none.
	for i, s := range []string{"q\"", "b\\s", "/<&>\x7f", "\u2028", "\u2029", "\x01", "\x1f", "\t\n\r\b\f", "é☃", "\xff", "a\xe2\x80"} {
		metrics = append(metrics, semcat.SchemaMetric{Model: s, Name: s, Definition: json.RawMessage(fmt.Sprintf(`{"name":"m%d"}`, i))},
			semcat.SchemaMetric{Model: s, Name: "n", Definition: json.RawMessage(`{"aiContext":{"k":[1,-2.5e3,true,null]}}`)})
	}
	path := "/api/metalakes/m=1/catalogs/c-2/schemas/s%2Fx/semantic-model-metrics"
	namespace := func(model string) []string { return []string{"m=1", "c-2", "s/x", model} }
	for _, tt := range []struct {
		name    string
		metrics listedMetrics
	}{{"empty", listedMetrics{}}, {"metrics", metrics}} {
		c := apitest.NewServer(t, api.Services{Metrics: tt.metrics})
		for _, details := range []bool{false, true} {
			var want any // the listing as the API wrote it through marshal
			if details {
				type info struct {
					Namespace []string        `json:"namespace"`
					Metric    json.RawMessage `json:"metric"`
				}
				infos := []info{}
				for _, m := range tt.metrics {
					infos = append(infos, info{namespace(m.Model), m.Definition})
				}
				want = struct {
					Code    int    `json:"code"`
					Metrics []info `json:"metrics"`
				}{Metrics: infos}
			} else {
				ids := []semcat.NameIdentifier{}
				for _, m := range tt.metrics {
					ids = append(ids, semcat.NameIdentifier{Namespace: namespace(m.Model), Name: m.Name})
				}
				want = struct {
					Code        int                     `json:"code"`
					Identifiers []semcat.NameIdentifier `json:"identifiers"`
				}{Identifiers: ids}
			}
			var buf strings.Builder
			enc := json.NewEncoder(&buf)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(want); err != nil {
				t.Fatal(err)
			}
			resp, err := c.HTTP.Get(fmt.Sprintf("%s%s?details=%t", c.URL, path, details))
			if err != nil {
				t.Fatal(err)
			}
			body, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err != nil || resp.StatusCode != http.StatusOK {
				t.Fatalf("%s details=%t: %d %v %s", tt.name, details, resp.StatusCode, err, body)
			}
			if got := string(body); got != buf.String() {
				t.Errorf("%s details=%t:\n got %q\nwant %q", tt.name, details, got, buf.String())
			}
			if got, want := resp.Header.Get("Content-Length"), fmt.Sprint(len(body)); got != want {
				t.Errorf("%s details=%t: Content-Length %s, body %s bytes", tt.name, details, got, want)
			}
		}
	}
}
