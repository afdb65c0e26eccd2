package search

import (
	"slices"
	"testing"

	q "github.com/semcat/semcat/query"
	"github.com/semcat/semcat/searchdoc"
)

// TestRevision3Ranking checks the forms of SPEC §5.2 and the properties of
// §5.4 added in revision 3, each on a small catalog.
func TestRevision3Ranking(t *testing.T) {
	idx := mustOpenRanked(t, []ranked{
		// How much matched: a table named by one word of the query, and
		// tables that match every word elsewhere.
		{id: "orders", name: "orders"},
		{id: "refunds", name: "fct_refund_lines", description: "Orders that were refunded to the customer"},
		// Together: zip and code as one identifier, and scattered.
		{id: "zip_column", name: "addresses", columns: []string{"zip_code"}},
		{id: "zip_camel", name: "locations", columns: []string{"ZipCode"}},
		{id: "scattered", name: "postal", description: "The zip area and the code of the region"},
		{id: "z_adjacent", name: "mailing", description: "The zip code of the customer"},
		{id: "zone", name: "zones", description: "Zone control"},
		// Compounds.
		{id: "signups", name: "user_signups"},
		{id: "email", name: "contacts", columns: []string{"email"}},
		// Derived forms.
		{id: "cancellations", name: "order_events", description: "Order cancellations per day"},
		{id: "delivery", name: "shipments", columns: []string{"delivery_date"}},
		// Acronyms, learned from the catalog's text.
		{id: "engagement", name: "engagement", description: "Monthly active users by product"},
		{id: "mau_table", name: "mau_daily"},
		{id: "users", name: "users", description: "Every user"},
		// Synonyms.
		{id: "glacier", name: "glacier_events"},
	})
	found := func(query string, opts q.Options) []string {
		t.Helper()
		return ids(find(t, idx, query, opts))
	}
	before := func(query string, opts q.Options, a, b string) {
		t.Helper()
		got := found(query, opts)
		i, j := slices.Index(got, a), slices.Index(got, b)
		if i < 0 || j < 0 || i > j {
			t.Errorf("%q: %v, want %s before %s", query, got, a, b)
		}
	}
	has := func(query string, opts q.Options, want ...string) {
		t.Helper()
		got := found(query, opts)
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: %v, want %s among them", query, got, w)
			}
		}
	}
	t.Run("coverage over a whole-name match", func(t *testing.T) {
		before("refunded orders", q.Options{}, "refunds", "orders")
	})
	t.Run("words together", func(t *testing.T) {
		before("zip code", q.Options{}, "zip_column", "scattered")
		before("zip code", q.Options{}, "zip_camel", "scattered")
		// Next to each other in a description, above scattered.
		before("zip code", q.Options{}, "z_adjacent", "scattered")
		// A phrase with the same initials finds nothing by itself.
		if got := found("zebra crossing", q.Options{}); len(got) != 0 {
			t.Errorf("zebra crossing: %v, want nothing (zone control only shares the initials)", got)
		}
	})
	t.Run("compounds", func(t *testing.T) {
		has("sign up", q.Options{}, "signups")
		has("e-mail", q.Options{}, "email")
	})
	t.Run("derived forms", func(t *testing.T) {
		has("cancelled", q.Options{}, "cancellations")
		has("delivered", q.Options{}, "delivery")
	})
	t.Run("acronyms", func(t *testing.T) {
		has("mau", q.Options{}, "engagement", "mau_table")
		// The phrase finds the acronym, above what matches one word.
		before("monthly active users", q.Options{}, "mau_table", "users")
		if got := found("mau", q.Options{}); got[0] != "mau_table" {
			t.Errorf("mau: %v, want the name holding the word first", got)
		}
	})
	t.Run("synonyms", func(t *testing.T) {
		if got := found("ios", q.Options{}); len(got) != 0 {
			t.Errorf("ios without synonyms: %v, want nothing", got)
		}
		syn := q.NewSynonyms([][]string{{"iOS", "glacier"}, {"MAU", "monthly active users"}})
		has("ios", q.Options{Synonyms: syn}, "glacier")
		has("ios events", q.Options{Synonyms: syn}, "glacier")
		before("ios events", q.Options{Synonyms: syn}, "glacier", "cancellations")
	})
}

