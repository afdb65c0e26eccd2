package api_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/gorilla/mux"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
)

// schemaPath is the path of schema s of catalog c of metalake m.
const schemaPath = "/api/metalakes/m/catalogs/c/schemas/s"

func services(f *fake) api.Services {
	return api.Services{Metalakes: f, Catalogs: f, Schemas: f, Tables: f, Models: f, Tags: f}
}

// response is an answer of the handler, its body decoded.
type response struct {
	status int
	header http.Header
	body   map[string]any
}

// do sends one request straight to h. headers are name, value pairs.
func do(tb testing.TB, h http.Handler, method, target, body string, headers ...string) response {
	tb.Helper()
	var rd io.Reader
	if body != "" {
		rd = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, target, rd)
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	var m map[string]any
	if err := json.Unmarshal(rec.Body.Bytes(), &m); err != nil {
		tb.Fatalf("%s %s: status %d, body is not a JSON object: %v: %q", method, target, rec.Code, err, rec.Body.String())
	}
	return response{rec.Code, rec.Header(), m}
}

// errBody is the decoded body of an error response.
func errBody(code int, typ, message string) map[string]any {
	return map[string]any{"code": float64(code), "type": typ, "message": message, "stack": []any{}}
}

// TestRoutes checks that every route calls its service with the arguments
// taken from the path, query and body, and answers 200 with code 0 and, for
// writes that changed something, the position header.
func TestRoutes(t *testing.T) {
	const pos = "t16" // semcat.Position{TxID: 42}
	tests := []struct {
		method, target, body string
		headers              []string
		wantCall             string
		wantPos              bool
	}{
		{"POST", "/api/metalakes", `{"name":"m","comment":"c","properties":{"k":"v"}}`, nil, "CreateMetalake m", true},
		{"PUT", "/api/metalakes/m/tags/t", `{"updates":[{"@type":"rename","newName":"u"}]}`, nil, "AlterTag m t rename", true},
		{"GET", "/api/metalakes/m/tags?details=true", "", nil, "ListTagInfos m", false},
		{"GET", "/api/metalakes/m/tags/t/objects", "", nil, "TagObjects m t", false},
		{"GET", "/api/metalakes", "", nil, "ListMetalakes", false},
		{"GET", "/api/metalakes/m", "", nil, "GetMetalake m", false},
		{"PUT", "/api/metalakes/m", `{"updates":[{"@type":"rename","newName":"n"},{"@type":"updateComment","newComment":null}]}`, nil, "AlterMetalake m rename,updateComment", true},
		{"DELETE", "/api/metalakes/m", "", nil, "DropMetalake m force=false", true},
		{"DELETE", "/api/metalakes/m?force=true", "", nil, "DropMetalake m force=true", true},
		{"DELETE", "/api/metalakes/missing?force=false", "", nil, "DropMetalake missing force=false", false},
		// Python's spelling of a boolean, which the Gravitino client sends.
		{"DELETE", "/api/metalakes/m?force=True", "", nil, "DropMetalake m force=true", true},
		{"DELETE", "/api/metalakes/m?force=False", "", nil, "DropMetalake m force=false", true},
		{"GET", "/api/metalakes/a%2Fb", "", nil, "GetMetalake a/b", false},

		{"PATCH", "/api/metalakes/m", `{"inUse":false}`, nil, "SetMetalakeInUse m false", true},
		{"PATCH", "/api/metalakes/m", `{"inUse":true}`, nil, "SetMetalakeInUse m true", true},
		{"POST", "/api/metalakes/m/catalogs", `{"name":"c","type":"relational"}`, nil, "CreateCatalog m c relational semcat", true},
		{"POST", "/api/metalakes/m/catalogs", `{"name":"c","type":"RELATIONAL","provider":"jdbc-postgresql"}`, nil, "CreateCatalog m c relational jdbc-postgresql", true},
		{"PATCH", "/api/metalakes/m/catalogs/c", `{"inUse":false}`, nil, "SetCatalogInUse m c false", true},
		{"GET", "/api/metalakes/m/catalogs", "", nil, "ListCatalogs m", false},
		{"GET", "/api/metalakes/m/catalogs?details=true", "", nil, "ListCatalogs m", false},
		{"GET", "/api/metalakes/m/catalogs/c", "", nil, "GetCatalog m c", false},
		{"PUT", "/api/metalakes/m/catalogs/c", `{"updates":[{"@type":"setProperty","property":"k","value":"v"}]}`, nil, "AlterCatalog m c setProperty", true},
		{"DELETE", "/api/metalakes/m/catalogs/c?force=true", "", nil, "DropCatalog m c force=true", true},

		{"POST", "/api/metalakes/m/catalogs/c/schemas", `{"name":"s"}`, nil, "CreateSchema m/c s", true},
		{"GET", "/api/metalakes/m/catalogs/c/schemas", "", nil, "ListSchemas m/c", false},
		{"GET", schemaPath, "", nil, "GetSchema m/c s", false},
		{"PUT", schemaPath, `{"updates":[{"@type":"removeProperty","property":"k"}]}`, nil, "AlterSchema m/c s removeProperty", true},
		{"DELETE", schemaPath + "?cascade=true", "", nil, "DropSchema m/c s cascade=true", true},
		{"DELETE", schemaPath + "?cascade=TRUE", "", nil, "DropSchema m/c s cascade=true", true},

		{"POST", schemaPath + "/tables", `{"name":"t","columns":[{"name":"id","type":"long","nullable":false}]}`, nil, "CreateTable m/c/s t", true},
		{"GET", schemaPath + "/tables", "", nil, "ListTables m/c/s", false},
		{"GET", schemaPath + "/tables/t", "", nil, "GetTable m/c/s t", false},
		{"PUT", schemaPath + "/tables/t", `{"updates":[{"@type":"replaceColumns","columns":[{"name":"a","type":{"type":"list","elementType":"string"}}]}]}`, nil, "AlterTable m/c/s t replaceColumns", true},
		{"DELETE", schemaPath + "/tables/t", "", nil, "DropTable m/c/s t", true},

		{"POST", schemaPath + "/semantic-models", `{"name":"sales","definition":{"datasets":[{"name":"o","source":{"namespace":["c","s"],"name":"t"}}]}}`, nil, "CreateSemanticModel m/c/s sales", true},
		{"GET", schemaPath + "/semantic-models", "", nil, "ListSemanticModels m/c/s", false},
		{"GET", schemaPath + "/semantic-models/sales", "", nil, "GetSemanticModel m/c/s sales", false},
		{"PUT", schemaPath + "/semantic-models/sales", `{"updates":[{"@type":"rename","newName":"sales2"}]}`, nil, "AlterSemanticModel m/c/s sales rename ifMatch=0", true},
		{"PUT", schemaPath + "/semantic-models/sales", `{"updates":[{"@type":"rename","newName":"sales2"}]}`, []string{"If-Match", `"7"`}, "AlterSemanticModel m/c/s sales rename ifMatch=7", true},
		{"DELETE", schemaPath + "/semantic-models/sales", "", []string{"If-Match", "12"}, "DropSemanticModel m/c/s sales ifMatch=12", true},
		{"DELETE", schemaPath + "/semantic-models/missing", "", []string{"If-Match", "*"}, "DropSemanticModel m/c/s missing ifMatch=0", false},

		{"POST", "/api/metalakes/m/tags", `{"name":"pii"}`, nil, "CreateTag m pii", true},
		{"GET", "/api/metalakes/m/tags", "", nil, "ListTags m", false},
		{"GET", "/api/metalakes/m/tags/pii", "", nil, "GetTag m pii", false},
		{"DELETE", "/api/metalakes/m/tags/pii", "", nil, "DropTag m pii", true},
		{"GET", "/api/metalakes/m/objects/table/c.s.t/tags", "", nil, "ListObjectTags m table c.s.t", false},
		{"GET", "/api/metalakes/m/objects/catalog/c/tags", "", nil, "ListObjectTags m catalog c", false},
		{"POST", "/api/metalakes/m/objects/semantic_model/c.s.sales/tags", `{"tagsToAdd":["pii"],"tagsToRemove":["old"]}`, nil, "AssociateTags m semantic_model c.s.sales +[pii] -[old]", true},
		{"POST", "/api/metalakes/m/objects/table/c.s.t/tags", `{"tagsToAdd":["pii","both"],"tagsToRemove":["both"]}`, nil, "AssociateTags m table c.s.t +[pii] -[]", true},
		{"GET", "/api/metalakes/m/objects/table/c.s.t/tags?details=true", "", nil, "ObjectTagInfos m table c.s.t", false},
		{"GET", "/api/metalakes/m/objects/table/c.s.t/tags/pii", "", nil, "ObjectTagInfos m table c.s.t", false},
		{"GET", "/api/metalakes/m/tags/t/objects?value=high", "", nil, "TagObjects m thigh", false},
		{"GET", "/api/metalakes/m/objects/table/c.s.t/statistics", "", nil, "ListTableStatistics m/c/s t", false},
		{"PUT", "/api/metalakes/m/objects/table/c.s.t/statistics", `{"updates":{"custom-rows":10,"custom-owner":"x"}}`, nil, "UpdateTableStatistics m/c/s t 2", true},
		{"POST", "/api/metalakes/m/objects/table/c.s.t/statistics", `{"names":["custom-rows"]}`, nil, "DropTableStatistics m/c/s t [custom-rows]", true},
		{"POST", "/api/metalakes/m/objects/table/c.s.t/tags", `{"tagsToAdd":[{"name":"tier","value":"gold"},{"name":"pii","value":null},{"name":"x","value":"1"}],"tagsToRemove":[{"name":"tier","value":"bronze"},{"name":"x"}]}`,
			[]string{"Content-Type", semcat.TagValuesMediaType}, "AssociateTags m table c.s.t +[tier=gold pii x=1] -[tier=bronze x] (values)", true},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			f := newFake()
			res := do(t, api.NewHandler(services(f), api.Config{}), tt.method, tt.target, tt.body, tt.headers...)
			if res.status != http.StatusOK || res.body["code"] != float64(0) {
				t.Fatalf("status %d, body %v; want 200 with code 0", res.status, res.body)
			}
			if got := f.lastCall(); got != tt.wantCall {
				t.Errorf("call = %q, want %q", got, tt.wantCall)
			}
			wantPos := ""
			if tt.wantPos {
				wantPos = pos
			}
			if got := res.header.Get(api.PositionHeader); got != wantPos {
				t.Errorf("%s = %q, want %q", api.PositionHeader, got, wantPos)
			}
			if got := res.header.Get("Content-Type"); got != "application/json" {
				t.Errorf("Content-Type = %q", got)
			}
		})
	}
}

