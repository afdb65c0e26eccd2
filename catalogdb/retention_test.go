package catalogdb_test

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
)

const day = 24 * time.Hour

// clock makes s.Now a clock that stands still until advanced.
func clock(s *catalogdb.Store) (advance func(time.Duration)) {
	now := time.Now()
	s.Now = func() time.Time { return now }
	return func(d time.Duration) { now = now.Add(d) }
}

// purge runs Purge and fails the test on error.
func purge(tb testing.TB, s *catalogdb.Store, p catalogdb.RetentionPolicy) catalogdb.PurgeStats {
	tb.Helper()
	st, err := s.Purge(context.Background(), p)
	if err != nil {
		tb.Fatal(err)
	}
	return st
}

// purgedTables are the tables Purge deletes from, directly or as dependents.
var purgedTables = []string{"metalake_meta", "catalog_meta", "schema_meta", "table_meta", "semantic_model_meta",
	"semantic_model_version_info", "semantic_model_metric_meta", "tag_meta", "tag_relation",
	"user_meta", "role_meta", "user_role", "role_privilege", "owner_meta", "table_statistic", "column_meta"}

// rowCounts counts every row of each of purgedTables.
func rowCounts(tb testing.TB, s *catalogdb.Store) map[string]int {
	tb.Helper()
	out := map[string]int{}
	for _, table := range purgedTables {
		out[table] = count(tb, s, `SELECT count(*) FROM `+table)
	}
	return out
}

// diffCounts returns the tables whose row count changed, with the change.
func diffCounts(before, after map[string]int) map[string]int {
	out := map[string]int{}
	for table, n := range after {
		if d := n - before[table]; d != 0 {
			out[table] = d
		}
	}
	return out
}

func TestPurgeRetiredIdentities(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	advance := clock(s)
	seed(t, s)
	ctx := ctxAlice
	m := must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "sales", Definition: definition("", "old", "young", "kept")})))
	ids, _ := identities(t, s, m.ID)
	must(t, w(s.AlterSemanticModel(ctx, salesNS, "sales", replaceDefinition(definition("", "young", "kept")), 0)))
	advance(5 * day)
	must(t, w(s.AlterSemanticModel(ctx, salesNS, "sales", replaceDefinition(definition("", "kept")), 0)))
	advance(3 * day)

	// "old" was retired 8 days ago, "young" 3 days ago; versions 1 and 2
	// are superseded.
	got := purge(t, s, catalogdb.RetentionPolicy{})
	if diff := cmp.Diff(catalogdb.PurgeStats{MetricIdentities: 1, ModelVersions: 2}, got); diff != "" {
		t.Errorf("purge stats (-want +got):\n%s", diff)
	}
	live, retired := identities(t, s, m.ID)
	if diff := cmp.Diff(map[string]int64{"kept": ids["kept"]}, live); diff != "" {
		t.Errorf("live identities (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{ids["young"]}, retired); diff != "" {
		t.Errorf("retired identities kept (-want +got):\n%s", diff)
	}

	if got := purge(t, s, catalogdb.RetentionPolicy{}); got != (catalogdb.PurgeStats{}) {
		t.Errorf("second purge deleted %+v, want nothing", got)
	}

	advance(5 * day)
	if got := purge(t, s, catalogdb.RetentionPolicy{}); got != (catalogdb.PurgeStats{MetricIdentities: 1}) {
		t.Errorf("purge once young is old: %+v, want its identity", got)
	}
	if live, retired := identities(t, s, m.ID); len(live) != 1 || len(retired) != 0 {
		t.Errorf("after the last purge: live %v, retired %v", live, retired)
	}
}

func TestPurgeNeverDeletesLiveRows(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	advance := clock(s)
	seed(t, s)
	ctx := ctxAlice
	must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "sales", Definition: definition("", "a", "b")})))
	must(t, w(s.CreateTag(ctx, "m", semcat.TagCreate{Name: "pii"})))
	for _, obj := range []semcat.ObjectRef{{Type: semcat.KindTable, FullName: "rel.sales.orders"}, {Type: semcat.KindSemanticModel, FullName: "rel.sales.sales"}} {
		must(t, w(s.AssociateTags(ctx, "m", obj, semcat.TagAssociation{TagsToAdd: []string{"pii"}}.Assignments())))
	}
	before := rowCounts(t, s)
	advance(10 * 365 * day)

	for _, p := range []catalogdb.RetentionPolicy{{DeletedAfter: 0}, {DeletedAfter: time.Millisecond, BatchSize: 1}} {
		if got := purge(t, s, p); got != (catalogdb.PurgeStats{}) {
			t.Errorf("purge %+v of a live catalog deleted %+v", p, got)
		}
	}
	if diff := diffCounts(before, rowCounts(t, s)); len(diff) != 0 {
		t.Errorf("row counts changed: %v", diff)
	}
	if got, err := s.GetSemanticModel(ctx, salesNS, "sales"); err != nil || len(got.Definition.Metrics) != 2 {
		t.Errorf("model after purge: %v", err)
	}
}

