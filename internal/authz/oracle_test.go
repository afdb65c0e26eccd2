package authz_test

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/internal/authz"
)

// countingStore is the real store, counting the calls that read the
// database on the read routes under test: each is one transaction.
type countingStore struct {
	*catalogdb.Store
	calls atomic.Int64
}

func (c *countingStore) Access(ctx context.Context, user string, ns semcat.Namespace, kind semcat.EntityKind, names []string) (*semcat.Access, map[string]*semcat.Access, error) {
	c.calls.Add(1)
	return c.Store.Access(ctx, user, ns, kind, names)
}

func (c *countingStore) GetCatalog(ctx context.Context, metalake, name string) (*semcat.Catalog, error) {
	c.calls.Add(1)
	return c.Store.GetCatalog(ctx, metalake, name)
}

func (c *countingStore) ListCatalogs(ctx context.Context, metalake string) ([]*semcat.Catalog, error) {
	c.calls.Add(1)
	return c.Store.ListCatalogs(ctx, metalake)
}

func (c *countingStore) GetSchema(ctx context.Context, ns semcat.Namespace, name string) (*semcat.Schema, error) {
	c.calls.Add(1)
	return c.Store.GetSchema(ctx, ns, name)
}

func (c *countingStore) GetTable(ctx context.Context, ns semcat.Namespace, name string) (*semcat.Table, error) {
	c.calls.Add(1)
	return c.Store.GetTable(ctx, ns, name)
}

func (c *countingStore) GetSemanticModel(ctx context.Context, ns semcat.Namespace, name string) (*semcat.SemanticModel, error) {
	c.calls.Add(1)
	return c.Store.GetSemanticModel(ctx, ns, name)
}

func (c *countingStore) ListTableStatistics(ctx context.Context, ns semcat.Namespace, name string) ([]*semcat.Statistic, error) {
	c.calls.Add(1)
	return c.Store.ListTableStatistics(ctx, ns, name)
}

func (c *countingStore) ListObjectTags(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]string, error) {
	c.calls.Add(1)
	return c.Store.ListObjectTags(ctx, metalake, obj)
}

func (c *countingStore) ObjectMetadata(ctx context.Context, metalake string, obj semcat.ObjectRef) (*semcat.Metadata, error) {
	c.calls.Add(1)
	return c.Store.ObjectMetadata(ctx, metalake, obj)
}

func (c *countingStore) GetOwner(ctx context.Context, metalake string, obj semcat.ObjectRef) (*semcat.Owner, error) {
	c.calls.Add(1)
	return c.Store.GetOwner(ctx, metalake, obj)
}

func (c *countingStore) GetUser(ctx context.Context, metalake, name string) (*semcat.User, error) {
	c.calls.Add(1)
	return c.Store.GetUser(ctx, metalake, name)
}