// TestResponseBodies checks the payload keys and shapes of SPEC §2.
func TestResponseBodies(t *testing.T) {
	ids := func(ns []any, names ...string) []any {
		out := []any{}
		for _, n := range names {
			out = append(out, map[string]any{"namespace": ns, "name": n})
		}
		return out
	}
	compileDate, gitCommit := api.BuildStamp()
	tests := []struct {
		method, target string
		want           map[string]any
	}{
		{"GET", "/healthz", map[string]any{"status": "ok"}},
		{"GET", "/readyz", map[string]any{"status": "ok"}},
		{"GET", "/api/version", map[string]any{"code": 0.0, "version": map[string]any{
			"version": api.GravitinoAPIVersion, "compileDate": compileDate, "gitCommit": gitCommit, "semcatVersion": "1.2.3"}}},
		{"GET", "/api/metalakes", map[string]any{"code": 0.0, "metalakes": []any{}}},
		// The store's order (byte order) is kept: "B" before "a".
		{"GET", "/api/metalakes/m/catalogs", map[string]any{"code": 0.0, "identifiers": ids([]any{"m"}, "B", "a")}},
		{"GET", "/api/metalakes/m/catalogs/c/schemas", map[string]any{"code": 0.0, "identifiers": ids([]any{"m", "c"}, "s1", "s2")}},
		{"GET", schemaPath + "/tables", map[string]any{"code": 0.0, "identifiers": ids([]any{"m", "c", "s"}, "Orders", "customers")}},
		{"GET", schemaPath + "/semantic-models", map[string]any{"code": 0.0, "identifiers": ids([]any{"m", "c", "s"}, "sales")}},
		{"DELETE", "/api/metalakes/m", map[string]any{"code": 0.0, "dropped": true}},
		{"DELETE", "/api/metalakes/missing", map[string]any{"code": 0.0, "dropped": false}},
		{"GET", "/api/metalakes/m/tags", map[string]any{"code": 0.0, "names": []any{}}},
		{"GET", "/api/metalakes/m/objects/schema/c.s/tags", map[string]any{"code": 0.0, "names": []any{"pii"}}},
		{"GET", "/api/metalakes/m/tags/pii", map[string]any{"code": 0.0, "tag": map[string]any{
			"name": "pii", "comment": nil, "properties": map[string]any{},
			"audit": map[string]any{"creator": "", "createTime": "0001-01-01T00:00:00Z"}}}},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			res := do(t, api.NewHandler(services(newFake()), api.Config{Version: "1.2.3"}), tt.method, tt.target, "")
			if res.status != http.StatusOK {
				t.Fatalf("status %d, body %v", res.status, res.body)
			}
			if diff := cmp.Diff(tt.want, res.body); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
		})
	}

	t.Run("catalog details", func(t *testing.T) {
		res := do(t, api.NewHandler(services(newFake()), api.Config{}), "GET", "/api/metalakes/m/catalogs?details=true", "")
		cats, _ := res.body["catalogs"].([]any)
		var names []string
		for _, c := range cats {
			names = append(names, c.(map[string]any)["name"].(string)+":"+c.(map[string]any)["type"].(string))
		}
		if diff := cmp.Diff([]string{"B:relational", "a:fileset"}, names); diff != "" || res.body["identifiers"] != nil {
			t.Errorf("catalogs (-want +got):\n%s\nbody: %v", diff, res.body)
		}
	})
}