// TestContext: a table carries its schema's description at a low weight
// (SPEC §5.4, revision 3): it finds the tables, decides between tables
// that match equally by their own text, and never outranks a table's own
// match.
func TestContext(t *testing.T) {
	idx := mustOpenRanked(t, []ranked{
		{id: "pos", typ: searchdoc.TypeSchema, name: "retail", description: "The point of sale system", schemaID: "1"},
		{id: "web", typ: searchdoc.TypeSchema, name: "web", description: "The web shop", schemaID: "2"},
		{id: "a_web_tx", name: "transactions", description: "One row per sale", schemaID: "2"},
		{id: "z_pos_tx", name: "transactions", description: "One row per sale", schemaID: "1"},
		{id: "pos_items", name: "items", schemaID: "1"},
		{id: "own_column", name: "amounts", columns: []string{"sale_amount"}, schemaID: "2"},
		{id: "shop_model", typ: searchdoc.TypeSemanticModel, name: "shop", description: "Subscriptions of the storefront", schemaID: "2", modelID: "7"},
		{id: "revenue", typ: searchdoc.TypeMetric, name: "revenue", schemaID: "2", modelID: "7"},
		{id: "other_metric", typ: searchdoc.TypeMetric, name: "margin", schemaID: "2", modelID: "8"},
	})
	// A metric carries its model's description.
	if got := ids(find(t, idx, "storefront", q.Options{})); !slices.Equal(got, []string{"shop_model", "revenue"}) {
		t.Errorf("storefront: %v, want the model, then its metric (by its model's description)", got)
	}
	got := ids(find(t, idx, "point of sale", q.Options{}))
	if !slices.Contains(got, "pos_items") {
		t.Errorf("point of sale: %v, want the tables of the schema described so (pos_items)", got)
	}
	// A tie of their own text, decided by the schema's description.
	got = ids(find(t, idx, "transactions", q.Options{}))
	if !slices.Equal(got, []string{"a_web_tx", "z_pos_tx"}) {
		t.Errorf("transactions: %v, want the two tables tied, by id", got)
	}
	got = ids(find(t, idx, "sale transactions", q.Options{}))
	if i, j := slices.Index(got, "z_pos_tx"), slices.Index(got, "a_web_tx"); i < 0 || j < 0 || i > j {
		t.Errorf("sale transactions: %v, want z_pos_tx (its schema is about sales) before a_web_tx", got)
	}
	// Never above a table's own match, even its weakest.
	got = ids(find(t, idx, "sale", q.Options{}))
	if i, j := slices.Index(got, "own_column"), slices.Index(got, "pos_items"); i < 0 || j < 0 || i > j {
		t.Errorf("sale: %v, want own_column (a column says sale) before pos_items (only its schema does)", got)
	}
	if i, j := slices.Index(got, "a_web_tx"), slices.Index(got, "own_column"); i > j {
		t.Errorf("sale: %v, want a description's match before a column's", got)
	}
}

// TestCommonWordsCoverage: a word that more than half of the catalog's
// documents match is optional for coverage (search/coverage.go,
// commonWords): a document matching the query's one informative word
// ranks above documents that match only its common words, however many
// of them; a document matching every word still ranks first.
func TestCommonWordsCoverage(t *testing.T) {
	idx := mustOpenRanked(t, []ranked{
		{id: "bookings", name: "fct_bookings", description: "Bookings per order"},
		{id: "every_word", name: "bookings_yoy", description: "Bookings of the daily snapshot report"},
		{id: "report_a", name: "usage_pings", description: "The daily snapshot report of usage"},
		{id: "report_b", name: "instances", description: "A daily snapshot report of instances"},
		{id: "report_c", name: "licenses", description: "Daily snapshot report of licenses"},
		{id: "report_d", name: "seats", description: "Seats: a daily snapshot report"},
		{id: "users", name: "users", description: "Every user"},
	})
	got := ids(find(t, idx, "bookings daily snapshot report", q.Options{}))
	want := []string{"every_word", "bookings"}
	if len(got) < len(want) || !slices.Equal(got[:len(want)], want) {
		t.Errorf("bookings daily snapshot report: %v, want %v first (daily, snapshot and report are in 5 of 7 documents)", got, want)
	}
	// The same words, rare in another catalog, count as much as any.
	idx = mustOpenRanked(t, []ranked{
		{id: "bookings", name: "fct_bookings", description: "Bookings per order"},
		{id: "report_a", name: "usage_pings", description: "The daily snapshot report of usage"},
		{id: "users", name: "users", description: "Every user"},
		{id: "orders", name: "orders", description: "Every order"},
		{id: "seats", name: "seats", description: "Seats"},
	})
	got = ids(find(t, idx, "bookings daily snapshot report", q.Options{}))
	if want := []string{"report_a", "bookings"}; !slices.Equal(got, want) {
		t.Errorf("bookings daily snapshot report: %v, want %v (each word in at most 1 of 5 documents: more words first)", got, want)
	}
}
