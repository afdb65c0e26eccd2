package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat/api"
)

const metalakePath = "/api/metalakes/m"

func TestAccessControlOverHTTP(t *testing.T) {
	t.Parallel()
	c, s := newStoreServer(t, api.Config{})

	hdr, resp := c.MustOK("POST", metalakePath+"/users", `{"name":"bob"}`)
	if hdr.Get(api.PositionHeader) == "" {
		t.Error("create user has no position header")
	}
	user := resp["user"].(map[string]any)
	if user["name"] != "bob" || canonical(t, user["roles"]) != `[]` || user["audit"].(map[string]any)["creator"] != api.AnonymousUser {
		t.Errorf("created user %v", user)
	}
	if _, resp := c.MustOK("GET", metalakePath+"/users/bob", nil); canonical(t, resp["user"]) != canonical(t, user) {
		t.Errorf("GET user %v, want %v", resp["user"], user)
	}

	hdr, resp = c.MustOK("POST", metalakePath+"/roles", `{"name":"analyst","securableObjects":[
		{"fullName":"rel.sales","type":"SCHEMA","privileges":[{"name":"USE_SCHEMA","condition":"ALLOW"},{"name":"SELECT_TABLE","condition":"DENY"}]},
		{"fullName":"rel","type":"CATALOG","privileges":[{"name":"USE_CATALOG","condition":"ALLOW"}]}]}`)
	if hdr.Get(api.PositionHeader) == "" {
		t.Error("create role has no position header")
	}
	role := resp["role"].(map[string]any)
	// Enums are written in lower case, as Gravitino writes them.
	wantObjects := `[{"fullName":"rel","type":"catalog","privileges":[{"name":"use_catalog","condition":"allow"}]},
		{"fullName":"rel.sales","type":"schema","privileges":[{"name":"select_table","condition":"deny"},{"name":"use_schema","condition":"allow"}]}]`
	if role["name"] != "analyst" || canonical(t, role["securableObjects"]) != canonical(t, wantObjects) {
		t.Errorf("created role %v", role)
	}
	if _, resp := c.MustOK("GET", metalakePath+"/roles/analyst", nil); canonical(t, resp["role"]) != canonical(t, role) {
		t.Errorf("GET role %v, want %v", resp["role"], role)
	}
	c.MustOK("POST", metalakePath+"/roles", `{"name":"reader","securableObjects":[]}`)

	for _, step := range []struct{ path, body, roles string }{
		{"/grant", `{"roleNames":["reader","analyst"]}`, `["analyst","reader"]`},
		{"/grant", `{"roleNames":["analyst"]}`, `["analyst","reader"]`},
		{"/revoke", `{"roleNames":["analyst"]}`, `["reader"]`},
	} {
		hdr, resp := c.MustOK("PUT", metalakePath+"/permissions/users/bob"+step.path, step.body)
		if hdr.Get(api.PositionHeader) == "" {
			t.Errorf("%s %s has no position header", step.path, step.body)
		}
		if got := canonical(t, resp["user"].(map[string]any)["roles"]); got != step.roles {
			t.Errorf("%s %s: roles %s, want %s", step.path, step.body, got, step.roles)
		}
	}

	// Owners: start from no owner at all, whoever created the objects.
	if _, err := s.Pool().Exec(context.Background(), `DELETE FROM owner_meta`); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"/owners/metalake/m", "/owners/catalog/rel", "/owners/schema/rel.sales", "/owners/table/rel.sales.orders"} {
		_, resp := c.MustOK("GET", metalakePath+path, nil)
		if diff := cmp.Diff(map[string]any{"code": 0.0}, resp); diff != "" {
			t.Errorf("GET %s before set (-want +got):\n%s", path, diff)
		}
		hdr, resp := c.MustOK("PUT", metalakePath+path, `{"name":"bob","type":"USER"}`)
		if diff := cmp.Diff(map[string]any{"code": 0.0, "set": true}, resp); diff != "" || hdr.Get(api.PositionHeader) == "" {
			t.Errorf("PUT %s (-want +got):\n%s (position %q)", path, diff, hdr.Get(api.PositionHeader))
		}
		_, resp = c.MustOK("GET", metalakePath+path, nil)
		want := map[string]any{"code": 0.0, "owner": map[string]any{"name": "bob", "type": "user"}}
		if diff := cmp.Diff(want, resp); diff != "" {
			t.Errorf("GET %s after set (-want +got):\n%s", path, diff)
		}
	}
}

