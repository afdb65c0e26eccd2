package search

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
