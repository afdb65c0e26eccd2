package api_test

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/semcat/semcat/api"
)

// gravitinoDefinition is a definition as Gravitino's merged definition DTOs
// write it (SemanticModelDefinitionDTO and its members; camelCase keys,
// NON_NULL members left out), with every kind of member: names that are
// not entity names, a dimension whose isTime is unknown, true and false,
// label, datatype, aiContext as a string and as an object with members of
// its own, empty vendor names and data, empty and non-empty arrays.
const gravitinoDefinition = `{
  "aiContext": {"instructions": "Sales of the shop", "synonyms": ["shop sales"], "examples": ["revenue by month"],
                "owner": {"team": "finance", "since": 2024}, "tiers": [1, 2.5, null, true]},
  "datasets": [
    {"name": "order lines", "source": {"namespace": ["rel", "sales"], "name": "orders"},
     "primaryKey": ["order_id"], "uniqueKeys": [["order_id", "customer_id"], ["amount"]],
     "description": "One line per order",
     "aiContext": "the fact table",
     "fields": [
       {"name": "order amount", "expression": {"dialects": [{"dialect": "ANSI_SQL", "expression": "amount"},
                                                           {"dialect": "MDX", "expression": "[Measures].[Amount]"}]},
        "dimension": {}, "label": "Order amount", "description": "In euros", "datatype": "Decimal",
        "aiContext": {"synonyms": []}, "customExtensions": [{"vendorName": "", "data": ""}]},
       {"name": "ordered at (UTC)", "expression": {"dialects": [{"dialect": "SNOWFLAKE", "expression": "ordered_at"}]},
        "dimension": {"isTime": true}, "datatype": "DateTimeTz"},
       {"name": "status", "expression": {"dialects": [{"dialect": "ANSI_SQL", "expression": "status"}]},
        "dimension": {"isTime": false}, "datatype": "String"},
       {"name": "ünïcode/näme=1", "expression": {"dialects": [{"dialect": "TRINO", "expression": "1"}]}}
     ],
     "customExtensions": [{"vendorName": "COMMON", "data": "{\"k\":[1,2]}"}]},
    {"name": "customers", "source": {"namespace": ["rel", "sales"], "name": "customers"}, "fields": []}
  ],
  "relationships": [
    {"name": "order lines → customers", "from": "order lines", "to": "customers",
     "fromColumns": ["customer_id"], "toColumns": ["customer_id"],
     "aiContext": {"instructions": "many to one"}, "customExtensions": []}
  ],
  "metrics": [
    {"name": "total revenue", "expression": {"dialects": [{"dialect": "ANSI_SQL", "expression": "SUM(amount)"}]},
     "description": "Revenue", "datatype": "Decimal", "aiContext": "money in",
     "customExtensions": [{"vendorName": "", "data": "x"}]},
    {"name": "orders", "expression": {"dialects": [{"dialect": "ANSI_SQL", "expression": "COUNT(*)"}]}}
  ],
  "customExtensions": [{"vendorName": "GRAVITINO", "data": "{}"}]
}`

// TestGravitinoDefinitionRoundTrip creates, loads, replaces and lists a
// definition written as Gravitino's DTOs write it: every answer holds it
// equal as a JSON value, absent members absent (an unknown isTime is not
// false).
func TestGravitinoDefinitionRoundTrip(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	var def any
	if err := json.Unmarshal([]byte(gravitinoDefinition), &def); err != nil {
		t.Fatal(err)
	}
	want := canonical(t, def)
	check := func(what string, got any) {
		t.Helper()
		if have := canonical(t, got); have != want {
			t.Errorf("%s: the definition changed in the round trip:\nsent %s\n got %s", what, want, have)
		}
	}
	_, created := c.MustOK("POST", salesPath+"/semantic-models", map[string]any{
		"name": "gravitino", "comment": nil, "properties": nil, "definition": def})
	check("create", created["semanticModel"].(map[string]any)["definition"])
	_, loaded := c.MustOK("GET", salesPath+"/semantic-models/gravitino", nil)
	model := loaded["semanticModel"].(map[string]any)
	check("load", model["definition"])
	fields := model["definition"].(map[string]any)["datasets"].([]any)[0].(map[string]any)["fields"].([]any)
	if dim := fields[0].(map[string]any)["dimension"].(map[string]any); len(dim) != 0 {
		t.Errorf("an unknown isTime came back as %v", dim)
	}
	if dim := fields[2].(map[string]any)["dimension"].(map[string]any); dim["isTime"] != false {
		t.Errorf("isTime false came back as %v", dim)
	}
	_, altered := c.MustOK("PUT", salesPath+"/semantic-models/gravitino", map[string]any{"updates": []any{
		map[string]any{"@type": "replaceDefinition", "definition": def}}})
	check("replaceDefinition", altered["semanticModel"].(map[string]any)["definition"])

	// The detailed metric listing holds each metric as stored.
	_, listed := c.MustOK("GET", salesPath+"/semantic-model-metrics?details=true", nil)
	metrics := listed["metrics"].([]any)
	if len(metrics) != 2 {
		t.Fatalf("metric listing: %v", listed)
	}
	for i, m := range metrics {
		name := m.(map[string]any)["metric"].(map[string]any)["name"]
		for _, sent := range def.(map[string]any)["metrics"].([]any) {
			if sent.(map[string]any)["name"] == name && canonical(t, sent) != canonical(t, m.(map[string]any)["metric"]) {
				t.Errorf("metric %d %q changed: %s", i, name, canonical(t, m.(map[string]any)["metric"]))
			}
		}
	}
}

