package catalogdb

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
)

// storedMetric is one metric as addStoredMetrics finds it.
type storedMetric struct{ Name, Definition string }

// splitStoredMetrics runs addStoredMetrics on raw.
func splitStoredMetrics(raw string) ([]storedMetric, error) {
	var l metricListing
	text, err := l.addStoredMetrics(0, []byte(raw))
	if err != nil {
		return nil, err
	}
	out := []storedMetric{}
	for _, m := range l.metrics {
		out = append(out, storedMetric{string(l.names[m.name.start:m.name.end]), string(text[m.def.start:m.def.end])})
	}
	return out, nil
}

// referenceStoredMetrics is what addStoredMetrics must agree with: the
// array's elements as encoding/json reads them, each decoded strictly into
// semcat.Metric (checkMetric), named, and compacted.
func referenceStoredMetrics(raw string) ([]storedMetric, error) {
	var elems []json.RawMessage
	if err := json.Unmarshal([]byte(raw), &elems); err != nil {
		return nil, err
	}
	if elems == nil {
		return nil, errors.New("not an array")
	}
	out := []storedMetric{}
	for _, e := range elems {
		name, err := checkMetric(e)
		if err != nil {
			return nil, err
		}
		if name == "" {
			return nil, errors.New("metric without a name")
		}
		var buf bytes.Buffer
		if err := json.Compact(&buf, e); err != nil {
			return nil, err
		}
		out = append(out, storedMetric{name, buf.String()})
	}
	return out, nil
}

