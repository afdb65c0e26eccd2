package query

import (
	"encoding/json"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search"
	blevequery "github.com/blevesearch/bleve/v2/search/query"
	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat/analyzers"
)

// entity is a test entity; doc lays it out as fields.go describes.
type entity struct {
	id, typ, name        string
	user, system         map[string]string
	userTags, systemTags []string
	fields               []string // "dotted.path:type"
	catalog, schemaName  string
}

func (e entity) doc() map[string]any {
	system := map[string]string{"entity-name": e.name, "entity-type": e.typ}
	for k, v := range e.system {
		system[k] = v
	}
	props := func(p map[string]string) (byKey map[string]any, keys, values []string) {
		byKey = map[string]any{}
		for k, v := range p {
			byKey[strings.ToLower(k)] = v
			keys = append(keys, strings.ToLower(k))
			values = append(values, v)
		}
		return byKey, keys, values
	}
	u, ukeys, uvalues := props(e.user)
	s, skeys, svalues := props(system)
	uvalues = append(uvalues, e.userTags...)
	svalues = append(svalues, e.systemTags...)
	d := map[string]any{
		FieldType: e.typ, FieldMetalake: "m", FieldCatalog: e.catalog, FieldSchema: e.schemaName,
		FieldNameExact: e.name, FieldSortKey: SortKey(e.name, "m."+e.name, "table"),
		FieldUserValues: uvalues, FieldUserExact: uvalues, FieldSystemValues: svalues, FieldSystemExact: svalues,
		FieldUserKeys: ukeys, FieldSystemKeys: skeys,
		FieldTags: e.userTags, FieldTagsExact: append(slices.Clone(e.userTags), e.systemTags...),
		"u": u, "ux": u, "s": s, "sx": s,
	}
	if len(e.fields) > 0 {
		d[FieldSchemaFields] = e.fields
		d[FieldHas] = []string{"schema"}
	}
	return d
}

// corpus is the test index's entities. Each is built to match one way:
// "alpha" by name, "orders" by a whole value, "employees" and "reports" by
// a token, "alphabet" by a prefix only.
var corpus = []entity{
	{id: "employees", typ: TypeTable, name: "employees", catalog: "c", schemaName: "hr",
		user:     map[string]string{"Codename": "Alpha Tango Charlie", "owner-team": "av4_av5"},
		userTags: []string{"Tag1", "Tag22"},
		system:   map[string]string{"comment": "Employee master data"},
		fields:   []string{"EmpName:string", "EmpContact:struct", "EmpContact.EmpTel:integer", "EmpContact.EmpAddr:string"}},
	{id: "alpha", typ: TypeTable, name: "alpha", catalog: "c", schemaName: "hr",
		user: map[string]string{"note": "tag12-tag33", "pattern": "a*b?c"}},
	{id: "orders", typ: TypeTable, name: "orders", catalog: "c", schemaName: "sales",
		user:     map[string]string{"Stage": "Alpha"},
		userTags: []string{"Tag12-Tag33"},
		fields:   []string{"OrderId:long"}},
	{id: "reports", typ: TypeSchema, name: "reports", catalog: "c", schemaName: "reports",
		user: map[string]string{"summary": "alpha release notes"}},
	{id: "alphabet", typ: TypeCatalog, name: "alphabet", catalog: "alphabet",
		user: map[string]string{"kind": "letters"}},
	{id: "sales_model", typ: TypeSemanticModel, name: "sales_model", catalog: "c", schemaName: "sales",
		system:     map[string]string{"datasets": "orders_ds"},
		systemTags: []string{"orders_ds"},
		fields:     []string{"orders_ds.amount:decimal"}},
	{id: "revenue", typ: TypeMetric, name: "revenue", catalog: "c", schemaName: "sales",
		user: map[string]string{"EmpTel": "integer"}},
}

// mustOpenIndex builds an index of entities in a temporary directory.
func mustOpenIndex(tb testing.TB, entities []entity) bleve.Index {
	tb.Helper()
	idx, err := bleve.New(filepath.Join(tb.TempDir(), "index"), NewMapping())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { idx.Close() })
	b := idx.NewBatch()
	for _, e := range entities {
		if err := b.Index(e.id, e.doc()); err != nil {
			tb.Fatal(err)
		}
	}
	if err := idx.Batch(b); err != nil {
		tb.Fatal(err)
	}
	return idx
}

// hit is a result: its id and score.
type hit struct {
	id    string
	score float64
}

