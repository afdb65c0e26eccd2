package catalogdb_test

import (
	"bytes"
	"context"
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
)

func TestListSchemaMetrics(t *testing.T) {
	t.Parallel()
	s := MustOpenStore(t)
	seed(t, s)
	ctx := ctxAlice
	create := func(name string, d *semcat.Definition) {
		t.Helper()
		must(t, w(s.CreateSemanticModel(ctx, salesNS, semcat.SemanticModelCreate{Name: name, Definition: d})))
	}
	create("b", definition("", "zeta", "Alpha", "beta"))
	create("B", definition("", "x"))
	create("a", definition(" + 1", "a", "B"))
	create("gone", definition("", "dropped"))
	noMetrics := definition("")
	noMetrics.Metrics = nil
	create("none", noMetrics)
	create("empty", definition(""))
	if _, _, err := s.DropSemanticModel(ctx, salesNS, "gone", 0); err != nil {
		t.Fatal(err)
	}
	// Model a's metrics, stored with space: served compacted.
	stored, err := json.Marshal(definition(" + 1", "a", "B").Metrics)
	if err != nil {
		t.Fatal(err)
	}
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, stored, "", "  "); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Pool().Exec(context.Background(), `UPDATE semantic_model_version_info v SET metrics = $1::json
		FROM semantic_model_meta m WHERE m.semantic_model_id = v.semantic_model_id AND m.semantic_model_name = 'a'`, pretty.String()); err != nil {
		t.Fatal(err)
	}

	type listed struct{ Model, Name, Definition string }
	list := func(details bool) []listed {
		t.Helper()
		ms, err := s.ListSchemaMetrics(ctx, salesNS, details)
		if err != nil {
			t.Fatal(err)
		}
		out := []listed{}
		for _, m := range ms {
			out = append(out, listed{m.Model, m.Name, string(m.Definition)})
		}
		return out
	}
	// definitionOf is the stored (compact) text of a metric of definition.
	definitionOf := func(suffix, name string) string {
		b, err := json.Marshal(definition(suffix, name).Metrics[0])
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	// Byte order: upper case first, model then metric.
	want := []listed{{"B", "x", ""}, {"a", "B", ""}, {"a", "a", ""}, {"b", "Alpha", ""}, {"b", "beta", ""}, {"b", "zeta", ""}}
	if diff := cmp.Diff(want, list(false)); diff != "" {
		t.Errorf("identifiers (-want +got):\n%s", diff)
	}
	for i := range want {
		suffix := ""
		if want[i].Model == "a" {
			suffix = " + 1"
		}
		want[i].Definition = definitionOf(suffix, want[i].Name)
	}
	if diff := cmp.Diff(want, list(true)); diff != "" {
		t.Errorf("details (-want +got):\n%s", diff)
	}

	// An empty schema lists nothing, as an empty list.
	must(t, w(s.CreateSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, semcat.SchemaCreate{Name: "empty"})))
	for _, details := range []bool{false, true} {
		ms, err := s.ListSchemaMetrics(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "empty"}, details)
		if err != nil || ms == nil || len(ms) != 0 {
			t.Errorf("empty schema, details=%t: %#v, %v", details, ms, err)
		}
	}
}