// TestSemanticModelETag checks that a model's version travels as ETag.
func TestSemanticModelETag(t *testing.T) {
	f := newFake()
	h := api.NewHandler(services(f), api.Config{})
	model := schemaPath + "/semantic-models/sales"
	if got := do(t, h, "GET", model, "").header.Get("ETag"); got != `"7"` {
		t.Errorf("GET ETag = %q, want %q", got, `"7"`)
	}
	if got := do(t, h, "PUT", model, `{"updates":[{"@type":"rename","newName":"x"}]}`, "If-Match", `"7"`).header.Get("ETag"); got != `"8"` {
		t.Errorf("PUT ETag = %q, want %q", got, `"8"`)
	}
	f.err = semcat.Errorf(semcat.ECONFLICT, "model 'sales' has version 8, not 7")
	res := do(t, h, "PUT", model, `{"updates":[{"@type":"rename","newName":"x"}]}`, "If-Match", `"7"`)
	if diff := cmp.Diff(errBody(1012, "ConcurrentModificationException", "model 'sales' has version 8, not 7"), res.body); diff != "" || res.status != http.StatusConflict {
		t.Errorf("status %d, body (-want +got):\n%s", res.status, diff)
	}
	if res.header.Get("ETag") != "" || res.header.Get(api.PositionHeader) != "" {
		t.Errorf("error response carries success headers: %v", res.header)
	}
}