// attachments counts the tag, grant and owner rows that point at an object.
func attachments(tb testing.TB, s *catalogdb.Store, kind semcat.EntityKind, id int64) int {
	tb.Helper()
	return count(tb, s, `SELECT (SELECT count(*) FROM tag_relation WHERE object_type = $1 AND object_id = $2)
		+ (SELECT count(*) FROM role_privilege WHERE object_type = $1 AND object_id = $2)
		+ (SELECT count(*) FROM owner_meta WHERE object_type = $1 AND object_id = $2)`, string(kind), id)
}

// attach tags a semantic model with pii, grants role analyst a privilege on
// it and makes alice its owner; access control has no store API here, so
// the grant and owner are written directly.
func attach(tb testing.TB, s *catalogdb.Store, name string, id int64) {
	tb.Helper()
	must(tb, w(s.AssociateTags(ctxAlice, "m", semcat.ObjectRef{Type: semcat.KindSemanticModel, FullName: "rel.sales." + name}, semcat.TagAssociation{TagsToAdd: []string{"pii"}}.Assignments())))
	if _, err := s.Pool().Exec(context.Background(), `WITH r AS (SELECT role_id FROM role_meta WHERE role_name = 'analyst'),
		p AS (INSERT INTO role_privilege (role_id, object_type, object_id, privilege, condition)
			SELECT role_id, 'semantic_model', $1, 'SELECT_SEMANTIC_MODEL', 'ALLOW' FROM r)
		INSERT INTO owner_meta (metalake_id, object_type, object_id, owner_type, owner_name)
		SELECT metalake_id, 'semantic_model', $1, 'USER', 'alice' FROM metalake_meta WHERE metalake_name = 'm'
		ON CONFLICT DO NOTHING`, id); err != nil {
		tb.Fatal(err)
	}
}

func TestPurgeDroppedModel(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	advance := clock(s)
	seed(t, s)
	ctx := ctxAlice
	must(t, w(s.CreateTag(ctx, "m", semcat.TagCreate{Name: "pii"})))
	if _, err := s.Pool().Exec(context.Background(), `INSERT INTO role_meta (role_name, metalake_id, audit_info)
		SELECT 'analyst', metalake_id, '{}' FROM metalake_meta WHERE metalake_name = 'm'`); err != nil {
		t.Fatal(err)
	}
	m := must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "sales", Definition: definition("", "a", "b")})))
	must(t, w(s.AlterSemanticModel(ctx, salesNS, "sales", replaceDefinition(definition("", "b", "c")), 0)))
	other := must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "other", Definition: definition("", "x")})))
	attach(t, s, "sales", m.ID)
	attach(t, s, "other", other.ID)
	advance(day)
	if dropped, _, err := s.DropSemanticModel(ctx, salesNS, "sales", 0); err != nil || !dropped {
		t.Fatalf("drop: %v %v", dropped, err)
	}
	// Keep every version so that only the drop's rows are purged.
	keepAll := catalogdb.RetentionPolicy{KeepVersions: 100}

	advance(6 * day)
	if got := purge(t, s, keepAll); got != (catalogdb.PurgeStats{}) {
		t.Errorf("purge 6 days after the drop deleted %+v", got)
	}
	before := rowCounts(t, s)
	advance(2 * day)
	got := purge(t, s, keepAll)
	// Identity a (retired by the alter), b and c (retired by the drop).
	if diff := cmp.Diff(catalogdb.PurgeStats{MetricIdentities: 3, ModelVersions: 2, Models: 1}, got); diff != "" {
		t.Errorf("purge stats (-want +got):\n%s", diff)
	}
	changed := diffCounts(before, rowCounts(t, s))
	for table, want := range map[string]int{"semantic_model_meta": -1, "semantic_model_version_info": -2, "semantic_model_metric_meta": -3,
		"tag_relation": -1, "role_privilege": -1, "owner_meta": -1, "tag_meta": 0, "role_meta": 0, "table_meta": 0} {
		if changed[table] != want {
			t.Errorf("%s: %+d rows, want %+d", table, changed[table], want)
		}
	}
	if n := count(t, s, `SELECT count(*) FROM semantic_model_metric_meta WHERE semantic_model_id = $1`, m.ID); n != 0 {
		t.Errorf("%d identities of the purged model left", n)
	}
	if n := attachments(t, s, semcat.KindSemanticModel, m.ID); n != 0 {
		t.Errorf("%d tag, grant or owner rows of the purged model left", n)
	}
	if n := attachments(t, s, semcat.KindSemanticModel, other.ID); n != 3 {
		t.Errorf("the other model has %d tag, grant and owner rows, want 3", n)
	}
	if got, err := s.GetSemanticModel(ctx, salesNS, "other"); err != nil || got.ID != other.ID {
		t.Errorf("the other model after purge: %v", err)
	}
	// The name is free and the old ids stay unused.
	again := must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "sales", Definition: definition("", "a")})))
	if again.ID <= other.ID {
		t.Errorf("recreated model got id %d, not a new one", again.ID)
	}
	if got := purge(t, s, keepAll); got != (catalogdb.PurgeStats{}) {
		t.Errorf("second purge deleted %+v, want nothing", got)
	}
}

