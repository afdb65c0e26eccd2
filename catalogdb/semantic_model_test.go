package catalogdb_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/internal/demo"
)

// identities reads the identity table of a model (by id): its live metric
// ids by name, and the ids of retired rows.
func identities(tb testing.TB, s *catalogdb.Store, modelID int64) (live map[string]int64, retired []int64) {
	tb.Helper()
	rows, err := s.Pool().Query(context.Background(), `SELECT metric_id, metric_name, deleted_at FROM semantic_model_metric_meta
		WHERE semantic_model_id = $1 ORDER BY metric_id`, modelID)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	live = map[string]int64{}
	for rows.Next() {
		var id, deletedAt int64
		var name string
		if err := rows.Scan(&id, &name, &deletedAt); err != nil {
			tb.Fatal(err)
		}
		if deletedAt == 0 {
			if _, dup := live[name]; dup {
				tb.Fatalf("two live identities named %s", name)
			}
			live[name] = id
		} else {
			retired = append(retired, id)
		}
	}
	return live, retired
}

func count(tb testing.TB, s *catalogdb.Store, sql string, args ...any) int {
	tb.Helper()
	var n int
	if err := s.Pool().QueryRow(context.Background(), sql, args...).Scan(&n); err != nil {
		tb.Fatal(err)
	}
	return n
}

func replaceDefinition(d *semcat.Definition) []semcat.Update {
	return []semcat.Update{{Type: semcat.UpdateReplaceDefinition, Definition: d}}
}

func setProperty(k, v string) semcat.Update {
	return semcat.Update{Type: semcat.UpdateSetProperty, Property: &k, Value: &v}
}

