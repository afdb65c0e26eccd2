package catalogdb_test

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
)

// statementCounter is a pgx tracer that counts the statements sent, BEGIN
// and COMMIT included: each is a round trip to PostgreSQL.
type statementCounter struct{ n atomic.Int64 }

func (c *statementCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceQueryStartData) context.Context {
	c.n.Add(1)
	return ctx
}

func (c *statementCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

// TestBulkLoadWritesTakeFewRoundTrips counts the statements of the writes
// a bulk load repeats for every entity: a create below a schema resolves
// its path in one statement and sets the owner and writes the outbox row
// in another, a batch of tables sends all their statements at once, and a
// tag association resolves the metalake once.
func TestBulkLoadWritesTakeFewRoundTrips(t *testing.T) {
	ctx := semcat.NewContextWithUser(context.Background(), "alice")
	counter := &batchCounter{}
	s, err := catalogdb.OpenTraced(ctx, pgtest.NewDatabase(t), counter)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	ns := semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "sales"}
	check := func(what string, want int64, write func() error) {
		t.Helper()
		before := counter.n.Load()
		if err := write(); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		if got := counter.n.Load() - before; got != want {
			t.Errorf("%s took %d statements, want %d", what, got, want)
		}
	}
	// BEGIN, the insert, owner and outbox, COMMIT.
	check("create metalake", 4, func() error {
		_, _, err := s.CreateMetalake(ctx, semcat.MetalakeCreate{Name: ns.Metalake})
		return err
	})
	if _, _, err := s.CreateCatalog(ctx, ns.Metalake, semcat.CatalogCreate{Name: ns.Catalog, Type: semcat.CatalogRelational}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateSchema(ctx, semcat.Namespace{Metalake: ns.Metalake, Catalog: ns.Catalog}, semcat.SchemaCreate{Name: ns.Schema}); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"pii", "gold"} {
		if _, _, err := s.CreateTag(ctx, ns.Metalake, semcat.TagCreate{Name: tag}); err != nil {
			t.Fatal(err)
		}
	}
	// BEGIN, the path, the insert, owner and outbox, COMMIT.
	check("create table", 5, func() error {
		_, _, err := s.CreateTable(ctx, ns, semcat.TableCreate{Name: "orders", Columns: []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}})
		return err
	})
	// BEGIN, the path, the tags found and locked, one pipelined batch of
	// every table's statement, COMMIT: as many for 50 tables as for one.
	check("create 50 tables with tags", 5, func() error {
		items := make([]semcat.TableBatchItem, 50)
		for i := range items {
			items[i] = semcat.TableBatchItem{TableCreate: semcat.TableCreate{Name: fmt.Sprintf("t%d", i),
				Columns: []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}}, Tags: []string{"pii"}}
		}
		_, _, err := s.CreateTables(ctx, ns, semcat.TableBatchCreate{Tables: items})
		return err
	})
	// BEGIN, the path, the table, the tags found and locked, the
	// assignments held, the relations inserted, the object's tags read
	// back, the outbox row, COMMIT.
	check("associate tags", 9, func() error {
		_, _, err := s.AssociateTags(ctx, ns.Metalake, semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.orders"},
			semcat.TagAssociation{TagsToAdd: []string{"pii", "gold"}}.Assignments())
		return err
	})

	// When the one-statement lookup finds nothing, the path is resolved
	// level by level to say what is missing; a catalog that is not
	// relational says so whether or not the schema exists.
	if _, _, err := s.CreateCatalog(ctx, ns.Metalake, semcat.CatalogCreate{Name: "files", Type: semcat.CatalogFileset}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateSchema(ctx, semcat.Namespace{Metalake: ns.Metalake, Catalog: "files"}, semcat.SchemaCreate{Name: "raw"}); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		ns     semcat.Namespace
		code   string
		entity semcat.EntityKind
	}{
		{semcat.Namespace{Metalake: "nope", Catalog: "rel", Schema: "sales"}, semcat.ENOTFOUND, semcat.KindMetalake},
		{semcat.Namespace{Metalake: "m", Catalog: "nope", Schema: "sales"}, semcat.ENOTFOUND, semcat.KindCatalog},
		{semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "nope"}, semcat.ENOTFOUND, semcat.KindSchema},
		{semcat.Namespace{Metalake: "m", Catalog: "files", Schema: "raw"}, semcat.EUNSUPPORTED, ""},
		{semcat.Namespace{Metalake: "m", Catalog: "files", Schema: "nope"}, semcat.EUNSUPPORTED, ""},
	} {
		_, _, err := s.CreateTable(ctx, tt.ns, semcat.TableCreate{Name: "t", Columns: []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}})
		if semcat.ErrorCode(err) != tt.code || tt.entity != "" && semcat.ErrorEntity(err) != tt.entity {
			t.Errorf("create table in %v: %v, want %s %s", tt.ns, err, tt.code, tt.entity)
		}
	}
}
