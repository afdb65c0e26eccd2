package semcat

import (
	"encoding/json"
	"testing"
)

// TestUnparsedType: Gravitino's unparsed type round-trips as its object
// form and validates; unparsedType belongs to it alone and names one type.
func TestUnparsedType(t *testing.T) {
	for _, tt := range []struct {
		col, wantErr string
	}{
		{col: `{"name":"doc","type":{"type":"unparsed","unparsedType":"tsvector"},"nullable":true}`},
		{col: `{"name":"doc","type":{"type":"list","elementType":{"type":"unparsed","unparsedType":"mpaa_rating"},"containsNull":false},"nullable":true}`},
		{col: `{"name":"doc","type":{"type":"unparsed"},"nullable":true}`, wantErr: "columns[0].type.unparsedType: give the source's name of the type"},
		{col: `{"name":"doc","type":{"type":"unparsed","unparsedType":"int; DROP TABLE t"},"nullable":true}`, wantErr: "columns[0].type.unparsedType: 'int; DROP TABLE t' is not a type name"},
		{col: `{"name":"doc","type":{"type":"list","elementType":"integer","unparsedType":"x"},"nullable":true}`, wantErr: "columns[0].type.unparsedType: only an unparsed type has one"},
	} {
		var c Column
		if err := json.Unmarshal([]byte(tt.col), &c); err != nil {
			t.Errorf("%s: %v", tt.col, err)
			continue
		}
		err := ValidateColumns("columns", []Column{c})
		if tt.wantErr != "" {
			if ErrorMessage(err) != tt.wantErr {
				t.Errorf("%s: %v, want %q", tt.col, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.col, err)
		}
		if b, _ := json.Marshal(c); string(b) != tt.col {
			t.Errorf("round trip:\n got %s\nwant %s", b, tt.col)
		}
	}
}
