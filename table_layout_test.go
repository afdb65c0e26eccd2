package semcat_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/semcat/semcat"
)

// TestTableLayoutValidate checks the shape rules of Gravitino's table
// layout, each violation naming its field.
func TestTableLayoutValidate(t *testing.T) {
	cols := `"columns":[{"name":"id","type":"long"}]`
	tests := []struct {
		body, wantPrefix string // wantPrefix "" means valid
	}{
		{`{"name":"t",` + cols + `,"partitioning":[],"distribution":{"strategy":"none","number":0,"funcArgs":[]},"sortOrders":[],"indexes":[]}`, ""},
		{`{"name":"t",` + cols + `,"partitioning":[{"strategy":"IDENTITY","fieldName":["id"]},{"strategy":"bucket","numBuckets":4,"fieldNames":[["id"]]}]}`, ""},
		{`{"name":"t",` + cols + `,"partitioning":[{"strategy":"identity"}]}`, "partitioning[0].fieldName: "},
		{`{"name":"t",` + cols + `,"partitioning":[{"strategy":"spiral","fieldName":["id"]}]}`, "partitioning[0].strategy: "},
		{`{"name":"t",` + cols + `,"partitioning":[{"strategy":"bucket","fieldNames":[["id"]]}]}`, "partitioning[0].numBuckets: "},
		{`{"name":"t",` + cols + `,"distribution":{"strategy":"weird","number":0,"funcArgs":[]}}`, "distribution.strategy: "},
		{`{"name":"t",` + cols + `,"distribution":{"strategy":"hash","number":-2,"funcArgs":[]}}`, "distribution.number: "},
		{`{"name":"t",` + cols + `,"distribution":{"strategy":"hash","number":4,"funcArgs":[{"type":"field"}]}}`, "distribution.funcArgs[0].fieldName: "},
		{`{"name":"t",` + cols + `,"sortOrders":[{"sortTerm":{"type":"field","fieldName":["id"]},"direction":"sideways"}]}`, "sortOrders[0].direction: "},
		{`{"name":"t",` + cols + `,"indexes":[{"indexType":"FOREIGN_KEY","fieldNames":[["id"]]}]}`, "indexes[0].indexType: "},
		{`{"name":"t",` + cols + `,"indexes":[{"indexType":"primary_key","fieldNames":[]}]}`, "indexes[0].fieldNames: "},
		{`{"name":"t","columns":[{"name":"id","type":"long","defaultValue":{"type":"literal","dataType":"long"}}]}`, "columns[0].defaultValue: "},
		{`{"name":"t","columns":[{"name":"a","type":"long","autoIncrement":true},{"name":"b","type":"long","autoIncrement":true}]}`, "columns[1].autoIncrement: "},
	}
	for _, tt := range tests {
		var req semcat.TableCreate
		if err := json.Unmarshal([]byte(tt.body), &req); err != nil {
			t.Fatalf("%s: %v", tt.body, err)
		}
		err := req.Validate()
		switch {
		case tt.wantPrefix == "" && err != nil:
			t.Errorf("%s: %v, want valid", tt.body, err)
		case tt.wantPrefix != "" && (semcat.ErrorCode(err) != semcat.EINVALID || !strings.HasPrefix(semcat.ErrorMessage(err), tt.wantPrefix)):
			t.Errorf("%s: %v, want EINVALID with prefix %q", tt.body, err, tt.wantPrefix)
		}
	}
}

// TestTableLayoutJSON checks the answers' forms: Gravitino's empty layout
// for a table without one, enums in their canonical case, and a column's
// default value written only when set.
func TestTableLayoutJSON(t *testing.T) {
	var req semcat.TableCreate
	body := `{"name":"t","columns":[{"name":"id","type":"long","autoIncrement":true},
		{"name":"ts","type":"timestamp","defaultValue":{"type":"function","funcName":"current_timestamp","funcArgs":[]}}],
		"sortOrders":[{"sortTerm":{"type":"field","fieldName":["id"]},"direction":"DESC"}],"indexes":[{"indexType":"unique_key","fieldNames":[["id"]]}]}`
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatal(err)
	}
	if err := req.Validate(); err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(semcat.Table{Name: "t", Columns: req.Columns, TableLayout: req.TableLayout.WithDefaults()})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`{"name":"id","type":"long","nullable":true,"autoIncrement":true}`,
		`"defaultValue":{"funcArgs":[],"funcName":"current_timestamp","type":"function"}`,
		`"partitioning":[]`,
		`"distribution":{"strategy":"none","number":0,"funcArgs":[]}`,
		`"direction":"desc","nullOrdering":"nulls_last"`,
		`"indexType":"UNIQUE_KEY"`,
	} {
		if !strings.Contains(string(got), want) {
			t.Errorf("table JSON lacks %s:\n%s", want, got)
		}
	}
	if strings.Contains(string(got), `"defaultValue":null`) {
		t.Errorf("an unset default value is written as null (the official client fails on it):\n%s", got)
	}
}
