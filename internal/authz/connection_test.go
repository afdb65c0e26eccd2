package authz_test

import (
	"context"
	"testing"

	"github.com/semcat/semcat"
)

// TestConnectionAuthorization: testing the connection of a catalog not yet
// created is authorized as creating it; of an existing one, as seeing it.
// A drop of a model under a missing catalog is 404, under a missing schema
// {"dropped": false}.
func TestConnectionAuthorization(t *testing.T) {
	f := newFixture(t)
	tested := 0
	conns := &semcat.Connections{Metalakes: f.svc, Catalogs: f.svc, MayCreateCatalog: f.svc.MayCreateCatalog,
		Source: func(context.Context, string, map[string]string) error { tested++; return nil }}
	req := semcat.CatalogCreate{Name: "new", Type: semcat.CatalogRelational}
	if err := conns.TestConnection(as("admin"), "m", req); err != nil {
		t.Errorf("the metalake's owner: %v", err)
	}
	if err := conns.TestConnection(as("alice"), "m", req); semcat.ErrorCode(err) != semcat.EFORBIDDEN {
		t.Errorf("a member without CREATE_CATALOG: %v, want forbidden", err)
	}
	f.role("alice", "creator", on("METALAKE", "m", semcat.Allow, semcat.CreateCatalog))
	if err := conns.TestConnection(as("alice"), "m", req); err != nil {
		t.Errorf("a member with CREATE_CATALOG: %v", err)
	}
	if err := conns.TestCatalogConnection(as("bob"), "m", "rel"); semcat.ErrorCode(err) != semcat.EFORBIDDEN && semcat.ErrorCode(err) != semcat.ENOTFOUND {
		t.Errorf("a member who may not see the catalog: %v", err)
	}
	if err := conns.TestCatalogConnection(as("admin"), "m", "rel"); err != nil {
		t.Errorf("the owner, an existing catalog: %v", err)
	}
	if tested != 3 {
		t.Errorf("%d sources tested, want 3 (the refused ones are not)", tested)
	}

	if _, _, err := f.svc.DropSemanticModel(as("admin"), semcat.Namespace{Metalake: "m", Catalog: "nope", Schema: "sales"}, "visible_model", 0); semcat.ErrorEntity(err) != semcat.KindCatalog {
		t.Errorf("drop under a missing catalog: %v, want NoSuchCatalog", err)
	}
	if dropped, _, err := f.svc.DropSemanticModel(as("admin"), semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "nope"}, "visible_model", 0); err != nil || dropped {
		t.Errorf("drop under a missing schema: %v %v, want false", dropped, err)
	}
}
