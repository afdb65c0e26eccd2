package api_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/semcat/semcat/api"
)

// javaRequests are requests shaped as Gravitino's Java client serializes its
// request DTOs: every field the DTO defines, null when the caller left it
// unset (MetalakeCreateRequest, CatalogCreateRequest, SchemaCreateRequest,
// TableCreateRequest with ColumnDTO, the *UpdatesRequest families,
// TagCreateRequest, UserAddRequest, GroupAddRequest, RoleCreateRequest with
// SecurableObjectDTO, RoleGrantRequest, PrivilegeGrantRequest,
// OwnerSetRequest, TagsAssociateRequest, CatalogSetRequest). They run in
// order over newStoreServer's metalake m.
var javaRequests = []struct {
	name, method, path, body string
}{
	{"MetalakeCreateRequest", "POST", "/api/metalakes",
		`{"name": "jm", "comment": null, "properties": null}`},
	{"MetalakeUpdatesRequest", "PUT", "/api/metalakes/jm",
		`{"updates": [{"@type": "updateComment", "newComment": null}, {"@type": "setProperty", "property": "a", "value": "b"},
		              {"@type": "removeProperty", "property": "a"}, {"@type": "rename", "newName": "jm2"}]}`},
	{"MetalakeSetRequest", "PATCH", "/api/metalakes/jm2", `{"inUse": true}`},
	{"CatalogCreateRequest", "POST", "/api/metalakes/m/catalogs",
		`{"name": "jc", "type": "RELATIONAL", "provider": null, "comment": null, "properties": null}`},
	{"CatalogUpdatesRequest", "PUT", "/api/metalakes/m/catalogs/jc",
		`{"updates": [{"@type": "updateComment", "newComment": null}, {"@type": "setProperty", "property": "a", "value": "b"},
		              {"@type": "removeProperty", "property": "a"}]}`},
	{"CatalogSetRequest", "PATCH", "/api/metalakes/m/catalogs/jc", `{"inUse": true}`},
	{"SchemaCreateRequest", "POST", "/api/metalakes/m/catalogs/jc/schemas",
		`{"name": "js", "comment": null, "properties": null}`},
	{"SchemaUpdatesRequest", "PUT", "/api/metalakes/m/catalogs/jc/schemas/js",
		`{"updates": [{"@type": "setProperty", "property": "a", "value": "b"}, {"@type": "removeProperty", "property": "a"}]}`},
	{"TableCreateRequest", "POST", "/api/metalakes/m/catalogs/jc/schemas/js/tables",
		`{"name": "jt", "comment": null,
		  "columns": [{"name": "id", "type": "long", "comment": null, "nullable": false, "autoIncrement": false},
		              {"name": "note", "type": "string", "comment": null, "nullable": true, "autoIncrement": false, "defaultValue": null}],
		  "properties": null, "sortOrders": null, "distribution": null, "partitioning": null, "indexes": null}`},
	{"TableUpdatesRequest", "PUT", "/api/metalakes/m/catalogs/jc/schemas/js/tables/jt",
		`{"updates": [{"@type": "updateComment", "newComment": null},
		              {"@type": "addColumn", "fieldName": ["extra"], "type": "string", "comment": null, "position": null,
		               "nullable": true, "autoIncrement": false},
		              {"@type": "updateColumnComment", "fieldName": ["extra"], "newComment": null},
		              {"@type": "deleteColumn", "fieldName": ["extra"], "ifExists": false},
		              {"@type": "rename", "newName": "jt2", "newSchemaName": null}]}`},
	{"TagCreateRequest", "POST", "/api/metalakes/m/tags",
		`{"name": "jtag", "comment": null, "properties": null, "allowedValues": null}`},
	{"TagUpdatesRequest", "PUT", "/api/metalakes/m/tags/jtag",
		`{"updates": [{"@type": "updateComment", "newComment": null}, {"@type": "setProperty", "property": "a", "value": "b"},
		              {"@type": "removeProperty", "property": "a"}]}`},
	{"TagsAssociateRequest", "POST", "/api/metalakes/m/objects/catalog/jc/tags",
		`{"tagsToAdd": ["jtag"], "tagsToRemove": null}`},
	{"UserAddRequest", "POST", "/api/metalakes/m/users",
		`{"name": "ju", "externalId": null, "enabled": null}`},
	{"GroupAddRequest", "POST", "/api/metalakes/m/groups",
		`{"name": "jg", "externalId": null}`},
	{"RoleCreateRequest", "POST", "/api/metalakes/m/roles",
		`{"name": "jr", "properties": null,
		  "securableObjects": [{"fullName": "jc", "type": "CATALOG", "privileges": [{"name": "USE_CATALOG", "condition": "ALLOW"}]}]}`},
	{"RoleCreateRequest without objects", "POST", "/api/metalakes/m/roles",
		`{"name": "jr0", "properties": null, "securableObjects": null}`},
	{"RoleGrantRequest to a user", "PUT", "/api/metalakes/m/permissions/users/ju/grant", `{"roleNames": ["jr"]}`},
	{"RoleGrantRequest to a group", "PUT", "/api/metalakes/m/permissions/groups/jg/grant", `{"roleNames": ["jr"]}`},
	{"PrivilegeGrantRequest", "PUT", "/api/metalakes/m/permissions/roles/jr/schema/jc.js/grant",
		`{"privileges": [{"name": "USE_SCHEMA", "condition": "ALLOW"}]}`},
	{"OwnerSetRequest", "PUT", "/api/metalakes/m/owners/catalog/jc", `{"name": "ju", "type": "USER"}`},
}

