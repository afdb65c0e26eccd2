package catalogdb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/semcat/semcat"
)

func grant(name semcat.Privilege, c semcat.Condition) semcat.PrivilegeGrant {
	return semcat.PrivilegeGrant{Name: name, Condition: c}
}

func object(typ semcat.ObjectType, fullName string, grants ...semcat.PrivilegeGrant) semcat.SecurableObject {
	return semcat.SecurableObject{FullName: fullName, Type: typ, Privileges: grants}
}

// ignoreAudit leaves the server-set audit out of comparisons.
var ignoreAudit = cmpopts.IgnoreFields(semcat.Role{}, "Audit", "ID")

func TestAccessControlRoundTrip(t *testing.T) {
	t.Parallel()
	ctx := ctxAlice
	s := MustOpenStore(t)
	seed(t, s)
	must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "rev", Definition: definition("", "revenue")})))

	bob, pos, err := s.CreateUser(ctx, "m", semcat.UserCreate{Name: "bob"})
	if err != nil || pos.IsZero() {
		t.Fatalf("CreateUser: %v %v", pos, err)
	}
	if bob.Name != "bob" || bob.Roles == nil || len(bob.Roles) != 0 || bob.Audit.Creator != "alice" {
		t.Errorf("created user %+v", bob)
	}
	if _, _, err := s.CreateUser(ctx, "m", semcat.UserCreate{Name: "bob"}); semcat.ErrorCode(err) != semcat.EEXISTS || semcat.ErrorEntity(err) != semcat.KindUser {
		t.Errorf("second CreateUser: %v, want EEXISTS of a user", err)
	}
	if _, _, err := s.CreateUser(ctx, "nope", semcat.UserCreate{Name: "bob"}); semcat.ErrorEntity(err) != semcat.KindMetalake {
		t.Errorf("CreateUser in a missing metalake: %v, want NoSuchMetalake", err)
	}

	// Objects come back grouped by level, then full name, privileges by name.
	req := semcat.RoleCreate{Name: "analyst", SecurableObjects: []semcat.SecurableObject{
		object("SEMANTIC_MODEL", "rel.sales.rev", grant(semcat.SelectSemanticModel, semcat.Allow)),
		object("TABLE", "rel.sales.orders", grant(semcat.SelectTable, semcat.Allow), grant(semcat.ModifyTable, semcat.Deny)),
		object("SCHEMA", "rel.sales", grant(semcat.UseSchema, semcat.Allow)),
		object("CATALOG", "rel", grant(semcat.UseCatalog, semcat.Allow)),
		object("METALAKE", "m", grant(semcat.CreateCatalog, semcat.Deny)),
		object("TABLE", "rel.sales.customers", grant(semcat.SelectTable, semcat.Allow)),
		object("CATALOG", "rel", grant(semcat.CreateSchema, semcat.Allow)), // merged with the other "rel"
	}}
	want := &semcat.Role{Name: "analyst", Properties: map[string]string{}, SecurableObjects: []semcat.SecurableObject{
		object("METALAKE", "m", grant(semcat.CreateCatalog, semcat.Deny)),
		object("CATALOG", "rel", grant(semcat.CreateSchema, semcat.Allow), grant(semcat.UseCatalog, semcat.Allow)),
		object("SCHEMA", "rel.sales", grant(semcat.UseSchema, semcat.Allow)),
		object("TABLE", "rel.sales.customers", grant(semcat.SelectTable, semcat.Allow)),
		object("TABLE", "rel.sales.orders", grant(semcat.ModifyTable, semcat.Deny), grant(semcat.SelectTable, semcat.Allow)),
		object("SEMANTIC_MODEL", "rel.sales.rev", grant(semcat.SelectSemanticModel, semcat.Allow)),
	}}
	created, pos, err := s.CreateRole(ctx, "m", req)
	if err != nil || pos.IsZero() {
		t.Fatalf("CreateRole: %v %v", pos, err)
	}
	if diff := cmp.Diff(want, created, ignoreAudit); diff != "" {
		t.Errorf("CreateRole (-want +got):\n%s", diff)
	}
	got, err := s.GetRole(ctx, "m", "analyst")
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(created, got); diff != "" {
		t.Errorf("GetRole differs from CreateRole (-create +get):\n%s", diff)
	}
	if n := count(t, s, `SELECT count(*) FROM role_privilege WHERE role_id = $1`, got.ID); n != 8 {
		t.Errorf("%d privilege rows, want 8", n)
	}
	if _, _, err := s.CreateRole(ctx, "m", semcat.RoleCreate{Name: "analyst"}); semcat.ErrorCode(err) != semcat.EEXISTS || semcat.ErrorEntity(err) != semcat.KindRole {
		t.Errorf("second CreateRole: %v, want EEXISTS of a role", err)
	}
	reader := must(t, w(s.CreateRole(ctx, "m", semcat.RoleCreate{Name: "reader"})))
	if reader.SecurableObjects == nil || len(reader.SecurableObjects) != 0 {
		t.Errorf("role without objects: %+v", reader.SecurableObjects)
	}

	// Full names follow renames; dropped objects disappear.
	rename := func(n string) []semcat.Update { return []semcat.Update{{Type: semcat.UpdateRename, NewName: &n}} }
	must(t, w(s.AlterSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, "sales", rename("sales2"))))
	ns2 := semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "sales2"}
	must(t, w(s.DropTable(ctx, ns2, "customers")))
	got, err = s.GetRole(ctx, "m", "analyst")
	if err != nil {
		t.Fatal(err)
	}
	want.SecurableObjects = []semcat.SecurableObject{
		want.SecurableObjects[0], want.SecurableObjects[1],
		object("SCHEMA", "rel.sales2", grant(semcat.UseSchema, semcat.Allow)),
		object("TABLE", "rel.sales2.orders", grant(semcat.ModifyTable, semcat.Deny), grant(semcat.SelectTable, semcat.Allow)),
		object("SEMANTIC_MODEL", "rel.sales2.rev", grant(semcat.SelectSemanticModel, semcat.Allow)),
	}
	if diff := cmp.Diff(want, got, ignoreAudit); diff != "" {
		t.Errorf("GetRole after rename and drop (-want +got):\n%s", diff)
	}

	// Grant twice, revoke, and GetUser agree.
	steps := []struct {
		name  string
		grant bool // else revoke
		roles []string
		want  []string
	}{
		{"grant both", true, []string{"reader", "analyst"}, []string{"analyst", "reader"}},
		{"grant again", true, []string{"analyst"}, []string{"analyst", "reader"}},
		{"revoke reader", false, []string{"reader"}, []string{"analyst"}},
		{"revoke reader again", false, []string{"reader"}, []string{"analyst"}},
	}
	for _, st := range steps {
		change := s.RevokeRoles
		if st.grant {
			change = s.GrantRoles
		}
		u, pos, err := change(ctx, "m", "bob", st.roles)
		if err != nil || pos.IsZero() {
			t.Fatalf("%s: %v %v", st.name, pos, err)
		}
		if diff := cmp.Diff(st.want, u.Roles); diff != "" {
			t.Errorf("%s: roles (-want +got):\n%s", st.name, diff)
		}
		got, err := s.GetUser(ctx, "m", "bob")
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(st.want, got.Roles); diff != "" {
			t.Errorf("%s: GetUser roles (-want +got):\n%s", st.name, diff)
		}
	}
	if n := count(t, s, `SELECT count(*) FROM outbox WHERE entity_kind = 'user' AND entity_id = $1`, bob.ID); n != 5 {
		t.Errorf("%d outbox rows for the user, want 5 (create, 2 grants, 2 revokes)", n)
	}
	if n := count(t, s, `SELECT count(*) FROM outbox WHERE entity_kind = 'role'`); n != 2 {
		t.Errorf("%d outbox rows for roles, want 2", n)
	}
	if _, err := s.GetUser(ctx, "m", "carol"); semcat.ErrorEntity(err) != semcat.KindUser || semcat.ErrorCode(err) != semcat.ENOTFOUND {
		t.Errorf("GetUser of a missing user: %v", err)
	}
	if _, err := s.GetRole(ctx, "m", "nope"); semcat.ErrorEntity(err) != semcat.KindRole || semcat.ErrorCode(err) != semcat.ENOTFOUND {
		t.Errorf("GetRole of a missing role: %v", err)
	}
}