func TestMetricIdentityRules(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	ctx := ctxAlice
	m := must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "sales", Definition: definition("", "revenue", "orders", "margin")})))
	ids0, _ := identities(t, s, m.ID)
	if len(ids0) != 3 {
		t.Fatalf("after create: %v, want 3 live identities", ids0)
	}

	t.Run("same name with changed formula, description or order keeps the id", func(t *testing.T) {
		d := definition(" * 2", "margin", "orders", "revenue")
		d.Metrics[0].Description = str("changed")
		must(t, w(s.AlterSemanticModel(ctx, salesNS, "sales", replaceDefinition(d), 0)))
		got, _ := identities(t, s, m.ID)
		if diff := cmp.Diff(ids0, got); diff != "" {
			t.Errorf("identities changed (-want +got):\n%s", diff)
		}
	})
	t.Run("comment or properties change keeps all ids", func(t *testing.T) {
		must(t, w(s.AlterSemanticModel(ctx, salesNS, "sales", []semcat.Update{
			{Type: semcat.UpdateComment, NewComment: semcat.OptionalString{Set: true, Value: str("c")}}, setProperty("k", "v")}, 0)))
		got, _ := identities(t, s, m.ID)
		if diff := cmp.Diff(ids0, got); diff != "" {
			t.Errorf("identities changed (-want +got):\n%s", diff)
		}
	})
	t.Run("new name allocates a new id, removed name retires its id", func(t *testing.T) {
		must(t, w(s.AlterSemanticModel(ctx, salesNS, "sales", replaceDefinition(definition("", "revenue", "orders", "profit")), 0)))
		got, retired := identities(t, s, m.ID)
		if got["revenue"] != ids0["revenue"] || got["orders"] != ids0["orders"] {
			t.Errorf("kept names changed ids: %v vs %v", got, ids0)
		}
		if _, ok := got["margin"]; ok {
			t.Errorf("removed metric margin still live")
		}
		if got["profit"] == 0 || got["profit"] <= ids0["margin"] {
			t.Errorf("profit got id %d, want a new id", got["profit"])
		}
		if diff := cmp.Diff([]int64{ids0["margin"]}, retired); diff != "" {
			t.Errorf("retired (-want +got):\n%s", diff)
		}
	})
	t.Run("a removed name that comes back gets a new id", func(t *testing.T) {
		must(t, w(s.AlterSemanticModel(ctx, salesNS, "sales", replaceDefinition(definition("", "revenue", "orders", "profit", "margin")), 0)))
		got, _ := identities(t, s, m.ID)
		if got["margin"] == 0 || got["margin"] == ids0["margin"] {
			t.Errorf("margin came back with id %d, old id %d: want a new one", got["margin"], ids0["margin"])
		}
	})
	t.Run("renaming a metric retires the old id and allocates a new one", func(t *testing.T) {
		before, _ := identities(t, s, m.ID)
		must(t, w(s.AlterSemanticModel(ctx, salesNS, "sales", replaceDefinition(definition("", "revenue", "orders", "profit", "gross_margin")), 0)))
		got, retired := identities(t, s, m.ID)
		if got["gross_margin"] == 0 || got["gross_margin"] == before["margin"] {
			t.Errorf("renamed metric got id %d", got["gross_margin"])
		}
		if retired[len(retired)-1] != before["margin"] {
			t.Errorf("old id %d not retired: %v", before["margin"], retired)
		}
	})
	t.Run("model rename keeps model and metric ids", func(t *testing.T) {
		before, _ := identities(t, s, m.ID)
		renamed := must(t, w(s.AlterSemanticModel(ctx, salesNS, "sales", []semcat.Update{{Type: semcat.UpdateRename, NewName: str("sales2")}}, 0)))
		if renamed.ID != m.ID {
			t.Errorf("model id changed on rename: %d → %d", m.ID, renamed.ID)
		}
		got, _ := identities(t, s, m.ID)
		if diff := cmp.Diff(before, got); diff != "" {
			t.Errorf("metric ids changed on rename (-want +got):\n%s", diff)
		}
		must(t, w(s.AlterSemanticModel(ctx, salesNS, "sales2", []semcat.Update{{Type: semcat.UpdateRename, NewName: str("sales")}}, 0)))
	})
	t.Run("drop and recreate gives new model and metric ids", func(t *testing.T) {
		before, _ := identities(t, s, m.ID)
		if dropped, _, err := s.DropSemanticModel(ctx, salesNS, "sales", 0); err != nil || !dropped {
			t.Fatalf("drop: %v %v", dropped, err)
		}
		gone, retired := identities(t, s, m.ID)
		if len(gone) != 0 || len(retired) < len(before) {
			t.Errorf("after drop: live %v, retired %v", gone, retired)
		}
		m2 := must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: "sales", Definition: definition("", "revenue", "orders")})))
		if m2.ID == m.ID {
			t.Fatalf("recreated model reused id %d", m.ID)
		}
		got, _ := identities(t, s, m2.ID)
		for name, id := range got {
			if id == before[name] {
				t.Errorf("metric %s reused id %d", name, id)
			}
		}
	})
}

func TestConcurrentAltersLoseNothing(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	m := must(t, w(s.CreateSemanticModel(ctxAlice, salesNS, semcat.SemanticModelCreate{Name: "sales", Definition: definition("", "revenue")})))
	const n = 20
	ctx, cancel := context.WithTimeout(ctxAlice, 60*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, _, err := s.AlterSemanticModel(ctx, salesNS, "sales", []semcat.Update{setProperty(fmt.Sprintf("p%02d", i), "v")}, 0)
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Errorf("alter failed: %v", err)
		}
	}
	got, err := s.GetSemanticModel(ctxAlice, salesNS, "sales")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Properties) != n {
		t.Errorf("final model has %d properties, want %d: %v", len(got.Properties), n, got.Properties)
	}
	if got.Version != n+1 {
		t.Errorf("version %d, want %d", got.Version, n+1)
	}
	if v := count(t, s, `SELECT count(*) FROM semantic_model_version_info WHERE semantic_model_id = $1`, m.ID); v != n+1 {
		t.Errorf("%d version snapshots, want %d", v, n+1)
	}
}

