package search

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat/analyzers"
	q "github.com/semcat/semcat/query"
	"github.com/semcat/semcat/searchdoc"
)

// entity is a test entity; doc lays it out as searchdoc/fields.go describes.
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
		searchdoc.FieldType: e.typ, searchdoc.FieldMetalake: "m", searchdoc.FieldCatalog: e.catalog, searchdoc.FieldSchema: e.schemaName,
		searchdoc.FieldNameExact: e.name, searchdoc.FieldSortKey: searchdoc.SortKey(e.name, "m."+e.name, "table"),
		searchdoc.FieldUserValues: uvalues, searchdoc.FieldUserExact: uvalues, searchdoc.FieldSystemValues: svalues, searchdoc.FieldSystemExact: svalues,
		searchdoc.FieldUserKeys: ukeys, searchdoc.FieldSystemKeys: skeys,
		searchdoc.FieldTags: e.userTags, searchdoc.FieldTagsExact: e.userTags, searchdoc.FieldSystemTags: e.systemTags, searchdoc.FieldSystemTagsExact: e.systemTags,
		"u": u, "ux": u, "s": s, "sx": s,
	}
	if len(e.fields) > 0 {
		d[searchdoc.FieldSchemaFields] = e.fields
		d[searchdoc.FieldHas] = []string{"schema"}
		var names []string
		for _, f := range e.fields {
			names = append(names, analyzers.SchemaFieldName(f))
		}
		d[searchdoc.FieldColumns] = names // as the indexer's documents hold them
	}
	d[searchdoc.FieldName] = e.name
	if c, ok := system["comment"]; ok {
		d[searchdoc.FieldDescription] = c
	}
	return d
}

// corpus is the test index's entities. Each is built to match one way:
// "alpha" by name, "orders" by a whole value, "employees" and "reports" by
// a token, "alphabet" by a prefix only.
var corpus = []entity{
	{id: "employees", typ: searchdoc.TypeTable, name: "employees", catalog: "c", schemaName: "hr",
		user:     map[string]string{"Codename": "Alpha Tango Charlie", "owner-team": "av4_av5"},
		userTags: []string{"Tag1", "Tag22"},
		system:   map[string]string{"comment": "Employee master data"},
		fields:   []string{"EmpName:string", "EmpContact:struct", "EmpContact.EmpTel:integer", "EmpContact.EmpAddr:string"}},
	{id: "alpha", typ: searchdoc.TypeTable, name: "alpha", catalog: "c", schemaName: "hr",
		user: map[string]string{"note": "tag12-tag33", "pattern": "a*b?c"}},
	{id: "orders", typ: searchdoc.TypeTable, name: "orders", catalog: "c", schemaName: "sales",
		user:     map[string]string{"Stage": "Alpha"},
		userTags: []string{"Tag12-Tag33"},
		fields:   []string{"OrderId:long"}},
	{id: "reports", typ: searchdoc.TypeSchema, name: "reports", catalog: "c", schemaName: "reports",
		user: map[string]string{"summary": "alpha release notes"}},
	{id: "alphabet", typ: searchdoc.TypeCatalog, name: "alphabet", catalog: "alphabet",
		user: map[string]string{"kind": "letters"}},
	{id: "sales_model", typ: searchdoc.TypeSemanticModel, name: "sales_model", catalog: "c", schemaName: "sales",
		system:     map[string]string{"datasets": "orders_ds"},
		systemTags: []string{"orders_ds"},
		fields:     []string{"orders_ds.amount:decimal"}},
	{id: "revenue", typ: searchdoc.TypeMetric, name: "revenue", catalog: "c", schemaName: "sales",
		user: map[string]string{"EmpTel": "integer"}},
}

// testNames maps the ids of the test indexes' documents to their names.
var testNames = map[string]string{}

