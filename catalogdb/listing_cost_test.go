package catalogdb_test

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
	"github.com/semcat/semcat/internal/authz"
)

// TestListingsTakeFewRoundTrips counts the statements of the authorized
// listings whose rows each used to cost an authorization transaction: the
// objects of a tag and the metalakes. However many rows, the count stays
// the same (SPEC §2.11), for the owner and for a user whose grants are
// checked per object.
func TestListingsTakeFewRoundTrips(t *testing.T) {
	t.Parallel()
	admin := semcat.NewContextWithUser(context.Background(), "admin")
	counter := &batchCounter{}
	s, err := catalogdb.OpenTraced(admin, pgtest.NewDatabase(t), counter)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	svc := authz.New(s, s, []string{"admin"}, slog.New(slog.DiscardHandler))
	must := mustWrite(t)
	ns := createSales(t, admin, svc)
	must(svc.CreateTag(admin, "m", semcat.TagCreate{Name: "pii"}))
	must(svc.CreateUser(admin, "m", semcat.UserCreate{Name: "bob"}))
	must(svc.CreateRole(admin, "m", semcat.RoleCreate{Name: "reader", SecurableObjects: []semcat.SecurableObject{
		{Type: "METALAKE", FullName: "m", Privileges: []semcat.PrivilegeGrant{
			{Name: semcat.UseCatalog, Condition: semcat.Allow}, {Name: semcat.UseSchema, Condition: semcat.Allow}, {Name: semcat.SelectTable, Condition: semcat.Allow}}}}}))
	must(svc.GrantRoles(admin, "m", "bob", []string{"reader"}))
	bob := semcat.NewContextWithUser(context.Background(), "bob")

	tables := 0
	addTables := func(n int) {
		items := make([]semcat.TableBatchItem, n)
		for i := range items {
			items[i] = semcat.TableBatchItem{TableCreate: semcat.TableCreate{Name: fmt.Sprintf("t%d", tables+i),
				Columns: []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}}, Tags: []string{"pii"}}
		}
		must(svc.CreateTables(admin, ns, semcat.TableBatchCreate{Tables: items}))
		tables += n
	}
	count := func(what string, list func() (int, error)) int64 {
		t.Helper()
		before := counter.n.Load()
		n, err := list()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if n != tables && what != "metalakes" {
			t.Fatalf("%s: %d rows, want %d", what, n, tables)
		}
		return counter.n.Load() - before
	}
	listings := map[string]func() (int, error){
		"tag objects as the owner": func() (int, error) { os, err := svc.TagObjects(admin, "m", "pii", ""); return len(os), err },
		"tag objects as a reader":  func() (int, error) { os, err := svc.TagObjects(bob, "m", "pii", ""); return len(os), err },
		"metalakes":                func() (int, error) { ms, err := svc.ListMetalakes(bob); return len(ms), err },
	}
	addTables(3)
	small := map[string]int64{}
	for what, list := range listings {
		small[what] = count(what, list)
	}
	addTables(60)
	for i := range 20 {
		must(svc.CreateMetalake(admin, semcat.MetalakeCreate{Name: fmt.Sprintf("m%d", i)}))
		must(svc.CreateUser(admin, fmt.Sprintf("m%d", i), semcat.UserCreate{Name: "bob"}))
	}
	for what, list := range listings {
		if got := count(what, list); got != small[what] {
			t.Errorf("%s: %d statements with 3 tables and 1 metalake, %d with %d tables and 21 metalakes", what, small[what], got, tables)
		}
	}
	t.Logf("statements: %v", small)
}

// TestUserGrants: a user's grants and ownerships in a metalake; the owner
// of the metalake, who sees everything, gets that ownership alone, however
// many objects it created.
func TestUserGrants(t *testing.T) {
	t.Parallel()
	admin := semcat.NewContextWithUser(context.Background(), "admin")
	s, err := catalogdb.Open(admin, pgtest.NewDatabase(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	must := mustWrite(t)
	ns := createSales(t, admin, s)
	must(s.CreateUser(admin, "m", semcat.UserCreate{Name: "bob"}))
	must(s.CreateRole(admin, "m", semcat.RoleCreate{Name: "maker", SecurableObjects: []semcat.SecurableObject{
		{Type: "SCHEMA", FullName: "rel.sales", Privileges: []semcat.PrivilegeGrant{{Name: semcat.CreateTable, Condition: semcat.Allow}}}}}))
	must(s.GrantRoles(admin, "m", "bob", []string{"maker"}))
	bob := semcat.NewContextWithUser(context.Background(), "bob")
	for i := range 3 {
		must(s.CreateTable(bob, ns, semcat.TableCreate{Name: fmt.Sprintf("t%d", i), Columns: []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}}))
		must(s.CreateTable(admin, ns, semcat.TableCreate{Name: fmt.Sprintf("a%d", i), Columns: []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}}))
	}
	g, err := s.UserGrants(admin, "m", "admin")
	if err != nil || !g.Member || len(g.Bindings) != 0 || len(g.Owned) != 1 || len(g.Owned[semcat.KindMetalake]) != 1 {
		t.Errorf("the metalake's owner: %+v %v, want its ownership of the metalake alone", g, err)
	}
	g, err = s.UserGrants(admin, "m", "bob")
	if err != nil || !g.Member || len(g.Bindings) != 1 || g.Bindings[0].Privilege != semcat.CreateTable || len(g.Owned) != 1 || len(g.Owned[semcat.KindTable]) != 3 {
		t.Errorf("bob: %+v %v, want his binding and his three tables", g, err)
	}
	for _, tt := range []struct{ metalake, user string }{{"m", "nobody"}, {"nope", "admin"}} {
		if g, err := s.UserGrants(admin, tt.metalake, tt.user); err != nil || g.Member || len(g.Bindings) != 0 || len(g.Owned) != 0 {
			t.Errorf("%s in %s: %+v %v, want nothing", tt.user, tt.metalake, g, err)
		}
	}
}