func TestAddStoredMetrics(t *testing.T) {
	t.Parallel()
	// want == nil: the column must be rejected.
	for _, tt := range []struct {
		in   string
		want []storedMetric
	}{
		{`[]`, []storedMetric{}},
		{` [ ] `, []storedMetric{}},
		{`[{"name":"a"}]`, []storedMetric{{"a", `{"name":"a"}`}}},
		{`[{"name":"revenue","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"SUM(amount) \u003c 5"}]},"description":"Revenue","datatype":"Decimal","aiContext":{"synonyms":["sales"],"n":-1.5e+3,"ok":true,"no":false,"none":null},"customExtensions":[{"vendorName":"acme","data":"{\"x\":1}"}]}]`,
			[]storedMetric{{"revenue", `{"name":"revenue","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"SUM(amount) \u003c 5"}]},"description":"Revenue","datatype":"Decimal","aiContext":{"synonyms":["sales"],"n":-1.5e+3,"ok":true,"no":false,"none":null},"customExtensions":[{"vendorName":"acme","data":"{\"x\":1}"}]}`}}},
		// Elements keep their order (sorting is the caller's) and text.
		{`[{"name":"b","description":"é ☃ \ud83d\ude00"},{"name":"a"}]`, []storedMetric{{"b", `{"name":"b","description":"é ☃ \ud83d\ude00"}`}, {"a", `{"name":"a"}`}}},
		// Space is compacted away, inside strings kept.
		{"[ {\"name\" : \"a b\",\n \"expression\": {\"dialects\": [ ] } } ,{\"name\":\"c\"}\t]",
			[]storedMetric{{"a b", `{"name":"a b","expression":{"dialects":[]}}`}, {"c", `{"name":"c"}`}}},
		// null leaves a member unset, at every level.
		{`[{"name":"a","expression":null,"description":null,"datatype":null,"aiContext":null,"customExtensions":null}]`,
			[]storedMetric{{"a", `{"name":"a","expression":null,"description":null,"datatype":null,"aiContext":null,"customExtensions":null}`}}},
		{`[{"name":"a","expression":{"dialects":[null,{"dialect":null,"expression":"x"}]},"customExtensions":[null,{"vendorName":"v","data":null}]}]`,
			[]storedMetric{{"a", `{"name":"a","expression":{"dialects":[null,{"dialect":null,"expression":"x"}]},"customExtensions":[null,{"vendorName":"v","data":null}]}`}}},
		{`[{"name":"a","name":null}]`, []storedMetric{{"a", `{"name":"a","name":null}`}}},
		{`[{"name":"a","name":"b"}]`, []storedMetric{{"b", `{"name":"a","name":"b"}`}}},
		// Escaped names and members in other case: as encoding/json reads them.
		{`[{"name":"a\u0062\n"}]`, []storedMetric{{"ab\n", `{"name":"a\u0062\n"}`}}},
		{`[{"Name":"a", "DESCRIPTION":"d"}]`, []storedMetric{{"a", `{"Name":"a","DESCRIPTION":"d"}`}}},
		{`[{"n\u0061me":"a"}]`, []storedMetric{{"a", `{"n\u0061me":"a"}`}}},
		{"[{\"name\":\"\xe9\"}]", []storedMetric{{"\ufffd", "{\"name\":\"\xe9\"}"}}},

		// Nesting past the scanner's depth goes to encoding/json, which
		// accepts this and rejects what is past its own limit.
		{`[{"name":"a","aiContext":{"x":` + strings.Repeat("[", 150) + strings.Repeat("]", 150) + `}}]`,
			[]storedMetric{{"a", `{"name":"a","aiContext":{"x":` + strings.Repeat("[", 150) + strings.Repeat("]", 150) + `}}`}}},
		{`[{"name":"a","aiContext":{"x":` + strings.Repeat("[", 10001) + strings.Repeat("]", 10001) + `}}]`, nil},

		// Not an array of metrics.
		{`{"not":"an array"}`, nil},
		{`null`, nil},
		{`"x"`, nil},
		{``, nil},
		{`["a"]`, nil},
		{`[1]`, nil},
		{`[[]]`, nil},
		{`[true]`, nil},
		// No name.
		{`[null]`, nil},
		{`[{}]`, nil},
		{`[{"description":"no name"}]`, nil},
		{`[{"name":""}]`, nil},
		{`[{"name":null}]`, nil},
		{`[{"name":"a"},{"datatype":"Decimal"}]`, nil},
		// Unknown members.
		{`[{"name":"a","x":1}]`, nil},
		{`[{"name":"a","expression":{"sql":"x"}}]`, nil},
		{`[{"name":"a","expression":{"dialects":[{"dialect":"d","sql":"x"}]}}]`, nil},
		{`[{"name":"a","customExtensions":[{"vendor":"v"}]}]`, nil},
		// Members of the wrong type.
		{`[{"name":1}]`, nil},
		{`[{"name":["a"]}]`, nil},
		{`[{"name":"m2","expression":{"dialects":"nope"}}]`, nil},
		{`[{"name":"a","expression":[]}]`, nil},
		{`[{"name":"a","expression":"SUM(x)"}]`, nil},
		{`[{"name":"a","expression":{"dialects":["x"]}}]`, nil},
		{`[{"name":"a","expression":{"dialects":[{"dialect":1}]}}]`, nil},
		{`[{"name":"a","description":5}]`, nil},
		{`[{"name":"a","datatype":true}]`, nil},
		{`[{"name":"a","customExtensions":{}}]`, nil},
		{`[{"name":"a","customExtensions":[{"vendorName":"v","data":{}}]}]`, nil},
		// Not JSON.
		{`[{"name":"a"}`, nil},
		{`[{"name":"a"},]`, nil},
		{`[,{"name":"a"}]`, nil},
		{`[{"name":"a"}] x`, nil},
		{`[{"name":"a",}]`, nil},
		{`[{"name" "a"}]`, nil},
		{`[{name:"a"}]`, nil},
		{"[{\"name\":\"a\x01\"}]", nil},
		{`[{"name":"a\x"}]`, nil},
		{`[{"name":"a\u12"}]`, nil},
		{`[{"name":"a","aiContext":01}]`, nil},
		{`[{"name":"a","aiContext":1.}]`, nil},
		{`[{"name":"a","aiContext":-}]`, nil},
		{`[{"name":"a","aiContext":1e}]`, nil},
		{`[{"name":"a","aiContext":tru}]`, nil},
		{`[{"name":"a","aiContext":[1,]}]`, nil},
		{`[{"name":"a","aiContext":{"k"}}]`, nil},
		{`[{"name":"a","aiContext":{1:2}}]`, nil},
		{`[{"name":"a","aiContext":}]`, nil},
	} {
		got, err := splitStoredMetrics(tt.in)
		if tt.want == nil {
			if err == nil {
				t.Errorf("%s: accepted as %v, want an error", tt.in, got)
			}
		} else if err != nil {
			t.Errorf("%s: %v", tt.in, err)
		} else if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.in, diff)
		}
		// The reference agrees (which checks the table, too).
		ref, refErr := referenceStoredMetrics(tt.in)
		if (refErr == nil) != (tt.want != nil) {
			t.Errorf("%s: the reference says %v, %v", tt.in, ref, refErr)
		}
	}
}

