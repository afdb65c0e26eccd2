package postgres_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/connectors/postgres"
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
		"rating":           `{"name":"rating","type":{"type":"unparsed","unparsedType":"mpaa_rating"},"nullable":true,"defaultValue":{"type":"unparsed","unparsedExpression":"'G'::mpaa_rating"}}`,
		"last_update":      `{"name":"last_update","type":"timestamp_tz","nullable":false,"defaultValue":{"type":"unparsed","unparsedExpression":"now()"}}`,
		"special_features": `{"name":"special_features","type":{"type":"list","elementType":"string","containsNull":false},"nullable":true}`,
		"fulltext":         `{"name":"fulltext","type":{"type":"unparsed","unparsedType":"tsvector"},"nullable":false}`,
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
	if got := asJSON(ledger["indexes"]); got != `[{"fieldNames":[["entry_id"]],"indexType":"PRIMARY_KEY","name":"ledger_pkey"},{"fieldNames":[["booked_at"],["amount"]],"indexType":"UNIQUE_KEY","name":"ledger_booked_at_amount_key"},{"fieldNames":[["memo"]],"indexType":"UNIQUE_KEY","name":"ledger_memo_key"}]` {
		t.Errorf("ledger indexes: %s", got)
	}
	if got := asJSON(ledger["columns"].([]any)[2]); got != canonical(`{"name":"currency","type":"char(3)","nullable":false,"defaultValue":{"dataType":"char(3)","type":"literal","value":"EUR"}}`) {
		t.Errorf("ledger.currency: %s", got)
	}
	// semcat's own properties on a table with unparsed columns.
	_, resp = h.ok("PUT", pg+"/schemas/public/tables/film", `{"updates":[{"@type":"setProperty","property":"steward","value":"ana"}]}`)
	if resp["table"].(map[string]any)["properties"].(map[string]any)["steward"] != "ana" {
		t.Errorf("a semcat property on film: %v", resp)
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
// audit line, search result, or stored catalog property. It ends the
// test's events (the audit log is complete once the bus has drained).
func (h *harness) noPassword() {
	h.t.Helper()
	if got := h.search(password, ""); len(got) != 0 {
		h.t.Errorf("a search for the password finds %v", got)
	}
	h.bus.Close(context.Background())
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
	if !strings.Contains(string(audit), `"operation":"createCatalog"`) || strings.Contains(string(audit), password) {
		h.t.Errorf("the audit log has no catalog creation or holds the password:\n%s", audit)
	}
	var n int
	if err := h.store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM catalog_meta WHERE properties::text LIKE '%' || $1 || '%'`, password).Scan(&n); err != nil || n != 0 {
		h.t.Errorf("catalog properties hold the password: %d %v", n, err)
	}
}

// TestRefreshFollowsSource: a refresh that finds nothing changed writes
// nothing (no outbox row); one that finds changes writes only those — a
// table renamed in the source keeps its identity (tags, statistics,
// semantic-model sources follow, by object id), a dropped one is dropped,
// an added column is searchable; the refresh state and /metrics show it.
func TestRefreshFollowsSource(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadPagila()
	h.ok("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", ""))
	h.ok("POST", "/api/metalakes/m/tags", `{"name":"pii"}`)
	h.ok("POST", "/api/metalakes/m/objects/table/pg.public.customer/tags", `{"tagsToAdd":["pii"]}`)
	h.ok("PUT", "/api/metalakes/m/objects/table/pg.public.customer/statistics", `{"updates":{"custom-rows":42}}`)
	h.ok("POST", "/api/metalakes/m/users", `{"name":"bob"}`)
	h.ok("PUT", "/api/metalakes/m/owners/table/pg.public.customer", `{"name":"bob","type":"USER"}`)
	h.ok("POST", "/api/metalakes/m/policies", `{"name":"keep","policyType":"custom","enabled":true,"content":{"customRules":{},"supportedObjectTypes":["TABLE"],"properties":{}}}`)
	h.ok("POST", "/api/metalakes/m/objects/table/pg.public.customer/policies", `{"policiesToAdd":["keep"]}`)
	h.ok("POST", pg+"/schemas/public/semantic-models", `{"name":"customers","definition":{"datasets":[{"name":"c",
		"source":{"namespace":["pg","public"],"name":"customer"},"primaryKey":["customer_id"]}]}}`)

	before := h.outboxRows()
	var tableXmin string
	h.store.Pool().QueryRow(context.Background(), `SELECT string_agg(xmin::text, ',' ORDER BY table_id) FROM table_meta`).Scan(&tableXmin)
	hdr, _ := h.ok("POST", pg+"/refresh", nil)
	if after := h.outboxRows(); after != before || hdr.Get("X-Semcat-Position") != "" {
		t.Errorf("a refresh that found nothing changed wrote %d outbox rows (position %q)", after-before, hdr.Get("X-Semcat-Position"))
	}
	var xmin2 string
	h.store.Pool().QueryRow(context.Background(), `SELECT string_agg(xmin::text, ',' ORDER BY table_id) FROM table_meta`).Scan(&xmin2)
	if xmin2 != tableXmin {
		t.Errorf("a refresh that found nothing changed rewrote tables")
	}
	// It read the source's catalog once (the stamps), no table's
	// description.
	log := h.log.String()
	last := log[strings.LastIndex(log, "refreshed postgres catalog"):]
	if last, _, _ = strings.Cut(last, "\n"); !strings.Contains(last, " read=0 ") || !strings.Contains(last, " written=0 ") {
		t.Errorf("the no-change refresh's account: %s", last)
	}

	h.exec(`ALTER TABLE public.customer RENAME TO client`,
		`ALTER TABLE public.film ADD COLUMN subtitle_language text`,
		`COMMENT ON COLUMN public.film.subtitle_language IS 'Language of the zanzibarian subtitles'`,
		`DROP VIEW public.actor_info`)
	before = h.outboxRows()
	hdr, _ = h.ok("POST", pg+"/refresh", nil)
	if n := h.outboxRows() - before; n != 4 {
		t.Errorf("the refresh wrote %d outbox rows, want 4 (client, film, actor_info, the model whose source was renamed)", n)
	}
	if status, _, _ := h.do("GET", pg+"/schemas/public/tables/customer", nil); status != 404 {
		t.Errorf("the old name still answers: %d", status)
	}
	_, resp := h.ok("GET", "/api/metalakes/m/objects/table/pg.public.client/tags", nil)
	if got := asJSON(resp["names"]); got != `["pii"]` {
		t.Errorf("tags of the renamed table: %v", resp)
	}
	_, resp = h.ok("GET", "/api/metalakes/m/objects/table/pg.public.client/statistics", nil)
	if !strings.Contains(asJSON(resp), "custom-rows") {
		t.Errorf("statistics of the renamed table: %v", resp)
	}
	_, resp = h.ok("GET", "/api/metalakes/m/owners/table/pg.public.client", nil)
	if !strings.Contains(asJSON(resp), `"bob"`) {
		t.Errorf("owner of the renamed table: %v", resp)
	}
	_, resp = h.ok("GET", "/api/metalakes/m/objects/table/pg.public.client/policies", nil)
	if !strings.Contains(asJSON(resp), `"keep"`) {
		t.Errorf("policies of the renamed table: %v", resp)
	}
	_, resp = h.ok("GET", pg+"/schemas/public/semantic-models/customers", nil)
	if src := asJSON(resp["semanticModel"].(map[string]any)["definition"].(map[string]any)["datasets"].([]any)[0].(map[string]any)["source"]); src != `{"name":"client","namespace":["pg","public"]}` {
		t.Errorf("the model's source after the rename: %s", src)
	}
	_, resp = h.ok("GET", "/api/metalakes/m/tags/pii/objects", nil)
	if !strings.Contains(asJSON(resp), "client") {
		t.Errorf("the tag's objects: %v", resp)
	}
	if status, _, _ := h.do("GET", pg+"/schemas/public/tables/actor_info", nil); status != 404 {
		t.Errorf("a table dropped in the source still answers: %d", status)
	}
	if got := h.search("zanzibarian", hdr.Get("X-Semcat-Position")); !slices.Equal(got, []string{"table:film"}) {
		t.Errorf("search for the added column's comment: %v", got)
	}
	_, resp = h.ok("GET", pg, nil)
	props := resp["catalog"].(map[string]any)["properties"].(map[string]any)
	if props["semcat.last-error"] != "" || props["semcat.last-refresh"] == nil {
		t.Errorf("refresh state: %v", props)
	}
	mfs, err := h.metrics.Gather()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				if l.GetName() == "catalog" && l.GetValue() == "pg" {
					seen[mf.GetName()] = true
				}
			}
		}
	}
	if !seen["semcat_source_refresh_age_seconds"] || !seen["semcat_source_refresh_errors_total"] {
		t.Errorf("metrics of catalog pg: %v", seen)
	}
	h.noPassword()
}

// TestSemanticModelOverMirror: a semantic model's dataset sources in a
// PostgreSQL catalog are checked against the mirrored columns.
func TestSemanticModelOverMirror(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadPagila()
	h.ok("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", ""))
	h.ok("POST", pg+"/schemas/public/semantic-models", `{"name":"films","definition":{"datasets":[{"name":"f",
		"source":{"namespace":["pg","public"],"name":"film"},"primaryKey":["film_id"]}]}}`)
	status, _, resp := h.do("POST", pg+"/schemas/public/semantic-models", `{"name":"bad","definition":{"datasets":[{"name":"f",
		"source":{"namespace":["pg","public"],"name":"film"},"primaryKey":["film_no"]}]}}`)
	if status != 400 || resp["type"] != "IllegalSemanticModelException" || !strings.Contains(resp["message"].(string), "'film_no' is not a top-level column") {
		t.Errorf("a key that is not a mirrored column: %d %v", status, resp)
	}
	h.exec(`ALTER TABLE public.film ADD COLUMN film_no integer`)
	h.ok("POST", pg+"/refresh", nil)
	h.ok("POST", pg+"/schemas/public/semantic-models", `{"name":"bad","definition":{"datasets":[{"name":"f",
		"source":{"namespace":["pg","public"],"name":"film"},"primaryKey":["film_no"]}]}}`)
}

// TestCreateFailsWithoutSource: a catalog whose source cannot be reached
// is not created: 502/1007 with the source's reason and no password;
// testConnection of a PostgreSQL catalog uses its (hidden) password.
func TestCreateFailsWithoutSource(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.proxy.stop()
	status, _, resp := h.do("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", ""))
	msg, _ := resp["message"].(string)
	if status != 502 || resp["code"] != 1007.0 || resp["type"] != "ConnectionFailedException" || !strings.Contains(msg, "refused") {
		t.Errorf("create over a closed port: %d %v", status, resp)
	}
	if status, _, _ := h.do("GET", pg, nil); status != 404 {
		t.Errorf("the catalog was stored: %d", status)
	}
	status, _, resp = h.do("POST", "/api/metalakes/m/catalogs", `{"name":"x","type":"relational","provider":"jdbc-postgresql","properties":{"jdbc-url":"jdbc:mysql://h/d"}}`)
	if status != 400 || !strings.HasPrefix(resp["message"].(string), "properties.jdbc-url:") {
		t.Errorf("a MySQL URL: %d %v", status, resp)
	}
	status, _, resp = h.do("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", `, "semcat.refresh-interval": "every now and then"`))
	if status != 400 || !strings.HasPrefix(resp["message"].(string), "properties.semcat.refresh-interval:") {
		t.Errorf("a bad schedule: %d %v", status, resp)
	}
	h.proxy.start()
	h.ok("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", ""))
	if _, resp := h.ok("POST", pg+"/testConnection", nil); resp["code"] != 0.0 {
		t.Errorf("testConnection: %v", resp)
	}
	if _, resp := h.ok("POST", "/api/metalakes/m/catalogs/testConnection", h.catalogBody("pg2", "")); resp["code"] != 0.0 {
		t.Errorf("testConnection of a creation: %v", resp)
	}
	// A new password replaces the secret, and shows nowhere either.
	_, resp = h.ok("PUT", pg, `{"updates":[{"@type":"setProperty","property":"jdbc-password","value":"`+password+`-2"},{"@type":"updateComment","newComment":"rotated"}]}`)
	if props := resp["catalog"].(map[string]any)["properties"].(map[string]any); props["jdbc-password"] != nil || resp["catalog"].(map[string]any)["comment"] != "rotated" {
		t.Errorf("after a new password: %v", resp)
	}
	var secret string
	h.store.Pool().QueryRow(context.Background(), `SELECT secret FROM source_catalog`).Scan(&secret)
	if secret != password+"-2" {
		t.Errorf("the stored secret after a new password: %q", secret)
	}
	h.ok("POST", pg+"/testConnection", nil)
	status, _, resp = h.do("PUT", pg, `{"updates":[{"@type":"setProperty","property":"semcat.last-error","value":"x"}]}`)
	if status != 400 {
		t.Errorf("setting semcat.last-error: %d %v", status, resp)
	}
	h.noPassword()
}

// TestSourceOutage: with the source down, reads and search answer from the
// mirror, writes and refreshes are 502/1007 (shown in semcat.last-error
// and /metrics); once it is back, the next refresh catches up.
func TestSourceOutage(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.loadPagila()
	hdr, _ := h.ok("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", ""))
	pos := hdr.Get("X-Semcat-Position")
	h.proxy.stop()
	h.ok("GET", pg+"/schemas/public/tables/film", nil)
	h.ok("GET", pg+"/schemas/public/tables", nil)
	if got := h.search("rental catalogue", pos); !slices.Contains(got, "table:film") {
		t.Errorf("search with the source down: %v", got)
	}
	for _, w := range []struct{ method, path, body string }{
		{"POST", pg + "/refresh", ""},
		{"POST", pg + "/schemas", `{"name":"sales"}`},
		{"POST", pg + "/schemas/public/tables", `{"name":"t","columns":[{"name":"a","type":"integer"}]}`},
		{"PUT", pg + "/schemas/public/tables/film", `{"updates":[{"@type":"updateComment","newComment":"x"}]}`},
		{"DELETE", pg + "/schemas/public/tables/actor", ""},
		{"POST", pg + "/testConnection", ""},
	} {
		var body any
		if w.body != "" {
			body = w.body
		}
		status, _, resp := h.do(w.method, w.path, body)
		if status != 502 || resp["code"] != 1007.0 {
			t.Errorf("%s %s with the source down: %d %v", w.method, w.path, status, resp)
		}
	}
	_, resp := h.ok("GET", pg, nil)
	if e := resp["catalog"].(map[string]any)["properties"].(map[string]any)["semcat.last-error"].(string); !strings.Contains(e, "refused") {
		t.Errorf("semcat.last-error: %q", e)
	}
	// The source changes while semcat cannot see it.
	h.exec(`CREATE TABLE public.late_arrival (id integer)`)
	h.proxy.start()
	hdr, _ = h.ok("POST", pg+"/refresh", nil)
	h.ok("GET", pg+"/schemas/public/tables/late_arrival", nil)
	_, resp = h.ok("GET", pg, nil)
	if e := resp["catalog"].(map[string]any)["properties"].(map[string]any)["semcat.last-error"]; e != "" {
		t.Errorf("semcat.last-error after catching up: %q", e)
	}
	if got := h.search("late_arrival", hdr.Get("X-Semcat-Position")); !slices.Contains(got, "table:late_arrival") {
		t.Errorf("search after catching up: %v", got)
	}
	h.noPassword()
}

// TestScheduledRefresh: the catalog's semcat.refresh-interval schedules
// its refreshes.
func TestScheduledRefresh(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.exec(`CREATE TABLE public.first (id integer)`)
	h.ok("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", `, "semcat.refresh-interval": "@every 1s"`))
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); h.conn.Run(ctx) }()
	defer func() { cancel(); <-done }()
	h.exec(`CREATE TABLE public.second (id integer)`)
	deadline := time.Now().Add(time.Minute)
	for {
		status, _, _ := h.do("GET", pg+"/schemas/public/tables/second", nil)
		if status == 200 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the scheduled refresh never mirrored the new table")
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// TestRetentionPurgesMirror: the retention job hard-deletes a dropped
// PostgreSQL catalog and the tables it mirrored, their mirror state with
// them.
func TestRetentionPurgesMirror(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.exec(`CREATE TABLE public.gone_soon (id integer)`)
	h.ok("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", ""))
	h.exec(`DROP TABLE public.gone_soon`)
	h.ok("POST", pg+"/refresh", nil)
	h.ok("DELETE", pg+"?force=true", nil)
	h.store.Now = func() time.Time { return time.Now().Add(30 * 24 * time.Hour) }
	if _, err := h.store.Purge(context.Background(), catalogdb.RetentionPolicy{DeletedAfter: time.Hour}); err != nil {
		t.Fatalf("purge: %v", err)
	}
	var n int
	h.store.Pool().QueryRow(context.Background(), `SELECT (SELECT count(*) FROM source_catalog) + (SELECT count(*) FROM source_table) + (SELECT count(*) FROM catalog_meta)`).Scan(&n)
	if n != 0 {
		t.Errorf("%d rows left after the purge", n)
	}
}

// TestRefreshSeesEveryChange: each kind of change in the source reaches
// the mirror at the next refresh (the stamps of the catalog rows notice
// it), and a refresh after it writes nothing more.
func TestRefreshSeesEveryChange(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.exec(`CREATE TYPE public.mood AS ENUM ('ok', 'sad')`,
		`CREATE TABLE public.w (id integer NOT NULL, note text, feeling public.mood)`)
	h.ok("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", ""))
	for _, c := range []struct{ ddl, want string }{
		{`COMMENT ON COLUMN public.w.note IS 'A note'`, `"comment":"A note"`},
		{`ALTER TABLE public.w ALTER COLUMN note SET DEFAULT 'none'`, `"value":"none"`},
		{`ALTER TABLE public.w ALTER COLUMN id DROP NOT NULL`, `{"name":"id","nullable":true,"type":"integer"}`},
		{`ALTER TABLE public.w ADD CONSTRAINT w_id UNIQUE (id)`, `"name":"w_id"`},
		{`CREATE UNIQUE INDEX w_note ON public.w (note)`, `"name":"w_note"`},
		{`ALTER TYPE public.mood RENAME TO feeling_kind`, `"unparsedType":"feeling_kind"`},
		{`COMMENT ON TABLE public.w IS 'Weather'`, `"comment":"Weather"`},
		{`ALTER TABLE public.w RENAME COLUMN note TO remark`, `"name":"remark"`},
	} {
		h.exec(c.ddl)
		h.ok("POST", pg+"/refresh", nil)
		_, resp := h.ok("GET", pg+"/schemas/public/tables/w", nil)
		if got := asJSON(resp["table"]); !strings.Contains(got, c.want) {
			t.Errorf("after %s: %s", c.ddl, got)
		}
		before := h.outboxRows()
		h.ok("POST", pg+"/refresh", nil)
		if n := h.outboxRows() - before; n != 0 {
			t.Errorf("after %s, a second refresh wrote %d outbox rows", c.ddl, n)
		}
	}
}

// TestSchemaRenamedInSource: a schema renamed in the source becomes a new
// schema in the mirror, and its tables move into it with their identity.
func TestSchemaRenamedInSource(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.exec(`CREATE SCHEMA sales`, `CREATE TABLE sales.orders (id integer PRIMARY KEY)`)
	h.ok("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", ""))
	h.ok("POST", "/api/metalakes/m/tags", `{"name":"gold"}`)
	h.ok("POST", "/api/metalakes/m/objects/table/pg.sales.orders/tags", `{"tagsToAdd":["gold"]}`)
	h.exec(`ALTER SCHEMA sales RENAME TO revenue`)
	h.ok("POST", pg+"/refresh", nil)
	_, resp := h.ok("GET", pg+"/schemas", nil)
	if got := names(resp); !slices.Equal(got, []string{"public", "revenue"}) {
		t.Errorf("schemas after the rename: %v", got)
	}
	_, resp = h.ok("GET", "/api/metalakes/m/objects/table/pg.revenue.orders/tags", nil)
	if asJSON(resp["names"]) != `["gold"]` {
		t.Errorf("tags of the moved table: %v", resp)
	}
}

// TestColumnTagsFollowSource: a column renamed in the source keeps its
// tags (followed by its number), one dropped there loses them, even when
// two columns swap names.
func TestColumnTagsFollowSource(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.exec(`CREATE TABLE public.people (id integer, email text, phone text, nick text)`)
	h.ok("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", ""))
	h.ok("POST", "/api/metalakes/m/tags", `{"name":"pii"}`)
	h.ok("POST", "/api/metalakes/m/tags", `{"name":"contact"}`)
	h.ok("POST", "/api/metalakes/m/objects/column/pg.public.people.email/tags", `{"tagsToAdd":["pii"]}`)
	h.ok("POST", "/api/metalakes/m/objects/column/pg.public.people.phone/tags", `{"tagsToAdd":["contact"]}`)
	h.ok("POST", "/api/metalakes/m/objects/column/pg.public.people.nick/tags", `{"tagsToAdd":["pii"]}`)
	h.exec(`ALTER TABLE public.people RENAME COLUMN email TO tmp`,
		`ALTER TABLE public.people RENAME COLUMN phone TO email`,
		`ALTER TABLE public.people RENAME COLUMN tmp TO phone`,
		`ALTER TABLE public.people DROP COLUMN nick`,
		`ALTER TABLE public.people ADD COLUMN nick text`)
	h.ok("POST", pg+"/refresh", nil)
	for col, want := range map[string]string{"phone": `["pii"]`, "email": `["contact"]`, "nick": `[]`} {
		_, resp := h.ok("GET", "/api/metalakes/m/objects/column/pg.public.people."+col+"/tags", nil)
		if got := asJSON(resp["names"]); got != want {
			t.Errorf("tags of column %s: %s, want %s", col, got, want)
		}
	}
}

// TestConcurrentRefreshes: two semcat processes over one database refresh
// a catalog at once; each succeeds and the change is mirrored once.
func TestConcurrentRefreshes(t *testing.T) {
	t.Parallel()
	h := newHarness(t)
	h.ok("POST", "/api/metalakes/m/catalogs", h.catalogBody("pg", ""))
	other := postgres.New(h.store, nil) // the second process's connector
	for round := range 5 {
		h.exec(fmt.Sprintf(`CREATE TABLE public.t%d (id integer)`, round))
		before := h.outboxRows()
		errs := make(chan error, 2)
		for _, c := range []*postgres.Connector{h.conn, other} {
			go func() {
				_, err := c.Refresh(context.Background(), "m", "pg")
				errs <- err
			}()
		}
		for range 2 {
			if err := <-errs; err != nil {
				t.Errorf("round %d: %v", round, err)
			}
		}
		if n := h.outboxRows() - before; n != 1 {
			t.Errorf("round %d: %d outbox rows, want 1", round, n)
		}
	}
}
