package main

import (
	"bufio"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConvert(t *testing.T) {
	dir := t.TempDir()
	write := func(path, text string) {
		t.Helper()
		p := filepath.Join(dir, path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("dbt_project.yml", "name: p\nmodel-paths: [\"models\"]\n")
	write("models/marts/finance/_models.yml", `
version: 2
models:
  - name: orders
    description: " One row per order. "
    config: {tags: [finance, "pii data"], materialized: table, meta: {owner: ana}}
    columns:
      - {name: order_id, description: The order, data_type: bigint}
      - {name: order_id, description: a duplicate}
      - {name: zip code, config: {meta: {data_type: varchar}}}
  - name: orders
    description: a second model of the same name
sources:
  - name: shop
    description: The shop's database
    tables:
      - name: raw_orders
semantic_models:
  - name: orders_sm
    model: ref('orders')
    entities: [{name: order, type: primary, expr: order_id}]
    measures: [{name: order_total, agg: sum, expr: amount}]
metrics:
  - name: revenue
    label: Revenue
    description: Sum of order totals
    type: simple
    type_params: {measure: order_total}
`)
	write("models/broken.yml", "models: [\n")
	c, err := convert(dir, "m", "c", "comment")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out.jsonl")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := c.write(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	r, _ := os.Open(out)
	defer r.Close()
	var lines []line
	var raw []map[string]any
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		var l line
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
			t.Fatal(err)
		}
		_ = json.Unmarshal(sc.Bytes(), &m)
		lines = append(lines, l)
		raw = append(raw, m)
	}
	var kinds []string
	for _, l := range lines {
		kinds = append(kinds, l.Type+" "+l.Namespace)
	}
	want := []string{"metalake ", "tag m", "tag m", "catalog m", "schema m.c", "table m.c.marts_finance", "schema m.c", "table m.c.source_shop",
		"schema m.c", "semantic_model m.c.semantic_layer"}
	if strings.Join(kinds, "|") != strings.Join(want, "|") {
		t.Fatalf("lines:\n%s\nwant:\n%s", strings.Join(kinds, "\n"), strings.Join(want, "\n"))
	}
	table := raw[5]["entity"].(map[string]any)
	if table["name"] != "orders" || table["comment"] != "One row per order." {
		t.Errorf("table: %v", table)
	}
	cols := table["columns"].([]any)
	if len(cols) != 2 || cols[0].(map[string]any)["type"] != "long" || cols[1].(map[string]any)["name"] != "zip_code" {
		t.Errorf("columns (the duplicate dropped, types mapped, names made valid): %v", cols)
	}
	props := table["properties"].(map[string]any)
	if props["owner"] != "ana" || props["materialized"] != "table" || props["dbt_path"] != "models/marts/finance/_models.yml" {
		t.Errorf("properties: %v", props)
	}
	if got := strings.Join(lines[5].Tags, ","); got != "finance,pii_data" {
		t.Errorf("tags: %s", got)
	}
	src := raw[7]["entity"].(map[string]any)
	if src["name"] != "raw_orders" || src["comment"] != "The shop's database" {
		t.Errorf("source table (the source's description when the table has none): %v", src)
	}
	def := raw[9]["entity"].(map[string]any)["definition"].(map[string]any)
	m := def["metrics"].([]any)[0].(map[string]any)
	expr := m["expression"].(map[string]any)["dialects"].([]any)[0].(map[string]any)["expression"]
	if m["name"] != "revenue" || m["description"] != "Revenue. Sum of order totals" || expr != "SUM(orders_sm.amount)" || m["label"] != nil {
		t.Errorf("metric (its label before its description, semcat's metric has no label): %v (expression %v)", m, expr)
	}
	ds := def["datasets"].([]any)[0].(map[string]any)
	if src := ds["source"].(map[string]any); src["name"] != "orders" || strings.Join([]string{src["namespace"].([]any)[0].(string), src["namespace"].([]any)[1].(string)}, ".") != "c.marts_finance" {
		t.Errorf("dataset source (the ref'd model's table): %v", src)
	}
}
