package catalogdb_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

func batchItem(name string, tags ...string) semcat.TableBatchItem {
	return semcat.TableBatchItem{TableCreate: semcat.TableCreate{Name: name, Columns: cols("id", "amount")}, Tags: tags}
}

func tableNames(tables []*semcat.Table) []string {
	var out []string
	for _, t := range tables {
		out = append(out, t.Name)
	}
	return out
}

// TestCreateTables: a batch creates every table, in request order, with
// its columns, its tags (each once) and the caller as its owner.
func TestCreateTables(t *testing.T) {
	s := MustOpenStore(t)
	seed(t, s)
	for _, tag := range []string{"pii", "gold"} {
		must(t, w(s.CreateTag(ctxAlice, "m", semcat.TagCreate{Name: tag})))
	}
	tables, pos, err := s.CreateTables(ctxAlice, salesNS, semcat.TableBatchCreate{Tables: []semcat.TableBatchItem{
		batchItem("a", "pii", "gold", "pii"), batchItem("b"), batchItem("c", "gold"),
	}})
	if err != nil {
		t.Fatal(err)
	}
	if pos.TxID == 0 {
		t.Error("no position")
	}
	if got := tableNames(tables); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Fatalf("tables %v", got)
	}
	ids := map[int64]bool{}
	for _, tb := range tables {
		ids[tb.ID] = true
		loaded, err := s.GetTable(ctxAlice, salesNS, tb.Name)
		if err != nil {
			t.Fatal(err)
		}
		if loaded.ID != tb.ID || !jsonEqual(t, loaded.Columns, tb.Columns) || loaded.Audit.Creator != "alice" {
			t.Errorf("table %s: loaded %+v, created %+v", tb.Name, loaded, tb)
		}
	}
	if len(ids) != 3 || ids[0] {
		t.Errorf("ids %v", ids)
	}
	for name, want := range map[string][]string{"a": {"gold", "pii"}, "b": {}, "c": {"gold"}} {
		got, err := s.ListObjectTags(ctxAlice, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales." + name})
		if err != nil {
			t.Fatal(err)
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("tags of %s: %v, want %v", name, got, want)
		}
	}
	owner, err := s.GetOwner(ctxAlice, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.b"})
	if err != nil || owner == nil || owner.Name != "alice" {
		t.Errorf("owner of b: %+v, %v", owner, err)
	}
}

// TestCreateTablesAllOrNothing: a batch that fails — a table that exists,
// a tag that does not, a bad field — creates nothing, and its error names
// the table by its index.
func TestCreateTablesAllOrNothing(t *testing.T) {
	s := MustOpenStore(t)
	seed(t, s)
	must(t, w(s.CreateTag(ctxAlice, "m", semcat.TagCreate{Name: "pii"})))
	bad := batchItem("bad")
	bad.Columns[1].Type = nil
	many := make([]semcat.TableBatchItem, semcat.MaxBatchTables+1)
	for i := range many {
		many[i] = batchItem(fmt.Sprintf("t%d", i))
	}
	for _, tt := range []struct {
		name  string
		items []semcat.TableBatchItem
		code  string
		msg   string
	}{
		{"exists", []semcat.TableBatchItem{batchItem("x"), batchItem("orders"), batchItem("y")}, semcat.EEXISTS, "tables[1].name: table 'm.rel.sales.orders' already exists"},
		{"no such tag", []semcat.TableBatchItem{batchItem("x", "pii"), batchItem("y", "pii", "nope")}, semcat.ENOTFOUND, "tables[1].tags[1]: tag 'm.nope' does not exist"},
		{"bad column", []semcat.TableBatchItem{batchItem("x"), bad}, semcat.EINVALID, "tables[1].columns[1].type"},
		{"bad tag name", []semcat.TableBatchItem{batchItem("x", "no way")}, semcat.EINVALID, "tables[0].tags[0]: invalid name"},
		{"same name twice", []semcat.TableBatchItem{batchItem("x"), batchItem("y"), batchItem("x")}, semcat.EINVALID, "tables[2].name: 'x' is also the name of tables[0]"},
		{"empty", nil, semcat.EINVALID, "tables: give at least one table"},
		{"too many", many, semcat.EINVALID, "a batch holds at most 1000"},
	} {
		_, _, err := s.CreateTables(ctxAlice, salesNS, semcat.TableBatchCreate{Tables: tt.items})
		if semcat.ErrorCode(err) != tt.code || !strings.Contains(semcat.ErrorMessage(err), tt.msg) {
			t.Errorf("%s: %v, want %s %q", tt.name, err, tt.code, tt.msg)
		}
	}
	names, err := s.ListTables(ctxAlice, salesNS)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{"customers", "orders"}) {
		t.Errorf("tables after the failed batches: %v", names)
	}
}

// TestCreateTablesConcurrently: batches that share a table name race; one
// wins, the others fail whole, and no table is lost or doubled.
func TestCreateTablesConcurrently(t *testing.T) {
	s := MustOpenStore(t)
	seed(t, s)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			items := []semcat.TableBatchItem{batchItem(fmt.Sprintf("own%d", i)), batchItem("shared"), batchItem(fmt.Sprintf("also%d", i))}
			_, _, errs[i] = s.CreateTables(ctxAlice, salesNS, semcat.TableBatchCreate{Tables: items})
		})
	}
	wg.Wait()
	winner := -1
	for i, err := range errs {
		switch {
		case err == nil && winner < 0:
			winner = i
		case err == nil:
			t.Errorf("batches %d and %d both created 'shared'", winner, i)
		case semcat.ErrorCode(err) != semcat.EEXISTS || !strings.Contains(semcat.ErrorMessage(err), "tables[1].name"):
			t.Errorf("batch %d: %v, want EEXISTS for tables[1]", i, err)
		}
	}
	if winner < 0 {
		t.Fatal("no batch won")
	}
	names, err := s.ListTables(ctxAlice, salesNS)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{fmt.Sprintf("also%d", winner), "customers", "orders", fmt.Sprintf("own%d", winner), "shared"}
	if !slices.Equal(names, want) {
		t.Errorf("tables %v, want %v", names, want)
	}
}

// batchCounter counts a pipelined batch as the one round trip it is.
type batchCounter struct{ statementCounter }

func (c *batchCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.n.Add(1)
	return ctx
}
func (c *batchCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}
func (c *batchCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData)     {}