// TestIfMatch checks the If-Match forms PUT and DELETE accept.
func TestIfMatch(t *testing.T) {
	tests := []struct {
		values []string
		want   string // the ifMatch passed to the service, or "" for a 400
	}{
		{nil, "0"},
		{[]string{"*"}, "0"},
		{[]string{`"3"`}, "3"},
		{[]string{"3"}, "3"},
		{[]string{` "42" `}, "42"},
		{[]string{`W/"3"`}, ""},
		{[]string{`"abc"`}, ""},
		{[]string{`"0"`}, ""},
		{[]string{"-1"}, ""},
		{[]string{"+3"}, ""},
		{[]string{`"3", "4"`}, ""},
		{[]string{`"3`}, ""},
		{[]string{""}, ""},
		{[]string{"99999999999999999999"}, ""},
		{[]string{"3", "4"}, ""},
	}
	for _, tt := range tests {
		for _, method := range []string{"PUT", "DELETE"} {
			f := newFake()
			var headers []string
			for _, v := range tt.values {
				headers = append(headers, "If-Match", v)
			}
			body := ""
			if method == "PUT" {
				body = `{"updates":[{"@type":"rename","newName":"x"}]}`
			}
			res := do(t, api.NewHandler(services(f), api.Config{}), method, schemaPath+"/semantic-models/sales", body, headers...)
			if tt.want == "" {
				if res.status != http.StatusBadRequest || !strings.HasPrefix(res.body["message"].(string), "If-Match: ") || f.lastCall() != "" {
					t.Errorf("%s If-Match %q: status %d, body %v, call %q; want 400 naming If-Match, no call", method, tt.values, res.status, res.body, f.lastCall())
				}
				continue
			}
			if got := f.lastCall(); !strings.HasSuffix(got, " ifMatch="+tt.want) {
				t.Errorf("%s If-Match %q: call %q, want ifMatch=%s", method, tt.values, got, tt.want)
			}
		}
	}
}