func TestCreateRoleFailures(t *testing.T) {
	t.Parallel()
	ctx := ctxAlice
	s := MustOpenStore(t)
	seed(t, s)
	must(t, w(s.CreateRole(ctx, "m", semcat.RoleCreate{Name: "taken",
		SecurableObjects: []semcat.SecurableObject{object("CATALOG", "rel", grant(semcat.UseCatalog, semcat.Allow))}})))
	useRel := object("CATALOG", "rel", grant(semcat.UseCatalog, semcat.Allow))

	tests := []struct {
		name     string
		metalake string
		req      semcat.RoleCreate
		code     string
		kind     semcat.EntityKind // for ENOTFOUND, EEXISTS and a missing object (EINVALID, IllegalMetadataObjectException)
		prefix   string            // of the message, for EINVALID
	}{
		{"missing metalake", "nope", semcat.RoleCreate{Name: "r"}, semcat.ENOTFOUND, semcat.KindMetalake, ""},
		{"missing catalog", "m", semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{
			useRel, object("CATALOG", "nope", grant(semcat.UseCatalog, semcat.Allow))}}, semcat.EINVALID, semcat.KindCatalog, ""},
		{"missing schema", "m", semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{
			useRel, object("SCHEMA", "rel.nope", grant(semcat.UseSchema, semcat.Allow))}}, semcat.EINVALID, semcat.KindSchema, ""},
		{"missing table", "m", semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{
			useRel, object("TABLE", "rel.sales.nope", grant(semcat.SelectTable, semcat.Allow))}}, semcat.EINVALID, semcat.KindTable, ""},
		{"missing model", "m", semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{
			useRel, object("SEMANTIC_MODEL", "rel.sales.nope", grant(semcat.SelectSemanticModel, semcat.Allow))}}, semcat.EINVALID, semcat.KindSemanticModel, ""},
		{"table in a missing catalog", "m", semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{
			object("TABLE", "nope.sales.orders", grant(semcat.SelectTable, semcat.Allow))}}, semcat.EINVALID, semcat.KindCatalog, ""},
		{"not bindable", "m", semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{
			object("TABLE", "rel.sales.orders", grant(semcat.CreateTable, semcat.Allow))}}, semcat.EINVALID, "", "securableObjects[0].privileges[0].name: "},
		{"unknown privilege", "m", semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{
			useRel, object("CATALOG", "rel", grant("DROP_EVERYTHING", semcat.Allow))}}, semcat.EINVALID, "", "securableObjects[1].privileges[0].name: "},
		{"bad condition", "m", semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{
			object("CATALOG", "rel", grant(semcat.UseCatalog, "MAYBE"))}}, semcat.EINVALID, "", "securableObjects[0].privileges[0].condition: "},
		{"repeated privilege", "m", semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{
			useRel, object("CATALOG", "rel", grant(semcat.CreateSchema, semcat.Allow), grant(semcat.UseCatalog, semcat.Deny))}}, semcat.EINVALID, "", "securableObjects[1].privileges[1].name: "},
		{"other metalake", "m", semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{
			useRel, object("METALAKE", "other", grant(semcat.UseCatalog, semcat.Allow))}}, semcat.EINVALID, "", "securableObjects[1].fullName: "},
		{"too few parts", "m", semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{
			object("SCHEMA", "rel", grant(semcat.UseSchema, semcat.Allow))}}, semcat.EINVALID, "", "securableObjects[0].fullName: "},
		{"unknown type", "m", semcat.RoleCreate{Name: "r", SecurableObjects: []semcat.SecurableObject{
			object("COLUMN", "rel.sales.orders.amount", grant(semcat.SelectTable, semcat.Allow))}}, semcat.EINVALID, "", "securableObjects[0].type: "},
		{"bad name", "m", semcat.RoleCreate{Name: "a b"}, semcat.EINVALID, "", "name: "},
		{"name taken", "m", semcat.RoleCreate{Name: "taken", SecurableObjects: []semcat.SecurableObject{
			object("SCHEMA", "rel.sales", grant(semcat.UseSchema, semcat.Allow))}}, semcat.EEXISTS, semcat.KindRole, ""},
	}
	for _, tt := range tests {
		role, pos, err := s.CreateRole(ctx, tt.metalake, tt.req)
		if semcat.ErrorCode(err) != tt.code || role != nil || !pos.IsZero() {
			t.Errorf("%s: %v %v, want %s", tt.name, role, err, tt.code)
			continue
		}
		if tt.kind != "" && semcat.ErrorEntity(err) != tt.kind {
			t.Errorf("%s: error about a %q, want %q: %v", tt.name, semcat.ErrorEntity(err), tt.kind, err)
		}
		if msg := semcat.ErrorMessage(err); !strings.HasPrefix(msg, tt.prefix) {
			t.Errorf("%s: message %q, want prefix %q", tt.name, msg, tt.prefix)
		}
		// Nothing of a failed creation is left behind.
		if n := count(t, s, `SELECT count(*) FROM role_meta`); n != 1 {
			t.Errorf("%s: %d roles, want 1", tt.name, n)
		}
		if n := count(t, s, `SELECT count(*) FROM role_privilege`); n != 1 {
			t.Errorf("%s: %d privilege rows, want 1", tt.name, n)
		}
		if n := count(t, s, `SELECT count(*) FROM outbox WHERE entity_kind = 'role'`); n != 1 {
			t.Errorf("%s: %d outbox rows for roles, want 1", tt.name, n)
		}
	}
}

