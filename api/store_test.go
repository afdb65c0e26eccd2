package api_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/api/apitest"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
)

// The tests in this file run the API against the real PostgreSQL store.

func TestMain(m *testing.M) {
	pgtest.SetTemplateSetup(catalogdb.MigrateURL)
	pgtest.Main(m)
}

// newStoreServer starts the API on a store over a fresh database and seeds
// metalake m with a relational catalog rel (schema sales with tables orders
// and customers) and a fileset catalog files.
func newStoreServer(tb testing.TB, cfg api.Config) (*apitest.Client, *catalogdb.Store) {
	tb.Helper()
	s, err := catalogdb.Open(context.Background(), pgtest.NewDatabase(tb), slog.New(slog.NewTextHandler(tb.Output(), nil)))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	c := apitest.NewServerWithConfig(tb, api.Services{Metalakes: s, Catalogs: s, Schemas: s, Tables: s, Models: s, Tags: s, Metrics: s, Access: s,
		Policies: s}, cfg)
	c.MustOK("POST", "/api/metalakes", `{"name":"m"}`)
	c.MustOK("POST", "/api/metalakes/m/catalogs", `{"name":"rel","type":"relational"}`)
	c.MustOK("POST", "/api/metalakes/m/catalogs", `{"name":"files","type":"fileset"}`)
	c.MustOK("POST", "/api/metalakes/m/catalogs/rel/schemas", `{"name":"sales"}`)
	c.MustOK("POST", salesPath+"/tables", `{"name":"orders","columns":[{"name":"order_id","type":"long"},{"name":"customer_id","type":"long"},
		{"name":"amount","type":"decimal(12,2)"},{"name":"info","type":{"type":"struct","fields":[{"name":"note","type":"string"}]}}]}`)
	c.MustOK("POST", salesPath+"/tables", `{"name":"customers","columns":[{"name":"customer_id","type":"long"},{"name":"name","type":"string"}]}`)
	return c, s
}

const salesPath = "/api/metalakes/m/catalogs/rel/schemas/sales"

// modelBody is a valid model over newStoreServer's tables.
const modelBody = `{"name": "sales", "comment": "c", "properties": {"k": "v"}, "definition": {
  "datasets": [
    {"name": "orders", "source": {"namespace": ["rel", "sales"], "name": "orders"}, "primaryKey": ["order_id"],
     "uniqueKeys": [], "description": "d",
     "fields": [{"name": "amount", "expression": {"dialects": [{"dialect": "ANSI_SQL", "expression": "amount"}]},
                 "dimension": {"isTime": false}, "label": "Amount", "datatype": "Decimal",
                 "aiContext": "money", "customExtensions": [{"vendorName": "acme", "data": "{\"x\":1}"}]}]},
    {"name": "customers", "source": {"namespace": ["rel", "sales"], "name": "customers"}}
  ],
  "relationships": [{"name": "o_c", "from": "orders", "to": "customers", "fromColumns": ["customer_id"], "toColumns": ["customer_id"],
                     "aiContext": {"instructions": "join on customer"}}],
  "metrics": [
    {"name": "revenue", "expression": {"dialects": [{"dialect": "TRINO", "expression": "sum(amount)"}, {"dialect": "ANSI_SQL", "expression": "SUM(amount)"}]},
     "description": "Revenue", "datatype": "Decimal",
     "aiContext": {"synonyms": ["sales", "turnover"], "examples": [], "instructions": null, "owner": {"team": "finance", "since": 2024}}},
    {"name": "order_count", "expression": {"dialects": [{"dialect": "ANSI_SQL", "expression": "COUNT(*)"}]}}
  ],
  "aiContext": {"synonyms": []},
  "customExtensions": []
}}`

// canonical re-encodes JSON so that documents equal in meaning compare equal.
func canonical(tb testing.TB, v any) string {
	tb.Helper()
	b, ok := v.([]byte)
	if !ok {
		if s, isString := v.(string); isString {
			b = []byte(s)
		} else {
			var err error
			if b, err = json.Marshal(v); err != nil {
				tb.Fatal(err)
			}
		}
	}
	var x any
	if err := json.Unmarshal(b, &x); err != nil {
		tb.Fatal(err)
	}
	out, _ := json.Marshal(x)
	return string(out)
}

