// Package demo loads the example catalog that `semcat serve --demo` (and so
// `make run`) shows a newcomer: a metalake "demo" with an HR table that has a
// nested schema, a tagged entity with a Codename property, a small sales
// model, and MetricFlow's simple manifest (12 tables, 113 metrics).
package demo

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/semcat/semcat"
)

//go:embed metricflow-simple-manifest.json
var metricflowManifest []byte

// Services is what loading the demo needs.
type Services interface {
	semcat.MetalakeService
	semcat.CatalogService
	semcat.SchemaService
	semcat.TableService
	semcat.SemanticModelService
	semcat.TagService
}

// Metalake is the name of the demo metalake.
const Metalake = "demo"

// Manifest is the MetricFlow corpus: its tables and its semantic model.
type Manifest struct {
	Tables []struct {
		Name    string          `json:"name"`
		Columns []semcat.Column `json:"columns"`
	} `json:"tables"`
	SemanticModel semcat.SemanticModelCreate `json:"semanticModel"`
}

// MetricFlow decodes the embedded MetricFlow manifest. Its datasets name
// tables in catalog "warehouse", schema "main".
func MetricFlow() (*Manifest, error) {
	var m Manifest
	if err := json.Unmarshal(metricflowManifest, &m); err != nil {
		return nil, fmt.Errorf("demo: decode manifest: %w", err)
	}
	return &m, nil
}

func str(s string) *string { return &s }

func col(name, typ string) semcat.Column {
	return semcat.Column{Name: name, Type: &semcat.Type{Name: typ}}
}

func expr(sql string) *semcat.Expression {
	return &semcat.Expression{Dialects: []semcat.DialectExpression{{Dialect: "ANSI_SQL", Expression: sql}}}
}

// LoadIfEmpty loads the demo catalog when the database holds no metalake.
// It reports whether it loaded anything.
func LoadIfEmpty(ctx context.Context, svc Services) (bool, error) {
	existing, err := svc.ListMetalakes(ctx)
	if err != nil {
		return false, err
	}
	if len(existing) > 0 {
		return false, nil
	}
	return true, Load(ctx, svc)
}

// Load creates the demo catalog.
func Load(ctx context.Context, svc Services) error {
	steps := []func() error{
		func() error {
			_, _, err := svc.CreateMetalake(ctx, semcat.MetalakeCreate{Name: Metalake, Comment: str("semcat's example catalog")})
			return err
		},
		func() error {
			_, _, err := svc.CreateCatalog(ctx, Metalake, semcat.CatalogCreate{Name: "hr", Type: semcat.CatalogRelational,
				Comment: str("Human resources")})
			return err
		},
		func() error {
			_, _, err := svc.CreateSchema(ctx, semcat.Namespace{Metalake: Metalake, Catalog: "hr"}, semcat.SchemaCreate{Name: "people"})
			return err
		},
		func() error {
			contact := &semcat.Type{Name: "struct", Fields: []semcat.StructField{
				{Name: "EmpTel", Type: &semcat.Type{Name: "integer"}},
				{Name: "EmpAddr", Type: &semcat.Type{Name: "string"}},
			}}
			_, _, err := svc.CreateTable(ctx, semcat.Namespace{Metalake: Metalake, Catalog: "hr", Schema: "people"}, semcat.TableCreate{
				Name: "employees", Comment: str("One row per employee"),
				Columns: []semcat.Column{col("EmpId", "long"), col("EmpName", "string"),
					{Name: "EmpContact", Type: contact, Comment: str("How to reach the employee")}},
				Properties: map[string]string{"owner": "people-team", "Codename": "Alpha Tango Charlie"},
			})
			return err
		},
		func() error { return tagObject(ctx, svc, "Tag1", "Tag22") },
		func() error { return loadSales(ctx, svc) },
		func() error { return loadMetricFlow(ctx, svc) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			return fmt.Errorf("demo: %w", err)
		}
	}
	return nil
}

func tagObject(ctx context.Context, svc Services, names ...string) error {
	for _, n := range names {
		if _, _, err := svc.CreateTag(ctx, Metalake, semcat.TagCreate{Name: n}); err != nil {
			return err
		}
	}
	_, _, err := svc.AssociateTags(ctx, Metalake, semcat.ObjectRef{Type: semcat.KindTable, FullName: "hr.people.employees"},
		semcat.TagAssociation{TagsToAdd: names}.Assignments())
	return err
}