func TestGrantFailures(t *testing.T) {
	t.Parallel()
	ctx := ctxAlice
	s := MustOpenStore(t)
	seed(t, s)
	must(t, w(s.CreateUser(ctx, "m", semcat.UserCreate{Name: "bob"})))
	must(t, w(s.CreateRole(ctx, "m", semcat.RoleCreate{Name: "reader"})))
	must(t, w(s.GrantRoles(ctx, "m", "bob", []string{"reader"})))

	type change func(ctx context.Context, metalake, user string, roles []string) (*semcat.User, semcat.Position, error)
	for name, fn := range map[string]change{"grant": s.GrantRoles, "revoke": s.RevokeRoles} {
		tests := []struct {
			name     string
			metalake string
			user     string
			roles    []string
			code     string
			kind     semcat.EntityKind
		}{
			// Gravitino: IllegalRoleException, a 400.
			{"missing role", "m", "bob", []string{"nope"}, semcat.EINVALID, semcat.KindRole},
			{"one of two roles missing", "m", "bob", []string{"reader", "nope"}, semcat.EINVALID, semcat.KindRole},
			{"missing user", "m", "carol", []string{"reader"}, semcat.ENOTFOUND, semcat.KindUser},
			{"missing metalake", "nope", "bob", []string{"reader"}, semcat.ENOTFOUND, semcat.KindMetalake},
			{"no roles", "m", "bob", nil, semcat.EINVALID, ""},
			{"bad role name", "m", "bob", []string{"a b"}, semcat.EINVALID, ""},
		}
		for _, tt := range tests {
			u, pos, err := fn(ctx, tt.metalake, tt.user, tt.roles)
			if semcat.ErrorCode(err) != tt.code || semcat.ErrorEntity(err) != tt.kind || u != nil || !pos.IsZero() {
				t.Errorf("%s, %s: %v %v, want %s of a %q", name, tt.name, u, err, tt.code, tt.kind)
			}
		}
		got, err := s.GetUser(ctx, "m", "bob")
		if err != nil || !cmp.Equal(got.Roles, []string{"reader"}) {
			t.Errorf("%s: roles after failures: %v %v", name, got, err)
		}
	}
}

