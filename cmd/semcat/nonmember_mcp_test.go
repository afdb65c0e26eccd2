package main

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// userTransport sends every request as user (simple authentication).
type userTransport struct{ user string }

func (b userTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.SetBasicAuth(b.user, "pw")
	return http.DefaultTransport.RoundTrip(r)
}

// TestMCPNonMemberListsAsMissing: to a caller who is not a member of a
// metalake, MCP's list_entities of its catalogs answers as for a
// metalake that does not exist, as REST does (SPEC §6, revision 3).
func TestMCPNonMemberListsAsMissing(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Auth = "simple"
	cfg.Authorization = true
	cfg.ServiceAdmins = []string{"admin"}
	m := startMain(t, cfg)
	admin := client{t: t, base: m.URL(), user: "admin"}
	admin.ok("POST", "/api/metalakes", `{"name":"m"}`)
	admin.ok("POST", "/api/metalakes/m/catalogs", `{"name":"rel","type":"relational"}`)

	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	transport := &mcp.StreamableClientTransport{Endpoint: m.URL() + "/mcp", HTTPClient: &http.Client{Transport: userTransport{"eve"}}, MaxRetries: -1}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx, transport, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	list := func(metalake string) string {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list_entities", Arguments: map[string]any{"metalake": metalake, "type": "catalog"}})
		if err != nil {
			t.Fatal(err)
		}
		if !res.IsError {
			t.Errorf("list_entities of %s as a non-member: %s, want an error", metalake, mustJSON(t, res.StructuredContent))
		}
		return mustJSON(t, res.StructuredContent)
	}
	hidden, missing := list("m"), list("ghost")
	if strings.ReplaceAll(missing, "ghost", "m") != hidden || !strings.Contains(missing, "NoSuchMetalakeException") {
		t.Errorf("list_entities as a non-member: existing %s, missing %s; want the same NoSuchMetalakeException", hidden, missing)
	}
}
