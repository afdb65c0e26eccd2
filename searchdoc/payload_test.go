package searchdoc

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
)

// TestPayloadRoundTrip: a decoded payload equals what was encoded, down to
// nil and empty lists and maps (which a result's JSON tells apart), and
// every truncation or corruption of a payload is an error, never a panic
// or a wrong answer passed off as right.
func TestPayloadRoundTrip(t *testing.T) {
	cases := []Payload{
		{},
		{Entity: semcat.SearchEntity{Type: "table", Namespace: []string{"m", "c", "s"}, Name: "Employees"},
			Metadata: semcat.Metadata{
				System: semcat.MetadataPart{Properties: map[string]string{"entity-name": "Employees", "schema": `{"EmpTel":"integer"}`, "": ""}, Tags: []string{}},
				User:   semcat.MetadataPart{Properties: map[string]string{}, Tags: []string{"pii", "", "größe ✓"}},
			},
			Fields: []string{"EmpTel:integer", "EmpContact.EmpTel:integer"}},
		{Entity: semcat.SearchEntity{Type: "table", Name: "a"}, // properties like the entity's, but not equal
			Metadata: semcat.Metadata{System: semcat.MetadataPart{Properties: map[string]string{"entity-name": "b", "entity-type": "table"}}}},
		{Entity: semcat.SearchEntity{Type: "metric", Namespace: []string{}, Name: strings.Repeat("x", 300)},
			Metadata: semcat.Metadata{User: semcat.MetadataPart{Tags: []string{"a"}}}},
	}
	for i, st := range cases {
		p := string(EncodePayload(&st))
		got, err := DecodePayload(p)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if diff := cmp.Diff(&st, got); diff != "" {
			t.Errorf("case %d (-encoded +decoded):\n%s", i, diff)
		}
		wantJSON, _ := json.Marshal(st)
		gotJSON, _ := json.Marshal(got)
		if string(wantJSON) != string(gotJSON) {
			t.Errorf("case %d: JSON %s, want %s", i, gotJSON, wantJSON)
		}
		for n := range len(p) {
			if _, err := DecodePayload(p[:n]); err == nil {
				t.Errorf("case %d: a payload cut to %d of %d bytes decoded", i, n, len(p))
			}
		}
		if _, err := DecodePayload(p + "x"); err == nil {
			t.Errorf("case %d: a payload with a byte after it decoded", i)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 5000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = byte(rng.IntN(256))
		}
		if len(b) > 0 {
			b[0] = payloadVersion
		}
		DecodePayload(string(b)) // must not panic
	}
}

// TestTablePayload: a table's payload holds its columns once, and decodes
// to what the indexer derives from them: the "schema" property (the DDL),
// the schema entries of every field at any depth and the texts of the
// commented columns and struct fields, each as the table's own record
// derives them; and smaller than those three stored.
func TestTablePayload(t *testing.T) {
	text := func(s string) *string { return &s }
	str := &semcat.Type{Name: "string"}
	cols := []semcat.Column{
		{Name: "id", Type: &semcat.Type{Name: "bigint"}, Comment: text("the key")},
		{Name: "amount", Type: &semcat.Type{Name: "decimal(10,2)"}},
		{Name: "address", Type: &semcat.Type{Name: "struct", Fields: []semcat.StructField{
			{Name: "city", Type: str, Comment: text("where")},
			{Name: "geo", Type: &semcat.Type{Name: "struct", Fields: []semcat.StructField{{Name: "lat", Type: &semcat.Type{Name: "double"}}}}},
		}}},
		{Name: "events", Type: &semcat.Type{Name: "list", ElementType: &semcat.Type{Name: "struct", Fields: []semcat.StructField{{Name: "at", Type: &semcat.Type{Name: "timestamp"}, Comment: text("when")}}}}},
		{Name: "attrs", Type: &semcat.Type{Name: "map", KeyType: str, ValueType: &semcat.Type{Name: "struct", Fields: []semcat.StructField{{Name: "v", Type: str}}}}},
		{Name: "either", Type: &semcat.Type{Name: "union", Types: []*semcat.Type{str, {Name: "struct", Fields: []semcat.StructField{{Name: "n", Type: &semcat.Type{Name: "integer"}}}}}}},
		{Name: "untyped"},
		{Name: "größe ✓, <odd>", Type: str, Comment: text("")},
	}
	for _, columns := range [][]semcat.Column{cols, nil} {
		r := &semcat.EntityRecord{Kind: semcat.KindTable, Name: "orders", Metalake: "m", Catalog: "c", Schema: "s", Columns: columns,
			Properties: map[string]string{"owner": "ops"}, Tags: []string{"gold"}}
		md := r.Metadata()
		entity := semcat.SearchEntity{Type: "table", Namespace: r.Namespace(), Name: r.Name}
		want := &Payload{Entity: entity, Metadata: md, Fields: r.SchemaFields()}
		for _, c := range r.ColumnTexts() {
			if c.Text != "" {
				want.Comments = append(want.Comments, c)
			}
		}
		p := string(EncodePayload(TablePayload(entity, md, columns)))
		got, err := DecodePayload(p)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%d columns (-derived +decoded):\n%s", len(columns), diff)
		}
		if old := EncodePayload(want); len(columns) > 0 && len(p) >= len(old) {
			t.Errorf("the columns' payload takes %d bytes, the derived one %d", len(p), len(old))
		}
		for n := range len(p) {
			if _, err := DecodePayload(p[:n]); err == nil {
				t.Errorf("a table payload cut to %d of %d bytes decoded", n, len(p))
			}
		}
	}
}