// mustOpenIndex builds an index of entities in a temporary directory.
func mustOpenIndex(tb testing.TB, entities []entity) bleve.Index {
	tb.Helper()
	for _, e := range entities {
		testNames[e.id] = e.name
	}
	idx, err := bleve.New(filepath.Join(tb.TempDir(), "index"), searchdoc.NewMapping())
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

// find runs a query string, parsed and planned, and returns the hits in
// the API's relevance order (score, then name).
func find(tb testing.TB, idx bleve.Index, in string, opts q.Options) []hit {
	tb.Helper()
	return findFiltered(tb, idx, in, opts, nil)
}

// findFiltered is find with the hits restricted to the ids keep accepts.
func findFiltered(tb testing.TB, idx bleve.Index, in string, opts q.Options, keep func(id string) bool) []hit {
	tb.Helper()
	return findTop(tb, idx, in, opts, keep, 0)
}

// findTop is findFiltered for the best need hits (EvalOptions.Need; 0 for
// every hit).
func findTop(tb testing.TB, idx bleve.Index, in string, opts q.Options, keep func(id string) bool, need int) []hit {
	tb.Helper()
	parsed, err := q.Parse(in)
	if err != nil {
		tb.Fatalf("Parse(%q): %v", in, err)
	}
	p, err := q.NewPlan(parsed, opts)
	if err != nil {
		tb.Fatalf("NewPlan(%s): %v", parsed, err)
	}
	adv, err := idx.Advanced()
	if err != nil {
		tb.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		tb.Fatal(err)
	}
	defer r.Close()
	snap := r.(*scorch.IndexSnapshot)
	segs := snap.Segments()
	// Name parts, as the indexer's columns hold them, from the names the
	// test indexes wrote.
	eo := EvalOptions{NameParts: func(i int) []uint8 {
		parts := make([]uint8, segs[i].Segment().Count())
		for n := range parts {
			id, err := segs[i].DocID(uint64(n))
			if err != nil {
				tb.Fatal(err)
			}
			parts[n] = uint8(analyzers.NamePartCount(testNames[string(id)]))
		}
		return parts
	}}
	if keep != nil {
		eo.Filter = func(i int) (*roaring.Bitmap, error) {
			out := roaring.New()
			for n := range segs[i].Segment().Count() {
				id, err := segs[i].DocID(n)
				if err != nil {
					return nil, err
				}
				if keep(string(id)) {
					out.Add(uint32(n))
				}
			}
			return out, nil
		}
	}
	eo.Need = need
	ev, err := evalPlan(context.Background(), p, snap, eo)
	if err != nil {
		tb.Fatalf("Eval(%s): %v", parsed, err)
	}
	defer ev.Release()
	var hits []hit
	for i, sr := range ev.Segments {
		from := sr.Hits
		if sr.Candidates != nil {
			from = sr.Candidates
		}
		it := from.Iterator()
		for it.HasNext() {
			n := it.Next()
			id, err := segs[i].DocID(uint64(n))
			if err != nil {
				tb.Fatal(err)
			}
			h := hit{id: string(id), score: float64(ev.Score(i, n))}
			hits = append(hits, h)
		}
	}
	if need == 0 && int(ev.Total) != len(hits) {
		tb.Errorf("%q: total %d, %d hits", in, ev.Total, len(hits))
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.score != b.score {
			if a.score > b.score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.id, b.id)
	})
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
func TestPlanMatches(t *testing.T) {
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
		// An identifier's parts match too (ranked below it): orders.
		{in: "orders_ds", want: []string{"orders", "sales_model"}},
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
		{in: "Tag1 orders_ds", want: []string{"employees", "orders", "sales_model"}},
		{in: "+tags:Tag1 alpha", want: []string{"employees"}},
		{in: "+alpha -Tag1", want: []string{"alpha", "orders", "reports"}},
		{in: "alpha -tags:tag12*", want: []string{"alpha", "employees", "reports"}}, // alpha's tag12 is a value
		{in: "* -alpha", want: []string{"alphabet", "revenue", "sales_model"}},
		{in: "+Tag1 -Tag22", want: nil},
		{in: "alpha -,", want: []string{"alpha", "employees", "orders", "reports"}},
		{in: "+, alpha", want: nil},
		// Scopes: user metadata; system metadata, names and schemas.
		{in: "alpha", scope: q.ScopeUser, want: []string{"employees", "orders", "reports"}},
		{in: "alpha", scope: q.ScopeSystem, want: []string{"alpha"}},
		{in: "Codename:alpha", scope: q.ScopeSystem, want: nil},
		{in: "Codename:alpha", scope: q.ScopeUser, want: []string{"employees"}},
		{in: "entity-type:table", scope: q.ScopeUser, want: nil},
		{in: "schema:*", scope: q.ScopeUser, want: nil},
		{in: "schema:*", scope: q.ScopeSystem, want: []string{"employees", "orders", "sales_model"}},
		{in: "EmpTel:integer", scope: q.ScopeUser, want: []string{"revenue"}},
		{in: "EmpTel:integer", scope: q.ScopeSystem, want: []string{"employees"}},
		{in: "Emp*", scope: q.ScopeSystem, want: []string{"employees"}},
		{in: "orders_ds", scope: q.ScopeUser, want: nil},
		{in: "properties:codename", scope: q.ScopeSystem, want: nil},
		// The scope narrows tags too (SPEC §2.6).
		{in: "tags:Tag1", scope: q.ScopeSystem, want: nil},
		{in: "tags:Tag1", scope: q.ScopeUser, want: []string{"employees"}},
		{in: "tags:orders_ds", scope: q.ScopeSystem, want: []string{"sales_model"}},
		{in: "tags:orders_ds", scope: q.ScopeUser, want: nil},
		{in: "+schema:* alpha", scope: q.ScopeUser, want: nil},
		{in: "schema:* alpha", scope: q.ScopeUser, want: []string{"employees", "orders", "reports"}},
	}
	for _, tt := range tests {
		name := tt.in
		if tt.scope != "" {
			name += " scope=" + tt.scope
		}
		t.Run(name, func(t *testing.T) {
			got := sorted(find(t, idx, tt.in, q.Options{Scope: tt.scope}))
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("%q (-want +got):\n%s", tt.in, diff)
			}
		})
	}
}

