package catalogdb_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
)

// live counts the live rows of a table.
func live(tb testing.TB, s *catalogdb.Store, table string) int {
	return count(tb, s, `SELECT count(*) FROM `+table+` WHERE deleted_at = 0`)
}

func TestDropNonEmptyNeedsForceOrCascade(t *testing.T) {
	t.Parallel()
	ctx := ctxAlice
	relNS := semcat.Namespace{Metalake: "m", Catalog: "rel"}
	tests := []struct {
		name      string
		drop      func(s *catalogdb.Store, force bool) (bool, semcat.Position, error)
		disable   func(s *catalogdb.Store, inUse bool) (semcat.Position, error) // nil: the entity cannot be disabled
		leftAlive map[string]int                                                // live rows after a forced drop
	}{
		{"schema", func(s *catalogdb.Store, f bool) (bool, semcat.Position, error) {
			return s.DropSchema(ctx, relNS, "sales", f)
		}, nil,
			map[string]int{"metalake_meta": 1, "catalog_meta": 2, "schema_meta": 0, "table_meta": 0, "semantic_model_meta": 0, "semantic_model_metric_meta": 0}},
		{"catalog", func(s *catalogdb.Store, f bool) (bool, semcat.Position, error) {
			return s.DropCatalog(ctx, "m", "rel", f)
		}, func(s *catalogdb.Store, inUse bool) (semcat.Position, error) {
			return s.SetCatalogInUse(ctx, "m", "rel", inUse)
		},
			map[string]int{"metalake_meta": 1, "catalog_meta": 1, "schema_meta": 0, "table_meta": 0, "semantic_model_meta": 0, "semantic_model_version_info": 0}},
		{"metalake", func(s *catalogdb.Store, f bool) (bool, semcat.Position, error) { return s.DropMetalake(ctx, "m", f) },
			func(s *catalogdb.Store, inUse bool) (semcat.Position, error) {
				return s.SetMetalakeInUse(ctx, "m", inUse)
			},
			map[string]int{"metalake_meta": 0, "catalog_meta": 0, "schema_meta": 0, "table_meta": 0, "semantic_model_metric_meta": 0, "tag_meta": 0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := MustOpenStore(t)
			seed(t, s)
			must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "sales", Definition: definition("", "a", "b")})))
			must(t, w(s.CreateTag(ctx, "m", semcat.TagCreate{Name: "pii"})))
			outbox := count(t, s, `SELECT count(*) FROM outbox`)

			if tt.disable != nil {
				// Enabled: refused as in use, whatever it holds.
				dropped, pos, err := tt.drop(s, false)
				if semcat.ErrorCode(err) != semcat.EINUSE || dropped || !pos.IsZero() {
					t.Fatalf("drop of an enabled %s without force: %v %v, want EINUSE", tt.name, dropped, err)
				}
				if _, err := tt.disable(s, false); err != nil {
					t.Fatal(err)
				}
				outbox = count(t, s, `SELECT count(*) FROM outbox`)
			}
			dropped, pos, err := tt.drop(s, false)
			if semcat.ErrorCode(err) != semcat.ENOTEMPTY || dropped || !pos.IsZero() {
				t.Fatalf("drop without force: %v %v, want ENOTEMPTY", dropped, err)
			}
			if live(t, s, "table_meta") != 2 || live(t, s, "semantic_model_metric_meta") != 2 || count(t, s, `SELECT count(*) FROM outbox`) != outbox {
				t.Fatal("a refused drop changed something")
			}

			if tt.disable != nil {
				// force drops an enabled one too.
				if _, err := tt.disable(s, true); err != nil {
					t.Fatal(err)
				}
			}
			dropped, pos, err = tt.drop(s, true)
			if err != nil || !dropped || pos.IsZero() {
				t.Fatalf("drop with force: %v %v %v", dropped, pos, err)
			}
			for table, want := range tt.leftAlive {
				if got := live(t, s, table); got != want {
					t.Errorf("%s: %d live rows, want %d", table, got, want)
				}
			}
			dropped, pos, err = tt.drop(s, true)
			if err != nil || dropped || !pos.IsZero() {
				t.Errorf("second drop: %v %v %v, want dropped=false", dropped, pos, err)
			}
		})
	}
}