// TestHiddenCostsAsMissing: on each read route a hidden object and a
// missing one answer the same, and the missing one costs no more database
// round trips than the hidden one (SPEC §6, revision 3: no extra database
// work for one of the two that could be done for both). Before, the
// missing path asked the store once more.
func TestHiddenCostsAsMissing(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	admin := as("admin")
	f.ok(f.svc.CreateCatalog(admin, "m", semcat.CatalogCreate{Name: "hid", Type: semcat.CatalogRelational}))
	f.ok(f.svc.CreateSchema(admin, semcat.Namespace{Metalake: "m", Catalog: "rel"}, semcat.SchemaCreate{Name: "hid"}))
	f.role("alice", "reader", on("METALAKE", "m", semcat.Allow, semcat.UseCatalog, semcat.UseSchema, semcat.SelectTable, semcat.SelectSemanticModel),
		on("CATALOG", "hid", semcat.Deny, semcat.UseCatalog),
		on("SCHEMA", "rel.hid", semcat.Deny, semcat.UseSchema),
		on("TABLE", "rel.sales.orders", semcat.Deny, semcat.SelectTable),
		on("SEMANTIC_MODEL", "rel.sales.secret_model", semcat.Deny, semcat.SelectSemanticModel))
	// Catalog off, disabled, holds a table alice may not see.
	f.ok(f.svc.CreateCatalog(admin, "m", semcat.CatalogCreate{Name: "off", Type: semcat.CatalogRelational}))
	offNS := semcat.Namespace{Metalake: "m", Catalog: "off", Schema: "s"}
	f.ok(f.svc.CreateSchema(admin, semcat.Namespace{Metalake: "m", Catalog: "off"}, semcat.SchemaCreate{Name: "s"}))
	f.ok(f.svc.CreateTable(admin, offNS, semcat.TableCreate{Name: "secret", Columns: []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}}))
	f.role("alice", "not_off", on("TABLE", "off.s.secret", semcat.Deny, semcat.SelectTable))
	if _, err := f.svc.SetCatalogInUse(admin, "m", "off", false); err != nil {
		t.Fatal(err)
	}
	c := &countingStore{Store: f.store}
	svc := authz.New(c, c, []string{"admin"}, slog.New(slog.DiscardHandler))
	alice, eve := as("alice"), as("eve")
	relNS := semcat.Namespace{Metalake: "m", Catalog: "rel"}
	table := func(n string) semcat.ObjectRef {
		return semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales." + n}
	}
	offTable := func(n string) semcat.ObjectRef {
		return semcat.ObjectRef{Type: semcat.KindTable, FullName: "off.s." + n}
	}
	for _, tc := range []struct {
		what        string
		name, ghost string
		read        func(name string) error
		code        string // ENOTFOUND when empty
	}{
		{"load catalog", "hid", "ghost", func(n string) error { _, err := svc.GetCatalog(alice, "m", n); return err }, ""},
		{"load schema", "hid", "ghost", func(n string) error { _, err := svc.GetSchema(alice, relNS, n); return err }, ""},
		{"load table", "orders", "ghost", func(n string) error { _, err := svc.GetTable(alice, salesNS, n); return err }, ""},
		{"load model", "secret_model", "ghost", func(n string) error { _, err := svc.GetSemanticModel(alice, salesNS, n); return err }, ""},
		{"statistics", "orders", "ghost", func(n string) error { _, err := svc.ListTableStatistics(alice, salesNS, n); return err }, ""},
		{"tags", "orders", "ghost", func(n string) error { _, err := svc.ListObjectTags(alice, "m", table(n)); return err }, ""},
		{"metadata", "orders", "ghost", func(n string) error { _, err := svc.ObjectMetadata(alice, "m", table(n)); return err }, ""},
		{"owner", "orders", "ghost", func(n string) error { _, err := svc.GetOwner(alice, "m", table(n)); return err }, ""},
		{"privileges", "orders", "ghost", func(n string) error { _, err := svc.ObjectPrivileges(alice, "m", table(n)); return err }, ""},
		{"privileges of a schema", "hid", "ghost", func(n string) error {
			_, err := svc.ObjectPrivileges(alice, "m", semcat.ObjectRef{Type: semcat.KindSchema, FullName: "rel." + n})
			return err
		}, ""},
		{"list catalogs, non-member", "m", "ghost", func(n string) error { _, err := svc.ListCatalogs(eve, n); return err }, ""},
		{"own user, non-member", "m", "ghost", func(n string) error { _, err := svc.GetUser(eve, n, "eve"); return err }, ""},
		// Under a disabled catalog, both answer that it is disabled.
		{"load table, disabled catalog", "secret", "ghost", func(n string) error { _, err := svc.GetTable(alice, offNS, n); return err }, semcat.ENOTINUSE},
		{"tags, disabled catalog", "secret", "ghost", func(n string) error { _, err := svc.ListObjectTags(alice, "m", offTable(n)); return err }, semcat.ENOTINUSE},
		{"owner, disabled catalog", "secret", "ghost", func(n string) error { _, err := svc.GetOwner(alice, "m", offTable(n)); return err }, semcat.ENOTINUSE},
		{"privileges, non-member", "m", "ghost", func(n string) error { _, err := svc.ObjectPrivileges(eve, n, table("orders")); return err }, ""},
		{"privileges, disabled catalog", "secret", "ghost", func(n string) error { _, err := svc.ObjectPrivileges(alice, "m", offTable(n)); return err }, semcat.ENOTINUSE},
		{"statistics, disabled catalog", "secret", "ghost", func(n string) error { _, err := svc.ListTableStatistics(alice, offNS, n); return err }, semcat.ENOTINUSE},
	} {
		if tc.code == "" {
			tc.code = semcat.ENOTFOUND
		}
		c.calls.Store(0)
		hidden := tc.read(tc.name)
		hiddenCalls := c.calls.Swap(0)
		missing := tc.read(tc.ghost)
		missingCalls := c.calls.Load()
		var he, me *semcat.Error
		if !asError(hidden, &he) || !asError(missing, &me) || he.Code != tc.code || he.Code != me.Code || he.Type != me.Type ||
			he.Entity != me.Entity || strings.ReplaceAll(me.Message, tc.ghost, tc.name) != he.Message {
			t.Errorf("%s: hidden %#v, missing %#v; want the same not-found", tc.what, hidden, missing)
		}
		if hiddenCalls != missingCalls {
			t.Errorf("%s: hidden costs %d store calls, missing %d; want the same", tc.what, hiddenCalls, missingCalls)
		}
	}
}

