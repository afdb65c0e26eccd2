package semcat_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/semcat/semcat"
)

func TestColumnsRoundTrip(t *testing.T) {
	in := `[{"name":"EmpName","type":"string","nullable":true},` +
		`{"name":"EmpContact","type":{"type":"struct","fields":[{"name":"EmpTel","type":"integer","nullable":true},{"name":"EmpAddr","type":"varchar(200)"}]},"comment":"c","nullable":false},` +
		`{"name":"tags","type":{"type":"list","elementType":"string","containsNull":true},"nullable":true},` +
		`{"name":"attrs","type":{"type":"map","keyType":"string","valueType":{"type":"struct","fields":[]}},"nullable":true},` +
		`{"name":"u","type":{"type":"union","types":["integer","decimal(10,2)"]},"nullable":true}]`
	var cols []semcat.Column
	if err := json.Unmarshal([]byte(in), &cols); err != nil {
		t.Fatal(err)
	}
	if err := semcat.ValidateColumns("columns", cols); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(cols)
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != in {
		t.Errorf("round trip:\n in: %s\nout: %s", in, out)
	}
}

func TestColumnsValidate(t *testing.T) {
	deep := `"integer"`
	for i := 0; i < semcat.MaxTypeDepth; i++ {
		deep = fmt.Sprintf(`{"type":"list","elementType":%s}`, deep)
	}
	tests := []struct {
		in, wantPrefix string
	}{
		{`[{"name":"a","type":"integer"},{"name":"a","type":"string"}]`, "columns[1].name: duplicate column name 'a'"},
		{`[{"name":"a","type":"int"}]`, "columns[0].type: unknown type 'int'"},
		{`[{"name":"a"}]`, "columns[0].type: column type is required"},
		{`[{"name":"","type":"string"}]`, "columns[0].name:"},
		{`[{"name":"a","type":"decimal(50,2)"}]`, "columns[0].type: invalid decimal"},
		{`[{"name":"a","type":{"type":"struct","fields":[{"name":"x","type":"string"},{"name":"x","type":"string"}]}}]`,
			"columns[0].type.fields[1].name: duplicate field name 'x'"},
		{`[{"name":"a","type":{"type":"union","types":[]}}]`, "columns[0].type.types:"},
		{`[{"name":"a","type":` + deep + `}]`, "columns[0].type"},
	}
	for _, tt := range tests {
		var cols []semcat.Column
		if err := json.Unmarshal([]byte(tt.in), &cols); err != nil {
			t.Fatalf("%s: %v", tt.in, err)
		}
		err := semcat.ValidateColumns("columns", cols)
		if msg := semcat.ErrorMessage(err); semcat.ErrorCode(err) != semcat.EINVALID || !strings.HasPrefix(msg, tt.wantPrefix) {
			t.Errorf("%.60s: got %q, want prefix %q", tt.in, msg, tt.wantPrefix)
		}
	}
	var tooMany []semcat.Column
	for i := 0; i <= semcat.MaxLeafFields; i++ {
		tooMany = append(tooMany, semcat.Column{Name: fmt.Sprintf("c%d", i), Type: &semcat.Type{Name: "string"}})
	}
	if err := semcat.ValidateColumns("columns", tooMany); semcat.ErrorCode(err) != semcat.EINVALID {
		t.Errorf("%d leaf fields accepted", len(tooMany))
	}
}

func TestTypeRejectsUnknownMembers(t *testing.T) {
	var ty semcat.Type
	if err := json.Unmarshal([]byte(`{"type":"list","elementType":"string","bogus":1}`), &ty); err == nil {
		t.Error("unknown member accepted")
	}
	if err := json.Unmarshal([]byte(`42`), &ty); err == nil {
		t.Error("number accepted as a type")
	}
}

func TestValidateName(t *testing.T) {
	for _, ok := range []string{"a", "A_b-c", "x/y=z", "_x", strings.Repeat("a", 64)} {
		if err := semcat.ValidateName("name", ok); err != nil {
			t.Errorf("%q rejected: %v", ok, err)
		}
	}
	for _, bad := range []string{"", "*", "-a", "a b", "a.b", strings.Repeat("a", 65), "é"} {
		if err := semcat.ValidateName("name", bad); semcat.ErrorCode(err) != semcat.EINVALID {
			t.Errorf("%q accepted", bad)
		}
	}
}