// TestPlanLongWholeValues checks whole-value and whole-prefix queries
// on values longer than analyzers.MaxWholeBytes, which the index holds cut
// and hashed: equality stays exact (two values sharing their first 300
// bytes are told apart), and a prefix finds every value it starts, up to
// MaxWholePrefixBytes and across a character cut at the boundary.
func TestPlanLongWholeValues(t *testing.T) {
	// 249 ASCII bytes, then three 3-byte characters across byte 256, so a
	// long value's cut falls at 255.
	head := strings.Repeat("ab ", 83) + "日本語"
	longA := head + " shared middle words that run well past the cut alpha end"
	longB := head + " shared middle words that run well past the cut beta end"
	x256 := strings.Repeat("c", analyzers.MaxWholeBytes)
	longKey := strings.Repeat("鍵", 100) // 100 characters, 300 bytes
	idx := mustOpenIndex(t, []entity{
		{id: "a", typ: searchdoc.TypeTable, name: "a", user: map[string]string{"ddl": longA}},
		{id: "b", typ: searchdoc.TypeTable, name: "b", user: map[string]string{"ddl": longB, longKey: "v"}},
		{id: "x256", typ: searchdoc.TypeTable, name: "x256", user: map[string]string{"note": x256}},
		{id: "x257", typ: searchdoc.TypeTable, name: "x257", user: map[string]string{"note": x256 + "d"}},
		{id: "short", typ: searchdoc.TypeTable, name: "short", user: map[string]string{"note": "ab ab"}},
	})
	// The dictionary holds no value whole past the bound: the cut and the
	// hash, 32 hex digits.
	for _, field := range []string{searchdoc.FieldUserExact, searchdoc.UserPropertyExactPrefix + "ddl", searchdoc.FieldUserKeys} {
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
			if got := sorted(find(t, idx, tt.in, q.Options{})); !slices.Equal(got, tt.want) {
				t.Errorf("%q found %v, want %v", tt.in, got, tt.want)
			}
		})
	}
}

// ranked is a test entity laid out with the ranking fields too: its name
// parts, description and columns.
type ranked struct {
	id, name, description string
	columns               []string // column names
	comments              []string // column comments
	tags                  []string
	typ, schemaID         string // the type (a table when empty) and searchdoc.FieldSchemaID
	modelID               string // searchdoc.FieldModelID
}