// TestParameters checks query and path parameters, each rejected with a 400
// that names it before any service is called.
func TestParameters(t *testing.T) {
	tests := []struct {
		method, target string
		wantMessage    string
	}{
		{"DELETE", "/api/metalakes/m?force=yes", "force: expected true or false (in any letter case), got 'yes'"},
		{"DELETE", "/api/metalakes/m?force=", "force: expected true or false (in any letter case), got ''"},
		{"DELETE", "/api/metalakes/m?force=true&force=false", "force: query parameter given more than once"},
		{"DELETE", "/api/metalakes/m/catalogs/c?force=1", "force: expected true or false (in any letter case), got '1'"},
		{"DELETE", schemaPath + "?cascade=yes", "cascade: expected true or false (in any letter case), got 'yes'"},
		{"DELETE", schemaPath + "/tables/t?purge=soon", "purge: expected true or false (in any letter case), got 'soon'"},
		{"GET", "/api/metalakes/m/catalogs?details=yes", "details: expected true or false (in any letter case), got 'yes'"},
		{"GET", "/api/metalakes/m/catalogs?details=%zz", "details: malformed percent-encoding in the query parameter"},
		{"GET", "/api/metalakes/m/catalogs?de%zztails=true", "malformed query string: cannot decode the parameter name 'de%zztails'"},
		{"GET", "/api/metalakes/m/search?query=x&tag=pii%ZZ", "tag: malformed percent-encoding in the query parameter"},
		{"GET", "/api/metalakes/m/search?query=x&type=tab%le", "type: malformed percent-encoding in the query parameter"},
		{"GET", "/api/metalakes/m/search?query=50%", "query: malformed percent-encoding in the query parameter"},
		{"GET", "/api/metalakes/m/search?query=x&limit=5&limit=500", "limit: query parameter given more than once"},
		{"GET", "/api/metalakes/m/search?query=x&sort=name&sort=bogus", "sort: query parameter given more than once"},
		{"GET", "/api/metalakes/m/search?query=x&query=y", "query: query parameter given more than once"},
		{"GET", "/api/metalakes/a%20b", "metalake: invalid name 'a b': must be 1-64 characters matching ^\\w[\\w/=-]{0,63}$"},
		{"GET", "/api/metalakes/%2A", "metalake: '*' is a reserved name"},
		{"GET", "/api/metalakes/m/catalogs/-c", "catalog: invalid name '-c': must be 1-64 characters matching ^\\w[\\w/=-]{0,63}$"},
		{"GET", schemaPath + "/tables/" + strings.Repeat("x", 65), "table: invalid name '" + strings.Repeat("x", 65) + "': must be 1-64 characters matching ^\\w[\\w/=-]{0,63}$"},
		{"GET", schemaPath + "/semantic-models/a.b", "model: invalid name 'a.b': must be 1-64 characters matching ^\\w[\\w/=-]{0,63}$"},
		{"DELETE", "/api/metalakes/m/tags/t%21", "tag: invalid name 't!': must be 1-64 characters matching ^\\w[\\w/=-]{0,63}$"},
		{"GET", "/api/metalakes/m/objects/metric/c.s.t/tags", "type: unsupported object type 'metric' (want catalog, schema, table or semantic_model)"},
		{"GET", "/api/metalakes/m/objects/table/c.s/tags", "fullName: a table is named by 3 dotted parts, got 'c.s'"},
		{"GET", "/api/metalakes/m/objects/schema/c..s/tags", "fullName: a schema is named by 2 dotted parts, got 'c..s'"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			f := newFake()
			res := do(t, api.NewHandler(services(f), api.Config{}), tt.method, tt.target, "")
			if diff := cmp.Diff(errBody(1001, "IllegalArgumentException", tt.wantMessage), res.body); diff != "" || res.status != http.StatusBadRequest {
				t.Errorf("status %d, body (-want +got):\n%s", res.status, diff)
			}
			if c := f.lastCall(); c != "" {
				t.Errorf("service called: %s", c)
			}
		})
	}
}

