package api_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/api/apitest"
	"github.com/semcat/semcat/catalogdb/pgtest"
)

func asUser(user string) []string {
	return []string{"Authorization", "Basic " + base64.StdEncoding.EncodeToString([]byte(user+":"))}
}

// TestObjectPrivilegesOverHTTP: GET …/objects/{type}/{fullName}/privileges
// tells a non-owner holding MODIFY_TABLE on the schema that it may alter
// (and tag) a table but not drop it or change its owner, a reader that it
// may not alter, and a caller who may not see a table the same as for a
// table that does not exist, body for body.
func TestObjectPrivilegesOverHTTP(t *testing.T) {
	t.Parallel()
	c := apitest.NewStackServer(t, pgtest.NewDatabase(t), api.Config{})
	admin := asUser("admin")
	must := func(method, path, body string) {
		t.Helper()
		c.MustOK(method, path, body, admin...)
	}
	must("POST", "/api/metalakes", `{"name":"m"}`)
	must("POST", "/api/metalakes/m/catalogs", `{"name":"rel","type":"relational"}`)
	must("POST", "/api/metalakes/m/catalogs/rel/schemas", `{"name":"sales"}`)
	for _, tbl := range []string{"orders", "secret"} {
		must("POST", salesPath+"/tables", `{"name":"`+tbl+`","columns":[{"name":"id","type":"long"}]}`)
	}
	for _, u := range []string{"editor", "reader"} {
		must("POST", metalakePath+"/users", `{"name":"`+u+`"}`)
	}
	must("POST", metalakePath+"/roles", `{"name":"edit","securableObjects":[
		{"fullName":"m","type":"METALAKE","privileges":[{"name":"USE_CATALOG","condition":"ALLOW"},{"name":"USE_SCHEMA","condition":"ALLOW"}]},
		{"fullName":"rel.sales","type":"SCHEMA","privileges":[{"name":"MODIFY_TABLE","condition":"ALLOW"}]},
		{"fullName":"rel.sales.secret","type":"TABLE","privileges":[{"name":"MODIFY_TABLE","condition":"DENY"}]}]}`)
	must("POST", metalakePath+"/roles", `{"name":"read","securableObjects":[
		{"fullName":"m","type":"METALAKE","privileges":[{"name":"USE_CATALOG","condition":"ALLOW"},{"name":"USE_SCHEMA","condition":"ALLOW"},
			{"name":"SELECT_TABLE","condition":"ALLOW"}]}]}`)
	must("PUT", metalakePath+"/permissions/users/editor/grant", `{"roleNames":["edit"]}`)
	must("PUT", metalakePath+"/permissions/users/reader/grant", `{"roleNames":["read"]}`)

	privileges := func(user, obj string) (int, map[string]any) {
		status, _, resp := c.Do("GET", metalakePath+"/objects/"+obj+"/privileges", nil, asUser(user)...)
		return status, resp
	}
	for _, tc := range []struct {
		user, obj string
		want      string
	}{
		{"admin", "table/rel.sales.orders", `{"user":"admin","privileges":["use_catalog","use_schema","select_table","modify_table","manage_grants"],"alter":true,"drop":true,"setOwner":true}`},
		{"editor", "table/rel.sales.orders", `{"user":"editor","privileges":["use_catalog","use_schema","select_table","modify_table"],"alter":true,"drop":false,"setOwner":false}`},
		{"reader", "table/rel.sales.orders", `{"user":"reader","privileges":["use_catalog","use_schema","select_table"],"alter":false,"drop":false,"setOwner":false}`},
		{"editor", "schema/rel.sales", `{"user":"editor","privileges":["use_catalog","use_schema"],"alter":false,"drop":false,"setOwner":false}`},
	} {
		status, resp := privileges(tc.user, tc.obj)
		if status != http.StatusOK || canonical(t, resp["access"]) != canonical(t, tc.want) {
			t.Errorf("%s on %s: %d %v, want %s", tc.user, tc.obj, status, resp, tc.want)
		}
	}
	// The editor may alter what the answer says, as the page then does.
	c.MustOK("PUT", salesPath+"/tables/orders", `{"updates":[{"@type":"updateComment","newComment":"by editor"}]}`, asUser("editor")...)

	// secret: MODIFY_TABLE denied and no SELECT_TABLE, so the editor may not
	// see it; the answer is the one for a table that is not there.
	hs, hidden := privileges("editor", "table/rel.sales.secret")
	ms, missing := privileges("editor", "table/rel.sales.ghost")
	if hs != http.StatusNotFound || hs != ms {
		t.Errorf("hidden %d, missing %d; want 404 both", hs, ms)
	}
	missing["message"] = strings.ReplaceAll(missing["message"].(string), "ghost", "secret")
	if diff := cmp.Diff(missing, hidden); diff != "" {
		t.Errorf("hidden and missing differ (-missing +hidden):\n%s", diff)
	}
	if status, resp := privileges("editor", "column/rel.sales.orders.id"); status != http.StatusBadRequest || !strings.HasPrefix(resp["message"].(string), "type:") {
		t.Errorf("a column: %d %v; want 400 naming type", status, resp)
	}
}

// TestObjectPrivilegesWithoutAuthorization: everything is allowed, on an
// object that exists.
func TestObjectPrivilegesWithoutAuthorization(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	_, resp := c.MustOK("GET", metalakePath+"/objects/table/rel.sales.orders/privileges", nil)
	want := `{"user":"anonymous","privileges":["use_catalog","use_schema","select_table","modify_table","manage_grants"],"alter":true,"drop":true,"setOwner":true}`
	if canonical(t, resp["access"]) != canonical(t, want) {
		t.Errorf("got %v, want %s", resp["access"], want)
	}
	if status, _, resp := c.Do("GET", metalakePath+"/objects/table/rel.sales.ghost/privileges", nil); status != http.StatusNotFound {
		t.Errorf("a missing table: %d %v, want 404", status, resp)
	}
}
