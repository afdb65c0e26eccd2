package authz_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/semcat/semcat"
)

// TestTagObjectsAsPerObjectCheck: the tag-objects listing, which loads the
// facts about all its objects at once, keeps exactly the objects that the
// per-object check (the one every read of one object makes) lets each user
// see: owners at each level, ALLOW and DENY at each level, members with no
// grants, a corrupt grant, and a non-member, who is refused.
func TestTagObjectsAsPerObjectCheck(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	admin := as("admin")
	hrNS := semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "hr"}
	otherNS := semcat.Namespace{Metalake: "m", Catalog: "rel2", Schema: "s2"}
	f.ok(f.svc.CreateSchema(admin, semcat.Namespace{Metalake: "m", Catalog: "rel"}, semcat.SchemaCreate{Name: "hr"}))
	f.ok(f.svc.CreateCatalog(admin, "m", semcat.CatalogCreate{Name: "rel2", Type: semcat.CatalogRelational}))
	f.ok(f.svc.CreateSchema(admin, semcat.Namespace{Metalake: "m", Catalog: "rel2"}, semcat.SchemaCreate{Name: "s2"}))
	long := []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}
	for _, tb := range []struct {
		ns   semcat.Namespace
		name string
	}{{salesNS, "refunds"}, {hrNS, "staff"}, {hrNS, "salaries"}, {otherNS, "x"}} {
		f.ok(f.svc.CreateTable(admin, tb.ns, semcat.TableCreate{Name: tb.name, Columns: long}))
	}
	f.ok(f.svc.CreateTag(admin, "m", semcat.TagCreate{Name: "pii"}))
	tagged := []semcat.ObjectRef{
		{Type: semcat.KindCatalog, FullName: "rel"}, {Type: semcat.KindCatalog, FullName: "rel2"},
		{Type: semcat.KindSchema, FullName: "rel.sales"}, {Type: semcat.KindSchema, FullName: "rel.hr"}, {Type: semcat.KindSchema, FullName: "rel2.s2"},
		{Type: semcat.KindTable, FullName: "rel.sales.orders"}, {Type: semcat.KindTable, FullName: "rel.sales.refunds"},
		{Type: semcat.KindTable, FullName: "rel.hr.staff"}, {Type: semcat.KindTable, FullName: "rel.hr.salaries"}, {Type: semcat.KindTable, FullName: "rel2.s2.x"},
		{Type: semcat.KindColumn, FullName: "rel.sales.orders.id"}, {Type: semcat.KindColumn, FullName: "rel.hr.staff.id"},
		{Type: semcat.KindSemanticModel, FullName: "rel.sales.visible_model"}, {Type: semcat.KindSemanticModel, FullName: "rel.sales.secret_model"},
	}
	for _, o := range tagged {
		f.ok(f.svc.AssociateTags(admin, "m", o, semcat.TagAssociation{TagsToAdd: []string{"pii"}}.Assignments()))
	}
	use := []semcat.Privilege{semcat.UseCatalog, semcat.UseSchema}
	// alice: everything at the metalake, DENY on one table, one model and
	// one catalog.
	f.role("alice", "analyst", on("METALAKE", "m", semcat.Allow, append(use, semcat.SelectTable, semcat.SelectSemanticModel)...),
		on("TABLE", "rel.sales.orders", semcat.Deny, semcat.SelectTable),
		on("SEMANTIC_MODEL", "rel.sales.secret_model", semcat.Deny, semcat.SelectSemanticModel),
		on("CATALOG", "rel2", semcat.Deny, semcat.UseCatalog))
	// bob: ALLOW at each level below the metalake, for one path only.
	f.role("bob", "narrow", on("CATALOG", "rel", semcat.Allow, semcat.UseCatalog), on("SCHEMA", "rel.sales", semcat.Allow, semcat.UseSchema),
		on("TABLE", "rel.sales.orders", semcat.Allow, semcat.ModifyTable))
	// carol owns schema hr and nothing else: its tables, not the schema
	// itself, whose catalog she may not use.
	f.setOwner(semcat.ObjectRef{Type: semcat.KindSchema, FullName: "rel.hr"}, "carol")
	// dave owns a table he is denied SELECT on (DENY does not apply to
	// owners), and is shut out of schema hr.
	f.role("dave", "reader", on("METALAKE", "m", semcat.Allow, use...), on("TABLE", "rel.sales.orders", semcat.Deny, semcat.SelectTable),
		on("SCHEMA", "rel.hr", semcat.Deny, semcat.UseSchema))
	f.setOwner(semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.orders"}, "dave")
	f.setOwner(semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.hr.staff"}, "dave")
	f.setOwner(semcat.ObjectRef{Type: semcat.KindCatalog, FullName: "rel2"}, "dave")
	f.ok(f.svc.CreateUser(admin, "m", semcat.UserCreate{Name: "erin"}))
	// erin: SELECT on two tables, one through a corrupt grant.
	f.role("erin", "corrupt", on("METALAKE", "m", semcat.Allow, use...), on("TABLE", "rel.sales.refunds", semcat.Allow, semcat.SelectTable),
		on("TABLE", "rel.hr.staff", semcat.Allow, semcat.SelectTable))
	if _, err := f.store.Pool().Exec(context.Background(), `UPDATE role_privilege SET privilege = 'SELECT_EVERYTHING'
		WHERE role_id = (SELECT role_id FROM role_meta WHERE role_name = 'corrupt') AND object_type = 'table'
		AND object_id = (SELECT table_id FROM table_meta WHERE table_name = 'staff')`); err != nil {
		t.Fatal(err)
	}
	f.ok(f.svc.CreateUser(admin, "m", semcat.UserCreate{Name: "frank"})) // a member with no grants

	names := func(os []semcat.TaggedObject) []string {
		out := []string{}
		for _, o := range os {
			out = append(out, string(o.Type)+":"+o.FullName)
		}
		return out
	}
	for _, tt := range []struct {
		user string
		want []string // nil: not checked by hand, only against the per-object check
	}{
		{"admin", nil},
		{"alice", []string{"catalog:rel", "schema:rel.hr", "schema:rel.sales", "table:rel.hr.salaries", "table:rel.hr.staff",
			"table:rel.sales.refunds", "column:rel.hr.staff.id", "semantic_model:rel.sales.visible_model"}},
		{"bob", []string{"catalog:rel", "schema:rel.sales", "table:rel.sales.orders", "column:rel.sales.orders.id"}},
		{"carol", []string{"table:rel.hr.salaries", "table:rel.hr.staff", "column:rel.hr.staff.id"}},
		{"dave", nil},
		{"erin", []string{"catalog:rel", "catalog:rel2", "schema:rel.hr", "schema:rel.sales", "schema:rel2.s2", "table:rel.sales.refunds"}},
		{"frank", []string{}},
	} {
		ctx := as(tt.user)
		got, err := f.svc.TagObjects(ctx, "m", "pii", "")
		if err != nil {
			t.Errorf("%s: %v", tt.user, err)
			continue
		}
		want := []string{}
		for _, o := range tagged {
			if _, err := f.svc.ListObjectTags(ctx, "m", o); err == nil {
				want = append(want, string(o.Type)+":"+o.FullName)
			} else if c := semcat.ErrorCode(err); c != semcat.ENOTFOUND && c != semcat.EFORBIDDEN {
				t.Fatalf("%s: check %v: %v", tt.user, o, err)
			}
		}
		gotNames := names(got)
		sorted := slices.Clone(gotNames)
		slices.Sort(sorted)
		slices.Sort(want)
		if !slices.Equal(sorted, want) {
			t.Errorf("%s: the listing keeps %v\nthe per-object check %v", tt.user, gotNames, want)
		}
		if tt.want != nil && !slices.Equal(gotNames, tt.want) {
			t.Errorf("%s: got %v\nwant %v", tt.user, gotNames, tt.want)
		}
	}
	if !strings.Contains(f.log.String(), "rel.hr.staff") {
		t.Errorf("the object hidden by a corrupt grant was not logged:\n%s", f.log.String())
	}
	if got, err := f.svc.TagObjects(as("stranger"), "m", "pii", ""); semcat.ErrorCode(err) != semcat.ENOTFOUND {
		t.Errorf("a non-member: %v %v, want ENOTFOUND (to a non-member the metalake does not exist)", got, err)
	}
	// The owner of the metalake sees all, and a value filter still applies.
	if got, err := f.svc.TagObjects(admin, "m", "pii", ""); err != nil || len(got) != len(tagged) {
		t.Errorf("admin: %v %v, want all %d", names(got), err, len(tagged))
	}
}

// setOwner makes user the owner of obj in metalake m.
func (f *fixture) setOwner(obj semcat.ObjectRef, user string) {
	f.t.Helper()
	if _, err := f.svc.SetOwner(as("admin"), "m", obj, semcat.Owner{Name: user, Type: "USER"}); err != nil {
		f.t.Fatal(err)
	}
}

// TestListMetalakesMembership: the metalake listing keeps those the user
// is a member of or owns, as a load of each lets through.
func TestListMetalakesMembership(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	admin := as("admin")
	for _, m := range []string{"n", "o"} {
		f.ok(f.svc.CreateMetalake(admin, semcat.MetalakeCreate{Name: m}))
	}
	f.ok(f.svc.CreateUser(admin, "n", semcat.UserCreate{Name: "bob"}))
	// zed owns o but is no longer one of its users (a state the store
	// refuses to reach, but the rules answer for).
	f.ok(f.svc.CreateUser(admin, "o", semcat.UserCreate{Name: "zed"}))
	if _, err := f.svc.SetOwner(admin, "o", semcat.ObjectRef{Type: semcat.KindMetalake, FullName: "o"}, semcat.Owner{Name: "zed", Type: "USER"}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.store.Pool().Exec(context.Background(), `UPDATE user_meta SET deleted_at = 1 WHERE user_name = 'zed'`); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ user, want string }{
		{"bob", "m,n"},
		{"zed", "o"},
		{"alice", "m"},
		{"stranger", ""},
		{"admin", "m,n,o"}, // a service admin
	} {
		ms, err := f.svc.ListMetalakes(as(tt.user))
		var got []string
		for _, m := range ms {
			got = append(got, m.Name)
		}
		if err != nil || strings.Join(got, ",") != tt.want {
			t.Errorf("%s: %v %v, want %s", tt.user, got, err, tt.want)
		}
		for _, m := range []string{"m", "n", "o"} {
			if _, err := f.svc.GetMetalake(as(tt.user), m); (err == nil) != slices.Contains(got, m) {
				t.Errorf("%s: lists %v, load of %s: %v", tt.user, got, m, err)
			}
		}
	}
}