func TestStaleIfMatchChangesNothing(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	m := must(t, w(s.CreateSemanticModel(ctxAlice, salesNS, semcat.SemanticModelCreate{Name: "sales", Definition: definition("", "revenue")})))
	must(t, w(s.AlterSemanticModel(ctxAlice, salesNS, "sales", []semcat.Update{setProperty("a", "1")}, m.Version)))
	outbox := count(t, s, `SELECT count(*) FROM outbox`)

	_, _, err := s.AlterSemanticModel(ctxAlice, salesNS, "sales", replaceDefinition(definition("", "other")), m.Version)
	if semcat.ErrorCode(err) != semcat.ECONFLICT {
		t.Fatalf("stale If-Match alter: %v, want ECONFLICT", err)
	}
	dropped, _, err := s.DropSemanticModel(ctxAlice, salesNS, "sales", m.Version)
	if semcat.ErrorCode(err) != semcat.ECONFLICT || dropped {
		t.Fatalf("stale If-Match drop: %v %v, want ECONFLICT", dropped, err)
	}
	got, err := s.GetSemanticModel(ctxAlice, salesNS, "sales")
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != 2 || got.Definition.Metrics[0].Name != "revenue" {
		t.Errorf("model changed: version %d, metrics %v", got.Version, got.Definition.MetricNames())
	}
	if n := count(t, s, `SELECT count(*) FROM outbox`); n != outbox {
		t.Errorf("outbox grew from %d to %d", outbox, n)
	}
	live, retired := identities(t, s, m.ID)
	if len(live) != 1 || live["revenue"] == 0 || len(retired) != 0 {
		t.Errorf("identities changed: %v %v", live, retired)
	}
}

func TestConcurrentCreatesOneWins(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	start := make(chan struct{})
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			_, _, errs[i] = s.CreateSemanticModel(ctxAlice, salesNS, semcat.SemanticModelCreate{Name: "sales", Definition: definition("", "a", "b", "c")})
		}()
	}
	close(start)
	wg.Wait()
	ok, exists := 0, 0
	for _, err := range errs {
		switch semcat.ErrorCode(err) {
		case "":
			ok++
		case semcat.EEXISTS:
			exists++
		default:
			t.Errorf("unexpected error: %v", err)
		}
	}
	if ok != 1 || exists != 1 {
		t.Fatalf("%d succeeded and %d already existed, want 1 and 1", ok, exists)
	}
	if n := count(t, s, `SELECT count(*) FROM semantic_model_meta`); n != 1 {
		t.Errorf("%d model rows", n)
	}
	if n := count(t, s, `SELECT count(*) FROM semantic_model_metric_meta`); n != 3 {
		t.Errorf("%d identity rows, want one set of 3", n)
	}
}

// snapshot captures everything an alter may touch.
func snapshot(tb testing.TB, s *catalogdb.Store) [5]int {
	return [5]int{
		count(tb, s, `SELECT count(*) FROM semantic_model_version_info`),
		count(tb, s, `SELECT count(*) FROM semantic_model_metric_meta`),
		count(tb, s, `SELECT count(*) FROM semantic_model_metric_meta WHERE deleted_at = 0`),
		count(tb, s, `SELECT count(*) FROM outbox`),
		count(tb, s, `SELECT max(current_version)::int FROM semantic_model_meta`),
	}
}

func TestFailedAlterLeavesNoTrace(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	must(t, w(s.CreateSemanticModel(ctxAlice, salesNS, semcat.SemanticModelCreate{Name: "sales", Definition: definition("", "revenue", "orders")})))
	must(t, w(s.CreateSemanticModel(ctxAlice, salesNS, semcat.SemanticModelCreate{Name: "taken", Definition: definition("", "x")})))
	before := snapshot(t, s)
	modelBefore, _ := s.GetSemanticModel(ctxAlice, salesNS, "sales")

	missingSource := definition("", "profit")
	missingSource.Datasets[1].Source.Name = "nope"
	badStructure := definition("", "a", "a")
	tests := []struct {
		name    string
		updates []semcat.Update
		code    string
	}{
		{"invalid definition after valid updates", append([]semcat.Update{setProperty("x", "1"),
			replaceDefinition(definition("", "profit"))[0]}, replaceDefinition(badStructure)...), semcat.EINVALID},
		{"source table missing (checked in the transaction)", append([]semcat.Update{setProperty("x", "1")},
			replaceDefinition(missingSource)...), semcat.EINVALID},
		{"rename onto an existing model (unique index)", []semcat.Update{setProperty("x", "1"),
			replaceDefinition(definition("", "profit"))[0], {Type: semcat.UpdateRename, NewName: str("taken")}}, semcat.EEXISTS},
		{"unknown update type", []semcat.Update{setProperty("x", "1"), {Type: "dropEverything"}}, semcat.EINVALID},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := s.AlterSemanticModel(ctxAlice, salesNS, "sales", tt.updates, 0)
			if semcat.ErrorCode(err) != tt.code {
				t.Fatalf("got %v, want %s", err, tt.code)
			}
			if after := snapshot(t, s); after != before {
				t.Errorf("state changed: %v → %v", before, after)
			}
			got, _ := s.GetSemanticModel(ctxAlice, salesNS, "sales")
			if !jsonEqual(t, modelBefore, got) {
				t.Errorf("model changed")
			}
		})
	}
}