// TestListingCache: a tag's objects asked again of a database that has not
// changed cost a few statements however many objects there are, and
// answer exactly what a fresh listing answers after any change in between
// — an object tagged, a schema renamed, a table dropped, an owner set — and
// per user and per value.
func TestListingCache(t *testing.T) {
	t.Parallel()
	admin := semcat.NewContextWithUser(context.Background(), "admin")
	counter := &batchCounter{}
	url := pgtest.NewDatabase(t)
	s, err := catalogdb.OpenTraced(admin, url, counter)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	must := mustWrite(t)
	ns := createSales(t, admin, s)
	must(s.CreateTag(admin, "m", semcat.TagCreate{Name: "pii"}))
	must(s.CreateUser(admin, "m", semcat.UserCreate{Name: "bob"}))
	items := make([]semcat.TableBatchItem, 50)
	for i := range items {
		items[i] = semcat.TableBatchItem{TableCreate: semcat.TableCreate{Name: fmt.Sprintf("t%d", i),
			Columns: []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}}, Tags: []string{"pii"}}
	}
	must(s.CreateTables(admin, ns, semcat.TableBatchCreate{Tables: items}))

	type listing struct {
		Objs []semcat.TaggedObject
		Own  []bool // each object's Access says the user owns it
	}
	list := func(st *catalogdb.Store, user, value string) listing {
		t.Helper()
		objs, _, own, err := st.TagObjectsAccess(admin, user, "m", "pii", value)
		if err != nil {
			t.Fatal(err)
		}
		l := listing{Objs: objs}
		for _, a := range own {
			l.Own = append(l.Own, a != nil && a.Owns[semcat.KindTable])
		}
		return l
	}
	check := func(what string) {
		t.Helper()
		// fresh reads the same database; each listing is its first.
		fresh, err := catalogdb.Open(admin, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer fresh.Close()
		for _, user := range []string{"admin", "bob"} {
			for _, value := range []string{"", "x"} {
				want := list(fresh, user, value)
				first := list(s, user, value)
				if diff := cmp.Diff(want, first); diff != "" {
					t.Errorf("%s, %s, value %q: the listing differs from a fresh one (-fresh +got):\n%s", what, user, value, diff)
				}
				// The state is the cluster's: a commit of the tests beside
				// this one, in other databases, changes it too. One of a
				// few repeats in a row comes from the cache.
				var statements []int64
				for range 20 {
					before := counter.n.Load()
					again := list(s, user, value)
					statements = append(statements, counter.n.Load()-before)
					if diff := cmp.Diff(want, again); diff != "" {
						t.Errorf("%s, %s, value %q: asked again, the listing differs from a fresh one (-fresh +got):\n%s", what, user, value, diff)
					}
					if statements[len(statements)-1] <= 3 {
						break
					}
				}
				if n := statements[len(statements)-1]; n > 3 {
					t.Errorf("%s, %s, value %q: asked again of an unchanged database, statements %v, want at most 3", what, user, value, statements)
				}
			}
			if objs, err := s.TagObjects(admin, "m", "pii", ""); err != nil || !slices.Equal(objs, list(fresh, user, "").Objs) {
				t.Errorf("%s: TagObjects: %v %v", what, objs, err)
			}
		}
	}
	check("created")
	must(s.CreateTable(admin, ns, semcat.TableCreate{Name: "late", Columns: []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}}))
	x := "x"
	_, _, err = s.AssociateTags(admin, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.late"},
		semcat.TagAssignments{Add: []semcat.TagValue{{Name: "pii", Value: &x}}, Valued: true})
	if err != nil {
		t.Fatal(err)
	}
	check("tagged")
	renamed := "sales2"
	must(s.AlterSchema(admin, semcat.Namespace{Metalake: "m", Catalog: "rel"}, "sales", []semcat.Update{{Type: semcat.UpdateRename, NewName: &renamed}}))
	check("renamed")
	ns.Schema = renamed
	if _, _, err := s.DropTable(admin, ns, "t3"); err != nil {
		t.Fatal(err)
	}
	check("dropped")
	if _, err := s.SetOwner(admin, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales2.t7"}, semcat.Owner{Name: "bob", Type: "USER"}); err != nil {
		t.Fatal(err)
	}
	check("owner set")
	if got := list(s, "bob", ""); !slices.Contains(got.Own, true) {
		t.Errorf("bob's listing after he was made an owner: no object he owns")
	}
}

// mustWrite fails the test on a write's error.
func mustWrite(t *testing.T) func(any, semcat.Position, error) {
	return func(_ any, _ semcat.Position, err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
}

// createSales creates metalake m, its catalog rel and schema rel.sales as
// ctx's user, and returns the schema's namespace.
func createSales(t *testing.T, ctx context.Context, svc interface {
	semcat.MetalakeService
	semcat.CatalogService
	semcat.SchemaService
}) semcat.Namespace {
	t.Helper()
	must := mustWrite(t)
	must(svc.CreateMetalake(ctx, semcat.MetalakeCreate{Name: "m"}))
	must(svc.CreateCatalog(ctx, "m", semcat.CatalogCreate{Name: "rel", Type: semcat.CatalogRelational}))
	must(svc.CreateSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, semcat.SchemaCreate{Name: "sales"}))
	return semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "sales"}
}
