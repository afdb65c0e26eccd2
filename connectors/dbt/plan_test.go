package dbt

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestMapType(t *testing.T) {
	for _, tc := range []struct {
		in    string
		want  string
		exact bool
	}{
		{"TEXT", "string", true},
		{"VARCHAR(16777216)", "varchar(16777216)", true},
		{"character varying(20)", "varchar(20)", true},
		{"NUMBER", "decimal(38,0)", true},
		{"NUMBER(38,2)", "decimal(38,2)", true},
		{"numeric(10, 2)", "decimal(10,2)", true},
		{"numeric", "decimal(38,0)", false},
		{"decimal(76,38)", "decimal(38,38)", false},
		{"TIMESTAMP_NTZ", "timestamp", true},
		{"timestamp with time zone", "timestamp_tz", true},
		{"TIMESTAMP_LTZ", "timestamp_tz", true},
		{"FLOAT", "double", true},
		{"real", "float", true},
		{"bigint", "long", true},
		{"INT64", "long", true},
		{"BOOLEAN", "boolean", true},
		{"date", "date", true},
		{"bpchar", "string", true},
		{"char(3)", "char(3)", true},
		{"VARIANT", "string", false},
		{"ARRAY", "string", false},
		{"jsonb", "string", false},
	} {
		got, exact := mapType(tc.in)
		if got.Name != tc.want || exact != tc.exact {
			t.Errorf("mapType(%q) = %s, %v; want %s, %v", tc.in, got.Name, exact, tc.want, tc.exact)
		}
	}
}