func TestModelRoundTripOverHTTP(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	hdr, created := c.MustOK("POST", salesPath+"/semantic-models", modelBody)
	if hdr.Get(api.PositionHeader) == "" {
		t.Error("create has no position header")
	}
	hdr, got := c.MustOK("GET", salesPath+"/semantic-models/sales", nil)
	if hdr.Get("ETag") != `"1"` {
		t.Errorf("ETag %q, want \"1\"", hdr.Get("ETag"))
	}
	var sent map[string]any
	json.Unmarshal([]byte(modelBody), &sent)
	model := got["semanticModel"].(map[string]any)
	if want, have := canonical(t, sent["definition"]), canonical(t, model["definition"]); want != have {
		t.Errorf("definition changed in the round trip:\nsent %s\n got %s", want, have)
	}
	if canonical(t, created["semanticModel"]) != canonical(t, model) {
		t.Error("create and get answer differently")
	}
	// Absent and null optional arrays come back absent; [] stays [].
	def := model["definition"].(map[string]any)
	ds := def["datasets"].([]any)
	if _, ok := ds[1].(map[string]any)["fields"]; ok {
		t.Error("absent fields came back")
	}
	if uk, ok := ds[0].(map[string]any)["uniqueKeys"].([]any); !ok || len(uk) != 0 {
		t.Errorf("uniqueKeys [] came back as %v", ds[0].(map[string]any)["uniqueKeys"])
	}
	if ext, ok := def["customExtensions"].([]any); !ok || len(ext) != 0 {
		t.Errorf("customExtensions [] came back as %v", def["customExtensions"])
	}
	// Order of dialects and metrics is kept.
	metrics := def["metrics"].([]any)
	if metrics[0].(map[string]any)["name"] != "revenue" ||
		metrics[0].(map[string]any)["expression"].(map[string]any)["dialects"].([]any)[0].(map[string]any)["dialect"] != "TRINO" {
		t.Errorf("order changed: %v", metrics)
	}
}