// TestGravitinoDefinitionRules: inner names need only be non-empty and at
// most 256 characters; a vendor name must be given (empty is fine).
func TestGravitinoDefinitionRules(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	tests := []struct {
		name, from, to, wantMessage string
	}{
		{"empty field name", `"name": "order amount"`, `"name": ""`, "datasets[0].fields[0].name: name is required"},
		{"long metric name", `"name": "total revenue"`, `"name": "` + strings.Repeat("r", 257) + `"`, "metrics[0].name: name is longer than 256 characters"},
		{"no vendor name", `"vendorName": "GRAVITINO", `, ``, "customExtensions[0].vendorName: a vendor name is required"},
		{"null vendor name", `"vendorName": "GRAVITINO"`, `"vendorName": null`, "customExtensions[0].vendorName: a vendor name is required"},
		{"isTime not a boolean", `"isTime": true`, `"isTime": "yes"`, "definition.datasets[0].fields[1].dimension.isTime: expected boolean"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			def := strings.Replace(gravitinoDefinition, tt.from, tt.to, 1)
			if def == gravitinoDefinition {
				t.Fatal("the edit does not apply")
			}
			status, _, resp := c.Do("POST", salesPath+"/semantic-models", `{"name": "g", "definition": `+def+`}`)
			msg, _ := resp["message"].(string)
			if status != 400 || resp["type"] != "IllegalArgumentException" || !strings.HasPrefix(msg, tt.wantMessage) {
				t.Errorf("got %d %v, want 400 IllegalArgumentException %q", status, resp, tt.wantMessage)
			}
		})
	}
	// 256 characters is fine.
	def := strings.Replace(gravitinoDefinition, `"name": "total revenue"`, `"name": "`+strings.Repeat("r", 256)+`"`, 1)
	c.MustOK("POST", salesPath+"/semantic-models", `{"name": "long", "definition": `+def+`}`)
}

