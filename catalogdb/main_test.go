package catalogdb_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
)

func TestMain(m *testing.M) {
	pgtest.SetTemplateSetup(catalogdb.MigrateURL)
	pgtest.Main(m)
}

// MustOpenStore returns a store on a fresh, migrated database.
func MustOpenStore(tb testing.TB) *catalogdb.Store {
	tb.Helper()
	s, err := catalogdb.Open(context.Background(), pgtest.NewDatabase(tb), slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})))
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(s.Close)
	return s
}

// written holds the result of a write for must.
type written[T any] struct {
	v   T
	err error
}

// w captures a write's results so that must(tb, w(s.CreateX(...)))) can
// fail the test on error.
func w[T any](v T, _ semcat.Position, err error) written[T] { return written[T]{v, err} }

func must[T any](tb testing.TB, r written[T]) T {
	tb.Helper()
	if r.err != nil {
		tb.Fatal(r.err)
	}
	return r.v
}

func str(s string) *string { return &s }

var (
	salesNS   = semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "sales"}
	ctxAlice  = semcat.NewContextWithUser(context.Background(), "alice")
	decimalDT = semcat.Datatype("Decimal")
)

// seed creates metalake m, relational catalog rel, schema sales with tables
// orders and customers, and a fileset catalog files.
func seed(tb testing.TB, s *catalogdb.Store) {
	tb.Helper()
	ctx := ctxAlice
	must(tb, w(s.CreateMetalake(ctx, semcat.MetalakeCreate{Name: "m"})))
	must(tb, w(s.CreateCatalog(ctx, "m", semcat.CatalogCreate{Name: "rel", Type: semcat.CatalogRelational})))
	must(tb, w(s.CreateCatalog(ctx, "m", semcat.CatalogCreate{Name: "files", Type: semcat.CatalogFileset})))
	must(tb, w(s.CreateSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, semcat.SchemaCreate{Name: "sales"})))
	for _, t := range []semcat.TableCreate{
		{Name: "orders", Columns: cols("order_id", "customer_id", "amount")},
		{Name: "customers", Columns: cols("customer_id", "name")},
	} {
		must(tb, w(s.CreateTable(ctx, salesNS, t)))
	}
}

func cols(names ...string) []semcat.Column {
	out := make([]semcat.Column, len(names))
	for i, n := range names {
		out[i] = semcat.Column{Name: n, Type: &semcat.Type{Name: "string"}}
	}
	return out
}

// definition returns a valid definition over seed's tables with the given
// metric names; each metric's expression is SUM(<name>) plus suffix.
func definition(suffix string, metrics ...string) *semcat.Definition {
	d := &semcat.Definition{
		Datasets: []semcat.Dataset{
			{Name: "orders", Source: &semcat.Source{Namespace: []string{"rel", "sales"}, Name: "orders"}, PrimaryKey: []string{"order_id"}},
			{Name: "customers", Source: &semcat.Source{Namespace: []string{"rel", "sales"}, Name: "customers"}},
		},
		Relationships: []semcat.Relationship{{Name: "o_c", From: "orders", To: "customers",
			FromColumns: []string{"customer_id"}, ToColumns: []string{"customer_id"}}},
		Metrics: []semcat.Metric{},
	}
	for _, m := range metrics {
		d.Metrics = append(d.Metrics, semcat.Metric{Name: m, Datatype: &decimalDT,
			Expression: &semcat.Expression{Dialects: []semcat.DialectExpression{{Dialect: "ANSI_SQL", Expression: "SUM(" + m + ")" + suffix}}}})
	}
	return d
}

func jsonEqual(tb testing.TB, a, b any) bool {
	tb.Helper()
	ja, err := json.Marshal(a)
	if err != nil {
		tb.Fatal(err)
	}
	jb, err := json.Marshal(b)
	if err != nil {
		tb.Fatal(err)
	}
	var va, vb any
	json.Unmarshal(ja, &va)
	json.Unmarshal(jb, &vb)
	ja, _ = json.Marshal(va)
	jb, _ = json.Marshal(vb)
	return string(ja) == string(jb)
}
