package catalogdb_test

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
)

// mustExec runs statements on db, failing the test at the first error.
func mustExec(t *testing.T, db *pgxpool.Pool, statements ...string) {
	t.Helper()
	for _, sql := range statements {
		if _, err := db.Exec(context.Background(), sql); err != nil {
			t.Fatal(err)
		}
	}
}

// int64s returns the one bigint column of a query's rows.
func int64s(t *testing.T, db *pgxpool.Pool, sql string) []int64 {
	t.Helper()
	rows, err := db.Query(context.Background(), sql)
	if err != nil {
		t.Fatal(err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestPollReadsTheOutboxInKeyOrder: with a backlog of outbox rows, the
// tail's poll reads the rows after its cursor from the primary key, in
// order, instead of reading and sorting every row after the cursor (which
// made each poll cost as much as the backlog is long).
func TestPollReadsTheOutboxInKeyOrder(t *testing.T) {
	ctx := context.Background()
	db := MustOpenStore(t).Pool()
	// 50,000 rows of 1,000 transactions: a bulk load's backlog.
	mustExec(t, db, `INSERT INTO outbox (txid, entity_kind, entity_id, operation)
		SELECT (1000 + g / 50)::text::xid8, 'table', g, 'upsert' FROM generate_series(1, 50000) g`,
		`ANALYZE outbox`)
	var plan string
	if err := db.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+catalogdb.PollOutboxSQL, "1200", 0, "999999", 2000).Scan(&plan); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(plan, `"Sort"`) || !strings.Contains(plan, `"outbox_pkey"`) {
		t.Errorf("the poll does not read the outbox's primary key in order:\n%s", plan)
	}
	rows, err := db.Query(ctx, catalogdb.PollOutboxSQL, "1200", 0, "1300", 2000)
	if err != nil {
		t.Fatal(err)
	}
	type key struct{ txid, seq int64 }
	got, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (key, error) {
		var k key
		var kind string
		var id int64
		return k, r.Scan(&k.txid, &k.seq, &kind, &id)
	})
	if err != nil {
		t.Fatal(err)
	}
	// Transactions 1200 (its rows after seq 0) to 1299: 100 of 50 rows.
	if len(got) != 2000 || got[0].txid != 1200 || got[len(got)-1].txid != 1239 {
		t.Fatalf("read %d rows from %v to %v, want 2000 from transaction 1200 to 1239", len(got), got[0], got[len(got)-1])
	}
	for i := 1; i < len(got); i++ {
		if a, b := got[i-1], got[i]; a.txid > b.txid || a.txid == b.txid && a.seq >= b.seq {
			t.Fatalf("rows out of order: %v before %v", a, b)
		}
	}
}

// TestRecordLoadsReadByKeyWithStaleStatistics: while a bulk load runs, the
// planner's statistics still describe the catalog as it was when last
// analysed. Loading a chunk of 500 records (tables with their tags, or
// metrics) must still read 500 rows of the entity's table, not every row
// of the metalake.
func TestRecordLoadsReadByKeyWithStaleStatistics(t *testing.T) {
	ctx := context.Background()
	s := MustOpenStore(t)
	seed(t, s)
	must(t, w(s.CreateTag(ctxAlice, "m", semcat.TagCreate{Name: "pii"})))
	if _, _, err := s.CreateTables(ctxAlice, salesNS, semcat.TableBatchCreate{Tables: []semcat.TableBatchItem{batchItem("t0", "pii")}}); err != nil {
		t.Fatal(err)
	}
	must(t, w(s.CreateSemanticModel(ctxAlice, salesNS, semcat.SemanticModelCreate{Name: "sm", Definition: definition("", "m1")})))
	db := s.Pool()
	// Statistics of a catalog of one table and one metric; then 20,000
	// more tables, each tagged, and 20,000 more metrics, that autovacuum
	// is kept from analysing.
	for _, table := range []string{"table_meta", "tag_relation", "semantic_model_metric_meta"} {
		mustExec(t, db, `ALTER TABLE `+table+` SET (autovacuum_enabled = false)`)
	}
	mustExec(t, db, `ANALYZE`,
		`INSERT INTO semantic_model_metric_meta (metalake_id, catalog_id, schema_id, semantic_model_id, metric_name)
		SELECT metalake_id, catalog_id, schema_id, semantic_model_id, 'bulk_' || g
		FROM semantic_model_metric_meta, generate_series(1, 20000) g WHERE metric_name = 'm1'`,
		`INSERT INTO table_meta (table_name, metalake_id, catalog_id, schema_id, columns, properties, audit_info)
		SELECT 'bulk_' || g, metalake_id, catalog_id, schema_id, columns, properties, audit_info
		FROM table_meta, generate_series(1, 20000) g WHERE table_name = 't0'`,
		`INSERT INTO tag_relation (tag_id, object_type, object_id)
		SELECT r.tag_id, 'table', t.table_id FROM tag_relation r, table_meta t
		WHERE r.object_type = 'table' AND t.table_name LIKE 'bulk\_%'`)
	ids := int64s(t, db, `SELECT table_id FROM table_meta ORDER BY table_id DESC LIMIT 500`)
	metricIDs := int64s(t, db, `SELECT metric_id FROM semantic_model_metric_meta ORDER BY metric_id DESC LIMIT 500`)
	for _, q := range []struct {
		name, sql string
		args      []any
		table     string
	}{
		{"tables", catalogdb.RecordQueries[semcat.KindTable], []any{ids}, "table_meta"},
		{"tags", catalogdb.RecordTagsSQL, []any{"table", ids}, "tag_relation"},
		{"metrics", catalogdb.RecordQueries[semcat.KindMetric], []any{metricIDs}, "semantic_model_metric_meta"},
	} {
		var plan []struct {
			Plan planNode `json:"Plan"`
		}
		if err := db.QueryRow(ctx, "EXPLAIN (ANALYZE, FORMAT JSON) "+q.sql, q.args...).Scan(&plan); err != nil {
			t.Fatal(err)
		}
		read, removed := plan[0].Plan.rowsOf(q.table)
		if read != 500 || removed > 0 {
			t.Errorf("loading the %s of 500 entities read %d rows of %s and discarded %d more, want 500 and none:\n%+v",
				q.name, read, q.table, removed, plan[0].Plan)
		}
	}
}

// planNode is a node of a plan EXPLAIN (ANALYZE, FORMAT JSON) prints.
type planNode struct {
	Relation     string     `json:"Relation Name"`
	ActualRows   int64      `json:"Actual Rows"`
	ActualLoops  int64      `json:"Actual Loops"`
	RemovedByFil int64      `json:"Rows Removed by Filter"`
	Plans        []planNode `json:"Plans"`
}

// rowsOf returns how many rows the plan's scans of table returned, and
// how many more they read and discarded by a filter.
func (n planNode) rowsOf(table string) (read, removed int64) {
	if n.Relation == table {
		read += n.ActualRows * n.ActualLoops
		removed += n.RemovedByFil * n.ActualLoops
	}
	for _, c := range n.Plans {
		r, d := c.rowsOf(table)
		read, removed = read+r, removed+d
	}
	return read, removed
}