// TestGravitinoModelExceptions: the exception types of Gravitino's
// semantic model API.
func TestGravitinoModelExceptions(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	c.MustOK("POST", salesPath+"/semantic-models", `{"name": "g", "definition": `+gravitinoDefinition+`}`)
	model := salesPath + "/semantic-models/g"

	illegal := []struct{ name, from, to, wantMessage string }{
		{"missing source table", `"name": "customers"}, "fields"`, `"name": "clients"}, "fields"`,
			"datasets[1].source: table 'rel.sales.clients' does not exist"},
		{"source in a missing catalog", `"namespace": ["rel", "sales"], "name": "customers"`, `"namespace": ["nope", "sales"], "name": "customers"`,
			"datasets[1].source: table 'nope.sales.customers' does not exist"},
		{"source namespace not [catalog, schema]", `"namespace": ["rel", "sales"], "name": "customers"`, `"namespace": ["m", "rel", "sales"], "name": "customers"`,
			"datasets[1].source.namespace: must be [catalog, schema]"},
		{"primary key not a column", `"primaryKey": ["order_id"]`, `"primaryKey": ["order id"]`,
			"datasets[0].primaryKey[0]: 'order id' is not a top-level column"},
		{"relationship column not a column", `"toColumns": ["customer_id"]`, `"toColumns": ["amount"]`,
			"relationships[0].toColumns[0]: 'amount' is not a top-level column"},
		{"relationship to an unknown dataset", `"to": "customers"`, `"to": "clients"`,
			"relationships[0].to: 'clients' is not a dataset of this model"},
		{"duplicate metric", `"name": "orders", "expression"`, `"name": "total revenue", "expression"`,
			"metrics[1].name: duplicate metric name 'total revenue'"},
	}
	for _, tt := range illegal {
		t.Run(tt.name, func(t *testing.T) {
			def := strings.Replace(gravitinoDefinition, tt.from, tt.to, 1)
			if def == gravitinoDefinition {
				t.Fatal("the edit does not apply")
			}
			status, _, resp := c.Do("POST", salesPath+"/semantic-models", `{"name": "bad", "definition": `+def+`}`)
			msg, _ := resp["message"].(string)
			if status != 400 || resp["code"] != 1001.0 || resp["type"] != "IllegalSemanticModelException" || !strings.HasPrefix(msg, tt.wantMessage) {
				t.Errorf("create: got %d %v, want 400/1001 IllegalSemanticModelException %q", status, resp, tt.wantMessage)
			}
			status, _, resp = c.Do("PUT", model, `{"updates": [{"@type": "replaceDefinition", "definition": `+def+`}]}`)
			msg, _ = resp["message"].(string)
			if status != 400 || resp["type"] != "IllegalSemanticModelException" || !strings.HasPrefix(msg, "updates[0].definition."+tt.wantMessage) {
				t.Errorf("replaceDefinition: got %d %v", status, resp)
			}
		})
	}

	// A lost concurrent update: If-Match no longer holds.
	c.MustOK("PUT", model, `{"updates": [{"@type": "setProperty", "property": "a", "value": "1"}]}`)
	for _, method := range []string{"PUT", "DELETE"} {
		status, _, resp := c.Do(method, model, `{"updates": [{"@type": "setProperty", "property": "b", "value": "2"}]}`, "If-Match", `"1"`)
		if method == "DELETE" {
			status, _, resp = c.Do(method, model, nil, "If-Match", `"1"`)
		}
		if status != 409 || resp["code"] != 1012.0 || resp["type"] != "OptimisticLockException" {
			t.Errorf("%s with a stale If-Match: %d %v, want 409/1012 OptimisticLockException", method, status, resp)
		}
	}

	// Drops: under a missing metalake or catalog 404; a missing schema or
	// model is {"dropped": false}.
	drops := []struct {
		path, wantType string
	}{
		{"/api/metalakes/nope/catalogs/rel/schemas/sales/semantic-models/g", "NoSuchMetalakeException"},
		{"/api/metalakes/m/catalogs/nope/schemas/sales/semantic-models/g", "NoSuchCatalogException"},
		{"/api/metalakes/m/catalogs/rel/schemas/nope/semantic-models/g", ""},
		{salesPath + "/semantic-models/nope", ""},
	}
	for _, d := range drops {
		status, _, resp := c.Do("DELETE", d.path, nil)
		switch {
		case d.wantType == "" && (status != 200 || resp["dropped"] != false):
			t.Errorf("DELETE %s: %d %v, want {dropped: false}", d.path, status, resp)
		case d.wantType != "" && (status != 404 || resp["code"] != 1003.0 || resp["type"] != d.wantType):
			t.Errorf("DELETE %s: %d %v, want 404/1003 %s", d.path, status, resp, d.wantType)
		}
	}
	if _, resp := c.MustOK("DELETE", model, nil); resp["dropped"] != true {
		t.Errorf("drop: %v", resp)
	}
}

// TestConcurrentModelAltersNeverLost: concurrent alters without If-Match
// all apply (none is lost, none fails with OptimisticLockException).
func TestConcurrentModelAltersNeverLost(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	c.MustOK("POST", salesPath+"/semantic-models", `{"name": "g", "definition": `+gravitinoDefinition+`}`)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			status, _, resp := c.Do("PUT", salesPath+"/semantic-models/g",
				map[string]any{"updates": []any{map[string]any{"@type": "setProperty", "property": string(rune('a' + i)), "value": "v"}}})
			if status != 200 {
				t.Errorf("alter %d: %d %v", i, status, resp)
			}
		}()
	}
	wg.Wait()
	_, got := c.MustOK("GET", salesPath+"/semantic-models/g", nil)
	if props := got["semanticModel"].(map[string]any)["properties"].(map[string]any); len(props) != 8 {
		t.Errorf("properties after 8 alters: %v", props)
	}
}