// TestMetricFlowRoundTrip stores MetricFlow's whole simple manifest and
// reads it back equal in meaning.
func TestMetricFlowRoundTrip(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	manifest, err := demo.MetricFlow()
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxAlice
	must(t, w(s.CreateMetalake(ctx, semcat.MetalakeCreate{Name: "m"})))
	must(t, w(s.CreateCatalog(ctx, "m", semcat.CatalogCreate{Name: "warehouse", Type: semcat.CatalogRelational})))
	must(t, w(s.CreateSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "warehouse"}, semcat.SchemaCreate{Name: "main"})))
	ns := semcat.Namespace{Metalake: "m", Catalog: "warehouse", Schema: "main"}
	for _, tb := range manifest.Tables {
		must(t, w(s.CreateTable(ctx, ns, semcat.TableCreate{Name: tb.Name, Columns: tb.Columns})))
	}
	created := must(t, w(s.CreateSemanticModel(ctx, ns, manifest.SemanticModel)))
	got, err := s.GetSemanticModel(ctx, ns, manifest.SemanticModel.Name)
	if err != nil {
		t.Fatal(err)
	}
	if !jsonEqual(t, manifest.SemanticModel.Definition, got.Definition) {
		t.Errorf("definition changed in the round trip")
	}
	if got.Version != 1 || created.ID != got.ID || *got.Comment != *manifest.SemanticModel.Comment {
		t.Errorf("metadata: version %d id %d/%d", got.Version, created.ID, got.ID)
	}
	live, _ := identities(t, s, got.ID)
	if len(live) != 113 {
		t.Errorf("%d metric identities, want 113", len(live))
	}
}

func TestModelInNonRelationalCatalog(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	ns := semcat.Namespace{Metalake: "m", Catalog: "files", Schema: "nope"}
	_, _, err := s.CreateSemanticModel(ctxAlice, ns, semcat.SemanticModelCreate{Name: "x", Definition: definition("", "a")})
	if semcat.ErrorCode(err) != semcat.EUNSUPPORTED {
		t.Errorf("create in fileset catalog: %v, want EUNSUPPORTED (before the schema lookup)", err)
	}
	if _, err := s.ListTables(ctxAlice, ns); semcat.ErrorCode(err) != semcat.EUNSUPPORTED {
		t.Errorf("list tables in fileset catalog: %v", err)
	}
	_, err = s.GetSemanticModel(ctxAlice, semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "nope"}, "x")
	var e *semcat.Error
	if !errors.As(err, &e) || e.Code != semcat.ENOTFOUND || e.Entity != semcat.KindSchema {
		t.Errorf("missing schema: %v, want ENOTFOUND schema", err)
	}
}

func TestModelListSortedByteOrder(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	for _, n := range []string{"b", "B", "a", "_z", "A"} {
		must(t, w(s.CreateSemanticModel(ctxAlice, salesNS, semcat.SemanticModelCreate{Name: n, Definition: definition("", "m")})))
	}
	got, err := s.ListSemanticModels(ctxAlice, salesNS)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"A", "B", "_z", "a", "b"}
	if !sort.StringsAreSorted(want) || !cmp.Equal(want, got) {
		t.Errorf("got %v, want %v", got, want)
	}
}
