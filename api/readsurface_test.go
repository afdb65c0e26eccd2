package api_test

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/api/apitest"
	"github.com/semcat/semcat/catalogdb/pgtest"
)

// caller sends requests to a stack server as one user (simple
// authentication).
type caller struct {
	t    *testing.T
	c    *apitest.Client
	user string
}

func (u caller) do(method, target string, body any) (int, map[string]any) {
	u.t.Helper()
	status, _, resp := u.c.Do(method, target, body, "Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(u.user+":pw")))
	return status, resp
}

func (u caller) must(method, target string, body any) map[string]any {
	u.t.Helper()
	status, resp := u.do(method, target, body)
	if status != http.StatusOK {
		u.t.Fatalf("%s %s as %s: %d %v", method, target, u.user, status, resp)
	}
	return resp
}

// newReadSurface starts the whole stack with metalake m: catalogs rel and
// hid, schemas rel.sales and rel.hid, tables rel.sales.orders and
// rel.sales.open. alice is a member who may use and read everything but
// catalog hid, schema rel.hid and table orders (DENY); eve is no member.
func newReadSurface(t *testing.T) (admin, alice, eve caller) {
	t.Helper()
	c := apitest.NewStackServer(t, pgtest.NewDatabase(t), api.Config{MaxBodyBytes: 1 << 20})
	admin, alice, eve = caller{t, c, "admin"}, caller{t, c, "alice"}, caller{t, c, "eve"}
	const ml = "/api/metalakes/m"
	admin.must("POST", "/api/metalakes", `{"name":"m"}`)
	for _, cat := range []string{"rel", "hid"} {
		admin.must("POST", ml+"/catalogs", `{"name":"`+cat+`","type":"relational"}`)
	}
	for _, s := range []string{"sales", "hid"} {
		admin.must("POST", ml+"/catalogs/rel/schemas", `{"name":"`+s+`"}`)
	}
	for _, tb := range []string{"orders", "open"} {
		admin.must("POST", ml+"/catalogs/rel/schemas/sales/tables", `{"name":"`+tb+`","columns":[{"name":"id","type":"long"}]}`)
	}
	admin.must("POST", ml+"/users", `{"name":"alice"}`)
	admin.must("POST", ml+"/roles", `{"name":"reader","securableObjects":[
		{"fullName":"m","type":"METALAKE","privileges":[{"name":"USE_CATALOG","condition":"ALLOW"},{"name":"USE_SCHEMA","condition":"ALLOW"},{"name":"SELECT_TABLE","condition":"ALLOW"}]},
		{"fullName":"hid","type":"CATALOG","privileges":[{"name":"USE_CATALOG","condition":"DENY"}]},
		{"fullName":"rel.hid","type":"SCHEMA","privileges":[{"name":"USE_SCHEMA","condition":"DENY"}]},
		{"fullName":"rel.sales.orders","type":"TABLE","privileges":[{"name":"SELECT_TABLE","condition":"DENY"}]}]}`)
	admin.must("PUT", ml+"/permissions/users/alice/grant", `{"roleNames":["reader"]}`)
	return admin, alice, eve
}

// TestHiddenAnswersAsMissing: on every read route, an object the caller
// may not see answers exactly as one that does not exist — status, code,
// exception type and message but for the name (SPEC §6) — and a metalake
// the caller is not a member of answers as one that does not exist, on
// listings and on the caller's own user too (revision 3).
func TestHiddenAnswersAsMissing(t *testing.T) {
	t.Parallel()
	admin, alice, eve := newReadSurface(t)
	const ml = "/api/metalakes/m"
	for _, tc := range []struct {
		what            string
		as              caller
		hidden, missing string // the routes; missing names ghost where hidden names the object
		name, ghost     string
	}{
		{"load catalog", alice, ml + "/catalogs/hid", ml + "/catalogs/ghost", "hid", "ghost"},
		{"load schema", alice, ml + "/catalogs/rel/schemas/hid", ml + "/catalogs/rel/schemas/ghost", "hid", "ghost"},
		{"load table", alice, ml + "/catalogs/rel/schemas/sales/tables/orders", ml + "/catalogs/rel/schemas/sales/tables/ghost", "orders", "ghost"},
		{"table tags", alice, ml + "/objects/table/rel.sales.orders/tags", ml + "/objects/table/rel.sales.ghost/tags", "orders", "ghost"},
		{"table tags details", alice, ml + "/objects/table/rel.sales.orders/tags?details=true", ml + "/objects/table/rel.sales.ghost/tags?details=true", "orders", "ghost"},
		{"column tags", alice, ml + "/objects/column/rel.sales.orders.id/tags", ml + "/objects/column/rel.sales.ghost.id/tags", "orders", "ghost"},
		{"table metadata", alice, ml + "/objects/table/rel.sales.orders/metadata", ml + "/objects/table/rel.sales.ghost/metadata", "orders", "ghost"},
		{"table statistics", alice, ml + "/objects/table/rel.sales.orders/statistics", ml + "/objects/table/rel.sales.ghost/statistics", "orders", "ghost"},
		{"table owner", alice, ml + "/owners/table/rel.sales.orders", ml + "/owners/table/rel.sales.ghost", "orders", "ghost"},
		{"catalog owner", alice, ml + "/owners/catalog/hid", ml + "/owners/catalog/ghost", "hid", "ghost"},
		{"schema owner", alice, ml + "/owners/schema/rel.hid", ml + "/owners/schema/rel.ghost", "hid", "ghost"},
		{"catalog tags", alice, ml + "/objects/catalog/hid/tags", ml + "/objects/catalog/ghost/tags", "hid", "ghost"},
		{"list catalogs, non-member", eve, ml + "/catalogs", "/api/metalakes/ghost/catalogs", "m", "ghost"},
		{"list catalogs in detail, non-member", eve, ml + "/catalogs?details=true", "/api/metalakes/ghost/catalogs?details=true", "m", "ghost"},
		{"own user, non-member", eve, ml + "/users/eve", "/api/metalakes/ghost/users/eve", "m", "ghost"},
		{"search, non-member", eve, ml + "/search?query=orders", "/api/metalakes/ghost/search?query=orders", "m", "ghost"},
	} {
		hs, hb := tc.as.do("GET", tc.hidden, nil)
		ms, mb := tc.as.do("GET", tc.missing, nil)
		if ms != http.StatusNotFound {
			t.Errorf("%s: the missing object answers %d %v, want 404", tc.what, ms, mb)
			continue
		}
		want, _ := json.Marshal(mb)
		wantS := strings.ReplaceAll(string(want), tc.ghost, tc.name)
		got, _ := json.Marshal(hb)
		if hs != ms || string(got) != wantS {
			t.Errorf("%s: hidden answers %d %s, missing %d %s; want the same", tc.what, hs, got, ms, want)
		}
	}
	// Gravitino's owner route answers NoSuchMetadataObjectException for an
	// object that does not exist; the hidden one says the same.
	if _, b := alice.do("GET", ml+"/owners/table/rel.sales.orders", nil); b["type"] != "NoSuchMetadataObjectException" {
		t.Errorf("owner of a hidden table: %v, want NoSuchMetadataObjectException", b)
	}
	// Members and admins still see what they may.
	if b, _ := json.Marshal(alice.must("GET", ml+"/catalogs", nil)); !strings.Contains(string(b), `"rel"`) || strings.Contains(string(b), `"hid"`) {
		t.Errorf("alice lists catalogs %s, want rel only", b)
	}
	alice.must("GET", ml+"/users/alice", nil)
	alice.must("GET", ml+"/catalogs/rel/schemas/sales/tables/open", nil)
	alice.must("GET", ml+"/owners/table/rel.sales.open", nil)
	admin.must("GET", ml+"/catalogs/rel/schemas/sales/tables/orders", nil)
}

// TestProfileForAdminsOnly: profile=true describes the whole index, so it
// is refused (403, naming profile) to everyone but service admins — a
// member of the metalake and a non-member, whose refusal does not depend
// on whether the metalake exists — and admins still get it (SPEC §2.6).
func TestProfileForAdminsOnly(t *testing.T) {
	t.Parallel()
	admin, alice, eve := newReadSurface(t)
	for _, u := range []caller{alice, eve} {
		for _, ml := range []string{"m", "ghost"} {
			status, b := u.do("GET", "/api/metalakes/"+ml+"/search?query=codename:%22b*%22&profile=true", nil)
			if msg, _ := b["message"].(string); status != http.StatusForbidden || !strings.HasPrefix(msg, "profile:") {
				t.Errorf("%s asks %s for a profile: %d %v, want 403 naming profile", u.user, ml, status, b)
			}
		}
		if status, b := u.do("GET", "/api/metalakes/m/search?query=orders&profile=false", nil); u.user == "alice" && status != http.StatusOK {
			t.Errorf("%s searches without a profile: %d %v", u.user, status, b)
		}
	}
	b := admin.must("GET", "/api/metalakes/m/search?query=codename:%22b*%22&profile=true", nil)
	if _, ok := b["profile"].(map[string]any); !ok {
		t.Errorf("an admin's profile: %v, want a profile", b)
	}
}

// TestTooComplexQueryIs400: a word whose typo automaton has too many
// states (about 700 mixed letters) is a query the engine cannot compile:
// 400 naming query, never 500 (SPEC §2.11).
func TestTooComplexQueryIs400(t *testing.T) {
	t.Parallel()
	admin, _, _ := newReadSurface(t)
	// Something indexed, so that the words meet a term dictionary.
	hdr, _ := admin.c.MustOK("POST", "/api/metalakes/m/catalogs/rel/schemas/sales/tables", `{"name":"abcdefghij","columns":[{"name":"id","type":"long"}]}`,
		"Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte("admin:pw")))
	admin.must("GET", "/api/metalakes/m/search?query=abcdefghij&waitMs=20000&minPosition="+hdr.Get(api.PositionHeader), nil)
	rnd := rand.New(rand.NewPCG(43, 700))
	word := make([]byte, 700)
	for i := range word {
		word[i] = "abcdefghijklmnopqrstuvwxyz"[rnd.IntN(26)]
	}
	status, b := admin.do("GET", "/api/metalakes/m/search?query="+string(word), nil)
	if msg, _ := b["message"].(string); status != http.StatusBadRequest || !strings.HasPrefix(msg, "query:") {
		t.Errorf("a 700-letter word: %d %v, want 400 naming query", status, b)
	}
	// Its other spellings, and other mixes of 700 letters, compile or are
	// refused the same way; none fails.
	mixed := make([]rune, 700)
	for i := range mixed {
		mixed[i] = []rune("aBcDeFgHéßøåжЖ中文xYz")[rnd.IntN(19)]
	}
	for _, query := range []string{string(mixed), strings.ToUpper(string(word)), string(mixed) + "*", string(word) + "*", `"` + string(word) + `"`, "name:" + string(word), "a " + string(word[:350]) + " " + string(word[350:])} {
		status, b := admin.do("GET", "/api/metalakes/m/search?query="+url.QueryEscape(query), nil)
		if msg, _ := b["message"].(string); status != http.StatusOK && (status != http.StatusBadRequest || !strings.HasPrefix(msg, "query:")) {
			t.Errorf("a 700-letter query (%.12s…): %d %v, want 200, or 400 naming query", query, status, b)
		}
	}
}

// TestStatisticsBoundsOverHTTP: past 1,000 statistics a table, or 64 KB a
// value, an update is 400 naming the field (SPEC §2.11).
func TestStatisticsBoundsOverHTTP(t *testing.T) {
	t.Parallel()
	admin, _, _ := newReadSurface(t)
	const stats = "/api/metalakes/m/objects/table/rel.sales.open/statistics"
	updates := func(prefix string, n int) map[string]any {
		u := map[string]any{}
		for i := range n {
			u[fmt.Sprintf("custom-%s%d", prefix, i)] = i
		}
		return map[string]any{"updates": u}
	}
	for i := range 2 {
		admin.must("PUT", stats, updates(fmt.Sprint(i), 500))
	}
	for _, tc := range []struct {
		body  any
		field string
	}{
		{updates("x", 1), "updates:"},
		{map[string]any{"updates": map[string]any{"custom-0": strings.Repeat("v", 64<<10)}}, "updates.custom-0:"},
	} {
		status, b := admin.do("PUT", stats, tc.body)
		if msg, _ := b["message"].(string); status != http.StatusBadRequest || !strings.HasPrefix(msg, tc.field) {
			t.Errorf("%.60v: %d %v, want 400 naming %s", tc.body, status, b, tc.field)
		}
	}
	if b := admin.must("GET", stats, nil); len(b["statistics"].([]any)) != 1000 {
		t.Errorf("the table holds %d statistics, want 1000", len(b["statistics"].([]any)))
	}
}
