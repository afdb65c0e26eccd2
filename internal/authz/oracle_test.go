package authz_test

import (
	"context"
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
	c := &countingStore{Store: f.store}
	svc := authz.New(c, c, []string{"admin"}, slog.New(slog.DiscardHandler))
	alice, eve := as("alice"), as("eve")
	relNS := semcat.Namespace{Metalake: "m", Catalog: "rel"}
	table := func(n string) semcat.ObjectRef {
		return semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales." + n}
	}
	for _, tc := range []struct {
		what        string
		name, ghost string
		read        func(name string) error
	}{
		{"load catalog", "hid", "ghost", func(n string) error { _, err := svc.GetCatalog(alice, "m", n); return err }},
		{"load schema", "hid", "ghost", func(n string) error { _, err := svc.GetSchema(alice, relNS, n); return err }},
		{"load table", "orders", "ghost", func(n string) error { _, err := svc.GetTable(alice, salesNS, n); return err }},
		{"load model", "secret_model", "ghost", func(n string) error { _, err := svc.GetSemanticModel(alice, salesNS, n); return err }},
		{"statistics", "orders", "ghost", func(n string) error { _, err := svc.ListTableStatistics(alice, salesNS, n); return err }},
		{"tags", "orders", "ghost", func(n string) error { _, err := svc.ListObjectTags(alice, "m", table(n)); return err }},
		{"metadata", "orders", "ghost", func(n string) error { _, err := svc.ObjectMetadata(alice, "m", table(n)); return err }},
		{"owner", "orders", "ghost", func(n string) error { _, err := svc.GetOwner(alice, "m", table(n)); return err }},
		{"list catalogs, non-member", "m", "ghost", func(n string) error { _, err := svc.ListCatalogs(eve, n); return err }},
		{"own user, non-member", "m", "ghost", func(n string) error { _, err := svc.GetUser(eve, n, "eve"); return err }},
	} {
		c.calls.Store(0)
		hidden := tc.read(tc.name)
		hiddenCalls := c.calls.Swap(0)
		missing := tc.read(tc.ghost)
		missingCalls := c.calls.Load()
		var he, me *semcat.Error
		if !asError(hidden, &he) || !asError(missing, &me) || he.Code != semcat.ENOTFOUND || he.Code != me.Code || he.Type != me.Type ||
			he.Entity != me.Entity || strings.ReplaceAll(me.Message, tc.ghost, tc.name) != he.Message {
			t.Errorf("%s: hidden %#v, missing %#v; want the same not-found", tc.what, hidden, missing)
		}
		if hiddenCalls != missingCalls {
			t.Errorf("%s: hidden costs %d store calls, missing %d; want the same", tc.what, hiddenCalls, missingCalls)
		}
	}
}

func asError(err error, e **semcat.Error) bool { return errors.As(err, e) }