func TestModelValidationOverHTTP(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	tests := []struct {
		name       string
		edit       func(d map[string]any)
		wantPrefix string
	}{
		{"at least one dataset", func(d map[string]any) { d["datasets"] = []any{} }, "datasets:"},
		{"dataset names unique", func(d map[string]any) { ds(d, 1)["name"] = "orders" }, "datasets[1].name: duplicate dataset name 'orders'"},
		{"field names unique in their dataset", func(d map[string]any) {
			ds(d, 0)["fields"] = append(ds(d, 0)["fields"].([]any), ds(d, 0)["fields"].([]any)[0])
		}, "datasets[0].fields[1].name: duplicate field name 'amount'"},
		{"relationship names unique", func(d map[string]any) {
			d["relationships"] = append(d["relationships"].([]any), d["relationships"].([]any)[0])
		}, "relationships[1].name: duplicate relationship name 'o_c'"},
		{"metric names unique", func(d map[string]any) { metric(d, 1)["name"] = "revenue" }, "metrics[1].name: duplicate metric name 'revenue'"},
		{"relationship from names a dataset", func(d map[string]any) { rel(d)["from"] = "nope" }, "relationships[0].from:"},
		{"relationship to names a dataset", func(d map[string]any) { rel(d)["to"] = "nope" }, "relationships[0].to:"},
		{"fromColumns and toColumns equal length", func(d map[string]any) { rel(d)["toColumns"] = []any{"customer_id", "name"} },
			"relationships[0].toColumns: has 2 columns but fromColumns has 1"},
		{"source names an existing table", func(d map[string]any) { ds(d, 1)["source"].(map[string]any)["name"] = "gone" },
			"datasets[1].source: table 'rel.sales.gone' does not exist"},
		{"source in another catalog that does not exist", func(d map[string]any) {
			ds(d, 1)["source"].(map[string]any)["namespace"] = []any{"nocat", "sales"}
		}, "datasets[1].source: table 'nocat.sales.customers' does not exist"},
		{"primaryKey columns are top-level columns", func(d map[string]any) { ds(d, 0)["primaryKey"] = []any{"info.note"} },
			"datasets[0].primaryKey[0]: 'info.note' is not a top-level column"},
		{"uniqueKeys columns are top-level columns", func(d map[string]any) { ds(d, 0)["uniqueKeys"] = []any{[]any{"order_id"}, []any{"note"}} },
			"datasets[0].uniqueKeys[1][0]:"},
		{"fromColumns are columns of the from table", func(d map[string]any) { rel(d)["fromColumns"] = []any{"name"} },
			"relationships[0].fromColumns[0]:"},
		{"toColumns are columns of the to table", func(d map[string]any) { rel(d)["toColumns"] = []any{"amount"} },
			"relationships[0].toColumns[0]:"},
		{"no dialect twice", func(d map[string]any) {
			metric(d, 0)["expression"].(map[string]any)["dialects"].([]any)[0].(map[string]any)["dialect"] = "ANSI_SQL"
		}, "metrics[0].expression.dialects[1].dialect: duplicate dialect 'ANSI_SQL'"},
		{"at least one dialect", func(d map[string]any) { metric(d, 1)["expression"] = map[string]any{"dialects": []any{}} },
			"metrics[1].expression.dialects:"},
		{"datatype is known", func(d map[string]any) { metric(d, 1)["datatype"] = "Money" }, "metrics[1].datatype: unknown datatype 'Money'"},
		{"aiContext is a string or object", func(d map[string]any) { metric(d, 1)["aiContext"] = []any{"x"} }, "metrics[1].aiContext:"},
		{"unknown fields are rejected", func(d map[string]any) { metric(d, 1)["formula"] = "x" }, "definition.metrics[1].formula: unknown field"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var body map[string]any
			json.Unmarshal([]byte(modelBody), &body)
			tt.edit(body["definition"].(map[string]any))
			status, _, resp := c.Do("POST", salesPath+"/semantic-models", body)
			// Rules about the model as a whole and the catalog it names are
			// Gravitino's IllegalSemanticModelException; the shape of the
			// request is IllegalArgumentException (SPEC §2.10).
			wantType := "IllegalArgumentException"
			if modelRule(tt.wantPrefix) {
				wantType = "IllegalSemanticModelException"
			}
			if status != 400 || resp["code"] != 1001.0 || resp["type"] != wantType {
				t.Fatalf("got %d %v, want 400/1001 %s", status, resp, wantType)
			}
			if msg, _ := resp["message"].(string); !strings.HasPrefix(msg, tt.wantPrefix) {
				t.Errorf("message %q does not start with %q", msg, tt.wantPrefix)
			}
		})
	}
	// The same rules hold for a replaceDefinition update, with the path of
	// the update in front.
	c.MustOK("POST", salesPath+"/semantic-models", modelBody)
	var body map[string]any
	json.Unmarshal([]byte(modelBody), &body)
	def := body["definition"].(map[string]any)
	ds(def, 1)["name"] = "orders"
	status, _, resp := c.Do("PUT", salesPath+"/semantic-models/sales", map[string]any{"updates": []any{
		map[string]any{"@type": "setProperty", "property": "a", "value": "b"},
		map[string]any{"@type": "replaceDefinition", "definition": def}}})
	if msg, _ := resp["message"].(string); status != 400 || !strings.HasPrefix(msg, "updates[1].definition.datasets[1].name: duplicate dataset name") {
		t.Errorf("replaceDefinition: %d %v", status, resp)
	}
	// Rules that need the catalog (a source table must exist) too.
	json.Unmarshal([]byte(modelBody), &body)
	def = body["definition"].(map[string]any)
	ds(def, 1)["source"].(map[string]any)["name"] = "gone"
	status, _, resp = c.Do("PUT", salesPath+"/semantic-models/sales", map[string]any{"updates": []any{
		map[string]any{"@type": "setProperty", "property": "a", "value": "b"},
		map[string]any{"@type": "replaceDefinition", "definition": def}}})
	if msg, _ := resp["message"].(string); status != 400 || !strings.HasPrefix(msg, "updates[1].definition.datasets[1].source: table 'rel.sales.gone' does not exist") {
		t.Errorf("replaceDefinition with a missing source: %d %v", status, resp)
	}
	if _, got := c.MustOK("GET", salesPath+"/semantic-models/sales", nil); got["semanticModel"].(map[string]any)["properties"].(map[string]any)["a"] != nil {
		t.Error("a rejected update list changed the model")
	}
}

