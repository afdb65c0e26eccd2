package api

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/semcat/semcat"
)

// TestKeysExact: the byte scan passes bodies whose keys all name fields
// exactly — nested structs, embedded ones, maps of any keys, column types
// (which check their own members) — so that they are decoded once, and
// leaves to walkKeys every body it cannot vouch for.
func TestKeysExact(t *testing.T) {
	batch := reflect.TypeFor[*semcat.TableBatchCreate]()
	table := reflect.TypeFor[*semcat.TableCreate]()
	tests := []struct {
		body string
		t    reflect.Type
		want bool
	}{
		{` {"name":"t","columns":[{"name":"a","type":"integer","nullable":false,"comment":null}],"properties":{"ANY Key":"v","k":"x"}} `, table, true},
		{`{"name":"t","columns":[{"name":"a","type":{"type":"struct","fields":[{"name":"x","type":{"type":"list","elementType":"int"}}]}}]}`, table, true},
		{`{"tables":[{"name":"t","columns":[],"tags":["a","b"]},{"name":"u\"v","comment":"c\\d","columns":[]}]}`, batch, true},
		{`{"tables":[]}`, batch, true},
		{`{"NAME":"t"}`, table, false},
		{`{"tables":[{"Name":"t","columns":[]}]}`, batch, false},
		{`{"na\u006de":"t"}`, table, false},
		{`{"name":"t","columns":[{"name":"a","type":"int","Comment":"c"}]}`, table, false},
		{`{"name":"t"`, table, false},
	}
	for _, tt := range tests {
		if got := keysExact([]byte(tt.body), tt.t); got != tt.want {
			t.Errorf("keysExact(%s) = %v, want %v", tt.body, got, tt.want)
		}
	}
}

// BenchmarkBodyChecks compares, on a batch of 100 tables of 50 columns,
// the byte scan with what every body went through before it: a second,
// generic decoding walked by walkKeys and noNUL.
func BenchmarkBodyChecks(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"tables":[`)
	for i := range 100 {
		if i > 0 {
			sb.WriteString(",")
		}
		fmt.Fprintf(&sb, `{"name":"t%d","properties":{"owner":"team %d","ref":"x%d"},"tags":["a"],"columns":[`, i, i, i)
		for c := range 50 {
			if c > 0 {
				sb.WriteString(",")
			}
			fmt.Fprintf(&sb, `{"name":"c%d","type":{"type":"struct","fields":[{"name":"f","type":"string"}]}}`, c)
		}
		sb.WriteString("]}")
	}
	sb.WriteString("]}")
	body := []byte(sb.String())
	typ := reflect.TypeFor[*semcat.TableBatchCreate]()
	b.Run("scan", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			if !keysExact(body, typ) || bytes.Contains(body, []byte(`\u0000`)) {
				b.Fatal("not exact")
			}
		}
	})
	b.Run("generic", func(b *testing.B) {
		b.SetBytes(int64(len(body)))
		for b.Loop() {
			var generic any
			if err := json.Unmarshal(body, &generic); err != nil {
				b.Fatal(err)
			}
			if walkKeys("", generic, typ) != nil || noNUL("", generic) != nil {
				b.Fatal("rejected")
			}
		}
	})
}