// TestValidationBeforeService checks that invalid create and update
// requests are refused before the service is called.
func TestValidationBeforeService(t *testing.T) {
	tests := []struct {
		method, target, body string
		wantMessage          string
	}{
		{"POST", "/api/metalakes", `{"name":""}`, "name: name is required"},
		{"POST", "/api/metalakes/m/catalogs", `{"name":"c","type":"graph"}`, "type: unknown catalog type 'graph' (want relational, fileset, messaging or model)"},
		{"POST", "/api/metalakes/m/catalogs/c/schemas", `{"name":"s","properties":{"":"v"}}`, "properties: property key '' must be 1-128 characters"},
		{"POST", schemaPath + "/tables", `{"name":"t"}`, "columns: columns are required"},
		{"POST", schemaPath + "/semantic-models", `{"name":"m","definition":{"datasets":[]}}`, "datasets: a definition needs at least one dataset"},
		{"POST", "/api/metalakes/m/tags", `{"name":"*"}`, "name: '*' is a reserved name"},
		{"POST", "/api/metalakes/m/objects/table/c.s.t/tags", `{"tagsToAdd":["a b"]}`, "tagsToAdd[0]: invalid name 'a b': must be 1-64 characters matching ^\\w[\\w/=-]{0,63}$"},
		{"POST", "/api/metalakes/m/objects/table/c.s.t/tags", `{}`, "tagsToAdd, tagsToRemove: give at least one of the two lists"},
		{"PUT", "/api/metalakes/m", `{"updates":[]}`, "updates: at least one update is required"},
		{"PUT", "/api/metalakes/m", `{"updates":[{"@type":"setProperty","property":"","value":"v"}]}`, "updates[0].property: property key '' must be 1-128 characters"},
		{"PUT", "/api/metalakes/m", `{"updates":[{"@type":"rename","newName":"n"},{"@type":"setProperty","property":"k","value":"` + strings.Repeat("v", 4097) + `"}]}`, "updates[1].value: property value longer than 4096 characters"},
		{"PUT", "/api/metalakes/m/catalogs/c", `{"updates":[{"@type":"replaceColumns","columns":[]}]}`, "updates[0].@type: unsupported update type 'replaceColumns' (want one of [rename updateComment setProperty removeProperty])"},
		{"PUT", schemaPath, `{"updates":[{"@type":"rename"}]}`, "updates[0].newName: required for update type 'rename'"},
		{"PUT", schemaPath + "/tables/t", `{"updates":[{"@type":"replaceColumns","columns":[{"name":"a","type":"int"}]}]}`, "updates[0].columns[0].type: unknown type 'int'"},
		{"PUT", schemaPath + "/tables/t", `{"updates":[{"@type":"replaceDefinition","definition":{"datasets":[]}}]}`, "updates[0].@type: unsupported update type 'replaceDefinition' (want one of [rename updateComment setProperty removeProperty replaceColumns addColumn renameColumn updateColumnType updateColumnComment updateColumnPosition updateColumnNullability updateColumnDefaultValue updateColumnAutoIncrement deleteColumn addTableIndex deleteTableIndex])"},
		{"PUT", schemaPath + "/semantic-models/m", `{"updates":[{"@type":"replaceDefinition","definition":{"datasets":[]}}]}`, "updates[0].definition.datasets: a definition needs at least one dataset"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			f := newFake()
			res := do(t, api.NewHandler(services(f), api.Config{}), tt.method, tt.target, tt.body)
			if diff := cmp.Diff(errBody(1001, "IllegalArgumentException", tt.wantMessage), res.body); diff != "" || res.status != http.StatusBadRequest {
				t.Errorf("status %d, body (-want +got):\n%s", res.status, diff)
			}
			if c := f.lastCall(); c != "" {
				t.Errorf("service called: %s", c)
			}
		})
	}
}

// TestCloseClient checks the answer to the Gravitino client's close():
// "CLOSE /" succeeds, and CLOSE is no method of any other path.
func TestCloseClient(t *testing.T) {
	h := api.NewHandler(services(newFake()), api.Config{})
	if res := do(t, h, api.MethodClose, "/", ""); res.status != http.StatusOK || !cmp.Equal(res.body, map[string]any{"code": 0.0}) {
		t.Errorf("CLOSE /: %d %v", res.status, res.body)
	}
	if res := do(t, h, api.MethodClose, "/api/metalakes", ""); res.status != http.StatusMethodNotAllowed {
		t.Errorf("CLOSE /api/metalakes: %d %v, want 405", res.status, res.body)
	}
}