func asError(err error, e **semcat.Error) bool { return errors.As(err, e) }

// TestPathErrorsAsTheStore: where a namespace does not resolve (a level
// missing or disabled, tables or models under a catalog that holds none),
// the answer for a missing child, which authorization now gives from the
// facts it loads, is the store's own, error for error.
func TestPathErrorsAsTheStore(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	admin := as("admin") // the owner of m, and of moff
	f.ok(f.svc.CreateCatalog(admin, "m", semcat.CatalogCreate{Name: "off", Type: semcat.CatalogRelational}))
	f.ok(f.svc.CreateSchema(admin, semcat.Namespace{Metalake: "m", Catalog: "off"}, semcat.SchemaCreate{Name: "s"}))
	f.ok(f.svc.CreateCatalog(admin, "m", semcat.CatalogCreate{Name: "files", Type: semcat.CatalogFileset}))
	f.ok(f.svc.CreateSchema(admin, semcat.Namespace{Metalake: "m", Catalog: "files"}, semcat.SchemaCreate{Name: "s"}))
	f.ok(f.svc.CreateMetalake(admin, semcat.MetalakeCreate{Name: "moff"}))
	f.ok(f.svc.CreateCatalog(admin, "moff", semcat.CatalogCreate{Name: "rel", Type: semcat.CatalogRelational}))
	f.ok(f.svc.CreateSchema(admin, semcat.Namespace{Metalake: "moff", Catalog: "rel"}, semcat.SchemaCreate{Name: "s"}))
	for _, off := range []func() (semcat.Position, error){
		func() (semcat.Position, error) { return f.svc.SetCatalogInUse(admin, "m", "off", false) },
		func() (semcat.Position, error) { return f.svc.SetMetalakeInUse(admin, "moff", false) },
	} {
		if _, err := off(); err != nil {
			t.Fatal(err)
		}
	}
	type route struct {
		what string
		call func(svc authz.Inner, ns semcat.Namespace) error
	}
	ref := func(kind semcat.EntityKind, ns semcat.Namespace) semcat.ObjectRef {
		parts := []string{ns.Catalog, ns.Schema, "ghost"}
		switch kind {
		case semcat.KindCatalog:
			parts = []string{"ghost"}
		case semcat.KindSchema:
			parts = []string{ns.Catalog, "ghost"}
		}
		return semcat.ObjectRef{Type: kind, FullName: strings.Join(parts, ".")}
	}
	routes := []route{
		{"load catalog", func(svc authz.Inner, ns semcat.Namespace) error {
			_, err := svc.GetCatalog(admin, ns.Metalake, "ghost")
			return err
		}},
		{"load schema", func(svc authz.Inner, ns semcat.Namespace) error {
			ns.Schema = "" // a schema's namespace is its catalog
			_, err := svc.GetSchema(admin, ns, "ghost")
			return err
		}},
		{"load table", func(svc authz.Inner, ns semcat.Namespace) error {
			_, err := svc.GetTable(admin, ns, "ghost")
			return err
		}},
		{"load model", func(svc authz.Inner, ns semcat.Namespace) error {
			_, err := svc.GetSemanticModel(admin, ns, "ghost")
			return err
		}},
		{"statistics", func(svc authz.Inner, ns semcat.Namespace) error {
			_, err := svc.ListTableStatistics(admin, ns, "ghost")
			return err
		}},
	}
	note := "a note"
	comment := []semcat.Update{{Type: semcat.UpdateComment, NewComment: semcat.OptionalString{Set: true, Value: &note}}}
	routes = append(routes,
		route{"alter table", func(svc authz.Inner, ns semcat.Namespace) error {
			_, _, err := svc.AlterTable(admin, ns, "ghost", comment)
			return err
		}},
		route{"alter model", func(svc authz.Inner, ns semcat.Namespace) error {
			_, _, err := svc.AlterSemanticModel(admin, ns, "ghost", comment, 0)
			return err
		}},
		route{"drop table", func(svc authz.Inner, ns semcat.Namespace) error {
			if dropped, _, err := svc.DropTable(admin, ns, "ghost"); dropped || err != nil {
				return err
			}
			return semcat.Errorf(semcat.EINVALID, "not dropped") // the answer both must give
		}},
		route{"update statistics", func(svc authz.Inner, ns semcat.Namespace) error {
			_, err := svc.UpdateTableStatistics(admin, ns, "ghost", semcat.StatisticsUpdate{Updates: map[string]json.RawMessage{"custom-x": json.RawMessage("1")}})
			return err
		}},
		route{"tag a table", func(svc authz.Inner, ns semcat.Namespace) error {
			_, _, err := svc.AssociateTags(admin, ns.Metalake, ref(semcat.KindTable, ns), semcat.TagAssociation{TagsToAdd: []string{"x"}}.Assignments())
			return err
		}})
	for _, kind := range []semcat.EntityKind{semcat.KindCatalog, semcat.KindSchema, semcat.KindTable, semcat.KindSemanticModel} {
		routes = append(routes,
			route{"tags of a " + string(kind), func(svc authz.Inner, ns semcat.Namespace) error {
				_, err := svc.ListObjectTags(admin, ns.Metalake, ref(kind, ns))
				return err
			}},
			route{"metadata of a " + string(kind), func(svc authz.Inner, ns semcat.Namespace) error {
				_, err := svc.ObjectMetadata(admin, ns.Metalake, ref(kind, ns))
				return err
			}},
			route{"owner of a " + string(kind), func(svc authz.Inner, ns semcat.Namespace) error {
				_, err := svc.GetOwner(admin, ns.Metalake, ref(kind, ns))
				return err
			}})
	}
	for _, ns := range []semcat.Namespace{
		{Metalake: "m", Catalog: "rel", Schema: "sales"},  // resolves
		{Metalake: "m", Catalog: "rel", Schema: "nope"},   // a missing schema
		{Metalake: "m", Catalog: "nope", Schema: "s"},     // a missing catalog
		{Metalake: "m", Catalog: "off", Schema: "s"},      // a disabled catalog
		{Metalake: "m", Catalog: "files", Schema: "s"},    // a catalog without tables or models
		{Metalake: "m", Catalog: "files", Schema: "nope"}, // and a missing schema in it
		{Metalake: "moff", Catalog: "rel", Schema: "s"},   // a disabled metalake
		{Metalake: "moff", Catalog: "nope", Schema: "s"},  // and a missing catalog in it
	} {
		for _, r := range routes {
			got, want := r.call(f.svc, ns), r.call(f.store, ns)
			var ge, we *semcat.Error
			if !errors.As(got, &ge) || !errors.As(want, &we) || *ge != *we {
				t.Errorf("%s in %v: authorization answers %#v, the store %#v", r.what, ns, got, want)
			}
		}
	}
}