// find runs a query string, parsed and compiled, and returns the hits in
// the API's relevance order (score, then name).
func find(tb testing.TB, idx bleve.Index, in string, opts Options) []hit {
	tb.Helper()
	q, err := Parse(in)
	if err != nil {
		tb.Fatalf("Parse(%q): %v", in, err)
	}
	bq, err := Compile(q, opts)
	if err != nil {
		tb.Fatalf("Compile(%s): %v", q, err)
	}
	return run(tb, idx, bq)
}

func run(tb testing.TB, idx bleve.Index, bq blevequery.Query) []hit {
	tb.Helper()
	req := bleve.NewSearchRequestOptions(bq, 100, 0, false)
	req.SortBy([]string{"-_score", FieldSortKey})
	res, err := idx.Search(req)
	if err != nil {
		tb.Fatalf("Search: %v", err)
	}
	var hits []hit
	for _, h := range res.Hits {
		hits = append(hits, hit{h.ID, h.Score})
	}
	return hits
}

func ids(hits []hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.id)
	}
	return out
}

func sorted(hits []hit) []string {
	out := ids(hits)
	slices.Sort(out)
	return out
}

// TestCompileMatches checks which entities each query finds: every example
// of SPEC §5.1–§5.3.
func TestCompileMatches(t *testing.T) {
	idx := mustOpenIndex(t, corpus)
	all := []string{"alpha", "alphabet", "employees", "orders", "reports", "revenue", "sales_model"}
	tests := []struct {
		in    string
		scope string
		want  []string // sorted; nil: nothing
	}{
		// Words: tokens of any property value, tag, field name or name.
		{in: "alpha", want: []string{"alpha", "employees", "orders", "reports"}},
		{in: "ALPHA", want: []string{"alpha", "employees", "orders", "reports"}},
		{in: "Tango", want: []string{"employees"}},
		{in: "av4_av5", want: []string{"employees"}},
		{in: "av4", want: []string{"employees"}},
		{in: "av5", want: []string{"employees"}},
		{in: "tag12-tag33", want: []string{"alpha", "orders"}},
		{in: "tag33", want: []string{"alpha", "orders"}},
		{in: "Tag1", want: []string{"employees"}},
		{in: "Tag2", want: nil},
		{in: "employees", want: []string{"employees"}},
		{in: "Employee", want: []string{"employees"}}, // the comment
		{in: "orders_ds", want: []string{"sales_model"}},
		{in: "alph*", want: []string{"alpha", "alphabet", "employees", "orders", "reports"}},
		{in: "Tag2*", want: []string{"employees"}},
		// SPEC §5.3: field names, paths, prefixes, name:TYPE.
		{in: "EmpName", want: []string{"employees"}},
		{in: "EmpContact", want: []string{"employees"}},
		{in: "EmpTel", want: []string{"employees"}}, // not revenue: keys are not values
		{in: "EmpAddr", want: []string{"employees"}},
		{in: "Emp*", want: []string{"employees"}},
		{in: "EmpContact.EmpTel", want: []string{"employees"}},
		{in: "schema:EmpTel", want: []string{"employees"}},
		{in: "schema:emptel", want: []string{"employees"}},
		{in: "schema:Emp*", want: []string{"employees"}},
		{in: "schema:*", want: []string{"employees", "orders", "sales_model"}},
		{in: "schema:EmpContact.EmpTel", want: []string{"employees"}},
		{in: "schema:EmpTel:integer", want: []string{"employees"}},
		{in: "schema:EmpContact.EmpTel:INTEGER", want: []string{"employees"}},
		{in: "schema:EmpTel:string", want: nil},
		{in: "schema:amount:decimal", want: []string{"sales_model"}},
		{in: "schema:Tango", want: nil},
		// f:TYPE is a schema entry or a property key:value.
		{in: "EmpTel:integer", want: []string{"employees", "revenue"}},
		{in: "EmpContact.EmpTel:integer", want: []string{"employees"}},
		{in: "EmpTel:int*", want: []string{"employees", "revenue"}},
		{in: "EmpTel:string", want: nil},
		// Phrases: whole values.
		{in: `"Alpha Tango Charlie"`, want: []string{"employees"}},
		{in: `"alpha  tango charlie"`, want: []string{"employees"}},
		{in: `"Alpha Tan*"`, want: []string{"employees"}},
		{in: `"alpha *"`, want: []string{"employees", "reports"}}, // not the value "alpha"
		{in: `"Alpha"`, want: []string{"alpha", "orders"}},
		{in: `"alp*"`, want: []string{"alpha", "alphabet", "employees", "orders", "reports"}},
		{in: `"Alpha Tango"`, want: nil},
		// key:value.
		{in: "Codename:alpha", want: []string{"employees"}},
		{in: "codename:TANGO", want: []string{"employees"}},
		{in: "Codename:Tan*", want: []string{"employees"}},
		{in: `Codename:"Alpha Tango Charlie"`, want: []string{"employees"}},
		{in: `Codename:"alpha tan*"`, want: []string{"employees"}},
		{in: `Codename:"tango"`, want: nil},
		{in: `Codename:"tan*"`, want: nil},
		{in: "Codename:*", want: []string{"employees"}},
		{in: "codename:*", want: []string{"employees"}},
		{in: "Stage:alpha", want: []string{"orders"}},
		{in: "owner-team:av5", want: []string{"employees"}},
		{in: "entity-type:table", want: []string{"alpha", "employees", "orders"}},
		{in: "comment:employee", want: []string{"employees"}},
		{in: "nokey:alpha", want: nil},
		// "key: value" binds one term; the others are alternatives.
		{in: "Codename: Alpha Tango Charlie", want: []string{"employees"}},
		{in: "Codename: Tango alpha", want: []string{"alpha", "employees", "orders", "reports"}},
		{in: "Codename: Alpha Tang*", want: []string{"employees"}},
		{in: "Codename: Tango", want: []string{"employees"}},
		// Tags.
		{in: "tags:Tag1", want: []string{"employees"}},
		{in: "tags:tag1", want: []string{"employees"}},
		{in: "tags:Tag2", want: nil},
		{in: "tags:Tag2*", want: []string{"employees"}},
		{in: "tags:tag12-tag33", want: []string{"orders"}},
		{in: "tags:tag12", want: nil},
		{in: "tags:ORDERS_DS", want: []string{"sales_model"}},
		{in: "tags:*", want: []string{"employees", "orders", "sales_model"}},
		// Keys.
		{in: "properties:Codename", want: []string{"employees"}},
		{in: "properties:code*", want: []string{"employees"}},
		{in: "properties:datasets", want: []string{"sales_model"}},
		// *, literal * and ?, separators.
		{in: "*", want: all},
		{in: "a*b?c", want: []string{"alpha"}},
		{in: "a*b", want: nil},
		{in: "a*b*", want: []string{"alpha"}},
		{in: "a?b*", want: nil},
		{in: ",", want: nil},
		{in: "- _ . , : ; /", want: nil},
		{in: `"  "`, want: nil},
		{in: "tags:-", want: nil},
		{in: "alpha ,", want: []string{"alpha", "employees", "orders", "reports"}},
		// Required, optional, excluded.
		{in: "+Tag1 +Tag22", want: []string{"employees"}},
		{in: "+Tag1 +orders_ds", want: nil},
		{in: "Tag1 orders_ds", want: []string{"employees", "sales_model"}},
		{in: "+tags:Tag1 alpha", want: []string{"employees"}},
		{in: "+alpha -Tag1", want: []string{"alpha", "orders", "reports"}},
		{in: "alpha -tags:tag12*", want: []string{"alpha", "employees", "reports"}}, // alpha's tag12 is a value
		{in: "* -alpha", want: []string{"alphabet", "revenue", "sales_model"}},
		{in: "+Tag1 -Tag22", want: nil},
		{in: "alpha -,", want: []string{"alpha", "employees", "orders", "reports"}},
		{in: "+, alpha", want: nil},
		// Scopes: user metadata; system metadata, names and schemas.
		{in: "alpha", scope: ScopeUser, want: []string{"employees", "orders", "reports"}},
		{in: "alpha", scope: ScopeSystem, want: []string{"alpha"}},
		{in: "Codename:alpha", scope: ScopeSystem, want: nil},
		{in: "Codename:alpha", scope: ScopeUser, want: []string{"employees"}},
		{in: "entity-type:table", scope: ScopeUser, want: nil},
		{in: "schema:*", scope: ScopeUser, want: nil},
		{in: "schema:*", scope: ScopeSystem, want: []string{"employees", "orders", "sales_model"}},
		{in: "EmpTel:integer", scope: ScopeUser, want: []string{"revenue"}},
		{in: "EmpTel:integer", scope: ScopeSystem, want: []string{"employees"}},
		{in: "Emp*", scope: ScopeSystem, want: []string{"employees"}},
		{in: "orders_ds", scope: ScopeUser, want: nil},
		{in: "properties:codename", scope: ScopeSystem, want: nil},
		{in: "tags:Tag1", scope: ScopeSystem, want: []string{"employees"}}, // tags ignore the scope
		{in: "+schema:* alpha", scope: ScopeUser, want: nil},
		{in: "schema:* alpha", scope: ScopeUser, want: []string{"employees", "orders", "reports"}},
	}
	for _, tt := range tests {
		name := tt.in
		if tt.scope != "" {
			name += " scope=" + tt.scope
		}
		t.Run(name, func(t *testing.T) {
			got := sorted(find(t, idx, tt.in, Options{Scope: tt.scope}))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestCompileRanking checks SPEC §5.4 on a real index: an exact name ranks
// above an exact whole value, above a token, above a prefix; more matched
// terms rank higher; and entities matching the same way tie exactly, so
// the name breaks the tie.
func TestCompileRanking(t *testing.T) {
	idx := mustOpenIndex(t, corpus)
	tests := []struct {
		in   string
		want [][]string // groups from best to worst; a group ties
	}{
		// name > whole value > token > prefix.
		{"alpha*", [][]string{{"alpha"}, {"orders"}, {"employees", "reports"}, {"alphabet"}}},
		{"alpha", [][]string{{"alpha"}, {"orders"}, {"employees", "reports"}}},
		{`"alpha*"`, [][]string{{"alpha"}, {"orders"}, {"alphabet", "employees", "reports"}}},
		{"Codename:alpha*", [][]string{{"employees"}}},
		{"tags:Tag*", [][]string{{"employees", "orders"}}},
		{"tags:tag1*", [][]string{{"employees"}, {"orders"}}},
		{"schema:EmpTel*", [][]string{{"employees"}}},
		{"EmpTel:int*", [][]string{{"employees", "revenue"}}},
		// More matched terms rank higher, whatever the kind of match: the
		// name match of "alpha" loses to two token matches.
		{"Tag1 Tag22 alpha", [][]string{{"employees"}, {"alpha"}, {"orders"}, {"reports"}}},
		{"tango charlie alpha", [][]string{{"employees"}, {"alpha"}, {"orders"}, {"reports"}}},
		{"Codename: Tango alpha", [][]string{{"employees"}, {"alpha"}, {"orders"}, {"reports"}}},
		{"alpha* Tag1", [][]string{{"employees"}, {"alpha"}, {"orders"}, {"reports"}, {"alphabet"}}},
		// Optional terms add to the required ones.
		{"+alpha tag12", [][]string{{"alpha"}, {"orders"}, {"employees", "reports"}}},
		// alpha and reports match one optional term each; alpha's required
		// term is a name match, reports' a token.
		{"+alpha tag12 notes", [][]string{{"alpha"}, {"orders"}, {"reports"}, {"employees"}}},
		{"+Tag1 Tango Charlie", [][]string{{"employees"}}},
		{"Tango +Tag1", [][]string{{"employees"}}},
		// * matches everything; other terms lift what they match.
		{"* Tag1", [][]string{{"employees"}, {"alpha", "alphabet", "orders", "reports", "revenue", "sales_model"}}},
	}
	for _, tt := range tests {
		t.Run(tt.in, func(t *testing.T) {
			hits := find(t, idx, tt.in, Options{})
			got := groups(hits)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%q ranking (-want +got):\n%s\nhits: %v", tt.in, diff, hits)
			}
		})
	}
}

// groups splits hits, in order, into runs of equal score; each run is sorted.
func groups(hits []hit) [][]string {
	var out [][]string
	for i, h := range hits {
		if i == 0 || h.score != hits[i-1].score {
			out = append(out, nil)
		}
		out[len(out)-1] = append(out[len(out)-1], h.id)
	}
	for _, g := range out {
		slices.Sort(g)
	}
	return out
}

// TestCompileLongWholeValues checks whole-value and whole-prefix queries
// on values longer than analyzers.MaxWholeBytes, which the index holds cut
// and hashed: equality stays exact (two values sharing their first 300
// bytes are told apart), and a prefix finds every value it starts, up to
// MaxWholePrefixBytes and across a character cut at the boundary.
func TestCompileLongWholeValues(t *testing.T) {
	// 249 ASCII bytes, then three 3-byte characters across byte 256, so a
	// long value's cut falls at 255.
	head := strings.Repeat("ab ", 83) + "日本語"
	longA := head + " shared middle words that run well past the cut alpha end"
	longB := head + " shared middle words that run well past the cut beta end"
	x256 := strings.Repeat("c", analyzers.MaxWholeBytes)
	longKey := strings.Repeat("鍵", 100) // 100 characters, 300 bytes
	idx := mustOpenIndex(t, []entity{
		{id: "a", typ: TypeTable, name: "a", user: map[string]string{"ddl": longA}},
		{id: "b", typ: TypeTable, name: "b", user: map[string]string{"ddl": longB, longKey: "v"}},
		{id: "x256", typ: TypeTable, name: "x256", user: map[string]string{"note": x256}},
		{id: "x257", typ: TypeTable, name: "x257", user: map[string]string{"note": x256 + "d"}},
		{id: "short", typ: TypeTable, name: "short", user: map[string]string{"note": "ab ab"}},
	})
	// The dictionary holds no value whole past the bound: the cut and the
	// hash, 32 hex digits.
	for _, field := range []string{FieldUserExact, UserPropertyExactPrefix + "ddl", FieldUserKeys} {
		dict, err := idx.FieldDict(field)
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for e, err := dict.Next(); e != nil || err != nil; e, err = dict.Next() {
			if err != nil {
				t.Fatal(err)
			}
			if len(e.Term) > analyzers.MaxWholeBytes+32 {
				t.Errorf("%s holds a term of %d bytes: %.60q…", field, len(e.Term), e.Term)
			}
			n++
		}
		dict.Close()
		if n == 0 {
			t.Errorf("%s holds no terms", field)
		}
	}
	upperSpaced := strings.ReplaceAll(strings.ToUpper(longA), " ", "  ")
	tests := []struct {
		in   string
		want []string
	}{
		{`"` + longA + `"`, []string{"a"}},
		{`"` + upperSpaced + `"`, []string{"a"}},
		{`ddl:"` + longA + `"`, []string{"a"}},
		{`ddl:"` + longB + `"`, []string{"b"}},
		{`"` + longA + ` more"`, nil},
		{`"` + longA[:100] + `*"`, []string{"a", "b"}},
		{`"` + head[:252] + `*"`, []string{"a", "b"}}, // 249 bytes and 日
		{`ddl:"` + head + `*"`, []string{"a", "b"}},
		{`"` + strings.Repeat("ab ", 60) + `x*"`, nil},
		{`"ab ab*"`, []string{"a", "b", "short"}},
		// A prefix longer than MaxWholePrefixBytes is cut to it.
		{`"` + longA[:300] + `*"`, []string{"a", "b"}},
		// At the boundary: 256 bytes are kept whole, 257 cut and hashed.
		{`"` + x256 + `"`, []string{"x256"}},
		{`"` + x256 + `d"`, []string{"x257"}},
		{`"` + x256 + `*"`, []string{"x256", "x257"}},
		{`note:"` + x256[:200] + `*"`, []string{"x256", "x257"}},
		// Keys are whole values too.
		{"properties:" + longKey, []string{"b"}},
		{longKey + ":*", []string{"b"}},
		{longKey + ":v", []string{"b"}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%.40s", tt.in), func(t *testing.T) {
			if got := sorted(find(t, idx, tt.in, Options{})); !slices.Equal(got, tt.want) {
				t.Errorf("%q found %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// TestCompileManyTerms checks that one more matched term outranks any
// quality at the sizes the language allows.
func TestCompileManyTerms(t *testing.T) {
	var es []entity
	for i := range 3 {
		es = append(es, entity{id: fmt.Sprint(i), typ: TypeTable, name: fmt.Sprintf("t%d", i),
			user: map[string]string{}})
	}
	// Entity 0 matches w0 by name, w1 by name; entity 1 matches w0, w1 and
	// w2 by prefix only; entity 2 matches nothing but the rest.
	es[0].name = "w0"
	es[0].user["x"] = "w1"
	es[1].user["y"] = "w0x w1x w2x"
	terms := []string{"w0*", "w1*", "w2*"}
	for i := 3; len(strings.Join(terms, " ")) < MaxQueryLength-10; i++ {
		terms = append(terms, fmt.Sprintf("z%d", i))
	}
	idx := mustOpenIndex(t, es)
	hits := find(t, idx, strings.Join(terms, " "), Options{})
	if got, want := ids(hits), []string{"1", "0"}; !slices.Equal(got, want) {
		t.Errorf("%d terms: got %v, want %v", len(terms), hits, want)
	}
}

func TestCompileScores(t *testing.T) {
	idx := mustOpenIndex(t, corpus)
	// A score is about the number of matched terms.
	hits := find(t, idx, "+Tag1 +Tag22", Options{})
	if len(hits) != 1 || math.Abs(hits[0].score-2) > 0.01 {
		t.Errorf("+Tag1 +Tag22: %v, want one hit scoring about 2", hits)
	}
	hits = find(t, idx, "*", Options{})
	for _, h := range hits {
		if h.score != 1 {
			t.Errorf("*: %v scores %v, want 1", h.id, h.score)
		}
	}

	// Filters in a boolean's filter clause leave scores alone.
	q, err := Parse("alpha*")
	if err != nil {
		t.Fatal(err)
	}
	text, err := Compile(q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	filter, err := Filters(Filter{Metalake: "m", Types: []string{"table,schema"}})
	if err != nil {
		t.Fatal(err)
	}
	b := blevequery.NewBooleanQuery([]blevequery.Query{text}, nil, nil)
	b.AddFilter(filter)
	want := map[string]float64{}
	for _, h := range run(t, idx, text) {
		want[h.id] = h.score
	}
	got := run(t, idx, b)
	if diff := cmp.Diff([]string{"alpha", "orders", "employees", "reports"}, ids(got)); diff != "" {
		t.Errorf("filtered (-want +got):\n%s", diff)
	}
	for _, h := range got {
		if h.score != want[h.id] {
			t.Errorf("filtered: %s scores %v, unfiltered %v", h.id, h.score, want[h.id])
		}
	}
}

func TestCompileFilters(t *testing.T) {
	idx := mustOpenIndex(t, corpus)
	tests := []struct {
		f    Filter
		want []string
	}{
		{Filter{Metalake: "m", Types: []string{TypeTable}}, []string{"alpha", "employees", "orders"}},
		{Filter{Metalake: "m", Types: []string{"metric", "semantic_model"}}, []string{"revenue", "sales_model"}},
		{Filter{Metalake: "m", Types: []string{"metric, catalog"}}, []string{"alphabet", "revenue"}},
		{Filter{Metalake: "m", Catalog: "c", Schema: "sales"}, []string{"orders", "revenue", "sales_model"}},
		{Filter{Metalake: "m", Catalog: "alphabet"}, []string{"alphabet"}},
		{Filter{Metalake: "m", Tags: []string{"Tag1", "Tag22"}}, []string{"employees"}},
		{Filter{Metalake: "m", Tags: []string{"tag1"}}, nil}, // exact case
		{Filter{Metalake: "m", Tags: []string{"Tag1", "Tag12-Tag33"}}, nil},
		{Filter{Metalake: "other"}, nil},
	}
	for _, tt := range tests {
		fq, err := Filters(tt.f)
		if err != nil {
			t.Errorf("Filters(%+v): %v", tt.f, err)
			continue
		}
		b := blevequery.NewBooleanQuery([]blevequery.Query{blevequery.NewMatchAllQuery()}, nil, nil)
		b.AddFilter(fq)
		if diff := cmp.Diff(tt.want, sorted(run(t, idx, b))); diff != "" {
			t.Errorf("Filters(%+v) (-want +got):\n%s", tt.f, diff)
		}
	}

	for _, f := range []Filter{{}, {Metalake: "m", Types: []string{"view"}}, {Metalake: "m", Types: []string{"table,"}}} {
		if _, err := Filters(f); err == nil {
			t.Errorf("Filters(%+v) succeeded, want an error", f)
		}
	}
}

func TestCompileScopeError(t *testing.T) {
	if _, err := Compile(&Word{Text: "a"}, Options{Scope: "both"}); err == nil {
		t.Error("Compile with scope \"both\" succeeded, want an error")
	}
}

// The rescored searcher must keep the search.Searcher contract.
var _ search.Searcher = (*rescoredSearcher)(nil)

// A compiled query shows in Bleve's JSON dumps.
func TestCompileJSON(t *testing.T) {
	q, err := Parse(`+Codename:"Alpha Tan*" tags:Tag1 -x`)
	if err != nil {
		t.Fatal(err)
	}
	bq, err := Compile(q, Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(bq)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"semcat_rescore"`, `"ux.codename"`, `"prefix":"alpha tan"`, `"tags_exact"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("JSON lacks %s: %s", want, b)
		}
	}
}