// loadSales creates warehouse.sales with orders and customers and a small
// sales model over them.
func loadSales(ctx context.Context, svc Services) error {
	if _, _, err := svc.CreateCatalog(ctx, Metalake, semcat.CatalogCreate{Name: "warehouse", Type: semcat.CatalogRelational,
		Comment: str("Analytics warehouse")}); err != nil {
		return err
	}
	ns := semcat.Namespace{Metalake: Metalake, Catalog: "warehouse", Schema: "sales"}
	if _, _, err := svc.CreateSchema(ctx, semcat.Namespace{Metalake: Metalake, Catalog: "warehouse"}, semcat.SchemaCreate{Name: "sales"}); err != nil {
		return err
	}
	for _, t := range []semcat.TableCreate{
		{Name: "orders", Comment: str("One row per order"), Columns: []semcat.Column{
			col("order_id", "long"), col("customer_id", "long"), col("ordered_at", "timestamp"), col("amount", "decimal(12,2)"), col("status", "string")}},
		{Name: "customers", Comment: str("One row per customer"), Columns: []semcat.Column{
			col("customer_id", "long"), col("name", "string"), col("country", "string"), col("signed_up_at", "timestamp")}},
	} {
		if _, _, err := svc.CreateTable(ctx, ns, t); err != nil {
			return err
		}
	}
	decimal, integer, dt := semcat.Datatype("Decimal"), semcat.Datatype("Integer"), semcat.Datatype("DateTime")
	def := &semcat.Definition{
		Datasets: []semcat.Dataset{
			{Name: "orders", Source: &semcat.Source{Namespace: []string{"warehouse", "sales"}, Name: "orders"}, PrimaryKey: []string{"order_id"},
				Description: str("Orders placed in the web shop"),
				Fields: []semcat.Field{
					{Name: "ordered_at", Expression: expr("ordered_at"), Dimension: &semcat.Dimension{IsTime: new(true)}, Datatype: &dt},
					{Name: "status", Expression: expr("status"), Dimension: &semcat.Dimension{}},
				}},
			{Name: "customers", Source: &semcat.Source{Namespace: []string{"warehouse", "sales"}, Name: "customers"}, PrimaryKey: []string{"customer_id"},
				Fields: []semcat.Field{{Name: "country", Expression: expr("country"), Dimension: &semcat.Dimension{}}}},
		},
		Relationships: []semcat.Relationship{{Name: "orders_to_customers", From: "orders", To: "customers",
			FromColumns: []string{"customer_id"}, ToColumns: []string{"customer_id"}}},
		Metrics: []semcat.Metric{
			{Name: "total_revenue", Expression: &semcat.Expression{Dialects: []semcat.DialectExpression{
				{Dialect: "ANSI_SQL", Expression: "SUM(orders.amount)"}, {Dialect: "SNOWFLAKE", Expression: "SUM(orders.amount)::NUMBER(18,2)"}}},
				Description: str("Revenue of all orders"), Datatype: &decimal,
				AIContext: json.RawMessage(`{"synonyms":["sales","turnover"],"instructions":"Use for revenue questions"}`)},
			{Name: "order_count", Expression: expr("COUNT(orders.order_id)"), Description: str("Number of orders"), Datatype: &integer},
			{Name: "average_order_value", Expression: expr("SUM(orders.amount) / NULLIF(COUNT(orders.order_id), 0)"),
				Description: str("Mean order amount"), Datatype: &decimal},
			{Name: "customers_with_orders", Expression: expr("COUNT(DISTINCT orders.customer_id)"), Datatype: &integer},
		},
	}
	_, _, err := svc.CreateSemanticModel(ctx, ns, semcat.SemanticModelCreate{Name: "sales", Comment: str("Web shop sales"), Definition: def,
		Properties: map[string]string{"domain": "sales"}})
	return err
}

// loadMetricFlow creates warehouse.main with MetricFlow's tables and model.
func loadMetricFlow(ctx context.Context, svc Services) error {
	m, err := MetricFlow()
	if err != nil {
		return err
	}
	ns := semcat.Namespace{Metalake: Metalake, Catalog: "warehouse", Schema: "main"}
	if _, _, err := svc.CreateSchema(ctx, semcat.Namespace{Metalake: Metalake, Catalog: "warehouse"}, semcat.SchemaCreate{Name: "main",
		Comment: str("MetricFlow simple_manifest fixture tables")}); err != nil {
		return err
	}
	for _, t := range m.Tables {
		if _, _, err := svc.CreateTable(ctx, ns, semcat.TableCreate{Name: t.Name, Columns: t.Columns}); err != nil {
			return fmt.Errorf("table %s: %w", t.Name, err)
		}
	}
	_, _, err = svc.CreateSemanticModel(ctx, ns, m.SemanticModel)
	return err
}