func TestPurgeOldVersions(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	ctx := ctxAlice
	m := must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "sales", Definition: definition("", "v1")})))
	for _, metric := range []string{"v2", "v3", "v4", "v5"} {
		must(t, w(s.AlterSemanticModel(ctx, salesNS, "sales", replaceDefinition(definition("", metric)), 0)))
	}
	single := must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "single", Definition: definition("", "x")})))
	versions := func(id int64) []int64 {
		t.Helper()
		rows, err := s.Pool().Query(context.Background(), `SELECT version FROM semantic_model_version_info WHERE semantic_model_id = $1 ORDER BY version`, id)
		if err != nil {
			t.Fatal(err)
		}
		var out []int64
		for rows.Next() {
			var v int64
			if err := rows.Scan(&v); err != nil {
				t.Fatal(err)
			}
			out = append(out, v)
		}
		if err := rows.Err(); err != nil {
			t.Fatal(err)
		}
		return out
	}

	// Versions go whatever their age: the clock does not move.
	if got := purge(t, s, catalogdb.RetentionPolicy{KeepVersions: 2, BatchSize: 2}); got != (catalogdb.PurgeStats{ModelVersions: 3}) {
		t.Errorf("keep 2: purged %+v, want 3 versions", got)
	}
	if diff := cmp.Diff([]int64{4, 5}, versions(m.ID)); diff != "" {
		t.Errorf("versions left with keep 2 (-want +got):\n%s", diff)
	}
	if got := purge(t, s, catalogdb.RetentionPolicy{}); got != (catalogdb.PurgeStats{ModelVersions: 1}) {
		t.Errorf("keep 1: purged %+v, want 1 version", got)
	}
	if diff := cmp.Diff([]int64{5}, versions(m.ID)); diff != "" {
		t.Errorf("versions left with keep 1 (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]int64{1}, versions(single.ID)); diff != "" {
		t.Errorf("a model's only version was touched (-want +got):\n%s", diff)
	}
	if got := purge(t, s, catalogdb.RetentionPolicy{}); got != (catalogdb.PurgeStats{}) {
		t.Errorf("second purge deleted %+v, want nothing", got)
	}

	got, err := s.GetSemanticModel(ctx, salesNS, "sales")
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 5 || !cmp.Equal(got.Definition.MetricNames(), []string{"v5"}) {
		t.Errorf("model after purge: version %d, metrics %v", got.Version, got.Definition.MetricNames())
	}
	// The next version number does not depend on the snapshots left.
	next := must(t, w(s.AlterSemanticModel(ctx, salesNS, "sales", []semcat.Update{setProperty("k", "v")}, 5)))
	if next.Version != 6 {
		t.Errorf("alter after purge made version %d, want 6", next.Version)
	}
}