// plan maps a manifest and a semantic manifest given as JSON.
func plan(t *testing.T, manifest, semantic string) *Plan {
	t.Helper()
	dir := t.TempDir()
	for name, body := range map[string]string{"manifest.json": manifest, "semantic_manifest.json": semantic} {
		if body == "" {
			continue
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	a, err := Read(dir)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(a, "wh", "")
	if err != nil {
		t.Fatal(err)
	}
	return p
}

const events = `{"metadata":{"project_name":"p"},"nodes":{
  "model.p.events":{"resource_type":"model","name":"events","alias":"events","schema":"s","database":"d",
    "config":{"materialized":"table"},
    "columns":{"user_id":{"name":"user_id","data_type":"bigint","meta":{"pii":true},"tags":["key"],"constraints":[{"type":"not_null"}]},
               "kind":{"name":"kind","data_type":"text"},"at":{"name":"at","data_type":"timestamp"},
               "amount":{"name":"amount","data_type":"numeric(10,2)"}}}}}`

// TestMetricSQL checks the SQL written for each kind of metric of both
// specs, and what is kept of filters that cannot be written as SQL.
func TestMetricSQL(t *testing.T) {
	sm := `{"name":"events","node_relation":{"alias":"events","schema_name":"s"},"defaults":{"agg_time_dimension":"at"},
	  "entities":[{"name":"user","type":"primary","expr":"user_id"}],
	  "dimensions":[{"name":"kind","type":"categorical"},{"name":"at","type":"time","type_params":{"time_granularity":"day"}}],
	  "measures":[{"name":"visits","agg":"count","expr":"user_id"},{"name":"buys","agg":"sum","expr":"amount","create_metric":true},
	              {"name":"p90","agg":"percentile","expr":"amount","agg_params":{"percentile":0.9,"use_discrete_percentile":true}}]}`
	semantic := `{"semantic_models":[` + sm + `],"metrics":[
	  {"name":"visit_count","type":"simple","type_params":{"measure":{"name":"visits"}}},
	  {"name":"both","type":"simple","type_params":{"measure":{"name":"visits"},
	     "metric_aggregation_params":{"semantic_model":"events","agg":"count"}}},
	  {"name":"own_agg","type":"simple","type_params":{"expr":"amount","metric_aggregation_params":{"semantic_model":"events","agg":"max"}}},
	  {"name":"p90_amount","type":"simple","type_params":{"measure":{"name":"p90"}}},
	  {"name":"clicks","type":"simple","type_params":{"measure":{"name":"visits","filter":{"where_filters":[
	     {"where_sql_template":"{{ Dimension('user__kind') }} = 'click'"}]}}}},
	  {"name":"big_buyers","type":"simple","type_params":{"measure":{"name":"buys"}},"filter":{"where_filters":[
	     {"where_sql_template":"{{ Metric('buys', group_by=['user']) }} > 10"}]}},
	  {"name":"conv_old","type":"conversion","type_params":{"conversion_type_params":{
	     "base_measure":{"name":"visits"},"conversion_measure":{"name":"buys"},"entity":"user","window":{"count":7,"granularity":"day"}}}},
	  {"name":"conv_new","type":"conversion","type_params":{"conversion_type_params":{
	     "base_metric":{"name":"visit_count"},"conversion_metric":{"name":"own_agg"},"entity":"user","calculation":"conversions"}}},
	  {"name":"loop_a","type":"derived","type_params":{"expr":"loop_b","metrics":[{"name":"loop_b"}]}},
	  {"name":"loop_b","type":"derived","type_params":{"expr":"loop_a","metrics":[{"name":"loop_a"}]}},
	  {"name":"odd","type":"simple","type_params":{"expr":"amount","metric_aggregation_params":{"semantic_model":"events","agg":"mode"}}}
	]}`
	p := plan(t, events, semantic)
	if len(p.Models) != 1 {
		t.Fatalf("models: %d, issues %v", len(p.Models), p.Issues)
	}
	got := map[string]string{}
	data := map[string]map[string]any{}
	for _, m := range p.Models[0].Model.Definition.Metrics {
		got[m.Name] = m.Expression.Dialects[0].Expression + " :: " + string(*m.Datatype)
		var d map[string]any
		_ = json.Unmarshal([]byte(*m.CustomExtensions[0].Data), &d)
		data[m.Name] = d
	}
	want := map[string]string{
		"visit_count": "COUNT(events.user_id) :: Integer",
		"both":        "COUNT(events.user_id) :: Integer",
		"own_agg":     "MAX(events.amount) :: Decimal",
		"p90_amount":  "PERCENTILE_DISC(0.9) WITHIN GROUP (ORDER BY events.amount) :: Decimal",
		"clicks":      "COUNT(CASE WHEN events.kind = 'click' THEN events.user_id END) :: Integer",
		"big_buyers":  "SUM(events.amount) :: Decimal",
		"conv_old":    "CAST(SUM(events.amount) AS DOUBLE PRECISION) / NULLIF(COUNT(events.user_id), 0) :: Float",
		"conv_new":    "MAX(events.amount) :: Decimal",
		"buys":        "SUM(events.amount) :: Decimal",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metric SQL (-want +got):\n%s", diff)
	}
	if data["big_buyers"]["sql_omits_filter"] != true || !strings.Contains(mustJSON(data["big_buyers"]["filter"]), "Metric('buys'") {
		t.Errorf("big_buyers keeps no filter: %v", data["big_buyers"])
	}
	if mustJSON(data["conv_old"]["inputs"]) != `["visits","buys"]` || !strings.Contains(mustJSON(data["conv_old"]["type_params"]), `"window":{"count":7,"granularity":"day"}`) {
		t.Errorf("conv_old data = %v", data["conv_old"])
	}
	var issues []string
	for _, i := range p.Issues {
		issues = append(issues, i.String())
	}
	wantIssues := []string{
		"metric loop_a: metrics built on each other more than 32 deep (a cycle?)",
		"metric loop_b: metrics built on each other more than 32 deep (a cycle?)",
		"metric odd: unknown aggregation 'mode'",
	}
	if diff := cmp.Diff(wantIssues, issues); diff != "" {
		t.Errorf("issues (-want +got):\n%s", diff)
	}
	if p.Spec != "measures and metric aggregation" {
		t.Errorf("spec = %q", p.Spec)
	}
}

// TestTableMapping checks a table's columns, types and properties from the
// manifest alone, and column meta kept as a property.
func TestTableMapping(t *testing.T) {
	p := plan(t, events, "")
	if len(p.Tables) != 1 || len(p.Issues) != 0 {
		t.Fatalf("tables %d, issues %v", len(p.Tables), p.Issues)
	}
	tb := p.Tables[0]
	var cols []string
	for _, c := range tb.Table.Columns {
		ty, _ := json.Marshal(c.Type)
		cols = append(cols, fmt.Sprintf("%s %s %v", c.Name, strings.Trim(string(ty), `"`), c.IsNullable()))
	}
	if diff := cmp.Diff([]string{"user_id long false", "kind string true", "at timestamp true", "amount decimal(10,2) true"}, cols); diff != "" {
		t.Errorf("columns (-want +got):\n%s", diff)
	}
	want := map[string]string{"dbt.project": "p", "dbt.unique_id": "model.p.events", "dbt.resource_type": "model",
		"dbt.materialized": "table", "dbt.database": "d", "dbt.column_meta": `{"user_id":{"meta":{"pii":true},"tags":["key"]}}`}
	if diff := cmp.Diff(want, tb.Table.Properties); diff != "" {
		t.Errorf("properties (-want +got):\n%s", diff)
	}
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestLegacyMetrics maps metrics of the dbt_metrics spec (dbt 1.3 to 1.5,
// in manifest.json): a model of their own per table, filters as SQL.
func TestLegacyMetrics(t *testing.T) {
	manifest := strings.TrimSuffix(events, "}") + `,"metrics":{
	  "metric.p.revenue":{"name":"revenue","label":"Revenue","description":"All money","calculation_method":"sum","expression":"amount",
	    "timestamp":"at","time_grains":["day","week"],"dimensions":["kind"],
	    "filters":[{"field":"kind","operator":"=","value":"'buy'"}],"depends_on":{"nodes":["model.p.events"]}},
	  "metric.p.users":{"name":"users","calculation_method":"count_distinct","expression":"user_id","timestamp":"at",
	    "dimensions":[],"filters":[],"depends_on":{"nodes":["model.p.events"]}},
	  "metric.p.per_user":{"name":"per_user","calculation_method":"derived","expression":"revenue / users",
	    "depends_on":{"nodes":["metric.p.revenue","metric.p.users"]}},
	  "metric.p.old":{"name":"old","type":"max","sql":"amount","depends_on":{"nodes":["model.p.events"]}}}}`
	p := plan(t, manifest, "")
	if len(p.Issues) != 0 || len(p.Models) != 1 || p.Spec != "dbt_metrics (dbt before 1.6)" {
		t.Fatalf("issues %v, models %d, spec %q", p.Issues, len(p.Models), p.Spec)
	}
	def := p.Models[0].Model.Definition
	got := map[string]string{}
	for _, m := range def.Metrics {
		got[m.Name] = m.Expression.Dialects[0].Expression
	}
	want := map[string]string{
		"revenue":  "SUM(CASE WHEN events.kind = 'buy' THEN events.amount END)",
		"users":    "COUNT(DISTINCT events.user_id)",
		"per_user": "(SUM(CASE WHEN events.kind = 'buy' THEN events.amount END)) / (COUNT(DISTINCT events.user_id))",
		"old":      "MAX(events.amount)",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metric SQL (-want +got):\n%s", diff)
	}
	var fields []string
	for _, f := range def.Datasets[0].Fields {
		fields = append(fields, fmt.Sprintf("%s:%v", f.Name, f.Dimension.IsTime != nil && *f.Dimension.IsTime))
	}
	if diff := cmp.Diff([]string{"at:true", "kind:false"}, fields); diff != "" {
		t.Errorf("fields (-want +got):\n%s", diff)
	}
}

// TestNodeKinds checks that snapshots and sources become tables, and that
// tests, ephemeral models and exposures are listed as skipped.
func TestNodeKinds(t *testing.T) {
	manifest := `{"metadata":{"project_name":"p"},"nodes":{
	  "snapshot.p.users_history":{"resource_type":"snapshot","name":"users_history","alias":"users_history","schema":"snapshots",
	    "config":{"materialized":"snapshot"},"description":"Users over time","columns":{}},
	  "model.p.tmp":{"resource_type":"model","name":"tmp","alias":"tmp","schema":"s","config":{"materialized":"ephemeral"}},
	  "test.p.not_null_x":{"resource_type":"test","name":"not_null_x","schema":"s","config":{}}},
	 "sources":{"source.p.app.users":{"resource_type":"source","name":"users","identifier":"app_users","schema":"raw",
	    "source_name":"app","loader":"fivetran","description":"","source_description":"","columns":{}}},
	 "exposures":{"exposure.p.dash":{}}}`
	p := plan(t, manifest, "")
	var tables []string
	for _, tb := range p.Tables {
		tables = append(tables, fmt.Sprintf("%s.%s %s %s", tb.Schema, tb.Table.Name, tb.Table.Properties["dbt.resource_type"], tb.Table.Properties["dbt.loader"]))
	}
	if diff := cmp.Diff([]string{"raw.app_users source fivetran", "snapshots.users_history snapshot "}, tables); diff != "" {
		t.Errorf("tables (-want +got):\n%s", diff)
	}
	var skipped []string
	for _, s := range p.Skipped {
		skipped = append(skipped, s.String())
	}
	want := []string{"1 ephemeral model: semcat has no place for them: model.p.tmp", "1 exposure: semcat has no place for them: exposure.p.dash",
		"1 test: semcat has no place for them: test.p.not_null_x"}
	if diff := cmp.Diff(want, skipped); diff != "" {
		t.Errorf("skipped (-want +got):\n%s", diff)
	}
}
