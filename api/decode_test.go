package api_test

import (
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat/api"
)

// TestDecode checks that every kind of bad body is a 400 that says what is
// wrong and where, and that the service is not called.
func TestDecode(t *testing.T) {
	tables := schemaPath + "/tables"
	tests := []struct {
		method, target, body string
		wantMessage          string
	}{
		{"POST", tables, "", "request body is required"},
		{"POST", tables, " \n\t", "request body is required"},
		{"POST", tables, "null", "request body: expected object, got null"},
		{"POST", tables, "[]", "request body: expected object, got array"},
		{"POST", tables, `"t"`, "request body: expected object, got string"},
		{"POST", tables, `{"name":"t",`, "malformed JSON at byte offset 12: unexpected end of input"},
		{"POST", tables, `{"name":"t",}`, "malformed JSON at byte offset 13: invalid character '}' looking for beginning of object key string"},
		{"POST", tables, `{"name":'t'}`, "malformed JSON at byte offset 9: invalid character '\\'' looking for beginning of value"},
		{"POST", tables, `{"name":"t"}}`, "request body must hold exactly one JSON value; unexpected data at byte offset 12"},
		{"POST", tables, `{"name":"t"} {"name":"u"}`, "request body must hold exactly one JSON value; unexpected data at byte offset 13"},
		{"POST", tables, `{"name":"t","bogus":1}`, "bogus: unknown field"},
		{"POST", tables, `{"name":"t","Bogus":{"name":"x"}}`, "Bogus: unknown field"},
		{"POST", tables, `{"name":"t","columns":[{"name":"a","type":"integer"},{"name":"b","type":"integer","default":1}]}`, "columns[1].default: unknown field"},
		{"POST", tables, `{"name":"t","columns":[{"name":"a","type":{"type":"struct","fields":[],"bogus":true}}]}`, "columns[0].type.bogus: unknown field"},
		{"POST", tables, `{"name":"t","x":1,"columns":[{"name":"a","type":"integer","x":1}]}`, "columns[0].x: unknown field"},
		{"POST", tables, `{"name":5}`, "name: expected string, got number"},
		{"POST", tables + ":batchCreate", `{"tables":[{"name":"t","columns":[]},{"name":"u","colums":[]}]}`, "tables[1].colums: unknown field"},
		{"POST", tables + ":batchCreate", `{"tables":[{"name":"t","columns":[],"tags":"pii"}]}`, "tables[0].tags: expected array, got string"},
		{"POST", tables + ":batchCreate", `{"tables":[{"name":"t","columns":[{"name":"a","type":5}]}]}`, "tables[0].columns[0].type: expected a type name or a nested type object, got number"},
		{"POST", tables + ":batchCreate", `{"tables":[{"name":"t","columns":[]},{"name":5}]}`, "tables[1].name: expected string, got number"},
		{"POST", tables + ":batchCreate", `{"tables":{}}`, "tables: expected array, got object"},
		{"POST", tables, `{"name":"t","comment":false}`, "comment: expected string, got bool"},
		{"POST", tables, `{"name":"t","properties":{"k":"v","n":1}}`, "properties.n: expected string, got number"},
		{"POST", tables, `{"name":"t","properties":[]}`, "properties: expected object, got array"},
		{"POST", tables, `{"name":"t","columns":{}}`, "columns: expected array, got object"},
		{"POST", tables, `{"name":"t","columns":[{"name":"a","type":"integer"},{"name":"b","type":"integer","nullable":"no"}]}`, "columns[1].nullable: expected boolean, got string"},
		{"POST", tables, `{"name":"t","columns":[{"name":"a","type":{"type":"struct","fields":[{"name":"x","type":"integer","nullable":1}]}}]}`, "columns[0].type.fields[0].nullable: expected boolean, got number"},
		{"POST", tables, `{"name":"t","columns":[{"name":"a","type":5}]}`, "columns[0].type: expected a type name or a nested type object, got number"},
		{"POST", tables, `{"NAME":"t","columns":[]}`, "NAME: unknown field"},
		{"POST", tables, `{"name":"t","columns":[{"Name":"a","type":"integer"}]}`, "columns[0].Name: unknown field"},
		{"POST", tables, `{"name":"t","columns":[{"name":"a","type":{"type":"struct","fields":[{"NAME":"x","type":"integer"}]}}]}`, "columns[0].type.fields[0].NAME: unknown field"},
		{"PUT", "/api/metalakes/m", `{"Updates":[{"@type":"rename","newName":"x"}]}`, "Updates: unknown field"},
		{"POST", tables, `{"name":"t","columns":[{"name":"a","type":{"fields":[]}}]}`, `columns[0].type: a nested type needs "type": struct, list, map or union`},
		{"POST", tables, `{"name":"t","columns":[{"name":"a","type":"integer"},{"name":"b","type":{"type":"list","elementType":{"containsNull":true}}}]}`,
			`columns[1].type.elementType: a nested type needs "type": struct, list, map or union`},
		{"POST", tables, `{"name":"t","columns":[{"name":"a","type":{"type":"union","types":["integer",{"type":"struct","fields":[{"name":"x","type":"integer","Comment":""}]}]}}]}`,
			"columns[0].type.types[1].fields[0].Comment: unknown field"},
		{"POST", tables, `{"name":"t","columns":[{"name":"a","type":{"type":"map","keyType":"string","valueType":{"type":"struct","fields":[{"name":"x","type":{"Type":"list"}}]}}}]}`,
			"columns[0].type.valueType.fields[0].type.Type: unknown field"},
		{"POST", tables, `{"name":"t","columns":[{"name":"a","type":null}]}`, "columns[0].type: column type is required"},
		{"PUT", "/api/metalakes/m", `{"updates":[{"@type":"updateComment","newComment":5}]}`, "updates[0].newComment: expected string, got number"},
		{"PUT", "/api/metalakes/m", `{"updates":{"@type":"rename"}}`, "updates: expected array, got object"},
		{"PUT", "/api/metalakes/m", `{"updates":[{"@type":"rename","newName":"x","extra":1}]}`, "updates[0].extra: unknown field"},
		{"POST", schemaPath + "/semantic-models", `{"name":"m","definition":{"datasets":[{"name":"d","source":{"namespace":["c","s"],"name":"t"},"fields":[{"name":"f","dimension":{"isTime":"yes"}}]}]}}`,
			"definition.datasets[0].fields[0].dimension.isTime: expected boolean, got string"},
		{"POST", schemaPath + "/semantic-models", `{"name":"m","definition":{"datasets":[{"name":"d","uniqueKeys":[["a"],["b",2]]}]}}`,
			"definition.datasets[0].uniqueKeys[1][1]: expected string, got number"},
		{"POST", schemaPath + "/semantic-models", `{"name":"m","definition":{"datasets":[],"version":2}}`, "definition.version: unknown field"},
		{"POST", schemaPath + "/semantic-models", `{"name":"m","definition":{"datasets":[{"name":"d","uniqueKeys":[["a"],[["b"]]]}]}}`,
			"definition.datasets[0].uniqueKeys[1][0]: expected string, got array"},
		{"POST", "/api/metalakes/m/objects/table/c.s.t/tags", `{"tagsToAdd":"pii"}`, "tagsToAdd: expected array, got string"},
		{"POST", tables, `{"name":"t","comment":"a\u0000b"}`, "comment: must not contain the character U+0000"},
		{"POST", tables, `{"name":"t","properties":{"k":"v\u0000"}}`, "properties.k: must not contain the character U+0000"},
		{"POST", tables, `{"name":"t","properties":{"k\u0000":"v"}}`, "properties: a key holds the character U+0000, which is not allowed"},
		{"POST", tables, `{"name":"t","columns":[{"name":"a","type":{"type":"struct","fields":[{"name":"x","type":"integer","comment":"\u0000"}]}}]}`,
			"columns[0].type.fields[0].comment: must not contain the character U+0000"},
		{"PUT", "/api/metalakes/m", `{"updates":[{"@type":"updateComment","newComment":"x\u0000"}]}`, "updates[0].newComment: must not contain the character U+0000"},
		{"POST", "/api/metalakes", `{"name":"\ud800"}`, "name: invalid name '\ufffd': must be 1-64 characters matching ^\\w[\\w/=-]{0,63}$"},
	}
	for _, tt := range tests {
		name := tt.body
		if len(name) > 60 {
			name = name[:60] + "…"
		}
		t.Run(name, func(t *testing.T) {
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

// TestBodyLimit checks that a body over MaxBodyBytes is a 413 naming the
// limit, and that one at the limit is read.
func TestBodyLimit(t *testing.T) {
	pad := func(n int) string { // a valid metalake body of exactly n bytes
		const head, tail = `{"name":"m","comment":"`, `"}`
		return head + strings.Repeat("x", n-len(head)-len(tail)) + tail
	}
	tests := []struct {
		limit      int64
		body       string
		wantStatus int
		wantMsg    string
	}{
		{64, pad(64), 200, ""},
		{64, pad(65), 413, "request body is larger than the limit of 64 bytes"},
		{2048, pad(4096), 413, "request body is larger than the limit of 2 KiB (2048 bytes)"},
		{0, pad(8<<20 + 1), 413, "request body is larger than the limit of 8 MiB (8388608 bytes)"},
	}
	for _, tt := range tests {
		f := newFake()
		res := do(t, api.NewHandler(services(f), api.Config{MaxBodyBytes: tt.limit}), "POST", "/api/metalakes", tt.body)
		if res.status != tt.wantStatus {
			t.Errorf("limit %d, body of %d bytes: status %d, want %d", tt.limit, len(tt.body), res.status, tt.wantStatus)
		}
		if tt.wantStatus == 413 {
			if diff := cmp.Diff(errBody(1001, "IllegalArgumentException", tt.wantMsg), res.body); diff != "" {
				t.Errorf("limit %d: body (-want +got):\n%s", tt.limit, diff)
			}
		}
	}
}

// FuzzDecode checks that no request body makes any write route answer 500.
func FuzzDecode(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `{}`, `[]`, `{"name":"t"}`, `{"name":"t","columns":[{"name":"a","type":"integer"}]}`,
		`{"name":"t","columns":[{"name":"a","type":{"type":"map","keyType":"string","valueType":{"type":"struct","fields":[]}}}]}`,
		`{"name":"t","columns":[{"name":"a","type":{"type":"union","types":[1]}}]}`,
		`{"updates":[{"@type":"replaceColumns","columns":[{"name":"a","type":{"type":"list"}}]}]}`,
		`{"updates":[{"@type":"replaceDefinition","definition":{"datasets":[{"name":"d","source":null}]}}]}`,
		`{"name":"m","definition":{"datasets":[{"name":"d","source":{"namespace":["c","s"],"name":"t"},"aiContext":{"synonyms":[1]}}],"metrics":[{"name":"x","expression":{"dialects":[]}}]}}`,
		`{"tagsToAdd":[null],"tagsToRemove":[""]}`,
		"\xff\xfe", `{"a":"\u0000"}`, `{"name":1e999}`,
	} {
		f.Add(seed)
	}
	fk := newFake()
	h := api.NewHandler(services(fk), api.Config{MaxBodyBytes: 1 << 16})
	targets := []struct{ method, path string }{
		{"POST", "/api/metalakes"},
		{"PUT", "/api/metalakes/m"},
		{"POST", "/api/metalakes/m/catalogs"},
		{"POST", schemaPath + "/tables"},
		{"PUT", schemaPath + "/tables/t"},
		{"POST", schemaPath + "/semantic-models"},
		{"PUT", schemaPath + "/semantic-models/m"},
		{"POST", "/api/metalakes/m/objects/table/c.s.t/tags"},
	}
	f.Fuzz(func(t *testing.T, body string) {
		for _, tg := range targets {
			if res := do(t, h, tg.method, tg.path, body); res.status >= 500 {
				t.Errorf("%s %s with %q: status %d, body %v", tg.method, tg.path, body, res.status, res.body)
			}
		}
	})
}