func TestDropMissingIsFalse(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	ctx := ctxAlice
	checks := map[string]func() (bool, semcat.Position, error){
		"metalake": func() (bool, semcat.Position, error) { return s.DropMetalake(ctx, "nope", false) },
		"catalog":  func() (bool, semcat.Position, error) { return s.DropCatalog(ctx, "m", "nope", false) },
		"schema": func() (bool, semcat.Position, error) {
			return s.DropSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, "nope", false)
		},
		"table": func() (bool, semcat.Position, error) { return s.DropTable(ctx, salesNS, "nope") },
		"model": func() (bool, semcat.Position, error) { return s.DropSemanticModel(ctx, salesNS, "nope", 0) },
		"tag":   func() (bool, semcat.Position, error) { return s.DropTag(ctx, "m", "nope") },
	}
	for name, drop := range checks {
		if dropped, _, err := drop(); err != nil || dropped {
			t.Errorf("%s: dropped=%v err=%v, want false, nil", name, dropped, err)
		}
	}
}

func TestOutboxFollowsCommits(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	ctx := context.Background()
	rows := func() int { return count(t, s, `SELECT count(*) FROM outbox`) }

	before := rows()
	tbl, pos, err := s.CreateTable(ctx, salesNS, semcat.TableCreate{Name: "t1", Columns: cols("a")})
	if err != nil {
		t.Fatal(err)
	}
	var txid uint64
	var kind string
	var id int64
	if err := s.Pool().QueryRow(ctx, `SELECT txid::text::bigint, entity_kind, entity_id FROM outbox ORDER BY seq DESC LIMIT 1`).Scan(&txid, &kind, &id); err != nil {
		t.Fatal(err)
	}
	if rows() != before+1 || kind != "table" || id != tbl.ID || txid != pos.TxID {
		t.Errorf("create wrote outbox row (%s %d tx %d), position %d", kind, id, txid, pos.TxID)
	}

	// Failed writes roll back and leave no outbox row.
	before = rows()
	failures := []func() error{
		func() error {
			_, _, err := s.CreateTable(ctx, salesNS, semcat.TableCreate{Name: "t1", Columns: cols("a")})
			return err
		},
		func() error {
			_, _, err := s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "bad", Definition: func() *semcat.Definition {
				d := definition("", "x")
				d.Datasets[0].PrimaryKey = []string{"nope"}
				return d
			}()})
			return err
		},
		func() error {
			v := "x"
			_, _, err := s.AlterTable(ctx, salesNS, "t1", []semcat.Update{{Type: semcat.UpdateRename, NewName: &v}, {Type: semcat.UpdateRename, NewName: str("orders")}})
			return err
		},
		func() error {
			_, _, err := s.AssociateTags(ctx, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.nope"}, semcat.TagAssociation{TagsToAdd: []string{"missing"}}.Assignments())
			return err
		},
	}
	for i, f := range failures {
		if err := f(); err == nil {
			t.Errorf("failure %d succeeded", i)
		}
	}
	if got := rows(); got != before {
		t.Errorf("failed writes left %d outbox rows", got-before)
	}
	if n := count(t, s, `SELECT count(*) FROM table_meta WHERE table_name IN ('x', 'bad')`); n != 0 {
		t.Errorf("failed writes left %d rows", n)
	}
}

