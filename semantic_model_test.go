package semcat_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/semcat/semcat"
)

// validDefinition is a small, valid definition used as the base of the
// validation tests; each test breaks one rule.
const validDefinition = `{
  "datasets": [
    {"name": "orders", "source": {"namespace": ["rel", "sales"], "name": "orders"},
     "primaryKey": ["order_id"], "uniqueKeys": [["order_id"]],
     "fields": [{"name": "order_id", "expression": {"dialects": [{"dialect": "ANSI_SQL", "expression": "order_id"}]}},
                {"name": "ordered_at", "expression": {"dialects": [{"dialect": "ANSI_SQL", "expression": "ordered_at"}]},
                 "dimension": {"isTime": true}, "datatype": "DateTime"}]},
    {"name": "customers", "source": {"namespace": ["rel", "sales"], "name": "customers"}}
  ],
  "relationships": [{"name": "orders_customers", "from": "orders", "to": "customers",
                     "fromColumns": ["customer_id"], "toColumns": ["customer_id"]}],
  "metrics": [{"name": "revenue", "expression": {"dialects": [{"dialect": "ANSI_SQL", "expression": "SUM(amount)"},
                                                          {"dialect": "SNOWFLAKE", "expression": "SUM(amount)"}]},
               "datatype": "Decimal", "aiContext": {"synonyms": ["sales"], "owner": "finance"}}]
}`

func decodeDefinition(t *testing.T, s string) *semcat.Definition {
	t.Helper()
	var d semcat.Definition
	dec := json.NewDecoder(strings.NewReader(s))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&d); err != nil {
		t.Fatalf("decode: %v", err)
	}
	return &d
}

// mutate applies fn to the generic form of validDefinition.
func mutate(t *testing.T, fn func(d map[string]any)) string {
	t.Helper()
	var d map[string]any
	if err := json.Unmarshal([]byte(validDefinition), &d); err != nil {
		t.Fatal(err)
	}
	fn(d)
	b, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func at(v any, path ...any) any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v
}

func TestDefinitionValidate(t *testing.T) {
	if err := decodeDefinition(t, validDefinition).Validate(); err != nil {
		t.Fatalf("valid definition rejected: %v", err)
	}
	tests := []struct {
		name       string
		fn         func(d map[string]any)
		wantPrefix string
	}{
		{"no datasets", func(d map[string]any) { d["datasets"] = []any{} }, "datasets:"},
		{"duplicate dataset", func(d map[string]any) { at(d, "datasets", 1).(map[string]any)["name"] = "orders" },
			"datasets[1].name: duplicate dataset name 'orders'"},
		{"bad dataset name", func(d map[string]any) { at(d, "datasets", 0).(map[string]any)["name"] = "" }, "datasets[0].name: name is required"},
		{"missing source", func(d map[string]any) { delete(at(d, "datasets", 1).(map[string]any), "source") }, "datasets[1].source:"},
		{"source namespace length", func(d map[string]any) {
			at(d, "datasets", 0, "source").(map[string]any)["namespace"] = []any{"rel"}
		}, "datasets[0].source.namespace:"},
		{"duplicate field", func(d map[string]any) {
			at(d, "datasets", 0, "fields", 1).(map[string]any)["name"] = "order_id"
		}, "datasets[0].fields[1].name: duplicate field name 'order_id'"},
		{"field without expression", func(d map[string]any) {
			delete(at(d, "datasets", 0, "fields", 0).(map[string]any), "expression")
		}, "datasets[0].fields[0].expression:"},
		{"empty dialect list", func(d map[string]any) {
			at(d, "metrics", 0, "expression").(map[string]any)["dialects"] = []any{}
		}, "metrics[0].expression.dialects:"},
		{"dialect twice", func(d map[string]any) {
			at(d, "metrics", 0, "expression", "dialects", 1).(map[string]any)["dialect"] = "ANSI_SQL"
		}, "metrics[0].expression.dialects[1].dialect: duplicate dialect 'ANSI_SQL'"},
		{"unknown datatype", func(d map[string]any) { at(d, "metrics", 0).(map[string]any)["datatype"] = "Money" }, "metrics[0].datatype:"},
		{"duplicate metric", func(d map[string]any) {
			d["metrics"] = append(d["metrics"].([]any), at(d, "metrics", 0))
		}, "metrics[1].name: duplicate metric name 'revenue'"},
		{"duplicate relationship", func(d map[string]any) {
			d["relationships"] = append(d["relationships"].([]any), at(d, "relationships", 0))
		}, "relationships[1].name: duplicate relationship name"},
		{"relationship from unknown dataset", func(d map[string]any) {
			at(d, "relationships", 0).(map[string]any)["from"] = "nope"
		}, "relationships[0].from: 'nope' is not a dataset"},
		{"relationship to unknown dataset", func(d map[string]any) {
			at(d, "relationships", 0).(map[string]any)["to"] = "nope"
		}, "relationships[0].to:"},
		{"relationship column counts differ", func(d map[string]any) {
			at(d, "relationships", 0).(map[string]any)["toColumns"] = []any{"a", "b"}
		}, "relationships[0].toColumns: has 2 columns but fromColumns has 1"},
		{"relationship without columns", func(d map[string]any) {
			at(d, "relationships", 0).(map[string]any)["fromColumns"] = []any{}
			at(d, "relationships", 0).(map[string]any)["toColumns"] = []any{}
		}, "relationships[0].fromColumns:"},
		{"aiContext of the wrong kind", func(d map[string]any) { d["aiContext"] = 42.0 }, "aiContext: must be a string or an object"},
		{"aiContext synonyms not strings", func(d map[string]any) {
			at(d, "metrics", 0).(map[string]any)["aiContext"] = map[string]any{"synonyms": []any{1.0}}
		}, "metrics[0].aiContext.synonyms:"},
		{"extension without vendor", func(d map[string]any) {
			d["customExtensions"] = []any{map[string]any{"data": "x"}}
		}, "customExtensions[0].vendorName:"},
		{"empty unique key", func(d map[string]any) {
			at(d, "datasets", 0).(map[string]any)["uniqueKeys"] = []any{[]any{}}
		}, "datasets[0].uniqueKeys[0]:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := decodeDefinition(t, mutate(t, tt.fn)).Validate()
			if semcat.ErrorCode(err) != semcat.EINVALID {
				t.Fatalf("got %v, want an EINVALID error", err)
			}
			if msg := semcat.ErrorMessage(err); !strings.HasPrefix(msg, tt.wantPrefix) {
				t.Errorf("message %q does not start with %q", msg, tt.wantPrefix)
			}
		})
	}
}