// TestUnknownRoutes checks 404 for unknown paths and 405 for known paths
// with the wrong method, both with an error body.
func TestUnknownRoutes(t *testing.T) {
	h := api.NewHandler(services(newFake()), api.Config{})
	tests := []struct {
		method, target string
		wantStatus     int
		want           map[string]any
		wantAllow      string
	}{
		{"GET", "/api/nope", 404, errBody(1003, "NotFoundException", "no such route: GET /api/nope"), ""},
		{"GET", "/", 404, errBody(1003, "NotFoundException", "no such route: GET /"), ""},
		{"GET", "/api/metalakes/m/catalogs/c/schemas/s/views", 404, errBody(1003, "NotFoundException", "no such route: GET /api/metalakes/m/catalogs/c/schemas/s/views"), ""},
		{"POST", "/api/metalakes/m", 405, errBody(1001, "IllegalArgumentException", "method POST is not allowed on /api/metalakes/m (allowed: GET, PUT, DELETE, PATCH)"), "GET, PUT, DELETE, PATCH"},
		{"POST", "/api/metalakes/m/tags/t", 405, errBody(1001, "IllegalArgumentException", "method POST is not allowed on /api/metalakes/m/tags/t (allowed: GET, PUT, DELETE)"), "GET, PUT, DELETE"},
		{"DELETE", "/api/metalakes", 405, errBody(1001, "IllegalArgumentException", "method DELETE is not allowed on /api/metalakes (allowed: GET, POST)"), "GET, POST"},
		{"POST", "/healthz", 405, errBody(1001, "IllegalArgumentException", "method POST is not allowed on /healthz (allowed: GET)"), "GET"},
	}
	for _, tt := range tests {
		t.Run(tt.method+" "+tt.target, func(t *testing.T) {
			res := do(t, h, tt.method, tt.target, "")
			if diff := cmp.Diff(tt.want, res.body); diff != "" || res.status != tt.wantStatus {
				t.Errorf("status %d (want %d), body (-want +got):\n%s", res.status, tt.wantStatus, diff)
			}
			if got := res.header.Get("Allow"); got != tt.wantAllow {
				t.Errorf("Allow = %q, want %q", got, tt.wantAllow)
			}
		})
	}
}

// TestAuthenticate checks the authentication seam.
func TestAuthenticate(t *testing.T) {
	t.Run("anonymous by default", func(t *testing.T) {
		f := newFake()
		do(t, api.NewHandler(services(f), api.Config{}), "GET", "/api/metalakes/m", "")
		if f.user != api.AnonymousUser {
			t.Errorf("user = %q, want %q", f.user, api.AnonymousUser)
		}
	})
	t.Run("authenticated user", func(t *testing.T) {
		f := newFake()
		cfg := api.Config{Authenticate: func(r *http.Request) (string, error) { return r.Header.Get("X-Test-User"), nil }}
		do(t, api.NewHandler(services(f), cfg), "GET", "/api/metalakes/m", "", "X-Test-User", "alice")
		if f.user != "alice" {
			t.Errorf("user = %q, want alice", f.user)
		}
		res := do(t, api.NewHandler(services(f), cfg), "GET", "/api/metalakes/m", "")
		if diff := cmp.Diff(errBody(1011, "UnauthorizedException", "authentication required"), res.body); diff != "" || res.status != 401 {
			t.Errorf("no user: status %d, body (-want +got):\n%s", res.status, diff)
		}
	})
	t.Run("refused", func(t *testing.T) {
		f := newFake()
		cfg := api.Config{Authenticate: func(*http.Request) (string, error) {
			return "", semcat.Errorf(semcat.EUNAUTHORIZED, "invalid bearer token")
		}}
		h := api.NewHandler(services(f), cfg)
		res := do(t, h, "GET", "/api/metalakes/m", "")
		if diff := cmp.Diff(errBody(1011, "UnauthorizedException", "invalid bearer token"), res.body); diff != "" || res.status != 401 {
			t.Errorf("status %d, body (-want +got):\n%s", res.status, diff)
		}
		if c := f.lastCall(); c != "" {
			t.Errorf("service called: %s", c)
		}
		if res := do(t, h, "GET", "/healthz", ""); res.status != 200 {
			t.Errorf("/healthz needs authentication: status %d", res.status)
		}
	})
}

// TestReadyz checks that a failing Ready answers 503 with an error body.
func TestReadyz(t *testing.T) {
	var logs strings.Builder
	cfg := api.Config{
		Ready:  func(context.Context) error { return errors.New("dial tcp 10.0.0.1:5432: connection refused") },
		Logger: newLogger(&logs),
	}
	res := do(t, api.NewHandler(services(newFake()), cfg), "GET", "/readyz", "")
	if diff := cmp.Diff(errBody(1002, "InternalError", "internal server error"), res.body); diff != "" || res.status != 503 {
		t.Errorf("status %d, body (-want +got):\n%s", res.status, diff)
	}
	if !strings.Contains(logs.String(), "connection refused") {
		t.Errorf("the cause is not logged: %q", logs.String())
	}
}

