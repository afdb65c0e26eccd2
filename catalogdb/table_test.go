package catalogdb_test

import (
	"slices"
	"testing"

	"github.com/semcat/semcat"
)

// TestMoveTable: a rename with newSchemaName moves a table to another
// schema of its catalog, keeping its id (tags stay); a missing target
// schema or a name taken there fails and moves nothing.
func TestMoveTable(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	ctx := ctxAlice
	archive := semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "archive"}
	must(t, w(s.CreateSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, semcat.SchemaCreate{Name: "archive"})))
	must(t, w(s.CreateTable(ctx, archive, semcat.TableCreate{Name: "customers", Columns: cols("id")})))
	must(t, w(s.CreateTag(ctx, "m", semcat.TagCreate{Name: "pii"})))
	must(t, w(s.AssociateTags(ctx, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.orders"},
		semcat.TagAssociation{TagsToAdd: []string{"pii"}}.Assignments())))
	move := func(name, newName, schema string) error {
		_, _, err := s.AlterTable(ctx, salesNS, name, []semcat.Update{{Type: semcat.UpdateRename, NewName: &newName, NewSchemaName: &schema}})
		return err
	}

	if err := move("orders", "orders", "nope"); semcat.ErrorCode(err) != semcat.ENOTFOUND || semcat.ErrorEntity(err) != semcat.KindSchema {
		t.Errorf("move into a missing schema: %v, want NoSuchSchema", err)
	}
	if err := move("customers", "customers", "archive"); semcat.ErrorCode(err) != semcat.EEXISTS || semcat.ErrorMessage(err) != "table 'm.rel.archive.customers' already exists" {
		t.Errorf("move onto a taken name: %v", err)
	}
	if names, _ := s.ListTables(ctx, salesNS); !slices.Equal(names, []string{"customers", "orders"}) {
		t.Errorf("failed moves changed sales: %v", names)
	}

	if err := move("orders", "old_orders", "archive"); err != nil {
		t.Fatal(err)
	}
	if names, _ := s.ListTables(ctx, salesNS); !slices.Equal(names, []string{"customers"}) {
		t.Errorf("sales after the move: %v", names)
	}
	moved, err := s.GetTable(ctx, archive, "old_orders")
	if err != nil || len(moved.Columns) != 3 {
		t.Fatalf("moved table: %+v, %v", moved, err)
	}
	if tags, _ := s.ListObjectTags(ctx, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.archive.old_orders"}); !slices.Equal(tags, []string{"pii"}) {
		t.Errorf("tags of the moved table: %v", tags)
	}
	// newSchemaName naming the table's own schema is a plain rename.
	if _, _, err := s.AlterTable(ctx, archive, "old_orders", []semcat.Update{{Type: semcat.UpdateRename, NewName: str("orders"), NewSchemaName: str("archive")}}); err != nil {
		t.Fatal(err)
	}
	// Only a table moves.
	if _, _, err := s.AlterSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, "archive", []semcat.Update{{Type: semcat.UpdateRename, NewName: str("a2"), NewSchemaName: str("x")}}); semcat.ErrorMessage(err) != "updates[0].newSchemaName: not allowed for update type 'rename' (only a table moves to another schema)" {
		t.Errorf("a schema's rename with newSchemaName: %v", err)
	}
}
