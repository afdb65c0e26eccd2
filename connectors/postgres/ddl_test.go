package postgres_test

import (
	"context"
	"strings"
	"testing"
)

// sourceColumns is the source's view of a table: "name type [NOT NULL]
// [DEFAULT x]" per column, in order, and its comment.
func (h *harness) sourceColumns(schema, table string) string {
	h.t.Helper()
	var out string
	err := h.src.QueryRow(context.Background(), `SELECT coalesce(obj_description(c.oid, 'pg_class'), '') || '|' || string_agg(a.attname || ' ' || format_type(a.atttypid, a.atttypmod)
			|| CASE WHEN a.attnotnull THEN ' NOT NULL' ELSE '' END
			|| coalesce(' DEFAULT ' || pg_get_expr(d.adbin, d.adrelid), '')
			|| coalesce(' -- ' || col_description(c.oid, a.attnum), ''), ', ' ORDER BY a.attnum)
		FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace JOIN pg_attribute a ON a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped
		LEFT JOIN pg_attrdef d ON d.adrelid = c.oid AND d.adnum = a.attnum
		WHERE n.nspname = $1 AND c.relname = $2 GROUP BY c.oid`, schema, table).Scan(&out)
	if err != nil {
		return "missing: " + err.Error()
	}
	return out
}

