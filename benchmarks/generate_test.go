package main

import (
	"encoding/json"
	"testing"
)

// TestGeneratorDeterministic: the same seed gives the same catalog, and the
// plan has exactly the requested number of entities.
func TestGeneratorDeterministic(t *testing.T) {
	for _, n := range []int{10_000, 100_000} {
		a, b := NewGenerator(7, n), NewGenerator(7, n)
		if got := a.Plan.Counts.Entities(); got != n {
			t.Errorf("n=%d: plan has %d entities", n, got)
		}
		var count int
		var first []byte
		err := a.Each(func(e *Entity) error {
			count++
			if count == 1000 {
				first, _ = json.Marshal(e)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if count != n {
			t.Errorf("n=%d: Each visited %d entities", n, count)
		}
		count = 0
		_ = b.Each(func(e *Entity) error {
			count++
			if count == 1000 {
				if again, _ := json.Marshal(e); string(again) != string(first) {
					t.Errorf("n=%d: entity 1000 differs between runs:\n%s\n%s", n, first, again)
				}
			}
			return nil
		})
	}
}

// TestTableShape: 5–200 fields in all, nested 1–3 deep, 0–6 tags.
func TestTableShape(t *testing.T) {
	g := NewGenerator(1, 10_000)
	for ti := range 200 {
		tb := g.Table(1, 0, ti)
		if n := len(tb.Fields); n < 5 || n > 200 {
			t.Errorf("table %d has %d fields", ti, n)
		}
		if d := depth(tb.Columns); d < 2 || d > 4 {
			t.Errorf("table %d nests %d levels", ti, d-1)
		}
		if len(tb.Tags) > 6 {
			t.Errorf("table %d has %d tags", ti, len(tb.Tags))
		}
	}
}

func depth(cols []Column) int {
	d := 0
	for _, c := range cols {
		var inner []Column
		switch ty := c.Type.(type) {
		case structType:
			inner = ty.Fields
		case listType:
			inner = ty.ElementType.(structType).Fields
		case mapType:
			inner = ty.ValueType.(structType).Fields
		}
		d = max(d, 1+depth(inner))
	}
	return d
}