// modelRule reports whether a validation message is about the model as a
// whole (names unique, relationship ends, sources and their columns).
func modelRule(msg string) bool {
	if strings.Contains(msg, "duplicate dialect") {
		return false // a value's own rule
	}
	for _, w := range []string{"duplicate", ".from:", ".to:", ".source:", "is not a top-level column", "Columns[", "Keys["} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

func ds(d map[string]any, i int) map[string]any { return d["datasets"].([]any)[i].(map[string]any) }
func metric(d map[string]any, i int) map[string]any {
	return d["metrics"].([]any)[i].(map[string]any)
}
func rel(d map[string]any) map[string]any { return d["relationships"].([]any)[0].(map[string]any) }

func TestIfMatchOverHTTP(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	c.MustOK("POST", salesPath+"/semantic-models", modelBody)
	path := salesPath + "/semantic-models/sales"
	update := `{"updates":[{"@type":"setProperty","property":"a","value":"1"}]}`
	hdr, _ := c.MustOK("PUT", path, update, "If-Match", `"1"`)
	if hdr.Get("ETag") != `"2"` {
		t.Errorf("ETag after alter: %q", hdr.Get("ETag"))
	}
	for _, method := range []string{"PUT", "DELETE"} {
		var body any
		if method == "PUT" {
			body = `{"updates":[{"@type":"setProperty","property":"b","value":"2"}]}`
		}
		status, hdr, resp := c.Do(method, path, body, "If-Match", `"1"`)
		if status != 409 || resp["code"] != 1012.0 || resp["type"] != "OptimisticLockException" {
			t.Errorf("%s with stale If-Match: %d %v", method, status, resp)
		}
		if hdr.Get(api.PositionHeader) != "" {
			t.Errorf("%s: a refused write has a position", method)
		}
	}
	hdr, got := c.MustOK("GET", path, nil)
	props := got["semanticModel"].(map[string]any)["properties"].(map[string]any)
	if hdr.Get("ETag") != `"2"` || props["b"] != nil {
		t.Errorf("stale writes changed the model: ETag %s, properties %v", hdr.Get("ETag"), props)
	}
	if _, resp := c.MustOK("DELETE", path, nil, "If-Match", `"2"`); resp["dropped"] != true {
		t.Errorf("drop with current If-Match: %v", resp)
	}
}

// TestConcurrentAltersOverHTTP sends 20 alters of one model at once without
// If-Match; every one applies.
func TestConcurrentAltersOverHTTP(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	c.MustOK("POST", salesPath+"/semantic-models", modelBody)
	path := c.URL + salesPath + "/semantic-models/sales"
	var wg sync.WaitGroup
	statuses := make([]int, 20)
	for i := range statuses {
		wg.Add(1)
		go func() {
			defer wg.Done()
			body := fmt.Sprintf(`{"updates":[{"@type":"setProperty","property":"p%02d","value":"v"}]}`, i)
			req, _ := http.NewRequest("PUT", path, bytes.NewBufferString(body))
			res, err := c.HTTP.Do(req)
			if err != nil {
				return
			}
			res.Body.Close()
			statuses[i] = res.StatusCode
		}()
	}
	wg.Wait()
	for i, s := range statuses {
		if s != 200 {
			t.Errorf("alter %d: status %d", i, s)
		}
	}
	hdr, got := c.MustOK("GET", salesPath+"/semantic-models/sales", nil)
	props := got["semanticModel"].(map[string]any)["properties"].(map[string]any)
	if len(props) != 21 || hdr.Get("ETag") != `"21"` {
		t.Errorf("after 20 alters: %d properties (want 20 + k), ETag %s", len(props), hdr.Get("ETag"))
	}
}

func TestErrorsOverHTTP(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{MaxBodyBytes: 4096})
	c.MustOK("POST", salesPath+"/semantic-models", modelBody)
	c.MustOK("POST", "/api/metalakes/m/tags", `{"name":"held"}`)
	c.MustOK("POST", "/api/metalakes/m/objects/table/rel.sales.orders/tags", `{"tagsToAdd":["held"]}`)
	tests := []struct {
		method, path string
		body         any
		status       int
		code         float64
		typ          string
	}{
		{"GET", "/api/metalakes/nope", nil, 404, 1003, "NoSuchMetalakeException"},
		{"GET", "/api/metalakes/m/catalogs/nope/schemas", nil, 404, 1003, "NoSuchCatalogException"},
		{"GET", "/api/metalakes/m/catalogs/rel/schemas/nope/tables", nil, 404, 1003, "NoSuchSchemaException"},
		{"GET", salesPath + "/tables/nope", nil, 404, 1003, "NoSuchTableException"},
		{"GET", salesPath + "/semantic-models/nope", nil, 404, 1003, "NoSuchSemanticModelException"},
		{"GET", "/api/metalakes/m/tags/nope", nil, 404, 1003, "NoSuchTagException"},
		{"POST", "/api/metalakes", `{"name":"m"}`, 409, 1004, "MetalakeAlreadyExistsException"},
		{"POST", salesPath + "/tables", `{"name":"orders","columns":[]}`, 409, 1004, "TableAlreadyExistsException"},
		{"POST", salesPath + "/semantic-models", modelBody, 409, 1004, "SemanticModelAlreadyExistsException"},
		{"DELETE", "/api/metalakes/m/catalogs/rel/schemas/sales", nil, 409, 1005, "NonEmptyEntityException"},
		{"DELETE", "/api/metalakes/m/catalogs/rel?force=false", nil, 409, 1010, "CatalogInUseException"},
		{"DELETE", "/api/metalakes/m", nil, 409, 1010, "MetalakeInUseException"},
		{"PATCH", "/api/metalakes/m/catalogs/rel", `{"inUse":"no"}`, 400, 1001, "IllegalArgumentException"},
		{"PATCH", "/api/metalakes/m/catalogs/rel", `{}`, 400, 1001, "IllegalArgumentException"},
		{"PATCH", "/api/metalakes/m/catalogs/nope", `{"inUse":false}`, 404, 1003, "NoSuchCatalogException"},
		{"PUT", "/api/metalakes/m/catalogs/rel", `{"updates":[{"@type":"setProperty","property":"in-use","value":"false"}]}`, 400, 1001, "IllegalArgumentException"},
		{"POST", "/api/metalakes/m/catalogs", `{"name":"c3","type":"relational","properties":{"in-use":"false"}}`, 400, 1001, "IllegalArgumentException"},
		{"POST", "/api/metalakes/m/catalogs", `{"name":"c3","type":"relational","provider":""}`, 400, 1001, "IllegalArgumentException"},
		{"GET", "/api/metalakes/m/catalogs/files/schemas/any/tables", nil, 405, 1006, "UnsupportedOperationException"},
		{"POST", "/api/metalakes/m/catalogs/files/schemas/any/semantic-models", `{"name":"x","definition":{"datasets":[{"name":"d","source":{"namespace":["a","b"],"name":"t"}}]}}`, 405, 1006, "UnsupportedOperationException"},
		{"POST", "/api/metalakes", `{"name":"big","comment":"` + strings.Repeat("x", 5000) + `"}`, 413, 1001, "IllegalArgumentException"},
		{"POST", "/api/metalakes/m/catalogs", `{"name":"c2","type":"graph"}`, 400, 1001, "IllegalArgumentException"},
		// Gravitino's layout fields are accepted, but nothing beyond them.
		{"POST", salesPath + "/tables", `{"name":"t9","columns":[{"name":"id","type":"long"}],"partitioning":[{"strategy":"identity","fieldName":["id"],"bogus":1}]}`, 400, 1001, "IllegalArgumentException"},
		{"POST", salesPath + "/tables", `{"name":"t9","columns":[{"name":"id","type":"long","defaultValue":{"type":"literal","dataType":"long","value":"1","extra":2}}]}`, 400, 1001, "IllegalArgumentException"},
		// A column change that cannot apply is a 400 naming it.
		{"PUT", salesPath + "/tables/orders", `{"updates":[{"@type":"updateComment","newComment":"lost"},{"@type":"deleteColumn","fieldName":["gone"],"ifExists":false}]}`, 400, 1001, "IllegalArgumentException"},
		{"PUT", salesPath + "/tables/orders", `{"updates":[{"@type":"addColumn","fieldName":["x"],"type":"int","nullable":true,"autoIncrement":false,"position":"last"}]}`, 400, 1001, "IllegalArgumentException"},
		{"DELETE", "/api/metalakes/m/catalogs/rel?force=maybe", nil, 400, 1001, "IllegalArgumentException"},
		{"POST", "/api/metalakes/m/objects/table/rel.sales.orders/tags", `{"tagsToAdd":["nope","held"]}`, 409, 1004, "TagAlreadyAssociatedException"},
		{"POST", "/api/metalakes/m/objects/table/rel.sales.nope/tags", `{"tagsToAdd":["held"]}`, 404, 1003, "NoSuchTableException"},
		{"GET", "/api/metalakes/m/objects/table/rel.sales.orders/tags/nope", nil, 404, 1003, "NoSuchTagException"},
		{"GET", "/api/metalakes/m/tags/held/objects?value=%20", nil, 400, 1001, "IllegalArgumentException"},
	}
	for _, tt := range tests {
		status, _, resp := c.Do(tt.method, tt.path, tt.body)
		if status != tt.status || resp["code"] != tt.code || resp["type"] != tt.typ {
			t.Errorf("%s %s: got %d %v, want %d/%v %s", tt.method, tt.path, status, resp, tt.status, tt.code, tt.typ)
		}
		if msg, _ := resp["message"].(string); msg == "" {
			t.Errorf("%s %s: no message", tt.method, tt.path)
		}
	}
}