func (r ranked) doc() map[string]any {
	e := entity{id: r.id, typ: searchdoc.TypeTable, name: r.name, userTags: r.tags, catalog: "c", schemaName: "s",
		system: map[string]string{}}
	if r.description != "" {
		e.system["comment"] = r.description
	}
	for _, c := range r.columns {
		e.fields = append(e.fields, c+":string")
	}
	d := e.doc()
	d[searchdoc.FieldName] = r.name
	if r.description != "" {
		d[searchdoc.FieldDescription] = r.description
	}
	d[searchdoc.FieldColumns] = append(slices.Clone(r.columns), r.comments...)
	if r.typ != "" {
		d[searchdoc.FieldType] = r.typ
	}
	if r.schemaID != "" {
		d[searchdoc.FieldSchemaID] = r.schemaID
	}
	if r.modelID != "" {
		d[searchdoc.FieldModelID] = r.modelID
	}
	return d
}

func mustOpenRanked(tb testing.TB, docs []ranked) bleve.Index {
	tb.Helper()
	for _, d := range docs {
		testNames[d.id] = d.name
	}
	idx, err := bleve.New(filepath.Join(tb.TempDir(), "index"), searchdoc.NewMapping())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { idx.Close() })
	b := idx.NewBatch()
	for _, d := range docs {
		if err := b.Index(d.id, d.doc()); err != nil {
			tb.Fatal(err)
		}
	}
	if err := idx.Batch(b); err != nil {
		tb.Fatal(err)
	}
	return idx
}

// TestRankingProperties checks each property of SPEC §5.4 on a small
// catalog: where a word matched, how rare it is, how it matched, how much
// of the query matched, and the whole name first.
func TestRankingProperties(t *testing.T) {
	// Filler documents make "customer" common and "churn" rare.
	docs := []ranked{
		{id: "name", name: "subscription_events"},
		{id: "description", name: "evt_a", description: "Every subscription event"},
		{id: "column", name: "evt_b", columns: []string{"subscription"}},
		{id: "comment", name: "evt_c", columns: []string{"x"}, comments: []string{"the subscription of the row"}},
		{id: "tag", name: "evt_d", tags: []string{"subscription"}},
		{id: "whole", name: "subscription"},
		{id: "long", name: "bdg_namespace_order_subscription"},
		{id: "churn", name: "scores", description: "Churn score of each account"},
		{id: "customers", name: "customer_list", description: "Customers"},
		{id: "plural", name: "opportunities_xf"},
		{id: "prefixed", name: "opportunity_snapshot"},
		{id: "typo", name: "oportunity_history"}, // a typo in the index
		{id: "both", name: "quota", description: "Sales quota of each sales rep"},
		{id: "one", name: "targets", description: "Targets of each rep"},
	}
	for i := range 8 {
		docs = append(docs, ranked{id: fmt.Sprintf("filler%d", i), name: fmt.Sprintf("f%d", i), description: "customer data"})
	}
	idx := mustOpenRanked(t, docs)
	before := func(t *testing.T, query string, order ...string) {
		t.Helper()
		hits := find(t, idx, query, q.Options{})
		pos := map[string]int{}
		for i, h := range hits {
			pos[h.id] = i
		}
		for i := 1; i < len(order); i++ {
			a, okA := pos[order[i-1]]
			b, okB := pos[order[i]]
			if !okA || !okB || a >= b {
				t.Errorf("%q: want %s before %s; got %v", query, order[i-1], order[i], hits)
			}
		}
	}
	t.Run("where", func(t *testing.T) {
		// The whole name, then a name part (a short name before a long
		// one), then the description, then a column or its comment, then
		// a tag.
		before(t, "subscription", "whole", "name", "long", "description", "column", "tag")
		before(t, "subscription", "description", "comment", "tag")
	})
	t.Run("rarity", func(t *testing.T) {
		before(t, "customer churn", "churn", "customers")
	})
	t.Run("how", func(t *testing.T) {
		// An exact part, then the word's form, in the same field.
		before(t, "opportunity", "prefixed", "plural")
		// A typo is tried only for a word the index does not hold: two
		// edits from ten letters (opportunity, oportunity).
		hits := find(t, idx, "opportunty", q.Options{})
		if got := sorted(hits); !slices.Equal(got, []string{"prefixed", "typo"}) {
			t.Errorf("opportunty found %v, want the tables two edits away", got)
		}
		before(t, "opportunty", "prefixed", "typo")
		if got := sorted(find(t, idx, "oportunity", q.Options{})); !slices.Equal(got, []string{"typo"}) {
			t.Errorf("oportunity, a word of the index, found %v: want only its own", got)
		}
	})
	t.Run("how much", func(t *testing.T) {
		// More of the query's words, other things equal.
		before(t, "sales rep", "both", "one")
	})
}