func TestDefinitionValidateSources(t *testing.T) {
	tables := map[string][]string{
		"rel.sales.orders":    {"order_id", "customer_id", "amount"},
		"rel.sales.customers": {"customer_id", "name"},
	}
	lookup := func(c, s, name string) ([]string, bool, error) {
		cols, ok := tables[c+"."+s+"."+name]
		return cols, ok, nil
	}
	if err := decodeDefinition(t, validDefinition).ValidateSources(lookup); err != nil {
		t.Fatalf("valid sources rejected: %v", err)
	}
	tests := []struct {
		name       string
		fn         func(d map[string]any)
		wantPrefix string
	}{
		{"missing table", func(d map[string]any) { at(d, "datasets", 1, "source").(map[string]any)["name"] = "gone" },
			"datasets[1].source: table 'rel.sales.gone' does not exist"},
		{"primary key column", func(d map[string]any) { at(d, "datasets", 0).(map[string]any)["primaryKey"] = []any{"nope"} },
			"datasets[0].primaryKey[0]:"},
		{"unique key column", func(d map[string]any) {
			at(d, "datasets", 0).(map[string]any)["uniqueKeys"] = []any{[]any{"order_id", "nope"}}
		}, "datasets[0].uniqueKeys[0][1]:"},
		{"from column", func(d map[string]any) { at(d, "relationships", 0).(map[string]any)["fromColumns"] = []any{"name"} },
			"relationships[0].fromColumns[0]:"},
		{"to column", func(d map[string]any) { at(d, "relationships", 0).(map[string]any)["toColumns"] = []any{"amount"} },
			"relationships[0].toColumns[0]:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := decodeDefinition(t, mutate(t, tt.fn)).ValidateSources(lookup)
			if msg := semcat.ErrorMessage(err); semcat.ErrorCode(err) != semcat.EINVALID || !strings.HasPrefix(msg, tt.wantPrefix) {
				t.Errorf("got %v (%q), want EINVALID starting with %q", err, msg, tt.wantPrefix)
			}
		})
	}
}

// TestDefinitionRoundTrip checks that null and [] of optional arrays, the
// order of collections and extra aiContext keys survive encode and decode.
func TestDefinitionRoundTrip(t *testing.T) {
	in := `{"datasets":[{"name":"d","source":{"namespace":["c","s"],"name":"t"},"primaryKey":[],"fields":[]}],` +
		`"relationships":[],"metrics":[{"name":"z","expression":{"dialects":[{"dialect":"B","expression":"2"},{"dialect":"A","expression":"1"}]},` +
		`"aiContext":{"instructions":"i","zeta":{"nested":[1,2]},"alpha":true}},` +
		`{"name":"a","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"x"}]},"aiContext":"plain text"}],` +
		`"aiContext":null}`
	d := decodeDefinition(t, in)
	out, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	var compact bytes.Buffer
	if err := json.Compact(&compact, []byte(in)); err != nil {
		t.Fatal(err)
	}
	if string(out) != compact.String() {
		t.Errorf("round trip changed the definition:\n in: %s\nout: %s", compact.String(), out)
	}
	if d.CustomExtensions != nil || d.Datasets[0].UniqueKeys != nil {
		t.Errorf("absent arrays decoded as non-nil")
	}
	if d.Relationships == nil || len(d.Relationships) != 0 {
		t.Errorf("explicit [] decoded as %#v", d.Relationships)
	}
}