func TestTagsFollowObjects(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	ctx := ctxAlice
	for _, n := range []string{"Tag1", "Tag22", "pii"} {
		must(t, w(s.CreateTag(ctx, "m", semcat.TagCreate{Name: n})))
	}
	obj := semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.orders"}
	got := must(t, w(s.AssociateTags(ctx, "m", obj, semcat.TagAssociation{TagsToAdd: []string{"Tag22", "Tag1", "pii"}, TagsToRemove: []string{"pii"}}.Assignments())))
	if len(got) != 2 || got[0] != "Tag1" || got[1] != "Tag22" {
		t.Errorf("tags %v, want [Tag1 Tag22]", got)
	}
	// A tag that does not exist is ignored, as in Gravitino.
	got = must(t, w(s.AssociateTags(ctx, "m", obj, semcat.TagAssociation{TagsToAdd: []string{"nope"}, TagsToRemove: []string{"nada"}}.Assignments())))
	if strings.Join(got, ",") != "Tag1,Tag22" {
		t.Errorf("after naming tags that do not exist: %v, want [Tag1 Tag22]", got)
	}
	// A tag in both lists is left as it was, attached or not (as in
	// Gravitino).
	must(t, w(s.AssociateTags(ctx, "m", obj, semcat.TagAssociation{TagsToAdd: []string{"pii"}}.Assignments())))
	got = must(t, w(s.AssociateTags(ctx, "m", obj, semcat.TagAssociation{TagsToAdd: []string{"pii"}, TagsToRemove: []string{"pii", "Tag1"}}.Assignments())))
	if len(got) != 2 || got[0] != "Tag22" || got[1] != "pii" {
		t.Errorf("pii in both lists, Tag1 removed: tags %v, want [Tag22 pii]", got)
	}
	must(t, w(s.AssociateTags(ctx, "m", obj, semcat.TagAssociation{TagsToAdd: []string{"Tag1"}, TagsToRemove: []string{"pii"}}.Assignments())))
	// Adding a tag the object holds is TagAlreadyAssociatedException, and
	// nothing of the request is applied.
	_, _, err := s.AssociateTags(ctx, "m", obj, semcat.TagAssociation{TagsToAdd: []string{"pii", "Tag22"}, TagsToRemove: []string{"Tag1"}}.Assignments())
	var e *semcat.Error
	if !errors.As(err, &e) || e.Code != semcat.EEXISTS || e.Type != "TagAlreadyAssociatedException" || !strings.Contains(e.Message, "'Tag22'") {
		t.Errorf("adding a held tag: %v, want EEXISTS TagAlreadyAssociatedException naming Tag22", err)
	}
	if got, _ := s.ListObjectTags(ctx, "m", obj); strings.Join(got, ",") != "Tag1,Tag22" {
		t.Errorf("after the refused request: %v, want [Tag1 Tag22]", got)
	}
	if dropped, _, err := s.DropTag(ctx, "m", "Tag1"); !dropped || err != nil {
		t.Fatalf("drop tag: %v %v", dropped, err)
	}
	if got, _ := s.ListObjectTags(ctx, "m", obj); len(got) != 1 || got[0] != "Tag22" {
		t.Errorf("after dropping Tag1: %v", got)
	}
	// A dropped and recreated object starts with no tags.
	if _, _, err := s.DropTable(ctx, salesNS, "orders"); err != nil {
		t.Fatal(err)
	}
	must(t, w(s.CreateTable(ctx, salesNS, semcat.TableCreate{Name: "orders", Columns: cols("order_id")})))
	if got, err := s.ListObjectTags(ctx, "m", obj); err != nil || len(got) != 0 {
		t.Errorf("recreated table has tags %v (%v)", got, err)
	}
}

// TestAssociateManyTags: tags are added in one lookup and one insert; a
// request naming a tag twice still works, and names that are no tag (never
// were, or dropped) are ignored, as in Gravitino.
func TestAssociateManyTags(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	ctx := ctxAlice
	for _, n := range []string{"a", "b", "c", "gone"} {
		must(t, w(s.CreateTag(ctx, "m", semcat.TagCreate{Name: n})))
	}
	if dropped, _, err := s.DropTag(ctx, "m", "gone"); !dropped || err != nil {
		t.Fatalf("drop tag: %v %v", dropped, err)
	}
	obj := semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.orders"}
	for _, names := range [][]string{{"a", "x2", "x1"}, {"b", "gone"}} {
		must(t, w(s.AssociateTags(ctx, "m", obj, semcat.TagAssociation{TagsToAdd: names}.Assignments())))
	}
	if got, err := s.ListObjectTags(ctx, "m", obj); err != nil || strings.Join(got, ",") != "a,b" {
		t.Errorf("tags %v (%v), want [a b]", got, err)
	}
	got := must(t, w(s.AssociateTags(ctx, "m", obj, semcat.TagAssociation{TagsToAdd: []string{"c", "nope", "c"}}.Assignments())))
	if strings.Join(got, ",") != "a,b,c" {
		t.Errorf("tags %v, want [a b c]", got)
	}
	got = must(t, w(s.AssociateTags(ctx, "m", obj, semcat.TagAssociation{TagsToRemove: []string{"b", "gone"}}.Assignments())))
	if strings.Join(got, ",") != "a,c" {
		t.Errorf("tags %v, want [a c]", got)
	}
}

// TestNoOrphansUnderConcurrentDrop races creates of tables and models
// against a cascade drop of their schema: afterwards no live child may sit
// in a dropped schema.
func TestNoOrphansUnderConcurrentDrop(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	relNS := semcat.Namespace{Metalake: "m", Catalog: "rel"}
	for round := range 10 {
		schema := fmt.Sprintf("s%d", round)
		ns := semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: schema}
		must(t, w(s.CreateSchema(ctxAlice, relNS, semcat.SchemaCreate{Name: schema})))
		var wg sync.WaitGroup
		for i := range 4 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.CreateTable(ctxAlice, ns, semcat.TableCreate{Name: fmt.Sprintf("t%d", i), Columns: cols("a")})
			}()
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			s.DropSchema(ctxAlice, relNS, schema, true)
		}()
		wg.Wait()
	}
	orphans := count(t, s, `SELECT count(*) FROM table_meta t JOIN schema_meta s USING (schema_id)
		WHERE t.deleted_at = 0 AND s.deleted_at <> 0`)
	if orphans != 0 {
		t.Errorf("%d live tables in dropped schemas", orphans)
	}
}
