package catalogdb_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
)

// Schema-level discovery at the size of DESIGN §6's target.
const (
	discoveryModels  = 1000
	discoveryMetrics = 20
)

// BenchmarkListSchemaMetrics measures ListSchemaMetrics over 1,000 models ×
// 20 metrics in one schema, in both modes. Loading the schema takes a while.
func BenchmarkListSchemaMetrics(b *testing.B) {
	s := MustOpenStore(b)
	seedDiscovery(b, s, discoveryModels, discoveryMetrics)
	for _, details := range []bool{false, true} {
		b.Run(fmt.Sprintf("details=%t", details), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ms, err := s.ListSchemaMetrics(context.Background(), salesNS, details)
				if err != nil {
					b.Fatal(err)
				}
				if len(ms) != discoveryModels*discoveryMetrics {
					b.Fatalf("%d metrics, want %d", len(ms), discoveryModels*discoveryMetrics)
				}
			}
		})
	}
}

// seedDiscovery seeds the store (see seed), then creates the given number
// of semantic models in m.rel.sales, each with the given number of metrics
// of about 250 bytes: a description, a datatype and one or two dialects.
func seedDiscovery(tb testing.TB, s *catalogdb.Store, models, metrics int) {
	tb.Helper()
	seed(tb, s)
	for i := range models {
		names := make([]string, metrics)
		for j := range names {
			names[j] = fmt.Sprintf("metric_%02d_of_model_%04d", (j*7)%metrics, i)
		}
		def := definition("", names...)
		for j := range def.Metrics {
			m := &def.Metrics[j]
			m.Description = str("The " + m.Name + " of every order, summed over the reporting period")
			if j%3 == 0 {
				m.Expression.Dialects = append(m.Expression.Dialects, semcat.DialectExpression{Dialect: "SNOWFLAKE", Expression: m.Expression.Dialects[0].Expression})
			}
		}
		must(tb, w(s.CreateSemanticModel(ctxAlice, salesNS, semcat.SemanticModelCreate{Name: fmt.Sprintf("sm_%04d", (i*37)%models), Definition: def})))
	}
	if _, err := s.Pool().Exec(context.Background(), "ANALYZE"); err != nil {
		tb.Fatal(err)
	}
}
