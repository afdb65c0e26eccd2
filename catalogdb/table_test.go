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

// TestColumnTags: a top-level column carries tags of its own and inherits
// its table's; a renamed column keeps them, a deleted or replaced one
// loses them, and a tag lists the columns it is on.
func TestColumnTags(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	ctx := ctxAlice
	for _, n := range []string{"pii", "gold"} {
		must(t, w(s.CreateTag(ctx, "m", semcat.TagCreate{Name: n})))
	}
	col := func(name string) semcat.ObjectRef {
		return semcat.ObjectRef{Type: semcat.KindColumn, FullName: "rel.sales.orders." + name}
	}
	orders := semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.orders"}
	must(t, w(s.AssociateTags(ctx, "m", orders, semcat.TagAssociation{TagsToAdd: []string{"gold"}}.Assignments())))
	if got := must(t, w(s.AssociateTags(ctx, "m", col("customer_id"), semcat.TagAssociation{TagsToAdd: []string{"pii"}}.Assignments()))); !slices.Equal(got, []string{"pii"}) {
		t.Errorf("column tags: %v", got)
	}
	if _, _, err := s.AssociateTags(ctx, "m", col("nope"), semcat.TagAssociation{TagsToAdd: []string{"pii"}}.Assignments()); semcat.ErrorEntity(err) != semcat.KindColumn {
		t.Errorf("tagging a missing column: %v", err)
	}
	names := func(obj semcat.ObjectRef) []string {
		t.Helper()
		got, err := s.ListObjectTags(ctx, "m", obj)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := names(col("customer_id")); !slices.Equal(got, []string{"pii", "gold"}) {
		t.Errorf("column with its table's tag: %v", got)
	}
	if got := names(col("amount")); !slices.Equal(got, []string{"gold"}) {
		t.Errorf("untagged column: %v", got)
	}
	if got := names(orders); !slices.Equal(got, []string{"gold"}) {
		t.Errorf("the table does not inherit its column's tags: %v", got)
	}
	objs, err := s.TagObjects(ctx, "m", "pii", "")
	if err != nil || len(objs) != 1 || objs[0] != (semcat.TaggedObject{Type: semcat.KindColumn, FullName: "rel.sales.orders.customer_id"}) {
		t.Errorf("pii's objects: %v %v", objs, err)
	}

	// Renamed, the column keeps its tags; deleted, it loses them, and a new
	// column of the old name starts without.
	alter := func(updates ...semcat.Update) {
		t.Helper()
		if _, _, err := s.AlterTable(ctx, salesNS, "orders", updates); err != nil {
			t.Fatal(err)
		}
	}
	alter(semcat.Update{Type: semcat.UpdateRenameColumn, OldFieldName: []string{"customer_id"}, NewFieldName: str("buyer")})
	if got := names(col("buyer")); !slices.Equal(got, []string{"pii", "gold"}) {
		t.Errorf("renamed column: %v", got)
	}
	if objs, _ := s.TagObjects(ctx, "m", "pii", ""); len(objs) != 1 || objs[0].FullName != "rel.sales.orders.buyer" {
		t.Errorf("pii's objects after the rename: %v", objs)
	}
	f := false
	alter(semcat.Update{Type: semcat.UpdateDeleteColumn, FieldName: []string{"buyer"}, IfExists: &f},
		semcat.Update{Type: semcat.UpdateAddColumn, FieldName: []string{"buyer"}, ColumnType: &semcat.Type{Name: "long"}})
	if got := names(col("buyer")); !slices.Equal(got, []string{"gold"}) {
		t.Errorf("a new column of a deleted one's name: %v", got)
	}
	must(t, w(s.AssociateTags(ctx, "m", col("amount"), semcat.TagAssociation{TagsToAdd: []string{"pii"}}.Assignments())))
	alter(semcat.Update{Type: semcat.UpdateReplaceColumns, Columns: cols("order_id", "amount")})
	if got := names(col("amount")); !slices.Equal(got, []string{"pii", "gold"}) {
		t.Errorf("a column kept by replaceColumns: %v", got)
	}
	alter(semcat.Update{Type: semcat.UpdateReplaceColumns, Columns: cols("order_id")})
	if objs, _ := s.TagObjects(ctx, "m", "pii", ""); len(objs) != 0 {
		t.Errorf("pii's objects after its columns went: %v", objs)
	}
}
