package main

import (
	"net/url"
	"slices"
	"testing"
)

// TestRankingEndToEnd checks revision 3's forms and context (SPEC §5.2,
// §5.4) through the indexer's own documents: acronyms and derived forms
// as the analyzers index them, a schema's description carried by its
// tables, and words together as one column.
func TestRankingEndToEnd(t *testing.T) {
	t.Parallel()
	c := startWithSchema(t)
	c.ok("POST", "/api/metalakes/m/catalogs/rel/schemas", `{"name":"retail","comment":"The point of sale system"}`)
	tables := map[string]string{
		"s":      `{"name":"engagement","comment":"Monthly active users by product","columns":[{"name":"id","type":"long"}]}`,
		"retail": `{"name":"items","columns":[{"name":"id","type":"long"}]}`,
	}
	for schema, body := range tables {
		c.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/"+schema+"/tables", body)
	}
	c.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s/tables", `{"name":"order_events","comment":"Order cancellations per day","columns":[{"name":"id","type":"long"}]}`)
	c.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s/tables", `{"name":"addresses","columns":[{"name":"zip_code","type":"string"}]}`)
	hdr, _ := c.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s/tables", `{"name":"postal","comment":"The zip area and the code of the region","columns":[{"name":"id","type":"long"}]}`)
	pos := hdr.Get("X-Semcat-Position")
	search := func(q string) []string {
		t.Helper()
		_, ids := c.search("m", url.Values{"query": {q}, "type": {"table"}, "minPosition": {pos}})
		return ids
	}
	for q, want := range map[string]string{
		"mau":           "table:m.rel.s.engagement",
		"cancelled":     "table:m.rel.s.order_events",
		"point of sale": "table:m.rel.retail.items",
	} {
		if got := search(q); !slices.Contains(got, want) {
			t.Errorf("%q: %v, want %s among them", q, got, want)
		}
	}
	if got := search("zip code"); len(got) < 2 || got[0] != "table:m.rel.s.addresses" {
		t.Errorf("zip code: %v, want the column zip_code first, above the words scattered", got)
	}
}
