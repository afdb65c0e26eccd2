package api_test

import (
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"slices"
	"testing"

	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/api/apitest"
	"github.com/semcat/semcat/catalogdb/pgtest"
)

// policyCaller sends requests as one user of a stack server.
type policyCaller struct {
	t    *testing.T
	c    *apitest.Client
	user string
}

func (p policyCaller) do(method, path string, body any) (int, http.Header, map[string]any) {
	p.t.Helper()
	return p.c.Do(method, path, body, "Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(p.user+":pw")))
}

// want sends a request and fails the test unless the status is status and,
// for an error, the Gravitino code and exception type are code and typ.
func (p policyCaller) want(status int, code float64, typ, method, path string, body any) (http.Header, map[string]any) {
	p.t.Helper()
	got, hdr, resp := p.do(method, path, body)
	if got != status {
		p.t.Fatalf("%s %s: status %d, want %d; body %v", method, path, got, status, resp)
	}
	if status != http.StatusOK && (resp["code"] != code || resp["type"] != typ) {
		p.t.Fatalf("%s %s: code %v type %v, want %v %s; body %v", method, path, resp["code"], resp["type"], code, typ, resp)
	}
	return hdr, resp
}

func (p policyCaller) ok(method, path string, body any) (http.Header, map[string]any) {
	p.t.Helper()
	return p.want(http.StatusOK, 0, "", method, path, body)
}

func names(t *testing.T, resp map[string]any) []string {
	t.Helper()
	raw, _ := resp["names"].([]any)
	out := []string{}
	for _, n := range raw {
		out = append(out, n.(string))
	}
	if resp["names"] == nil {
		t.Fatalf("no names in %v", resp)
	}
	return out
}

// policyList returns name -> inherited (nil for null) of a policies list.
func policyList(t *testing.T, resp map[string]any) map[string]any {
	t.Helper()
	raw, ok := resp["policies"].([]any)
	if !ok {
		t.Fatalf("no policies in %v", resp)
	}
	out := map[string]any{}
	for _, p := range raw {
		m := p.(map[string]any)
		out[m["name"].(string)] = m["inherited"]
	}
	return out
}

// newPolicyStack starts the whole API with a metalake m owned by admin, a
// catalog rel with schemas sales and hr, tables sales.orders, sales.items
// and hr.people, and a member bob with no privileges.
func newPolicyStack(t *testing.T) (admin, bob policyCaller) {
	t.Helper()
	c := apitest.NewStackServer(t, pgtest.NewDatabase(t), api.Config{})
	admin, bob = policyCaller{t, c, "admin"}, policyCaller{t, c, "bob"}
	const ml = "/api/metalakes/m"
	admin.ok("POST", "/api/metalakes", `{"name":"m"}`)
	admin.ok("POST", ml+"/catalogs", `{"name":"rel","type":"relational"}`)
	for _, s := range []string{"sales", "hr"} {
		admin.ok("POST", ml+"/catalogs/rel/schemas", `{"name":"`+s+`"}`)
	}
	for _, tbl := range []string{"sales/tables|orders", "sales/tables|items", "hr/tables|people"} {
		i := slices.Index([]byte(tbl), '|')
		admin.ok("POST", ml+"/catalogs/rel/schemas/"+tbl[:i], `{"name":"`+tbl[i+1:]+`","columns":[{"name":"id","type":"long"}]}`)
	}
	admin.ok("POST", ml+"/users", `{"name":"bob"}`)
	return admin, bob
}

const retentionBody = `{"name":"retention","comment":"thirty days","policyType":"custom",
	"content":{"customRules":{"days":30,"nested":{"big":12345678901234567890,"list":[1,"a",null]}},
	"supportedObjectTypes":["catalog","SCHEMA","TABLE","TABLE"],"properties":{"team":"data"}}}`

func TestPolicyCRUD(t *testing.T) {
	t.Parallel()
	admin, _ := newPolicyStack(t)
	const ml = "/api/metalakes/m"

	// Create: Gravitino's shape back, enabled by default, types upper-cased
	// and each once, the rules as given (a number past float64 included).
	hdr, resp := admin.ok("POST", ml+"/policies", retentionBody)
	if hdr.Get(api.PositionHeader) == "" {
		t.Error("a create answers without a position")
	}
	p := resp["policy"].(map[string]any)
	content := p["content"].(map[string]any)
	if p["name"] != "retention" || p["comment"] != "thirty days" || p["policyType"] != "custom" || p["enabled"] != true ||
		p["inherited"] != nil || !slices.Equal(anyStrings(content["supportedObjectTypes"]), []string{"catalog", "schema", "table"}) ||
		content["properties"].(map[string]any)["team"] != "data" {
		t.Errorf("created policy: %v", p)
	}
	if _, has := p["inherited"]; !has {
		t.Error("a policy has no inherited member (Gravitino writes null)")
	}
	_, raw := admin.ok("GET", ml+"/policies/retention", nil)
	rules, _ := json.Marshal(raw["policy"].(map[string]any)["content"].(map[string]any)["customRules"])
	var want, got any
	json.Unmarshal([]byte(`{"days":30,"nested":{"big":12345678901234567890,"list":[1,"a",null]}}`), &want)
	json.Unmarshal(rules, &got)
	if gs, ws := mustJSON(got), mustJSON(want); gs != ws {
		t.Errorf("customRules came back %s, want %s", gs, ws)
	}

	// The Java client's nulls, disabled at creation, a policy type in any case.
	_, resp = admin.ok("POST", ml+"/policies", `{"name":"scratch","comment":null,"policyType":"CUSTOM","enabled":false,
		"content":{"customRules":null,"supportedObjectTypes":["TABLE"],"properties":null}}`)
	if p := resp["policy"].(map[string]any); p["enabled"] != false || p["policyType"] != "custom" {
		t.Errorf("scratch: %v", p)
	}

	// Errors, with Gravitino's codes and exception types.
	admin.want(409, 1004, "PolicyAlreadyExistsException", "POST", ml+"/policies", retentionBody)
	admin.want(404, 1003, "NoSuchPolicyException", "GET", ml+"/policies/nope", nil)
	// A missing metalake answers as for its tags.
	sameAsTags(admin, "/api/metalakes/nope")
	for _, bad := range []string{
		`{"name":"p","policyType":"custom"}`,
		`{"name":"p","policyType":"custom","content":{"supportedObjectTypes":[]}}`,
		`{"name":"p","policyType":"custom","content":{"supportedObjectTypes":["VIEW"]}}`,
		`{"name":"p","policyType":"custom","content":{"supportedObjectTypes":["TABLE"],"customRules":[1]}}`,
		`{"name":"p","policyType":"","content":{"supportedObjectTypes":["TABLE"]}}`,
		`{"name":"p","policyType":"other","content":{"supportedObjectTypes":["TABLE"]}}`,
		`{"name":"p","policyType":"system_iceberg_compaction","content":{"supportedObjectTypes":["TABLE"]}}`,
		`{"name":"","policyType":"custom","content":{"supportedObjectTypes":["TABLE"]}}`,
		`{"name":"p","policyType":"custom","content":{"supportedObjectTypes":["TABLE"]},"zz":1}`,
	} {
		admin.want(400, 1001, "IllegalArgumentException", "POST", ml+"/policies", bad)
	}

	// Listings.
	_, resp = admin.ok("GET", ml+"/policies", nil)
	if got := names(t, resp); !slices.Equal(got, []string{"retention", "scratch"}) {
		t.Errorf("names %v", got)
	}
	_, resp = admin.ok("GET", ml+"/policies?details=true", nil)
	if got := policyList(t, resp); len(got) != 2 || got["retention"] != nil {
		t.Errorf("details %v", got)
	}

	// Enable and disable (PATCH {"enable": bool}); setting the state it
	// has is no error.
	for _, c := range []struct {
		body string
		want bool
	}{{`{"enable":false}`, false}, {`{"enable":false}`, false}, {`{"enable":true}`, true}, {`{"enable":null}`, false}} {
		admin.ok("PATCH", ml+"/policies/retention", c.body)
		_, resp = admin.ok("GET", ml+"/policies/retention", nil)
		if resp["policy"].(map[string]any)["enabled"] != c.want {
			t.Errorf("after %s: enabled %v", c.body, resp["policy"].(map[string]any)["enabled"])
		}
	}
	admin.want(404, 1003, "NoSuchPolicyException", "PATCH", ml+"/policies/nope", `{"enable":true}`)

	// Alter: rename, comment, content; all or nothing.
	_, resp = admin.ok("PUT", ml+"/policies/retention", `{"updates":[{"@type":"rename","newName":"keep"},
		{"@type":"updateComment","newComment":null},
		{"@type":"updateContent","policyType":"custom","newContent":{"policyType":"custom","customRules":{"days":60},"supportedObjectTypes":["TABLE"]}}]}`)
	p = resp["policy"].(map[string]any)
	if p["name"] != "keep" || p["comment"] != nil || mustJSON(p["content"].(map[string]any)["customRules"]) != `{"days":60}` {
		t.Errorf("altered: %v", p)
	}
	admin.want(404, 1003, "NoSuchPolicyException", "GET", ml+"/policies/retention", nil)
	admin.want(409, 1004, "PolicyAlreadyExistsException", "PUT", ml+"/policies/keep", `{"updates":[{"@type":"rename","newName":"scratch"}]}`)
	admin.want(400, 1001, "IllegalArgumentException", "PUT", ml+"/policies/keep",
		`{"updates":[{"@type":"rename","newName":"other"},{"@type":"updateContent","policyType":"system_x","newContent":{"supportedObjectTypes":["TABLE"]}}]}`)
	admin.want(400, 1001, "IllegalArgumentException", "PUT", ml+"/policies/keep", `{"updates":[{"@type":"setProperty","property":"a","value":"b"}]}`)
	admin.want(400, 1001, "IllegalArgumentException", "PUT", ml+"/policies/keep", `{"updates":null}`)
	admin.want(404, 1003, "NoSuchPolicyException", "PUT", ml+"/policies/nope", `{"updates":[{"@type":"rename","newName":"x"}]}`)
	admin.ok("GET", ml+"/policies/keep", nil) // the failed renames changed nothing

	// Drop: true, then false.
	_, resp = admin.ok("DELETE", ml+"/policies/keep", nil)
	if resp["dropped"] != true {
		t.Errorf("drop: %v", resp)
	}
	_, resp = admin.ok("DELETE", ml+"/policies/keep", nil)
	if resp["dropped"] != false {
		t.Errorf("second drop: %v", resp)
	}
	admin.ok("POST", ml+"/policies", retentionBody) // the name is free again
}

func TestPolicyAssociationAndInheritance(t *testing.T) {
	t.Parallel()
	admin, _ := newPolicyStack(t)
	const ml = "/api/metalakes/m"
	for _, n := range []string{"retention", "pii", "owner"} {
		admin.ok("POST", ml+"/policies", `{"name":"`+n+`","policyType":"custom","content":{"supportedObjectTypes":["CATALOG","SCHEMA","TABLE"]}}`)
	}
	objPolicies := func(obj string) string { return ml + "/objects/" + obj + "/policies" }

	// Attach: missing policies ignored, a name in both lists left alone,
	// the type in any letter case (Gravitino's MCP server sends TABLE).
	_, resp := admin.ok("POST", objPolicies("catalog/rel"), `{"policiesToAdd":["retention","nope"]}`)
	if got := names(t, resp); !slices.Equal(got, []string{"retention"}) {
		t.Errorf("catalog's own policies %v", got)
	}
	admin.ok("POST", objPolicies("schema/rel.sales"), `{"policiesToAdd":["pii"],"policiesToRemove":null}`)
	_, resp = admin.ok("POST", objPolicies("TABLE/rel.sales.orders"), `{"policiesToAdd":["owner","pii","retention"],"policiesToRemove":["owner"]}`)
	if got := names(t, resp); !slices.Equal(got, []string{"pii", "retention"}) {
		t.Errorf("orders' own policies %v", got)
	}

	// Attaching one the object holds: 409 PolicyAlreadyAssociatedException,
	// and nothing of the request applied.
	admin.want(409, 1004, "PolicyAlreadyAssociatedException", "POST", objPolicies("table/rel.sales.orders"), `{"policiesToAdd":["owner","pii"]}`)
	_, resp = admin.ok("GET", objPolicies("table/rel.sales.items"), nil)
	if got := names(t, resp); !slices.Equal(got, []string{"pii", "retention"}) {
		t.Errorf("items inherits %v; want the schema's pii, then the catalog's retention", got)
	}

	// Inheritance: own first (inherited false), then schema, then catalog,
	// each name once; own wins over inherited.
	_, resp = admin.ok("GET", objPolicies("table/rel.sales.orders")+"?details=true", nil)
	if got := policyList(t, resp); len(got) != 2 || got["pii"] != false || got["retention"] != false {
		t.Errorf("orders: %v", got)
	}
	_, resp = admin.ok("GET", objPolicies("table/rel.sales.items")+"?details=true", nil)
	if got := policyList(t, resp); len(got) != 2 || got["pii"] != true || got["retention"] != true {
		t.Errorf("items: %v", got)
	}
	_, resp = admin.ok("GET", objPolicies("schema/rel.hr")+"?details=true", nil)
	if got := policyList(t, resp); len(got) != 1 || got["retention"] != true {
		t.Errorf("hr: %v", got)
	}
	_, resp = admin.ok("GET", objPolicies("catalog/rel")+"?details=true", nil)
	if got := policyList(t, resp); len(got) != 1 || got["retention"] != false {
		t.Errorf("rel: %v", got)
	}
	_, resp = admin.ok("GET", objPolicies("table/rel.hr.people")+"/retention", nil)
	if p := resp["policy"].(map[string]any); p["name"] != "retention" || p["inherited"] != true {
		t.Errorf("people's retention: %v", p)
	}
	_, resp = admin.ok("GET", objPolicies("table/rel.sales.orders")+"/retention", nil)
	if p := resp["policy"].(map[string]any); p["inherited"] != false {
		t.Errorf("orders' retention: %v", p)
	}
	admin.want(404, 1003, "NoSuchPolicyException", "GET", objPolicies("table/rel.hr.people")+"/pii", nil)
	admin.want(404, 1003, "NoSuchTableException", "GET", objPolicies("table/rel.hr.nope"), nil)
	admin.want(404, 1003, "NoSuchTableException", "POST", objPolicies("table/rel.hr.nope"), `{"policiesToAdd":["pii"]}`)
	admin.want(400, 1001, "IllegalArgumentException", "GET", objPolicies("view/rel.hr.people"), nil)
	admin.want(400, 1001, "IllegalArgumentException", "POST", objPolicies("table/rel.hr.people"), `{}`)
	admin.want(400, 1001, "IllegalArgumentException", "POST", objPolicies("table/rel.hr.people"), `{"policiesToAdd":[""]}`)

	// The objects of a policy: attached directly, by type and name.
	_, resp = admin.ok("GET", ml+"/policies/retention/objects", nil)
	if got := mustJSON(resp["metadataObjects"]); got != `[{"fullName":"rel","type":"catalog"},{"fullName":"rel.sales.orders","type":"table"}]` {
		t.Errorf("retention's objects %s", got)
	}
	admin.want(404, 1003, "NoSuchPolicyException", "GET", ml+"/policies/nope/objects", nil)

	// Detaching removes the direct attachment only.
	_, resp = admin.ok("POST", objPolicies("table/rel.sales.orders"), `{"policiesToRemove":["retention","nope"]}`)
	if got := names(t, resp); !slices.Equal(got, []string{"pii"}) {
		t.Errorf("orders after removal %v", got)
	}
	_, resp = admin.ok("GET", objPolicies("table/rel.sales.orders")+"?details=true", nil)
	if got := policyList(t, resp); got["retention"] != true {
		t.Errorf("orders still inherits retention: %v", got)
	}

	// A dropped policy leaves every object; a dropped and recreated table
	// starts with none.
	admin.ok("DELETE", ml+"/policies/pii", nil)
	_, resp = admin.ok("GET", objPolicies("table/rel.sales.orders"), nil)
	if got := names(t, resp); !slices.Equal(got, []string{"retention"}) {
		t.Errorf("orders after dropping pii %v", got)
	}
	admin.ok("POST", objPolicies("table/rel.sales.items"), `{"policiesToAdd":["owner"]}`)
	admin.ok("DELETE", ml+"/catalogs/rel/schemas/sales/tables/items", nil)
	_, resp = admin.ok("GET", ml+"/policies/owner/objects", nil)
	if got := mustJSON(resp["metadataObjects"]); got != `[]` {
		t.Errorf("owner's objects after the table's drop: %s", got)
	}
	admin.ok("POST", ml+"/catalogs/rel/schemas/sales/tables", `{"name":"items","columns":[{"name":"id","type":"long"}]}`)
	_, resp = admin.ok("GET", objPolicies("table/rel.sales.items")+"?details=true", nil)
	if got := policyList(t, resp); len(got) != 1 || got["retention"] != true {
		t.Errorf("recreated items: %v", got)
	}
}

func TestPolicyAuthorization(t *testing.T) {
	t.Parallel()
	admin, bob := newPolicyStack(t)
	const ml = "/api/metalakes/m"
	admin.ok("POST", ml+"/policies", retentionBody)
	admin.ok("POST", ml+"/objects/table/rel.sales.orders/policies", `{"policiesToAdd":["retention"]}`)
	admin.ok("POST", ml+"/objects/table/rel.hr.people/policies", `{"policiesToAdd":["retention"]}`)

	// Members see the metalake's policies; only its owner changes them.
	bob.ok("GET", ml+"/policies", nil)
	bob.ok("GET", ml+"/policies/retention", nil)
	bob.want(403, 1008, "ForbiddenException", "POST", ml+"/policies", `{"name":"mine","policyType":"custom","content":{"supportedObjectTypes":["TABLE"]}}`)
	bob.want(403, 1008, "ForbiddenException", "PUT", ml+"/policies/retention", `{"updates":[{"@type":"rename","newName":"x"}]}`)
	bob.want(403, 1008, "ForbiddenException", "PATCH", ml+"/policies/retention", `{"enable":false}`)
	bob.want(403, 1008, "ForbiddenException", "DELETE", ml+"/policies/retention", nil)
	// A stranger to the metalake gets the answer its tags give.
	sameAsTags(policyCaller{t, bob.c, "carol"}, ml)

	// Bob cannot see the tables: their policies answer as a missing
	// table's do, and the policy's objects leave them out.
	for _, path := range []string{"/objects/table/rel.sales.orders/policies", "/objects/table/rel.sales.orders/policies/retention"} {
		hidden, _, hresp := bob.do("GET", ml+path, nil)
		missing, _, mresp := bob.do("GET", ml+"/objects/table/rel.sales.nope/policies", nil)
		if hidden != missing || hidden == http.StatusOK || hresp["type"] != mresp["type"] {
			t.Errorf("%s: hidden %d %v, missing %d %v", path, hidden, hresp["type"], missing, mresp["type"])
		}
	}
	_, resp := bob.ok("GET", ml+"/policies/retention/objects", nil)
	if got := mustJSON(resp["metadataObjects"]); got != `[]` {
		t.Errorf("bob sees the objects %s", got)
	}
	bob.want(403, 1008, "ForbiddenException", "POST", ml+"/objects/table/rel.sales.orders/policies", `{"policiesToRemove":["retention"]}`)

	// Given sight of sales (not hr), bob sees orders and its policies, but
	// still not people, and may not change orders' policies.
	admin.ok("POST", ml+"/roles", `{"name":"reader","securableObjects":[
		{"fullName":"rel","type":"CATALOG","privileges":[{"name":"USE_CATALOG","condition":"ALLOW"}]},
		{"fullName":"rel.sales","type":"SCHEMA","privileges":[{"name":"USE_SCHEMA","condition":"ALLOW"},{"name":"SELECT_TABLE","condition":"ALLOW"}]}]}`)
	admin.ok("PUT", ml+"/permissions/users/bob/grant", `{"roleNames":["reader"]}`)
	_, resp = bob.ok("GET", ml+"/objects/table/rel.sales.orders/policies", nil)
	if got := names(t, resp); !slices.Equal(got, []string{"retention"}) {
		t.Errorf("bob's view of orders' policies %v", got)
	}
	_, resp = bob.ok("GET", ml+"/policies/retention/objects", nil)
	if got := mustJSON(resp["metadataObjects"]); got != `[{"fullName":"rel.sales.orders","type":"table"}]` {
		t.Errorf("bob sees the objects %s", got)
	}
	// hr: no schema access, so 403 whether the table exists or not.
	bob.want(403, 1008, "ForbiddenException", "GET", ml+"/objects/table/rel.hr.people/policies", nil)
	bob.want(403, 1008, "ForbiddenException", "GET", ml+"/objects/table/rel.hr.nope/policies", nil)
	bob.want(403, 1008, "ForbiddenException", "POST", ml+"/objects/table/rel.sales.orders/policies", `{"policiesToRemove":["retention"]}`)
	// With MODIFY_TABLE he may.
	admin.ok("POST", ml+"/roles", `{"name":"writer","securableObjects":[
		{"fullName":"rel.sales","type":"SCHEMA","privileges":[{"name":"MODIFY_TABLE","condition":"ALLOW"}]}]}`)
	admin.ok("PUT", ml+"/permissions/users/bob/grant", `{"roleNames":["writer"]}`)
	bob.ok("POST", ml+"/objects/table/rel.sales.orders/policies", `{"policiesToRemove":["retention"]}`)
}

func TestPolicySearch(t *testing.T) {
	t.Parallel()
	admin, bob := newPolicyStack(t)
	const ml = "/api/metalakes/m"
	admin.ok("POST", ml+"/policies", retentionBody)
	admin.ok("POST", ml+"/policies", `{"name":"pii_masking","policyType":"custom","content":{"supportedObjectTypes":["TABLE"]}}`)
	admin.ok("POST", ml+"/objects/table/rel.sales.orders/policies", `{"policiesToAdd":["retention","pii_masking"]}`)
	admin.ok("POST", ml+"/objects/table/rel.hr.people/policies", `{"policiesToAdd":["retention"]}`)
	search := func(who policyCaller, query string, pos string) (ids []string, resp map[string]any) {
		t.Helper()
		_, resp = who.ok("GET", ml+"/search?query="+url.QueryEscape(query)+"&sort=name&minPosition="+pos+"&waitMs=10000", nil)
		for _, r := range resp["results"].([]any) {
			e := r.(map[string]any)["entity"].(map[string]any)
			ids = append(ids, e["name"].(string))
		}
		return ids, resp
	}
	// An empty change still writes the object's outbox row: its position
	// is past every association above.
	hdr, _ := admin.ok("POST", ml+"/objects/table/rel.sales.items/policies", `{"policiesToAdd":[]}`)
	pos := hdr.Get(api.PositionHeader)

	if got, resp := search(admin, "policies:retention", pos); !slices.Equal(got, []string{"orders", "people"}) {
		t.Errorf("policies:retention found %v: %v", got, resp)
	} else if m := mustJSON(resp["results"].([]any)[0].(map[string]any)["matches"]); m != `[{"key":"policies","value":"retention"}]` {
		t.Errorf("matches %s", m)
	}
	if got, _ := search(admin, "policies:PII_mask*", pos); !slices.Equal(got, []string{"orders"}) {
		t.Errorf("policies:PII_mask* found %v", got)
	}
	if got, _ := search(admin, "policies:pii", pos); len(got) != 0 {
		t.Errorf("policies:pii (a part of a name) found %v", got)
	}
	if got, _ := search(admin, "+policies:* -policies:pii_masking", pos); !slices.Equal(got, []string{"people"}) {
		t.Errorf("+policies:* -policies:pii_masking found %v", got)
	}
	// Policies are system metadata: a user-scope search does not see them.
	if _, resp := admin.ok("GET", ml+"/search?query=policies:retention&scope=user&minPosition="+pos, nil); resp["total"] != 0.0 {
		t.Errorf("policies:retention in user scope: %v", resp)
	}
	if got, _ := search(admin, "policies:retention", pos+"&scope=system"); !slices.Equal(got, []string{"orders", "people"}) {
		t.Errorf("policies:retention in system scope found %v", got)
	}
	// Bob sees no table, so finds nothing.
	if got, _ := search(bob, "policies:retention", pos); len(got) != 0 {
		t.Errorf("bob found %v", got)
	}
	// The object's system metadata lists its policies.
	_, resp := admin.ok("GET", ml+"/objects/table/rel.sales.orders/metadata", nil)
	if v := resp["metadata"].(map[string]any)["system"].(map[string]any)["properties"].(map[string]any)["policies"]; v != "pii_masking, retention" {
		t.Errorf("system property policies = %v", v)
	}

	// Detaching, renaming and dropping reach the index through the outbox.
	admin.ok("POST", ml+"/objects/table/rel.hr.people/policies", `{"policiesToRemove":["retention"]}`)
	hdr, _ = admin.ok("PUT", ml+"/policies/pii_masking", `{"updates":[{"@type":"rename","newName":"masking"}]}`)
	if got, _ := search(admin, "policies:retention", hdr.Get(api.PositionHeader)); !slices.Equal(got, []string{"orders"}) {
		t.Errorf("after detaching from people, policies:retention found %v", got)
	}
	if got, _ := search(admin, "policies:masking", hdr.Get(api.PositionHeader)); !slices.Equal(got, []string{"orders"}) {
		t.Errorf("after the rename, policies:masking found %v", got)
	}
	hdr, _ = admin.ok("DELETE", ml+"/policies/retention", nil)
	if got, _ := search(admin, "policies:retention", hdr.Get(api.PositionHeader)); len(got) != 0 {
		t.Errorf("after the drop, policies:retention found %v", got)
	}
}

// sameAsTags checks that the policy listing of a metalake answers as its
// tag listing does (the same status and exception type).
func sameAsTags(p policyCaller, ml string) {
	p.t.Helper()
	ps, _, presp := p.do("GET", ml+"/policies", nil)
	ts, _, tresp := p.do("GET", ml+"/tags", nil)
	if ps != ts || ps == http.StatusOK || presp["type"] != tresp["type"] {
		p.t.Errorf("%s as %s: policies answer %d %v, tags %d %v", ml, p.user, ps, presp["type"], ts, tresp["type"])
	}
}

func anyStrings(v any) []string {
	var out []string
	for _, s := range v.([]any) {
		out = append(out, s.(string))
	}
	return out
}

func mustJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}