// TestWordForms checks each form of SPEC §5.2 a bare word finds beyond its
// exact token, and that quoted and key:value terms stay exact.
func TestWordForms(t *testing.T) {
	idx := mustOpenRanked(t, []ranked{
		{id: "dim_crm_account", name: "dim_crm_account"},
		{id: "dim_crmx", name: "dim_crmx"},
		{id: "users_xf", name: "gitlab_dotcom_users_xf"},
		{id: "camel", name: "EmpTelephone", columns: []string{"EmpTel"}},
		{id: "booking", name: "t1", description: "One booking per row"},
		{id: "opportunity", name: "opportunity"},
		{id: "namespace", name: "t2", columns: []string{"namespace_id"}},
		{id: "stop", name: "t3", description: "The table by which it is"},
		{id: "valued", name: "t4", tags: []string{"booking"}},
	})
	for _, tt := range []struct {
		query string
		want  []string // sorted
	}{
		// Name prefixes of identifiers, at a part boundary (and the
		// identifier's parts, ranked below: see below).
		{"dim_crm", []string{"dim_crm_account", "dim_crmx"}},
		{"gitlab_dotcom_users", []string{"users_xf"}},
		// camelCase and letter/digit boundaries split like _.
		{"tel", []string{"camel"}},
		{"emp", []string{"camel"}},
		// Word forms.
		{"bookings", []string{"booking", "valued"}},
		{"opportunities", []string{"opportunity"}},
		// Typos: one edit at 5-8 letters, two from 9.
		{"oportunity", []string{"opportunity"}},
		{"namspace", []string{"namespace"}},
		{"opportunityy", []string{"opportunity"}},
		{"bookng", []string{"booking", "valued"}},
		{"tbl", nil}, // too short for typos
		// Stop words do not count in a query of several words, and match
		// in a query of stop words alone.
		{"the booking", []string{"booking", "valued"}},
		{"which by", []string{"stop"}},
		// Quoted and key:value terms stay exact.
		{`"bookings"`, nil},
		{`"booking"`, []string{"valued"}},
		{"tags:bookings", nil},
		{"tags:booking", []string{"valued"}},
		{"dim_crm*", []string{"dim_crm_account", "dim_crmx"}},
	} {
		if got := sorted(find(t, idx, tt.query, q.Options{})); !slices.Equal(got, tt.want) {
			t.Errorf("%q found %v, want %v", tt.query, got, tt.want)
		}
	}
	if hits := find(t, idx, "dim_crm", q.Options{}); hits[0].id != "dim_crm_account" || hits[1].score >= hits[0].score {
		t.Errorf("dim_crm: %v, want dim_crm_account first (the name starts with it), then dim_crmx (shares its parts)", hits)
	}
}

// TestMisspellingInTheIndex: a word the index holds only as a rare
// misspelling of a common word is looked for by its typos too; one it
// holds as often as its neighbours is not.
func TestMisspellingInTheIndex(t *testing.T) {
	docs := []ranked{{id: "misspelled", name: "t", columns: []string{"dim_subscripton_id"}}}
	for i := range 12 {
		docs = append(docs, ranked{id: fmt.Sprintf("s%02d", i), name: fmt.Sprintf("subscription_%d", i)})
	}
	docs = append(docs, ranked{id: "cables", name: "cables"}, ranked{id: "tables", name: "tables"})
	idx := mustOpenRanked(t, docs)
	if hits := find(t, idx, "subscripton", q.Options{}); len(hits) != 13 {
		t.Errorf("subscripton found %v, want the misspelled column and the 12 subscription tables", hits)
	}
	if got := sorted(find(t, idx, "cables", q.Options{})); !slices.Equal(got, []string{"cables"}) {
		t.Errorf("cables found %v, want only cables (tables is no more common)", got)
	}
}