// TestDDLPushDown: writes through semcat go to the source as DDL and
// answer once the mirror shows them; what only semcat keeps (properties,
// tags) stays in semcat; a position change is 405; the source's refusal
// is answered with its reason.
func TestDDLPushDown(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.ok("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", ""))
	_, resp := h.ok("POST", pg+"/schemas", `{"name":"sales","comment":"Orders and such","properties":{"team":"revenue"}}`)
	if s := resp["schema"].(map[string]any); s["comment"] != "Orders and such" || asJSON(s["properties"]) != `{"team":"revenue"}` {
		t.Errorf("created schema: %v", s)
	}
	var comment string
	if err := h.src.QueryRow(context.Background(), `SELECT obj_description(oid, 'pg_namespace') FROM pg_namespace WHERE nspname = 'sales'`).Scan(&comment); err != nil || comment != "Orders and such" {
		t.Errorf("the source's schema: %q %v", comment, err)
	}
	_, resp = h.ok("POST", pg+"/schemas/sales/tables", `{"name":"orders","comment":"One row per order","properties":{"steward":"ana"},
		"columns":[{"name":"order_id","type":"long","nullable":false,"autoIncrement":true},
			{"name":"amount","type":"decimal(10,2)","nullable":false,"defaultValue":{"type":"literal","dataType":"decimal(10,2)","value":"0"}},
			{"name":"note","type":"string","comment":"Free text"},
			{"name":"placed","type":"timestamp_tz"}],
		"indexes":[{"indexType":"PRIMARY_KEY","name":"orders_pk","fieldNames":[["order_id"]]}]}`)
	table := resp["table"].(map[string]any)
	if asJSON(table["properties"]) != `{"steward":"ana","table-type":"TABLE"}` || table["comment"] != "One row per order" ||
		asJSON(table["indexes"]) != `[{"fieldNames":[["order_id"]],"indexType":"PRIMARY_KEY","name":"orders_pk"}]` {
		t.Errorf("created table: %v", asJSON(table))
	}
	if got, want := h.sourceColumns("sales", "orders"), "One row per order|order_id bigint NOT NULL, amount numeric(10,2) NOT NULL DEFAULT '0'::numeric, note text -- Free text, placed timestamp with time zone"; got != want {
		t.Errorf("the source's table:\n got %s\nwant %s", got, want)
	}
	h.ok("POST", "/api/metalakes/m/tags", `{"name":"finance"}`)
	h.ok("POST", "/api/metalakes/m/objects/table/pg.sales.orders/tags", `{"tagsToAdd":["finance"]}`)

	_, resp = h.ok("PUT", pg+"/schemas/sales/tables/orders", `{"updates":[
		{"@type":"addColumn","fieldName":["channel"],"type":"varchar(20)","comment":"Where it came from","nullable":true},
		{"@type":"renameColumn","oldFieldName":["note"],"newFieldName":"remark"},
		{"@type":"updateColumnType","fieldName":["placed"],"newType":"timestamp"},
		{"@type":"updateColumnComment","fieldName":["remark"],"newComment":"Anything"},
		{"@type":"updateColumnNullability","fieldName":["placed"],"nullable":false},
		{"@type":"updateColumnDefaultValue","fieldName":["channel"],"newDefaultValue":{"type":"literal","dataType":"varchar(20)","value":"web"}},
		{"@type":"updateComment","newComment":"Orders, one per row"},
		{"@type":"setProperty","property":"tier","value":"gold"},
		{"@type":"rename","newName":"purchases"}]}`)
	table = resp["table"].(map[string]any)
	if table["name"] != "purchases" || table["comment"] != "Orders, one per row" || table["properties"].(map[string]any)["tier"] != "gold" {
		t.Errorf("altered table: %v", asJSON(table))
	}
	if got, want := h.sourceColumns("sales", "purchases"), "Orders, one per row|order_id bigint NOT NULL, amount numeric(10,2) NOT NULL DEFAULT '0'::numeric, remark text -- Anything, placed timestamp without time zone NOT NULL, channel character varying(20) DEFAULT 'web'::character varying -- Where it came from"; got != want {
		t.Errorf("the source's table after the changes:\n got %s\nwant %s", got, want)
	}
	_, resp = h.ok("GET", "/api/metalakes/m/objects/table/pg.sales.purchases/tags", nil)
	if asJSON(resp["names"]) != `["finance"]` {
		t.Errorf("tags after the rename: %v", resp)
	}
	h.ok("PUT", pg+"/schemas/sales/tables/purchases", `{"updates":[{"@type":"deleteColumn","fieldName":["channel"]}]}`)
	if got := h.sourceColumns("sales", "purchases"); strings.Contains(got, "channel") {
		t.Errorf("deleted column still in the source: %s", got)
	}

	// What the source cannot do, and what it refuses.
	refusals := []struct {
		body   string
		status int
		typ    string
		reason string
	}{
		{`{"updates":[{"@type":"updateColumnPosition","fieldName":["amount"],"newPosition":"first"}]}`, 405, "UnsupportedOperationException", "cannot reorder"},
		{`{"updates":[{"@type":"addColumn","fieldName":["first_col"],"type":"integer","position":"first"}]}`, 405, "UnsupportedOperationException", "adds a column last"},
		{`{"updates":[{"@type":"addColumn","fieldName":["amount"],"type":"integer"}]}`, 409, "", `column "amount" of relation "purchases" already exists`},
		{`{"updates":[{"@type":"updateColumnType","fieldName":["remark"],"newType":"integer"}]}`, 400, "IllegalArgumentException", `column "remark" cannot be cast automatically to type integer`},
	}
	h.exec(`INSERT INTO sales.purchases (amount, remark, placed) VALUES (1, 'x', now())`)
	refusals = append(refusals, struct {
		body   string
		status int
		typ    string
		reason string
	}{`{"updates":[{"@type":"addColumn","fieldName":["required"],"type":"integer","nullable":false}]}`, 409, "", `column "required" of relation "purchases" contains null values`})
	for _, r := range refusals {
		status, _, resp := h.do("PUT", pg+"/schemas/sales/tables/purchases", r.body)
		msg, _ := resp["message"].(string)
		if status != r.status || (r.typ != "" && resp["type"] != r.typ) || !strings.Contains(msg, r.reason) {
			t.Errorf("%s: %d %v, want %d %s %q", r.body, status, resp, r.status, r.typ, r.reason)
		}
	}
	if got := h.sourceColumns("sales", "purchases"); strings.Contains(got, "first_col") || strings.Contains(got, "required") {
		t.Errorf("a refused change reached the source: %s", got)
	}
	status, _, resp := h.do("POST", pg+"/schemas", `{"name":"sales"}`)
	if status != 409 || resp["type"] != "SchemaAlreadyExistsException" {
		t.Errorf("a schema the source has: %d %v", status, resp)
	}
	status, _, resp = h.do("DELETE", pg+"/schemas/sales", nil)
	if status != 409 || !strings.Contains(resp["message"].(string), "other objects depend on it") {
		t.Errorf("dropping a schema with tables without cascade: %d %v", status, resp)
	}

	_, resp = h.ok("DELETE", pg+"/schemas/sales/tables/purchases?purge=true", nil)
	if resp["dropped"] != true || !strings.HasPrefix(h.sourceColumns("sales", "purchases"), "missing") {
		t.Errorf("purge: %v; source %s", resp, h.sourceColumns("sales", "purchases"))
	}
	if status, _, _ := h.do("GET", pg+"/schemas/sales/tables/purchases", nil); status != 404 {
		t.Errorf("the purged table still answers: %d", status)
	}
	h.ok("POST", pg+"/schemas/sales/tables", `{"name":"t","columns":[{"name":"a","type":"integer"}]}`)
	h.ok("DELETE", pg+"/schemas/sales?cascade=true", nil)
	var n int
	h.src.QueryRow(context.Background(), `SELECT count(*) FROM pg_namespace WHERE nspname = 'sales'`).Scan(&n)
	if status, _, _ := h.do("GET", pg+"/schemas/sales", nil); status != 404 || n != 0 {
		t.Errorf("the dropped schema: semcat %d, source %d", status, n)
	}
	// Disabled, the catalog or its metalake refuses before the source sees
	// anything.
	for _, off := range []struct{ path, typ string }{{pg, "CatalogNotInUseException"}, {"/api/metalakes/m", "MetalakeNotInUseException"}} {
		h.ok("PATCH", off.path, `{"inUse": false}`)
		status, _, resp := h.do("POST", pg+"/schemas", `{"name":"never"}`)
		if status != 409 || resp["type"] != off.typ {
			t.Errorf("a write under a disabled %s: %d %v", off.path, status, resp)
		}
		h.ok("PATCH", off.path, `{"inUse": true}`)
	}
	h.src.QueryRow(context.Background(), `SELECT count(*) FROM pg_namespace WHERE nspname = 'never'`).Scan(&n)
	if n != 0 {
		t.Errorf("a refused write reached the source")
	}
	h.noPassword()
}