func TestOwners(t *testing.T) {
	t.Parallel()
	ctx := ctxAlice
	s := MustOpenStore(t)
	seed(t, s)
	must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "rev", Definition: definition("", "revenue")})))
	must(t, w(s.CreateUser(ctx, "m", semcat.UserCreate{Name: "bob"})))
	// Start from objects without owners, whoever created them.
	if _, err := s.Pool().Exec(context.Background(), `DELETE FROM owner_meta`); err != nil {
		t.Fatal(err)
	}
	bob := semcat.Owner{Name: "bob", Type: "USER"}
	objects := []semcat.ObjectRef{
		{Type: semcat.KindMetalake, FullName: "m"},
		{Type: semcat.KindCatalog, FullName: "rel"},
		{Type: semcat.KindSchema, FullName: "rel.sales"},
		{Type: semcat.KindTable, FullName: "rel.sales.orders"},
		{Type: semcat.KindSemanticModel, FullName: "rel.sales.rev"},
	}
	for _, obj := range objects {
		if o, err := s.GetOwner(ctx, "m", obj); err != nil || o != nil {
			t.Errorf("%v: owner before SetOwner: %v %v, want none", obj, o, err)
		}
		before := count(t, s, `SELECT count(*) FROM outbox WHERE entity_kind = $1`, string(obj.Type))
		pos, err := s.SetOwner(ctx, "m", obj, bob)
		if err != nil || pos.IsZero() {
			t.Fatalf("%v: SetOwner: %v %v", obj, pos, err)
		}
		if after := count(t, s, `SELECT count(*) FROM outbox WHERE entity_kind = $1`, string(obj.Type)); after != before+1 {
			t.Errorf("%v: SetOwner wrote %d outbox rows of its kind, want 1", obj, after-before)
		}
		o, err := s.GetOwner(ctx, "m", obj)
		if err != nil || o == nil || *o != bob {
			t.Errorf("%v: owner %v %v, want bob", obj, o, err)
		}
	}
	// Setting again replaces.
	must(t, w(s.CreateUser(ctx, "m", semcat.UserCreate{Name: "carol"})))
	carol := semcat.Owner{Name: "carol", Type: "USER"}
	if _, err := s.SetOwner(ctx, "m", objects[3], carol); err != nil {
		t.Fatal(err)
	}
	if o, err := s.GetOwner(ctx, "m", objects[3]); err != nil || o == nil || *o != carol {
		t.Errorf("owner after a second SetOwner: %v %v, want carol", o, err)
	}
	if n := count(t, s, `SELECT count(*) FROM owner_meta`); n != len(objects) {
		t.Errorf("%d owner rows, want %d", n, len(objects))
	}

	tests := []struct {
		name  string
		obj   semcat.ObjectRef
		owner semcat.Owner
		code  string
		kind  semcat.EntityKind
	}{
		{"not a user", objects[1], semcat.Owner{Name: "dave", Type: "USER"}, semcat.ENOTFOUND, semcat.KindUser},
		{"not a group", objects[1], semcat.Owner{Name: "bob", Type: "GROUP"}, semcat.ENOTFOUND, semcat.KindGroup},
		{"not an owner type", objects[1], semcat.Owner{Name: "bob", Type: "ROLE"}, semcat.EINVALID, ""},
		{"bad owner name", objects[1], semcat.Owner{Name: "", Type: "USER"}, semcat.EINVALID, ""},
		{"missing table", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.nope"}, bob, semcat.ENOTFOUND, semcat.KindTable},
		{"missing schema", semcat.ObjectRef{Type: semcat.KindSchema, FullName: "rel.nope"}, bob, semcat.ENOTFOUND, semcat.KindSchema},
		{"other metalake", semcat.ObjectRef{Type: semcat.KindMetalake, FullName: "other"}, bob, semcat.EINVALID, ""},
		{"missing tag", semcat.ObjectRef{Type: semcat.KindTag, FullName: "pii"}, bob, semcat.ENOTFOUND, semcat.KindTag},
		{"missing role", semcat.ObjectRef{Type: semcat.KindRole, FullName: "nope"}, bob, semcat.ENOTFOUND, semcat.KindRole},
		{"a user", semcat.ObjectRef{Type: semcat.KindUser, FullName: "bob"}, bob, semcat.EINVALID, ""},
	}
	for _, tt := range tests {
		pos, err := s.SetOwner(ctx, "m", tt.obj, tt.owner)
		if semcat.ErrorCode(err) != tt.code || semcat.ErrorEntity(err) != tt.kind || !pos.IsZero() {
			t.Errorf("%s: %v, want %s of a %q", tt.name, err, tt.code, tt.kind)
		}
	}
	if o, err := s.GetOwner(ctx, "m", objects[1]); err != nil || o == nil || *o != bob {
		t.Errorf("owner after failed SetOwners: %v %v, want bob", o, err)
	}
	if _, err := s.GetOwner(ctx, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.nope"}); semcat.ErrorEntity(err) != semcat.KindTable {
		t.Errorf("GetOwner of a missing table: %v", err)
	}
	if _, err := s.GetOwner(ctx, "nope", objects[0]); semcat.ErrorEntity(err) != semcat.KindMetalake {
		t.Errorf("GetOwner in a missing metalake: %v", err)
	}

	// A dropped and recreated table does not inherit the old one's owner.
	must(t, w(s.DropTable(ctx, salesNS, "orders")))
	must(t, w(s.CreateTable(ctx, salesNS, semcat.TableCreate{Name: "orders", Columns: cols("order_id")})))
	if o, err := s.GetOwner(ctx, "m", objects[3]); err != nil || (o != nil && o.Name == "carol") {
		t.Errorf("owner of a recreated table: %v %v, want not carol", o, err)
	}
}