// TestJavaClientRequests sends each request as the Java client serializes
// it; each succeeds. The same request with a field Gravitino does not
// define is still 400, naming the field.
func TestJavaClientRequests(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	for _, r := range javaRequests {
		var body map[string]any
		if err := json.Unmarshal([]byte(r.body), &body); err != nil {
			t.Fatalf("%s: %v", r.name, err)
		}
		body["notAGravitinoField"] = nil
		status, _, resp := c.Do(r.method, r.path, body)
		if msg, _ := resp["message"].(string); status != 400 || !strings.Contains(msg, "notAGravitinoField: unknown field") {
			t.Errorf("%s with an unknown field: %d %v, want 400 naming the field", r.name, status, resp)
		}
		if status, _, resp := c.Do(r.method, r.path, r.body); status != 200 || resp["code"] != 0.0 {
			t.Errorf("%s: %d %v", r.name, status, resp)
		}
	}
	// What the null requests created reads back with the defaults.
	_, got := c.MustOK("GET", "/api/metalakes/m/catalogs/jc", nil)
	if cat := got["catalog"].(map[string]any); cat["provider"] != "semcat" || cat["comment"] != nil {
		t.Errorf("catalog created with nulls: %v", cat)
	}
	_, got = c.MustOK("GET", "/api/metalakes/m/catalogs/jc/schemas/js/tables/jt2", nil)
	if table := got["table"].(map[string]any); len(table["columns"].([]any)) != 2 || table["distribution"] == nil {
		t.Errorf("table created with nulls: %v", table)
	}
	_, got = c.MustOK("GET", "/api/metalakes/m/roles/jr0", nil)
	if objs, ok := got["role"].(map[string]any)["securableObjects"].([]any); !ok || len(objs) != 0 {
		t.Errorf("role created with securableObjects null: %v", got)
	}
	// Nested unknown fields are refused too.
	status, _, resp := c.Do("POST", "/api/metalakes/m/roles", `{"name": "x", "properties": null,
		"securableObjects": [{"fullName": "jc", "type": "CATALOG", "privileges": [{"name": "USE_CATALOG", "condition": "ALLOW", "scope": null}]}]}`)
	if msg, _ := resp["message"].(string); status != 400 || !strings.Contains(msg, "securableObjects[0].privileges[0].scope: unknown field") {
		t.Errorf("nested unknown field: %d %v", status, resp)
	}
}
