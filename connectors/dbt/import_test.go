package dbt_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/api/apitest"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
	apiclient "github.com/semcat/semcat/client"
	"github.com/semcat/semcat/connectors/dbt"
)

func TestMain(m *testing.M) {
	pgtest.SetTemplateSetup(catalogdb.MigrateURL)
	pgtest.Main(m)
}

// server is a whole semcat API over a fresh database, with metalake "m",
// its admin's client and the database, to read what the API never shows
// (metric identities, the outbox).
type server struct {
	c  *apiclient.Client
	db *pgx.Conn
}

func newServer(t *testing.T) *server {
	t.Helper()
	url := pgtest.NewDatabase(t)
	s := apitest.NewStackServer(t, url, api.Config{})
	c, err := apiclient.New(s.URL, apiclient.WithUser("admin"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := pgx.Connect(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close(context.Background()) })
	if _, _, err := c.CreateMetalake(context.Background(), semcat.MetalakeCreate{Name: "m"}); err != nil {
		t.Fatal(err)
	}
	return &server{c: c, db: db}
}

// load reads a testdata project, after edit (nil for none) changed a
// copy of its manifest.json.
func load(t *testing.T, project string, edit func(manifest map[string]any)) *dbt.Artifacts {
	t.Helper()
	return loadEdited(t, project, edit, nil)
}

// loadEdited is load that also edits semantic_manifest.json.
func loadEdited(t *testing.T, project string, edit, editSemantic func(map[string]any)) *dbt.Artifacts {
	t.Helper()
	dir := filepath.Join("testdata", project)
	if edit != nil || editSemantic != nil {
		tmp := t.TempDir()
		for _, f := range []string{"manifest.json", "catalog.json", "semantic_manifest.json"} {
			b, err := os.ReadFile(filepath.Join(dir, f))
			if os.IsNotExist(err) {
				continue
			} else if err != nil {
				t.Fatal(err)
			}
			fn := map[string]func(map[string]any){"manifest.json": edit, "semantic_manifest.json": editSemantic}[f]
			if fn != nil {
				var m map[string]any
				if err := json.Unmarshal(b, &m); err != nil {
					t.Fatal(err)
				}
				fn(m)
				b, _ = json.Marshal(m)
			}
			if err := os.WriteFile(filepath.Join(tmp, f), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		dir = tmp
	}
	a, err := dbt.Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// run plans and imports a into catalog wh of metalake m.
func (s *server) run(t *testing.T, a *dbt.Artifacts, opt dbt.Options) *dbt.Result {
	t.Helper()
	plan, err := dbt.NewPlan(a, "wh", "")
	if err != nil {
		t.Fatal(err)
	}
	opt.Metalake = "m"
	res, err := dbt.Import(context.Background(), s.c, plan, opt)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func ns(schema string) semcat.Namespace {
	return semcat.Namespace{Metalake: "m", Catalog: "wh", Schema: schema}
}

// metricIDs are the live metric identities by "model.metric".
func (s *server) metricIDs(t *testing.T) map[string]int64 {
	t.Helper()
	rows, err := s.db.Query(context.Background(), `SELECT m.semantic_model_name, x.metric_name, x.metric_id
		FROM semantic_model_metric_meta x JOIN semantic_model_meta m ON m.semantic_model_id = x.semantic_model_id
		WHERE x.deleted_at = 0 AND m.deleted_at = 0`)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int64{}
	for rows.Next() {
		var model, metric string
		var id int64
		if err := rows.Scan(&model, &metric, &id); err != nil {
			t.Fatal(err)
		}
		out[model+"."+metric] = id
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// outboxSeq is the outbox's sequence: every write of the store takes a
// number from it.
func (s *server) outboxSeq(t *testing.T) int64 {
	t.Helper()
	var n int64
	if err := s.db.QueryRow(context.Background(), `SELECT last_value FROM outbox_seq_seq`).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

// versions are the semantic models' versions by schema.name.
func (s *server) versions(t *testing.T, res *dbt.Result, schemas ...string) map[string]int64 {
	t.Helper()
	out := map[string]int64{}
	for _, sc := range schemas {
		names, err := s.c.ListSemanticModels(context.Background(), ns(sc))
		if err != nil {
			t.Fatal(err)
		}
		for _, n := range names {
			m, err := s.c.GetSemanticModel(context.Background(), ns(sc), n)
			if err != nil {
				t.Fatal(err)
			}
			out[sc+"."+n] = m.Version
		}
	}
	return out
}

func extData(t *testing.T, exts []semcat.CustomExtension) map[string]any {
	t.Helper()
	if len(exts) != 1 || exts[0].VendorName == nil || *exts[0].VendorName != "dbt" || exts[0].Data == nil {
		t.Fatalf("customExtensions = %+v, want one of vendor dbt", exts)
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(*exts[0].Data), &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func metric(t *testing.T, def semcat.Definition, name string) semcat.Metric {
	t.Helper()
	for _, m := range def.Metrics {
		if m.Name == name {
			return m
		}
	}
	t.Fatalf("no metric %s in %v", name, def.MetricNames())
	return semcat.Metric{}
}

func sql(m semcat.Metric) string { return m.Expression.Dialects[0].Expression }

// measuresSpec is the testdata project of the spec before dbt 1.12
// (semantic models with measures): real dbt 1.8.6 artifacts of the
// jaffle-shop example on DuckDB (see its SOURCE.md).
const measuresSpec = "dbt-metric-utils-1.8"

// TestImportMeasuresSpec imports the real dbt 1.8 artifacts (semantic
// models with measures) and checks every mapped field, then that a repeat
// writes nothing.
func TestImportMeasuresSpec(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	a := load(t, measuresSpec, nil)

	dry := s.run(t, a, dbt.Options{DryRun: true})
	if dry.Writes("table") != 22 || dry.Writes("semantic_model") != 6 || dry.Writes("catalog") != 1 {
		t.Fatalf("dry run: %d actions %v", len(dry.Actions), dry.Actions)
	}
	if _, err := s.c.GetCatalog(ctx, "m", "wh"); !errors.Is(err, apiclient.ErrNotFound) {
		t.Fatalf("a dry run created catalog wh (err %v)", err)
	}

	res := s.run(t, a, dbt.Options{})
	if len(res.Issues) != 0 {
		t.Fatalf("issues: %v", res.Issues)
	}
	if res.Tables != 22 || res.Models != 6 || res.Metrics != 19 || res.Spec != "measures (dbt before 1.12)" {
		t.Fatalf("result: %+v", res)
	}
	skipped := ""
	for _, i := range res.Skipped {
		skipped += i.String() + "\n"
	}
	for _, want := range []string{"27 tests", "saved query revenue_metrics"} {
		if !strings.Contains(skipped, want) {
			t.Errorf("skipped does not name %q:\n%s", want, skipped)
		}
	}

	// A model: comment, columns in the warehouse's order with its types
	// and dbt's descriptions and spelling, dbt's properties.
	orders, err := s.c.GetTable(ctx, ns("main"), "orders")
	if err != nil {
		t.Fatal(err)
	}
	if orders.Comment == nil || !strings.HasPrefix(*orders.Comment, "Order overview data mart") {
		t.Errorf("orders comment = %v", orders.Comment)
	}
	var cols []string
	for _, c := range orders.Columns {
		ty, _ := json.Marshal(c.Type)
		cols = append(cols, c.Name+" "+strings.Trim(string(ty), `"`))
	}
	wantCols := []string{"order_id string", "location_id string", "customer_id string", "subtotal_cents integer",
		"tax_paid_cents integer", "order_total_cents integer", "subtotal decimal(16,2)", "tax_paid decimal(16,2)",
		"order_total decimal(16,2)", "ordered_at timestamp", "order_cost decimal(38,2)", "order_items_subtotal decimal(38,2)",
		"count_food_items string", "count_drink_items string", "count_order_items long", "is_food_order boolean",
		"is_drink_order boolean", "customer_order_number long"}
	if !slices.Equal(cols, wantCols) {
		t.Errorf("orders columns =\n%v\nwant\n%v", cols, wantCols)
	}
	// DuckDB's HUGEINT has no Gravitino type: read as string, its source
	// type kept.
	if got := orders.Properties["dbt.column_types"]; got != `{"count_drink_items":"HUGEINT","count_food_items":"HUGEINT"}` {
		t.Errorf("orders dbt.column_types = %q", got)
	}
	if c := orders.Columns[0].Comment; c == nil || *c != "The unique key of the orders mart." {
		t.Errorf("orders.order_id comment = %v", c)
	}
	for k, v := range map[string]string{"dbt.project": "jaffle_shop", "dbt.unique_id": "model.jaffle_shop.orders",
		"dbt.materialized": "table", "dbt.resource_type": "model", "dbt.database": "jaffle_shop",
		"dbt.path": "models/marts/orders.sql"} {
		if orders.Properties[k] != v {
			t.Errorf("orders property %s = %q, want %q", k, orders.Properties[k], v)
		}
	}
	if deps := orders.Properties["dbt.depends_on"]; !strings.Contains(deps, "model.jaffle_shop.stg_orders") {
		t.Errorf("orders dbt.depends_on = %q", deps)
	}
	// A seed that a source also names: one table with both identities.
	raw, err := s.c.GetTable(ctx, ns("raw"), "raw_customers")
	if err != nil {
		t.Fatal(err)
	}
	if raw.Properties["dbt.resource_type"] != "seed" || raw.Properties["dbt.sources"] != "source.jaffle_shop.ecom.raw_customers" {
		t.Errorf("raw_customers properties = %v", raw.Properties)
	}

	// A semantic model: dataset over its node, keys, fields, relationships,
	// metrics with SQL, datatype, description, label and dbt's definition.
	m, err := s.c.GetSemanticModel(ctx, ns("main"), "order_item")
	if err != nil {
		t.Fatal(err)
	}
	def := m.Definition
	ds := def.Datasets[0]
	if ds.Name != "order_item" || !slices.Equal(ds.Source.Namespace, []string{"wh", "main"}) || ds.Source.Name != "order_items" ||
		!slices.Equal(ds.PrimaryKey, []string{"order_item_id"}) {
		t.Errorf("dataset = %+v %+v", ds, ds.Source)
	}
	var ordered *semcat.Field
	for i := range ds.Fields {
		if ds.Fields[i].Name == "ordered_at" {
			ordered = &ds.Fields[i]
		}
	}
	if ordered == nil || ordered.Dimension == nil || ordered.Dimension.IsTime == nil || !*ordered.Dimension.IsTime || extData(t, ordered.CustomExtensions)["time_granularity"] != "day" {
		t.Errorf("ordered_at field = %+v", ordered)
	}
	if extData(t, ds.CustomExtensions)["measures"] == nil {
		t.Errorf("dataset customExtensions keep no measures")
	}
	var rels []string
	for _, r := range def.Relationships {
		rels = append(rels, r.Name+":"+r.From+"."+r.FromColumns[0]+"->"+r.To+"."+r.ToColumns[0])
	}
	slices.Sort(rels)
	if want := []string{"order_id:order_item.order_id->orders.order_id", "product:order_item.product_id->products.product_id"}; !slices.Equal(rels, want) {
		t.Errorf("relationships = %v, want %v", rels, want)
	}
	revenue := metric(t, def, "revenue")
	if sql(revenue) != "SUM(order_item.product_price)" || *revenue.Datatype != "Decimal" ||
		revenue.Description == nil || !strings.HasPrefix(*revenue.Description, "Sum of the product revenue") {
		t.Errorf("revenue = %s %v %v", sql(revenue), *revenue.Datatype, revenue.Description)
	}
	growth := metric(t, def, "revenue_growth_mom")
	if want := "((SUM(order_item.product_price)) - (SUM(order_item.product_price)))*100/(SUM(order_item.product_price))"; sql(growth) != want {
		t.Errorf("revenue_growth_mom SQL = %s", sql(growth))
	}
	gd := extData(t, growth.CustomExtensions)
	if gd["type"] != "derived" || gd["label"] != "Revenue Growth % M/M" || !strings.Contains(mustJSON(gd["type_params"]), `"offset_window":{"count":1,"granularity":"month"}`) ||
		mustJSON(gd["inputs"]) != `["revenue","revenue"]` {
		t.Errorf("revenue_growth_mom data = %v", gd)
	}
	if string(growth.AIContext) != `{"synonyms":["Revenue Growth % M/M"]}` {
		t.Errorf("revenue_growth_mom aiContext = %s", growth.AIContext)
	}
	pct := metric(t, def, "food_revenue_pct")
	if !strings.HasPrefix(sql(pct), "CAST(SUM(case when is_food_item") || *pct.Datatype != "Float" {
		t.Errorf("food_revenue_pct = %s %s", sql(pct), *pct.Datatype)
	}
	cum := metric(t, def, "cumulative_revenue")
	// dbt 1.8's cumulative metric names its measure and no window.
	if cd := extData(t, cum.CustomExtensions); sql(cum) != "SUM(order_item.product_price)" || cd["type"] != "cumulative" ||
		!strings.Contains(mustJSON(cd["type_params"]), `"measure":{"alias":null,"fill_nulls_with":null,"filter":null,"join_to_timespine":false,"name":"revenue"}`) {
		t.Errorf("cumulative_revenue = %s, data %v", sql(cum), cd)
	}
	// A metric over another model's measure joins that model's dataset.
	profit := metric(t, def, "order_gross_profit")
	if sql(profit) != "(SUM(order_item.product_price)) - (SUM(orders.order_cost))" {
		t.Errorf("order_gross_profit SQL = %s", sql(profit))
	}
	filtered := metric(t, mustModel(t, s.c, "orders").Definition, "large_orders")
	if sql(filtered) != "SUM(CASE WHEN orders.order_total >= 20 THEN 1 END)" {
		t.Errorf("large_orders SQL = %s", sql(filtered))
	}
	listed, err := s.c.ListSchemaMetrics(ctx, ns("main"), false)
	if err != nil || len(listed) != 19 {
		t.Errorf("schema metrics: %d, %v", len(listed), err)
	}

	// A repeat writes nothing: no action, no outbox row, same versions and
	// metric identities.
	ids, versions, seq := s.metricIDs(t), s.versions(t, res, "main"), s.outboxSeq(t)
	if len(ids) != 19 {
		t.Fatalf("%d metric identities, want 19", len(ids))
	}
	again := s.run(t, a, dbt.Options{})
	if len(again.Actions) != 0 || again.Unchanged != 28 || len(again.Issues) != 0 {
		t.Errorf("repeat: actions %v, unchanged %d, issues %v", again.Actions, again.Unchanged, again.Issues)
	}
	if got := s.outboxSeq(t); got != seq {
		t.Errorf("repeat wrote %d outbox rows", got-seq)
	}
	if got := s.versions(t, again, "main"); !mapsEqual(got, versions) {
		t.Errorf("repeat changed model versions: %v, was %v", got, versions)
	}
	if got := s.metricIDs(t); !mapsEqual(got, ids) {
		t.Errorf("repeat changed metric identities: %v, was %v", got, ids)
	}
}

func mustModel(t *testing.T, c *apiclient.Client, name string) *semcat.SemanticModel {
	t.Helper()
	m, err := c.GetSemanticModel(context.Background(), ns("main"), name)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func mapsEqual[V comparable](a, b map[string]V) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return false
		}
	}
	return true
}

// TestImportAggregationSpec imports the dbt 1.12 case (metrics carrying
// their own aggregation, semantic layer read from manifest.json, column
// types from data_type).
func TestImportAggregationSpec(t *testing.T) {
	s := newServer(t)
	res := s.run(t, load(t, "metricflow-demo-1.12", nil), dbt.Options{})
	if len(res.Issues) != 0 || res.Metrics != 15 || res.Spec != "metric aggregation (dbt 1.12+)" {
		t.Fatalf("result: %+v", res)
	}
	tbl, err := s.c.GetTable(context.Background(), ns("metricflow_demo_latest"), "orders")
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, c := range tbl.Columns {
		ty, _ := json.Marshal(c.Type)
		types = append(types, strings.Trim(string(ty), `"`))
	}
	if want := []string{"integer", "integer", "date", "varchar(20)", "decimal(10,2)", "boolean"}; !slices.Equal(types, want) {
		t.Errorf("column types = %v, want %v", types, want)
	}
	m, err := s.c.GetSemanticModel(context.Background(), ns("metricflow_demo_latest"), "orders")
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{
		"total_revenue":        "SUM(orders.amount)",
		"order_count":          "COUNT(orders.order_id)",
		"unique_customers":     "COUNT(DISTINCT orders.customer_id)",
		"p95_order_value":      "PERCENTILE_CONT(0.95) WITHIN GROUP (ORDER BY orders.amount)",
		"food_order_count":     "SUM(CASE WHEN orders.is_food_order THEN 1 ELSE 0 END)",
		"completed_revenue":    "SUM(CASE WHEN orders.status = 'completed' THEN orders.amount END)",
		"completion_rate":      "CAST(COUNT(CASE WHEN orders.status = 'completed' THEN orders.order_id END) AS DOUBLE PRECISION) / NULLIF(COUNT(orders.order_id), 0)",
		"revenue_per_customer": "(SUM(orders.amount)) / (COUNT(DISTINCT orders.customer_id))",
		"cumulative_revenue":   "SUM(orders.amount)",
	} {
		if got := sql(metric(t, m.Definition, name)); got != want {
			t.Errorf("%s SQL = %s, want %s", name, got, want)
		}
	}
	total := metric(t, m.Definition, "total_revenue")
	td := extData(t, total.CustomExtensions)
	if !strings.Contains(mustJSON(td["type_params"]), `"metric_aggregation_params":{"agg":"sum"`) || mustJSON(td["config"]) != `{"enabled":true,"group":null,"meta":{"group_label":"Order Metrics"}}` {
		t.Errorf("total_revenue data = %v", td)
	}
	if *metric(t, m.Definition, "order_count").Datatype != "Integer" {
		t.Errorf("order_count datatype is not Integer")
	}
	derived := extData(t, metric(t, m.Definition, "revenue_per_customer").CustomExtensions)
	if mustJSON(derived["inputs"]) != `["total_revenue","unique_customers"]` {
		t.Errorf("revenue_per_customer inputs = %v", derived["inputs"])
	}
	if again := s.run(t, load(t, "metricflow-demo-1.12", nil), dbt.Options{}); len(again.Actions) != 0 {
		t.Errorf("repeat: %v", again.Actions)
	}
}

// TestImportChanges imports the dbt 1.8 project, then changed artifacts: owners,
// tags and meta; a metric edited, a model gone; prune; unmappable items.
func TestImportChanges(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	if _, _, err := s.c.CreateUser(ctx, "m", semcat.UserCreate{Name: "alice"}); err != nil {
		t.Fatal(err)
	}
	s.run(t, load(t, measuresSpec, nil), dbt.Options{})
	// Something of the catalog's that no dbt project imported, and a tag a
	// person attached: prune and re-imports leave both alone.
	if _, _, err := s.c.CreateTable(ctx, ns("main"), semcat.TableCreate{Name: "handmade", Columns: []semcat.Column{}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.c.CreateTag(ctx, "m", semcat.TagCreate{Name: "reviewed"}); err != nil {
		t.Fatal(err)
	}
	ordersRef := semcat.ObjectRef{Type: semcat.KindTable, FullName: "wh.main.orders"}
	if _, _, err := s.c.AssociateTags(ctx, "m", ordersRef, semcat.TagAssignments{Add: []semcat.TagValue{{Name: "reviewed"}}, Valued: true}); err != nil {
		t.Fatal(err)
	}
	ids, versions := s.metricIDs(t), s.versions(t, nil, "main")

	edited := load(t, measuresSpec, func(m map[string]any) {
		nodes := m["nodes"].(map[string]any)
		orders := nodes["model.jaffle_shop.orders"].(map[string]any)
		orders["meta"] = map[string]any{"owner": "alice", "team": "finance", "sla": map[string]any{"hours": 24}}
		orders["tags"] = []any{"finance", "core"}
		stg := nodes["model.jaffle_shop.stg_locations"].(map[string]any)
		stg["meta"] = map[string]any{"owner": "bob"}
		delete(nodes, "model.jaffle_shop.stg_supplies")
	})
	res := s.run(t, edited, dbt.Options{})
	if len(res.Issues) != 0 {
		t.Fatalf("issues: %v", res.Issues)
	}
	orders, err := s.c.GetTable(ctx, ns("main"), "orders")
	if err != nil {
		t.Fatal(err)
	}
	if orders.Properties["dbt.meta.team"] != "finance" || orders.Properties["dbt.meta.sla"] != `{"hours":24}` || orders.Properties["dbt.meta.owner"] != "alice" {
		t.Errorf("orders meta properties = %v", orders.Properties)
	}
	if owner, err := s.c.GetOwner(ctx, "m", ordersRef); err != nil || owner == nil || owner.Name != "alice" {
		t.Errorf("orders owner = %+v, %v; want alice", owner, err)
	}
	tags, err := s.c.ListObjectTags(ctx, "m", ordersRef)
	if slices.Sort(tags); err != nil || !slices.Equal(tags, []string{"core", "finance", "reviewed"}) {
		t.Errorf("orders tags = %v, %v", tags, err)
	}
	skipped := mustJSON(res.Skipped)
	if !strings.Contains(skipped, "owner 'bob' of 1 object") {
		t.Errorf("an owner who is not a user is not reported: %s", skipped)
	}
	// stg_supplies is gone from dbt but stays without --prune.
	if _, err := s.c.GetTable(ctx, ns("main"), "stg_supplies"); err != nil {
		t.Errorf("stg_supplies without --prune: %v", err)
	}
	// Models did not change: same versions and metric identities.
	if got := s.versions(t, nil, "main"); !mapsEqual(got, versions) {
		t.Errorf("model versions changed: %v, was %v", got, versions)
	}

	// Dropping a tag in dbt detaches it; the person's tag stays.
	retagManifest := func(m map[string]any) {
		nodes := m["nodes"].(map[string]any)
		orders := nodes["model.jaffle_shop.orders"].(map[string]any)
		orders["meta"] = map[string]any{"owner": "alice", "team": "finance", "sla": map[string]any{"hours": 24}}
		orders["tags"] = []any{"core"}
		nodes["model.jaffle_shop.stg_locations"].(map[string]any)["meta"] = map[string]any{"owner": "bob"}
		delete(nodes, "model.jaffle_shop.stg_supplies")
	}
	retag := load(t, measuresSpec, retagManifest)
	dry := s.run(t, retag, dbt.Options{Prune: true, DryRun: true})
	if got := mustJSON(dry.Actions); !strings.Contains(got, `"op":"delete","kind":"table","name":"main.stg_supplies"`) || strings.Contains(got, "handmade") {
		t.Errorf("prune dry run: %s", got)
	}
	if _, err := s.c.GetTable(ctx, ns("main"), "stg_supplies"); err != nil {
		t.Errorf("a dry run pruned stg_supplies: %v", err)
	}
	pruned := s.run(t, retag, dbt.Options{Prune: true})
	if _, err := s.c.GetTable(ctx, ns("main"), "stg_supplies"); !errors.Is(err, apiclient.ErrNotFound) {
		t.Errorf("stg_supplies after --prune: %v", err)
	}
	if _, err := s.c.GetTable(ctx, ns("main"), "handmade"); err != nil {
		t.Errorf("prune dropped a table no dbt project imported: %v", err)
	}
	// orders changes its dbt.tags property and loses a tag; stg_supplies goes.
	if pruned.Writes("table") != 2 || pruned.Writes("tags") != 1 {
		t.Errorf("prune run actions: %v", pruned.Actions)
	}
	tags, _ = s.c.ListObjectTags(ctx, "m", ordersRef)
	if slices.Sort(tags); !slices.Equal(tags, []string{"core", "reviewed"}) {
		t.Errorf("orders tags after dbt dropped finance = %v", tags)
	}

	// A metric's description and a filter change in place: new model
	// version, same identities; a metric gone retires only its own.
	changed := loadEdited(t, measuresSpec, retagManifest, func(sem map[string]any) {
		var kept []any
		for _, m := range sem["metrics"].([]any) {
			mm := m.(map[string]any)
			if mm["name"] == "revenue" {
				mm["description"] = "Revenue, before tax."
			}
			if mm["name"] != "order_gross_profit" {
				kept = append(kept, m)
			}
		}
		sem["metrics"] = kept
	})
	res = s.run(t, changed, dbt.Options{})
	if res.Writes("semantic_model") != 1 || len(res.Issues) != 0 {
		t.Errorf("metric change: actions %v issues %v", res.Actions, res.Issues)
	}
	got := s.metricIDs(t)
	for k, id := range ids {
		if k == "order_item.order_gross_profit" {
			if _, ok := got[k]; ok {
				t.Errorf("%s still has an identity", k)
			}
			continue
		}
		if got[k] != id {
			t.Errorf("metric %s: id %d, was %d", k, got[k], id)
		}
	}
	if v := s.versions(t, nil, "main"); v["main.order_item"] == versions["main.order_item"] ||
		v["main.orders"] != versions["main.orders"] {
		t.Errorf("versions after a metric change: %v, was %v", v, versions)
	}
	if d := metric(t, mustModel(t, s.c, "order_item").Definition, "revenue").Description; d == nil || *d != "Revenue, before tax." {
		t.Errorf("revenue description = %v", d)
	}
}

// TestImportUnmappable checks that what cannot be mapped is named and the
// rest imported, and that names semcat's rule rejects are made valid and
// noted, never dropped.
func TestImportUnmappable(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	a := loadEdited(t, measuresSpec, func(m map[string]any) {
		nodes := m["nodes"].(map[string]any)
		nodes["model.jaffle_shop.orders"].(map[string]any)["tags"] = []any{"needs review"}
		products := nodes["model.jaffle_shop.products"].(map[string]any)
		products["alias"] = "products.v2"
		cols := nodes["model.jaffle_shop.customers"].(map[string]any)["columns"].(map[string]any)
		// customers has a customer_name already: the new name is made distinct.
		cols["customer name"] = map[string]any{"name": "customer name", "description": "as typed", "data_type": "text"}
	}, func(sem map[string]any) {
		for _, sm := range sem["semantic_models"].([]any) {
			sm := sm.(map[string]any)
			if sm["name"] == "order_item" {
				for _, ms := range sm["measures"].([]any) {
					if ms.(map[string]any)["name"] == "median_revenue" {
						ms.(map[string]any)["agg"] = "mode"
					}
				}
			}
			if sm["name"] == "products" {
				sm["node_relation"].(map[string]any)["alias"] = "products.v2"
			}
		}
	})
	res := s.run(t, a, dbt.Options{})
	if got := mustJSON(res.Issues); got != `[{"item":"metric median_revenue","reason":"unknown aggregation 'mode'"}]` {
		t.Errorf("issues = %s", got)
	}
	notes := mustJSON(res.Notes)
	for _, want := range []string{`"item":"model.jaffle_shop.products","reason":"relation 'products.v2' imported as table main.products_v2`,
		`"item":"tag needs review","reason":"imported as 'needs_review'"`,
		`"item":"model.jaffle_shop.customers","reason":"1 column renamed to valid semcat names`} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %s:\n%s", want, notes)
		}
	}
	p, err := s.c.GetTable(ctx, ns("main"), "products_v2")
	if err != nil || p.Properties["dbt.alias"] != "products.v2" {
		t.Errorf("products_v2: %v %v", err, p)
	}
	if m, err := s.c.GetSemanticModel(ctx, ns("main"), "products"); err != nil || m.Definition.Datasets[0].Source.Name != "products_v2" {
		t.Errorf("model products over products_v2: %v", err)
	}
	c, err := s.c.GetTable(ctx, ns("main"), "customers")
	if err != nil || c.Properties["dbt.column_names"] != `{"customer_name_2":"customer name"}` {
		t.Errorf("customers: %v %v", err, c.Properties)
	}
	tags, _ := s.c.ListObjectTags(ctx, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "wh.main.orders"})
	if !slices.Equal(tags, []string{"needs_review"}) {
		t.Errorf("orders tags = %v", tags)
	}
	if m := mustModel(t, s.c, "order_item"); slices.Contains(m.Definition.MetricNames(), "median_revenue") || len(m.Definition.Metrics) != 8 {
		t.Errorf("order_item metrics = %v", m.Definition.MetricNames())
	}
}

// TestPruneSchema checks that --prune drops a schema the project created
// once none of its objects is left, and keeps one that holds others'.
func TestPruneSchema(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	s.run(t, load(t, measuresSpec, nil), dbt.Options{})
	noRaw := func(m map[string]any) {
		for id := range m["nodes"].(map[string]any) {
			if strings.HasPrefix(id, "seed.") {
				delete(m["nodes"].(map[string]any), id)
			}
		}
		m["sources"] = map[string]any{}
	}
	res := s.run(t, load(t, measuresSpec, noRaw), dbt.Options{Prune: true})
	if res.Writes("table") != 6 || res.Writes("schema") != 1 || len(res.Issues) != 0 {
		t.Errorf("prune: actions %v, issues %v", res.Actions, res.Issues)
	}
	if _, err := s.c.GetSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "wh"}, "raw"); !errors.Is(err, apiclient.ErrNotFound) {
		t.Errorf("schema raw after prune: %v", err)
	}

	// Import raw again, add a table of one's own to it: prune keeps it.
	s.run(t, load(t, measuresSpec, nil), dbt.Options{})
	if _, _, err := s.c.CreateTable(ctx, ns("raw"), semcat.TableCreate{Name: "mine", Columns: []semcat.Column{}}); err != nil {
		t.Fatal(err)
	}
	res = s.run(t, load(t, measuresSpec, noRaw), dbt.Options{Prune: true})
	if res.Writes("table") != 6 || res.Writes("schema") != 0 {
		t.Errorf("prune with a table of one's own: %v", res.Actions)
	}
	if _, err := s.c.GetTable(ctx, ns("raw"), "mine"); err != nil {
		t.Errorf("prune dropped a table of one's own: %v", err)
	}
}

// TestModelOwner checks that a semantic model's meta.owner becomes its
// owner, once.
func TestModelOwner(t *testing.T) {
	s := newServer(t)
	ctx := context.Background()
	if _, _, err := s.c.CreateUser(ctx, "m", semcat.UserCreate{Name: "alice"}); err != nil {
		t.Fatal(err)
	}
	a := loadEdited(t, measuresSpec, nil, func(sem map[string]any) {
		for _, sm := range sem["semantic_models"].([]any) {
			if sm := sm.(map[string]any); sm["name"] == "orders" {
				sm["config"] = map[string]any{"meta": map[string]any{"owner": "alice"}}
			}
		}
	})
	s.run(t, a, dbt.Options{})
	ref := semcat.ObjectRef{Type: semcat.KindSemanticModel, FullName: "wh.main.orders"}
	if o, err := s.c.GetOwner(ctx, "m", ref); err != nil || o == nil || o.Name != "alice" {
		t.Errorf("owner of model orders = %+v, %v", o, err)
	}
	if m := mustModel(t, s.c, "orders"); m.Properties["dbt.meta.owner"] != "alice" {
		t.Errorf("model orders properties = %v", m.Properties)
	}
	if again := s.run(t, a, dbt.Options{}); len(again.Actions) != 0 {
		t.Errorf("repeat: %v", again.Actions)
	}
}
