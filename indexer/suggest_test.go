package indexer_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/search"
)

// TestSuggest: type-ahead over a real index. A prefix suggests the
// entities whose name starts with it, then those with a later part that
// does (camelCase and letter/digit parts too), shorter names first, then
// by name; in any letter case, with the match in bold; filtered by type
// and metalake; never a dropped entity.
func TestSuggest(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	check := checker(t)
	for _, name := range []string{"customer_orders", "customers", "dim_customer", "CustomerID_map", "fct_orders", "raw_cust", "cust", "gone_customer"} {
		check(s.CreateTable(ctx, ns, table(name, "id")))
	}
	check(s.CreateSchema(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"}, semcat.SchemaCreate{Name: "customs"}))
	check(s.CreateMetalake(ctx, semcat.MetalakeCreate{Name: "other"}))
	check(s.CreateCatalog(ctx, "other", semcat.CatalogCreate{Name: "customer_catalog", Type: semcat.CatalogRelational}))
	check(s.DropTable(ctx, ns, "gone_customer"))
	catchUp(t, x)
	svc := &search.Service{Index: x, Store: s}

	suggest := func(prefix string, limit int, types ...string) string {
		t.Helper()
		res, err := svc.Suggest(ctx, semcat.SuggestRequest{Metalake: "m", Prefix: prefix, Types: types, Limit: limit})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, sg := range res.Suggestions {
			out = append(out, sg.Entity.Type+":"+sg.Highlight)
			want := []string{"m", "rel", "s"}
			if sg.Entity.Type == "schema" {
				want = want[:2]
			}
			if !slices.Equal(sg.Entity.Namespace, want) {
				t.Errorf("suggestion %s in namespace %v, want %v", sg.Entity.Name, sg.Entity.Namespace, want)
			}
		}
		return strings.Join(out, " ")
	}
	tests := []struct {
		prefix string
		limit  int
		types  []string
		want   string
	}{
		{"cust", 10, nil, "table:<b>cust</b> schema:<b>cust</b>oms table:<b>cust</b>omers table:<b>Cust</b>omerID_map table:<b>cust</b>omer_orders " +
			"table:raw_<b>cust</b> table:dim_<b>cust</b>omer"},
		{"CUST", 3, []string{"table"}, "table:<b>cust</b> table:<b>cust</b>omers table:<b>Cust</b>omerID_map"},
		{"ord", 10, nil, "table:fct_<b>ord</b>ers table:customer_<b>ord</b>ers"},
		{"id", 10, nil, "table:Customer<b>ID</b>_map"},
		{"customer_o", 10, nil, "table:<b>customer_o</b>rders"},
		{"map", 10, []string{"schema"}, ""},
		{"zzz", 10, nil, ""},
	}
	for _, tt := range tests {
		if got := suggest(tt.prefix, tt.limit, tt.types...); got != tt.want {
			t.Errorf("suggest %q %v:\n got %s\nwant %s", tt.prefix, tt.types, got, tt.want)
		}
	}
	if _, err := svc.Suggest(ctx, semcat.SuggestRequest{Metalake: "nope", Prefix: "c", Limit: 5}); semcat.ErrorCode(err) != semcat.ENOTFOUND {
		t.Errorf("suggest in a missing metalake: %v", err)
	}
}