func TestAccessControlErrorsOverHTTP(t *testing.T) {
	t.Parallel()
	c, s := newStoreServer(t, api.Config{})
	c.MustOK("POST", metalakePath+"/users", `{"name":"bob"}`)
	c.MustOK("POST", metalakePath+"/roles", `{"name":"reader","securableObjects":[]}`)

	role := func(objects string) string { return `{"name":"r","securableObjects":[` + objects + `]}` }
	useRel := `{"fullName":"rel","type":"CATALOG","privileges":[{"name":"USE_CATALOG","condition":"ALLOW"}]}`
	tests := []struct {
		method, path, body string
		status, code       int
		typ                string
		message            string // prefix
	}{
		{"POST", "/users", `{"name":"bob"}`, 409, 1004, "UserAlreadyExistsException", ""},
		{"POST", "/users", `{"name":"a b"}`, 400, 1001, "IllegalArgumentException", "name: "},
		{"POST", "/users", `{"name":"x","roles":[]}`, 400, 1001, "IllegalArgumentException", "roles: unknown field"},
		{"POST", "/api/metalakes/nope/users", `{"name":"bob"}`, 404, 1003, "NoSuchMetalakeException", ""},
		{"GET", "/users/carol", ``, 404, 1003, "NoSuchUserException", ""},

		{"POST", "/roles", `{"name":"reader"}`, 409, 1004, "RoleAlreadyExistsException", ""},
		{"POST", "/roles", role(useRel + `,{"fullName":"nope","type":"CATALOG","privileges":[{"name":"USE_CATALOG","condition":"ALLOW"}]}`), 400, 1001, "IllegalMetadataObjectException", "securableObjects[1]: catalog 'm.nope' does not exist"},
		{"POST", "/roles", role(`{"fullName":"rel.nope","type":"SCHEMA","privileges":[{"name":"USE_SCHEMA","condition":"ALLOW"}]}`), 400, 1001, "IllegalMetadataObjectException", "securableObjects[0]: "},
		{"POST", "/roles", role(`{"fullName":"rel.sales.nope","type":"TABLE","privileges":[{"name":"SELECT_TABLE","condition":"ALLOW"}]}`), 400, 1001, "IllegalMetadataObjectException", "securableObjects[0]: "},
		{"POST", "/roles", role(`{"fullName":"rel.sales.nope","type":"SEMANTIC_MODEL","privileges":[{"name":"SELECT_SEMANTIC_MODEL","condition":"ALLOW"}]}`), 400, 1001, "IllegalMetadataObjectException", "securableObjects[0]: "},
		{"POST", "/roles", role(`{"fullName":"rel.sales.orders","type":"TABLE","privileges":[{"name":"CREATE_TABLE","condition":"ALLOW"}]}`), 400, 1001, "IllegalPrivilegeException", "securableObjects[0].privileges[0].name: "},
		{"POST", "/roles", role(`{"fullName":"rel","type":"CATALOG","privileges":[{"name":"USE_CATALOG","condition":"maybe"}]}`), 400, 1001, "IllegalArgumentException", "securableObjects[0].privileges[0].condition: "},
		{"POST", "/roles", role(`{"fullName":"rel","type":"catalog","privileges":[{"name":"read_fileset","condition":"allow"}]}`), 400, 1001, "IllegalPrivilegeException", "securableObjects[0].privileges[0].name: read_fileset applies to fileset catalogs"},
		{"POST", "/roles", role(`{"fullName":"rel","type":"catalog","privileges":[{"name":"use_catalog","condition":"allow"},{"name":"use_catalog","condition":"deny"}]}`), 400, 1001, "IllegalPrivilegeException", "securableObjects[0].privileges[1].name: "},
		{"POST", "/roles", role(useRel + `,` + useRel), 400, 1001, "IllegalPrivilegeException", "securableObjects[1].privileges[0].name: use_catalog on catalog 'rel' is already listed"},
		{"POST", "/roles", role(`{"fullName":"other","type":"METALAKE","privileges":[{"name":"USE_CATALOG","condition":"ALLOW"}]}`), 400, 1001, "IllegalArgumentException", "securableObjects[0].fullName: "},
		{"POST", "/roles", role(`{"fullName":"rel","type":"fileset","privileges":[{"name":"USE_CATALOG","condition":"ALLOW"}]}`), 400, 1001, "IllegalArgumentException", "securableObjects[0].type: "},
		{"GET", "/roles/nope", ``, 404, 1003, "NoSuchRoleException", ""},

		// Gravitino: a missing role of a grant is IllegalRoleException, a 400.
		{"PUT", "/permissions/users/bob/grant", `{"roleNames":["reader","nope"]}`, 400, 1001, "IllegalRoleException", "role 'm.nope' does not exist"},
		{"PUT", "/permissions/users/bob/revoke", `{"roleNames":["nope"]}`, 400, 1001, "IllegalRoleException", ""},
		{"PUT", "/permissions/groups/nope/grant", `{"roleNames":["reader"]}`, 404, 1003, "NoSuchGroupException", ""},
		{"PUT", "/permissions/roles/nope/catalog/rel/grant", `{"privileges":[{"name":"use_catalog","condition":"allow"}]}`, 404, 1003, "NoSuchRoleException", ""},
		{"PUT", "/permissions/roles/reader/catalog/nope/grant", `{"privileges":[{"name":"use_catalog","condition":"allow"}]}`, 404, 1003, "NoSuchMetadataObjectException", ""},
		{"PUT", "/permissions/roles/reader/catalog/rel/grant", `{"privileges":[]}`, 400, 1001, "IllegalArgumentException", "privileges: "},
		{"PUT", "/permissions/roles/reader/table/rel.sales.orders/grant", `{"privileges":[{"name":"create_table","condition":"allow"}]}`, 400, 1001, "IllegalPrivilegeException", ""},
		{"GET", "/groups/nope", ``, 404, 1003, "NoSuchGroupException", ""},
		{"GET", "/objects/catalog/nope/roles", ``, 404, 1003, "NoSuchMetadataObjectException", ""},
		{"PUT", "/permissions/users/carol/grant", `{"roleNames":["reader"]}`, 404, 1003, "NoSuchUserException", ""},
		{"PUT", "/permissions/users/bob/grant", `{"roleNames":[]}`, 400, 1001, "IllegalArgumentException", "roleNames: "},
		{"PUT", "/permissions/users/bob/grant", `{"roleNames":["ok","a b"]}`, 400, 1001, "IllegalArgumentException", "roleNames[1]: "},

		{"PUT", "/owners/table/rel.sales.orders", `{"name":"carol","type":"USER"}`, 404, 1003, "NotFoundException", "user 'm.carol' does not exist"},
		{"PUT", "/owners/table/rel.sales.orders", `{"name":"bob","type":"GROUP"}`, 404, 1003, "NotFoundException", "group 'm.bob' does not exist"},
		{"PUT", "/owners/table/rel.sales.orders", `{"name":"bob","type":"ROLE"}`, 400, 1001, "IllegalArgumentException", "type: "},
		{"PUT", "/owners/table/rel.sales.orders", `{"name":"bob"}`, 400, 1001, "IllegalArgumentException", "type: "},
		{"PUT", "/owners/table/rel.sales.nope", `{"name":"bob","type":"USER"}`, 404, 1003, "NoSuchMetadataObjectException", ""},
		{"PUT", "/owners/table/rel.sales", `{"name":"bob","type":"USER"}`, 400, 1001, "IllegalArgumentException", "fullName: "},
		{"PUT", "/owners/metalake/other", `{"name":"bob","type":"USER"}`, 400, 1001, "IllegalArgumentException", "fullName: "},
		{"PUT", "/owners/column/rel.sales.orders.id", `{"name":"bob","type":"USER"}`, 400, 1001, "IllegalArgumentException", "type: "},
		{"PUT", "/owners/tag/nope", `{"name":"bob","type":"USER"}`, 404, 1003, "NoSuchMetadataObjectException", "tag 'm.nope' does not exist"},
		{"GET", "/owners/role/a.b", "", 400, 1001, "IllegalArgumentException", "fullName: invalid name 'a.b'"},
		{"GET", "/owners/schema/rel.nope", ``, 404, 1003, "NoSuchMetadataObjectException", "schema 'm.rel.nope' does not exist"},
		{"GET", "/owners/TABLE/rel.sales.orders", ``, 400, 1001, "IllegalArgumentException", "type: "},
	}
	for _, tt := range tests {
		path := tt.path
		if !strings.HasPrefix(path, "/api/") {
			path = metalakePath + path
		}
		var body any
		if tt.body != "" {
			body = tt.body
		}
		status, hdr, resp := c.Do(tt.method, path, body)
		if status != tt.status || resp["code"] != float64(tt.code) || resp["type"] != tt.typ {
			t.Errorf("%s %s %s: %d %v, want %d %d %s", tt.method, path, tt.body, status, resp, tt.status, tt.code, tt.typ)
			continue
		}
		if msg, _ := resp["message"].(string); !strings.HasPrefix(msg, tt.message) {
			t.Errorf("%s %s %s: message %q, want prefix %q", tt.method, path, tt.body, msg, tt.message)
		}
		if hdr.Get(api.PositionHeader) != "" {
			t.Errorf("%s %s: error with a position header", tt.method, path)
		}
	}

	// Failed role creations left nothing behind; failed grants changed nothing.
	var roles, privileges int
	if err := s.Pool().QueryRow(context.Background(), `SELECT (SELECT count(*) FROM role_meta), (SELECT count(*) FROM role_privilege)`).Scan(&roles, &privileges); err != nil {
		t.Fatal(err)
	}
	if roles != 1 || privileges != 0 {
		t.Errorf("%d roles and %d privilege rows after failed creations, want 1 and 0", roles, privileges)
	}
	if _, resp := c.MustOK("GET", metalakePath+"/users/bob", nil); canonical(t, resp["user"].(map[string]any)["roles"]) != `[]` {
		t.Errorf("roles after failed grants: %v", resp["user"])
	}
	if status, _, _ := c.Do("PATCH", metalakePath+"/owners/table/rel.sales.orders", nil); status != http.StatusMethodNotAllowed {
		t.Errorf("PATCH owners: %d, want 405", status)
	}
}