// FuzzAddStoredMetrics checks the scanner against the reference on any
// input: both accept or both reject, with the same metrics.
func FuzzAddStoredMetrics(f *testing.F) {
	def := semcat.Datatype("Decimal")
	desc := "Revenue <of> \"all\"\n"
	full, _ := json.Marshal([]semcat.Metric{{Name: "revenue", Description: &desc, Datatype: &def,
		Expression:       &semcat.Expression{Dialects: []semcat.DialectExpression{{Dialect: "ANSI_SQL", Expression: "SUM(x)"}}},
		AIContext:        json.RawMessage(`{"synonyms":["sales"],"n":[1,-2.5e3,true,null]}`),
		CustomExtensions: []semcat.CustomExtension{{VendorName: new("acme")}}}, {Name: "b"}})
	for _, s := range []string{string(full), `[]`, ` [ {"name" : "a"} ]`, `[{"Name":"a"}]`, `[{"name":"a\u0062"}]`,
		`[{"name":"m2","expression":{"dialects":"nope"}}]`, `[{"description":"no name"}]`, `{"not":"an array"}`, `[null]`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got, err := splitStoredMetrics(in)
		want, refErr := referenceStoredMetrics(in)
		if (err == nil) != (refErr == nil) {
			t.Fatalf("%q: scanner %v, %v; reference %v, %v", in, got, err, want, refErr)
		}
		if diff := cmp.Diff(want, got); err == nil && diff != "" {
			t.Fatalf("%q (-reference +scanner):\n%s", in, diff)
		}
	})
}

// BenchmarkMetricListing measures the Go side of a detailed listing of
// 1,000 models × 20 metrics: splitting, checking and sorting the stored
// metrics (BenchmarkListSchemaMetrics measures it with PostgreSQL).
func BenchmarkMetricListing(b *testing.B) {
	decimal := semcat.Datatype("Decimal")
	var columns [][]byte
	for i := range 1000 {
		var ms []semcat.Metric
		for j := range 20 {
			name := fmt.Sprintf("metric_%02d_of_model_%04d", (j*7)%20, i)
			desc := "The " + name + " of every order, summed over the reporting period"
			dialects := []semcat.DialectExpression{{Dialect: "ANSI_SQL", Expression: "SUM(amount)"}}
			if j%3 == 0 {
				dialects = append(dialects, semcat.DialectExpression{Dialect: "SNOWFLAKE", Expression: "SUM(amount)"})
			}
			ms = append(ms, semcat.Metric{Name: name, Description: &desc, Datatype: &decimal, Expression: &semcat.Expression{Dialects: dialects}})
		}
		col, err := json.Marshal(ms)
		if err != nil {
			b.Fatal(err)
		}
		columns = append(columns, col)
	}
	b.ReportAllocs()
	for b.Loop() {
		var l metricListing
		for i, col := range columns {
			m := discoveredModel{id: int64(i), name: fmt.Sprint(i)}
			var err error
			if m.metrics, err = l.addStoredMetrics(i, slices.Clone(col)); err != nil {
				b.Fatal(err)
			}
			l.models = append(l.models, m)
		}
		if n := len(l.sorted()); n != 20000 {
			b.Fatalf("%d metrics", n)
		}
	}
}