// TestInUseOverHTTP checks Gravitino's enable/disable of metalakes and
// catalogs (SPEC §2.10): the in-use property, NotInUse below a disabled
// one, InUse on dropping an enabled one, and force.
func TestInUseOverHTTP(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	wantErr := func(method, path string, body any, status int, code float64, typ string) {
		t.Helper()
		got, _, resp := c.Do(method, path, body)
		if got != status || resp["code"] != code || resp["type"] != typ || resp["message"] == "" {
			t.Errorf("%s %s: got %d %v, want %d/%v %s with a message", method, path, got, resp, status, code, typ)
		}
	}
	inUse := func(path, key, want string) {
		t.Helper()
		_, resp := c.MustOK("GET", path, nil)
		if got := resp[key].(map[string]any)["properties"].(map[string]any)["in-use"]; got != want {
			t.Errorf("%s: in-use %v, want %s", path, got, want)
		}
	}
	const rel = "/api/metalakes/m/catalogs/rel"
	inUse("/api/metalakes/m", "metalake", "true")
	inUse(rel, "catalog", "true")

	hdr, resp := c.MustOK("PATCH", rel, `{"inUse":false}`)
	if len(resp) != 1 || resp["code"] != 0.0 || hdr.Get(api.PositionHeader) == "" {
		t.Errorf("disable: %v, position %q", resp, hdr.Get(api.PositionHeader))
	}
	c.MustOK("PATCH", rel, `{"inUse":false}`) // already disabled: fine
	inUse(rel, "catalog", "false")
	// Below a disabled catalog nothing works, and the catalog itself cannot
	// be altered; it can be loaded, listed, enabled and dropped.
	wantErr("GET", rel+"/schemas", nil, 409, 1009, "CatalogNotInUseException")
	wantErr("GET", salesPath+"/tables/orders", nil, 409, 1009, "CatalogNotInUseException")
	wantErr("POST", rel+"/schemas", `{"name":"s2"}`, 409, 1009, "CatalogNotInUseException")
	wantErr("PUT", rel, `{"updates":[{"@type":"updateComment","newComment":"x"}]}`, 409, 1009, "CatalogNotInUseException")
	// Disabled, but not empty: force is still needed.
	wantErr("DELETE", rel, nil, 409, 1005, "NonEmptyEntityException")
	c.MustOK("PATCH", rel, `{"inUse":true}`)
	c.MustOK("GET", salesPath+"/tables/orders", nil)

	// A disabled metalake: its catalogs are out of reach, it can still be
	// loaded and listed.
	c.MustOK("PATCH", "/api/metalakes/m", `{"inUse":false}`)
	inUse("/api/metalakes/m", "metalake", "false")
	wantErr("GET", "/api/metalakes/m/catalogs", nil, 409, 1009, "MetalakeNotInUseException")
	wantErr("GET", rel, nil, 409, 1009, "MetalakeNotInUseException")
	wantErr("PATCH", rel, `{"inUse":false}`, 409, 1009, "MetalakeNotInUseException")
	wantErr("PUT", "/api/metalakes/m", `{"updates":[{"@type":"updateComment","newComment":"x"}]}`, 409, 1009, "MetalakeNotInUseException")
	wantErr("DELETE", "/api/metalakes/m", nil, 409, 1005, "NonEmptyEntityException")
	c.MustOK("PATCH", "/api/metalakes/m", `{"inUse":true}`)

	// force drops an enabled catalog with everything in it.
	_, resp = c.MustOK("DELETE", rel+"?force=true", nil)
	if resp["dropped"] != true {
		t.Errorf("force drop: %v", resp)
	}
	wantErr("GET", rel, nil, 404, 1003, "NoSuchCatalogException")
	// An empty, disabled catalog drops without force.
	c.MustOK("POST", "/api/metalakes/m/catalogs", `{"name":"empty","type":"relational"}`)
	c.MustOK("PATCH", "/api/metalakes/m/catalogs/empty", `{"inUse":false}`)
	if _, resp := c.MustOK("DELETE", "/api/metalakes/m/catalogs/empty", nil); resp["dropped"] != true {
		t.Errorf("drop of a disabled empty catalog: %v", resp)
	}
}