// TestRequestContext checks the request deadline and the middleware seam.
func TestRequestContext(t *testing.T) {
	f := newFake()
	var seen []string
	record := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen = append(seen, api.Operation(r)+" "+semcat.UserFromContext(r.Context())+" "+mux.Vars(r)["table"])
			next.ServeHTTP(w, r)
		})
	}
	cfg := api.Config{RequestTimeout: 5 * time.Second, Middleware: []api.Middleware{record}}
	h := api.NewHandler(services(f), cfg)
	do(t, h, "GET", schemaPath+"/tables/orders", "")
	if f.deadline <= 0 || f.deadline > 5*time.Second {
		t.Errorf("time left before the deadline = %v, want in (0, 5s]", f.deadline)
	}
	do(t, h, "DELETE", schemaPath+"/tables/orders", "")
	do(t, h, "GET", "/api/nope", "")
	if diff := cmp.Diff([]string{"loadTable anonymous orders", "dropTable anonymous orders"}, seen); diff != "" {
		t.Errorf("middleware saw (-want +got):\n%s", diff)
	}
}

// deadlineSearch is a search service that records the time left before
// the deadline of the context Search is called with.
type deadlineSearch struct{ left time.Duration }

func (d *deadlineSearch) Search(ctx context.Context, _ semcat.SearchRequest) (*semcat.SearchResult, error) {
	if dl, ok := ctx.Deadline(); ok {
		d.left = time.Until(dl)
	}
	return &semcat.SearchResult{}, nil
}

func (d *deadlineSearch) WaitFor(context.Context, semcat.Position) error { return nil }

func (d *deadlineSearch) Suggest(context.Context, semcat.SuggestRequest) (*semcat.SuggestResult, error) {
	return &semcat.SuggestResult{}, nil
}

// TestSearchWaitKeepsSearchTime: a search waiting for a position gets the
// wait it asked for on top of the request deadline, so a wait as long as
// the request timeout still leaves the search its time. (A bulk load's
// final search, waitMs=30000 against a 30 s request timeout, caught up
// after 29.9 s and then failed with 500 "context deadline exceeded".)
func TestSearchWaitKeepsSearchTime(t *testing.T) {
	search := &deadlineSearch{}
	svc := services(newFake())
	svc.Search = search
	h := api.NewHandler(svc, api.Config{RequestTimeout: 5 * time.Second})
	for _, c := range []struct {
		query    string
		min, max time.Duration
	}{
		{"query=x", 4 * time.Second, 5 * time.Second},
		{"query=x&minPosition=t1&waitMs=20000", 24 * time.Second, 25 * time.Second},
		{"query=x&minPosition=t1", 9 * time.Second, 10 * time.Second}, // the default wait, 5 s
	} {
		search.left = 0
		if res := do(t, h, "GET", "/api/metalakes/m/search?"+c.query, ""); res.status != http.StatusOK {
			t.Fatalf("%s: status %d %v", c.query, res.status, res.body)
		}
		if search.left <= c.min || search.left > c.max {
			t.Errorf("%s: the search had %v before its deadline, want in (%v, %v]", c.query, search.left, c.min, c.max)
		}
	}
}

// panicking is a metalake service that panics.
type panicking struct{ *fake }

func (panicking) GetMetalake(context.Context, string) (*semcat.Metalake, error) {
	panic("boom: SELECT * FROM secrets")
}

// TestPanic checks that a panic is a logged 500 that shows nothing of it.
func TestPanic(t *testing.T) {
	var logs strings.Builder
	svc := services(newFake())
	svc.Metalakes = panicking{newFake()}
	res := do(t, api.NewHandler(svc, api.Config{Logger: newLogger(&logs)}), "GET", "/api/metalakes/m", "")
	if diff := cmp.Diff(errBody(1002, "InternalError", "internal server error"), res.body); diff != "" || res.status != 500 {
		t.Errorf("status %d, body (-want +got):\n%s", res.status, diff)
	}
	if !strings.Contains(logs.String(), "boom") {
		t.Errorf("the panic is not logged: %q", logs.String())
	}
}
