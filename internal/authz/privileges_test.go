package authz_test

import (
	"slices"
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/internal/authz"
)

// TestObjectPrivileges: what each caller may do with table orders, by the
// rules the operations apply: a grant through a role (MODIFY_TABLE on the
// schema) lets a non-owner alter and tag it, a DENY takes that away from a
// grantee but not from the owner (SPEC §6, revision 3), and a reader may
// only see it. Each answer is then checked against the operation itself.
func TestObjectPrivileges(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	use := on("METALAKE", "m", semcat.Allow, semcat.UseCatalog, semcat.UseSchema)
	f.role("alice", "modifier", use, on("SCHEMA", "rel.sales", semcat.Allow, semcat.ModifyTable))
	f.role("bob", "reader", use, on("SCHEMA", "rel.sales", semcat.Allow, semcat.SelectTable))
	f.role("carol", "denied", use, on("SCHEMA", "rel.sales", semcat.Allow, semcat.SelectTable, semcat.ModifyTable), on("TABLE", "rel.sales.orders", semcat.Deny, semcat.ModifyTable))
	f.role("dave", "owner_denied", use, on("METALAKE", "m", semcat.Deny, semcat.ModifyTable, semcat.SelectTable))
	orders := semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.orders"}
	if _, err := f.svc.SetOwner(as("admin"), "m", orders, semcat.Owner{Name: "dave", Type: "USER"}); err != nil {
		t.Fatal(err)
	}
	all := []semcat.Privilege{semcat.UseCatalog, semcat.UseSchema, semcat.SelectTable, semcat.ModifyTable}
	for _, tc := range []struct {
		user                  string
		privileges            []semcat.Privilege
		alter, drop, setOwner bool
	}{
		{"admin", append(slices.Clone(all), semcat.ManageGrants), true, true, true},
		{"alice", all, true, false, false},
		{"bob", all[:3], false, false, false},
		{"carol", all[:3], false, false, false},
		{"dave", all, true, true, true},
	} {
		got, err := f.svc.ObjectPrivileges(as(tc.user), "m", orders)
		if err != nil {
			t.Fatalf("%s: %v", tc.user, err)
		}
		want := authz.ObjectAccess{User: tc.user, Privileges: tc.privileges, Alter: tc.alter, Drop: tc.drop, SetOwner: tc.setOwner}
		if got.User != want.User || !slices.Equal(got.Privileges, want.Privileges) || got.Alter != want.Alter || got.Drop != want.Drop || got.SetOwner != want.SetOwner {
			t.Errorf("%s: got %+v, want %+v", tc.user, *got, want)
		}
		// The answer is the operation's: tagging (the page's edit) passes
		// exactly when alter is said.
		_, _, err = f.svc.AssociateTags(as(tc.user), "m", orders, semcat.TagAssignments{})
		if (err == nil) != tc.alter {
			t.Errorf("%s: alter %v, but tagging answers %v", tc.user, tc.alter, err)
		}
	}
	// The schema: alice may create nothing there and alter nothing.
	got, err := f.svc.ObjectPrivileges(as("alice"), "m", semcat.ObjectRef{Type: semcat.KindSchema, FullName: "rel.sales"})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Privileges, []semcat.Privilege{semcat.UseCatalog, semcat.UseSchema}) || got.Alter || got.Drop || got.SetOwner {
		t.Errorf("alice on the schema: got %+v", *got)
	}
	// A model: the reader of tables holds nothing on it and may not see it,
	// which answers as for a missing model.
	_, err = f.svc.ObjectPrivileges(as("bob"), "m", semcat.ObjectRef{Type: semcat.KindSemanticModel, FullName: "rel.sales.visible_model"})
	if semcat.ErrorCode(err) != semcat.ENOTFOUND {
		t.Errorf("bob on a model he may not see: %v, want not found", err)
	}
}