// TestScoreTiers: a one-term query scored only as far as its best need
// hits require ranks them as scoring every hit does.
func TestScoreTiers(t *testing.T) {
	var docs []ranked
	words := []string{"subscription", "customer", "churn", "opportunity"}
	for i := range 60 {
		w := words[i%len(words)]
		d := ranked{id: fmt.Sprintf("d%02d", i), name: fmt.Sprintf("t%d", i)}
		switch i % 5 {
		case 0:
			d.name = w + "_" + strings.Repeat("x_", i%4) + "t"
		case 1:
			d.description = "about the " + w
		case 2:
			d.columns = []string{w + "_id"}
		case 3:
			d.tags = []string{w}
		case 4:
			d.comments = []string{"the " + w + " of each row", "and " + words[(i+1)%len(words)]}
		}
		docs = append(docs, d)
	}
	idx := mustOpenRanked(t, docs)
	for _, w := range append(words, "subscriptions", "opportunty") {
		all := find(t, idx, w, q.Options{})
		for _, n := range []int{1, 2, 3, 5, 10, len(all) + 1} {
			top := findTop(t, idx, w, q.Options{}, nil, n)
			want := all[:min(n, len(all))]
			if len(top) < len(want) || !slices.Equal(top[:len(want)], want) {
				t.Errorf("%q, best %d: %v, want %v", w, n, top, want)
			}
		}
	}
}

// TestConstantScores: a term with one way of matching scores every hit the
// same, as scoring each would.
func TestConstantScores(t *testing.T) {
	idx := mustOpenIndex(t, corpus)
	for _, in := range []string{"tags:Tag1", "schema:*", "schema:EmpTel"} {
		hits := find(t, idx, in, q.Options{})
		if len(hits) == 0 || hits[0].score <= 0 || hits[len(hits)-1].score != hits[0].score {
			t.Errorf("%q: %v, want hits that all score the same, above 0", in, hits)
		}
	}
	// The same term among others is scored hit by hit, and agrees.
	alone := find(t, idx, "tags:Tag1", q.Options{})
	with := find(t, idx, "tags:Tag1 nosuchword", q.Options{})
	if len(alone) != 1 || len(with) != 1 || alone[0] != with[0] {
		t.Errorf("tags:Tag1 alone %v, beside a word that matches nothing %v: want the same score", alone, with)
	}
}

// expiring is a context whose deadline passes after its Err has been asked
// a number of times: a deadline that falls at a chosen point of the work.
type expiring struct {
	context.Context
	left int
}

func (c *expiring) Err() error {
	if c.left <= 0 {
		return context.DeadlineExceeded
	}
	c.left--
	return nil
}

// TestEvalDeadline: an evaluation stops at its context's deadline wherever
// it falls, in the expansions, the scoring or between segments, and fails
// whole rather than answer a part; with time to spare it answers.
func TestEvalDeadline(t *testing.T) {
	var docs []ranked
	for i := range 3000 {
		docs = append(docs, ranked{id: fmt.Sprintf("d%04d", i), name: fmt.Sprintf("a%04d_b%d", i, i%7),
			description: fmt.Sprintf("about a%d and b%04d", i%97, i)})
	}
	idx := mustOpenRanked(t, docs)
	adv, err := idx.Advanced()
	if err != nil {
		t.Fatal(err)
	}
	r, err := adv.Reader()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	snap := r.(*scorch.IndexSnapshot)
	for _, in := range []string{"a* b*", "a00*", "about"} {
		parsed, err := q.Parse(in)
		if err != nil {
			t.Fatal(err)
		}
		p, err := q.NewPlan(parsed, q.Options{})
		if err != nil {
			t.Fatal(err)
		}
		// Count the looks at the context of a whole evaluation.
		counter := &expiring{Context: context.Background(), left: 1 << 30}
		ev, err := evalPlan(counter, p, snap, EvalOptions{})
		if err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		if ev.Total == 0 {
			t.Fatalf("%q: no hits", in)
		}
		ev.Release()
		looks := 1<<30 - counter.left
		if looks < 3 {
			t.Fatalf("%q: the evaluation looked at its context %d times, want it to look as it goes", in, looks)
		}
		for k := range looks {
			ev, err := evalPlan(&expiring{Context: context.Background(), left: k}, p, snap, EvalOptions{})
			if !errors.Is(err, context.DeadlineExceeded) || ev != nil {
				t.Fatalf("%q, deadline after %d of %d looks: %v, %v; want no evaluation and the deadline's error", in, k, looks, ev, err)
			}
		}
	}
}