// TestPurgeDroppedMetalake purges a whole dropped metalake, one row per
// batch, through every foreign key: identities and versions before models,
// tables and models before schemas, tag associations before tags, role
// grants and memberships before roles and users, ownership and everything
// else before the metalake.
func TestPurgeDroppedMetalake(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	advance := clock(s)
	seed(t, s)
	ctx := ctxAlice
	must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "sales", Definition: definition("", "a", "b")})))
	must(t, w(s.AlterSemanticModel(ctx, salesNS, "sales", replaceDefinition(definition("", "b", "c")), 0)))
	must(t, w(s.CreateTag(ctx, "m", semcat.TagCreate{Name: "pii"})))
	must(t, w(s.AssociateTags(ctx, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.orders"}, semcat.TagAssociation{TagsToAdd: []string{"pii"}}.Assignments())))
	// Access control rows have no store API yet; write them directly.
	if _, err := s.Pool().Exec(context.Background(), `WITH m AS (SELECT metalake_id FROM metalake_meta WHERE metalake_name = 'm'),
		u AS (INSERT INTO user_meta (user_name, metalake_id, audit_info) SELECT 'bob', metalake_id, '{}' FROM m RETURNING user_id),
		r AS (INSERT INTO role_meta (role_name, metalake_id, audit_info) SELECT 'analyst', metalake_id, '{}' FROM m RETURNING role_id),
		ur AS (INSERT INTO user_role (user_id, role_id) SELECT user_id, role_id FROM u, r),
		rp AS (INSERT INTO role_privilege (role_id, object_type, object_id, privilege, condition) SELECT role_id, 'metalake', metalake_id, 'USE_CATALOG', 'ALLOW' FROM r, m)
		INSERT INTO owner_meta (metalake_id, object_type, object_id, owner_type, owner_name) SELECT metalake_id, 'metalake', metalake_id, 'USER', 'bob' FROM m
		ON CONFLICT DO NOTHING`); err != nil {
		t.Fatal(err)
	}
	if dropped, _, err := s.DropMetalake(ctx, "m", true); err != nil || !dropped {
		t.Fatalf("drop metalake: %v %v", dropped, err)
	}
	advance(8 * day)

	got := purge(t, s, catalogdb.RetentionPolicy{BatchSize: 1})
	want := catalogdb.PurgeStats{MetricIdentities: 3, ModelVersions: 2, Models: 1, Tables: 2, Schemas: 1, Catalogs: 2,
		Metalakes: 1, Tags: 1, Users: 1, Roles: 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("purge stats (-want +got):\n%s", diff)
	}
	for table, n := range rowCounts(t, s) {
		if n != 0 {
			t.Errorf("%s: %d rows left", table, n)
		}
	}
	if got := purge(t, s, catalogdb.RetentionPolicy{BatchSize: 1}); got != (catalogdb.PurgeStats{}) {
		t.Errorf("second purge deleted %+v, want nothing", got)
	}
}

// TestPurgeKeepsParentOfYoungerChild: a dropped parent whose child was
// dropped later than itself waits for the child instead of failing on the
// foreign key.
func TestPurgeKeepsParentOfYoungerChild(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	advance := clock(s)
	seed(t, s)
	ctx := ctxAlice
	if dropped, _, err := s.DropSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, "sales", true); err != nil || !dropped {
		t.Fatalf("drop schema: %v %v", dropped, err)
	}
	later := s.Now().Add(5 * day).UnixMilli()
	if _, err := s.Pool().Exec(context.Background(), `UPDATE table_meta SET deleted_at = $1 WHERE table_name = 'orders'`, later); err != nil {
		t.Fatal(err)
	}
	advance(8 * day)
	if got := purge(t, s, catalogdb.RetentionPolicy{}); got != (catalogdb.PurgeStats{Tables: 1}) {
		t.Errorf("purge before the child is old: %+v, want only the older table", got)
	}
	if n := count(t, s, `SELECT count(*) FROM schema_meta`); n != 1 {
		t.Errorf("%d schema rows, want the dropped one kept", n)
	}
	advance(5 * day)
	if got := purge(t, s, catalogdb.RetentionPolicy{}); got != (catalogdb.PurgeStats{Tables: 1, Schemas: 1}) {
		t.Errorf("purge once the child is old: %+v, want the table and the schema", got)
	}
}

func TestPurgeRejectsNegativePolicy(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	for _, p := range []catalogdb.RetentionPolicy{{DeletedAfter: -time.Hour}, {KeepVersions: -1}, {BatchSize: -1}} {
		if _, err := s.Purge(context.Background(), p); semcat.ErrorCode(err) != semcat.EINVALID {
			t.Errorf("Purge(%+v): %v, want EINVALID", p, err)
		}
	}
}