func TestDropsOverHTTP(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	c.MustOK("POST", salesPath+"/semantic-models", modelBody)
	// A missing entity: dropped false, no position.
	for _, p := range []string{"/api/metalakes/nope", "/api/metalakes/m/catalogs/nope", "/api/metalakes/m/catalogs/rel/schemas/nope",
		salesPath + "/tables/nope", salesPath + "/semantic-models/nope", "/api/metalakes/m/tags/nope"} {
		hdr, resp := c.MustOK("DELETE", p, nil)
		if resp["dropped"] != false || hdr.Get(api.PositionHeader) != "" {
			t.Errorf("DELETE %s: %v (position %q)", p, resp, hdr.Get(api.PositionHeader))
		}
	}
	hdr, resp := c.MustOK("DELETE", "/api/metalakes/m/catalogs/rel/schemas/sales?cascade=true", nil)
	if resp["dropped"] != true || hdr.Get(api.PositionHeader) == "" {
		t.Errorf("cascade drop: %v", resp)
	}
	if status, _, _ := c.Do("GET", salesPath+"/semantic-models/sales", nil); status != 404 {
		t.Errorf("model survived the cascade drop: %d", status)
	}
	_, list := c.MustOK("GET", "/api/metalakes/m/catalogs/rel/schemas", nil)
	if ids := list["identifiers"].([]any); len(ids) != 0 {
		t.Errorf("schemas after drop: %v", ids)
	}
	// Recreate: the schema is empty again.
	c.MustOK("POST", "/api/metalakes/m/catalogs/rel/schemas", `{"name":"sales"}`)
	_, list = c.MustOK("GET", salesPath+"/tables", nil)
	if ids := list["identifiers"].([]any); len(ids) != 0 {
		t.Errorf("recreated schema has tables %v", ids)
	}
}

func TestIdentifiersShape(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	_, resp := c.MustOK("GET", salesPath+"/tables", nil)
	want := `{"code":0,"identifiers":[{"name":"customers","namespace":["m","rel","sales"]},{"name":"orders","namespace":["m","rel","sales"]}]}`
	if got := canonical(t, resp); got != want {
		t.Errorf("got %s\nwant %s", got, want)
	}
	_, resp = c.MustOK("GET", "/api/metalakes/m/catalogs", nil)
	if got := canonical(t, resp["identifiers"]); got != `[{"name":"files","namespace":["m"]},{"name":"rel","namespace":["m"]}]` {
		t.Errorf("catalog identifiers %s", got)
	}
	_, resp = c.MustOK("GET", "/api/metalakes/m/catalogs?details=true", nil)
	if cats := resp["catalogs"].([]any); len(cats) != 2 || cats[1].(map[string]any)["type"] != "relational" {
		t.Errorf("catalog details %v", resp)
	}
}
