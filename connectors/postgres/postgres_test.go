package postgres_test

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

const pg = "/api/metalakes/m/catalogs/pg"

func names(resp map[string]any) []string {
	var out []string
	for _, id := range resp["identifiers"].([]any) {
		out = append(out, id.(map[string]any)["name"].(string))
	}
	return out
}

// canonical is JSON text as asJSON writes it (members sorted).
func canonical(s string) string {
	var v any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		panic(err)
	}
	return asJSON(v)
}

func asJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// TestMirrorPagila: a jdbc-postgresql catalog over Pagila's schema mirrors
// its schemas (not PostgreSQL's own), its tables, partitioned tables,
// views, materialized views and foreign tables (not partitions) with
// table-type, columns in order with mapped types, nullability, defaults
// and comments, keys as indexes, comments; search finds them.
func TestMirrorPagila(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadPagila()
	hdr, resp := h.ok("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", ""))
	cat := resp["catalog"].(map[string]any)
	props := cat["properties"].(map[string]any)
	if _, has := props["jdbc-password"]; has || props["jdbc-url"] == nil || cat["provider"] != "jdbc-postgresql" {
		t.Errorf("catalog: %v", cat)
	}
	if props["semcat.last-refresh"] == nil || props["semcat.last-error"] != "" {
		t.Errorf("refresh state: %v", props)
	}
	_, resp = h.ok("GET", pg+"/schemas", nil)
	if got := names(resp); !slices.Equal(got, []string{"finance", "public"}) {
		t.Errorf("schemas: %v", got)
	}
	_, resp = h.ok("GET", pg+"/schemas/finance", nil)
	if c := resp["schema"].(map[string]any)["comment"]; c != "Money in and out" {
		t.Errorf("schema comment: %v", c)
	}
	_, resp = h.ok("GET", pg+"/schemas/public/tables", nil)
	tables := names(resp)
	for _, want := range []string{"actor", "film", "payment", "actor_info", "rental_by_category", "customer_list"} {
		if !slices.Contains(tables, want) {
			t.Errorf("table %s is not mirrored: %v", want, tables)
		}
	}
	for _, tn := range tables {
		if strings.HasPrefix(tn, "payment_p") {
			t.Errorf("partition %s is mirrored as a table", tn)
		}
	}
	kind := map[string]string{"public/payment": "PARTITIONED TABLE", "public/actor_info": "VIEW",
		"public/rental_by_category": "MATERIALIZED VIEW", "finance/rates": "FOREIGN TABLE", "public/film": "TABLE"}
	for path, want := range kind {
		s, tn, _ := strings.Cut(path, "/")
		_, resp := h.ok("GET", pg+"/schemas/"+s+"/tables/"+tn, nil)
		if got := resp["table"].(map[string]any)["properties"].(map[string]any)["table-type"]; got != want {
			t.Errorf("%s: table-type %v, want %s", path, got, want)
		}
	}
	_, resp = h.ok("GET", pg+"/schemas/public/tables/film", nil)
	film := resp["table"].(map[string]any)
	if film["comment"] != "Films in the rental catalogue, one row per title" {
		t.Errorf("film comment: %v", film["comment"])
	}
	cols := film["columns"].([]any)
	col := func(i int) map[string]any { return cols[i].(map[string]any) }
	var order []string
	for i := range cols {
		order = append(order, col(i)["name"].(string))
	}
	if want := []string{"film_id", "title", "description", "release_year", "language_id", "original_language_id", "rental_duration",
		"rental_rate", "length", "replacement_cost", "rating", "last_update", "special_features", "fulltext"}; !slices.Equal(order, want) {
		t.Errorf("film columns: %v, want %v", order, want)
	}
	wantCols := map[string]string{
		"film_id":          `{"name":"film_id","type":"integer","nullable":false,"autoIncrement":true}`,
		"title":            `{"name":"title","type":"string","nullable":false}`,
		"description":      `{"name":"description","type":"string","nullable":true}`,
		"release_year":     `{"name":"release_year","type":"integer","nullable":true}`,
		"rental_duration":  `{"name":"rental_duration","type":"short","nullable":false,"defaultValue":{"dataType":"short","type":"literal","value":"3"}}`,
		"rental_rate":      `{"name":"rental_rate","type":"decimal(4,2)","comment":"Price of one rental","nullable":false,"defaultValue":{"dataType":"decimal(4,2)","type":"literal","value":"4.99"}}`,
		"rating":           `{"name":"rating","type":"unparsed","nullable":true,"defaultValue":{"type":"unparsed","unparsedExpression":"'G'::mpaa_rating"}}`,
		"last_update":      `{"name":"last_update","type":"timestamp_tz","nullable":false,"defaultValue":{"type":"unparsed","unparsedExpression":"now()"}}`,
		"special_features": `{"name":"special_features","type":{"type":"list","elementType":"string","containsNull":false},"nullable":true}`,
		"fulltext":         `{"name":"fulltext","type":"unparsed","nullable":false}`,
	}
	for i := range cols {
		if want, ok := wantCols[order[i]]; ok {
			if got := asJSON(col(i)); got != canonical(want) {
				t.Errorf("column %s:\n got %s\nwant %s", order[i], got, want)
			}
		}
	}
	if got := asJSON(film["indexes"]); got != `[{"fieldNames":[["film_id"]],"indexType":"PRIMARY_KEY","name":"film_pkey"}]` {
		t.Errorf("film indexes: %s", got)
	}
	_, resp = h.ok("GET", pg+"/schemas/finance/tables/ledger", nil)
	ledger := resp["table"].(map[string]any)
	if got := asJSON(ledger["indexes"]); got != `[{"fieldNames":[["entry_id"]],"indexType":"PRIMARY_KEY","name":"ledger_pkey"},{"fieldNames":[["booked_at"],["amount"]],"indexType":"UNIQUE_KEY","name":"ledger_booked_at_amount_key"}]` {
		t.Errorf("ledger indexes: %s", got)
	}
	if got := asJSON(ledger["columns"].([]any)[2]); got != canonical(`{"name":"currency","type":"char(3)","nullable":false,"defaultValue":{"dataType":"char(3)","type":"literal","value":"EUR"}}`) {
		t.Errorf("ledger.currency: %s", got)
	}
	// Search answers from the mirror, at the creation's position.
	pos := hdr.Get("X-Semcat-Position")
	if got := h.search("rental catalogue", pos); !slices.Contains(got, "table:film") {
		t.Errorf("search for the film table's comment: %v", got)
	}
	if got := h.search("Price of one rental", pos); !slices.Contains(got, "table:film") {
		t.Errorf("search for a column comment: %v", got)
	}
	h.noPassword()
}

// noPassword: the source's password is in no response body, log line,
// audit line, search result, or stored catalog property.
func (h *harness) noPassword() {
	h.t.Helper()
	for _, b := range h.bodies {
		if strings.Contains(b, password) {
			h.t.Errorf("a response holds the password: %s", b)
		}
	}
	if strings.Contains(h.log.String(), password) {
		h.t.Errorf("the log holds the password")
	}
	audit, err := os.ReadFile(h.auditPath)
	if err != nil {
		h.t.Fatal(err)
	}
	if len(audit) == 0 || strings.Contains(string(audit), password) {
		h.t.Errorf("the audit log is empty or holds the password (%d bytes)", len(audit))
	}
	if got := h.search(password, ""); len(got) != 0 {
		h.t.Errorf("a search for the password finds %v", got)
	}
	var n int
	if err := h.store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM catalog_meta WHERE properties::text LIKE '%' || $1 || '%'`, password).Scan(&n); err != nil || n != 0 {
		h.t.Errorf("catalog properties hold the password: %d %v", n, err)
	}
}

var _ = time.Second
