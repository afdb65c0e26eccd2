package search

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/blevesearch/bleve/v2"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/searchdoc"
)

// visDoc is a search document of the synthetic catalog of the visibility
// tests: its type and the ids of its ancestors and self.
type visDoc struct {
	key                           string
	typ                           string
	catalog, schema, table, model int64 // 0: none
}

// visCatalog returns the documents of a catalog of metalake 1 with
// catalogs catalogs of schemas schemas each, each with tables tables and
// two models of two metrics. Ids are unique across kinds.
func visCatalog(catalogs, schemas, tables int) []visDoc {
	var docs []visDoc
	id := int64(1)
	next := func() int64 { id++; return id }
	for range catalogs {
		c := next()
		docs = append(docs, visDoc{typ: searchdoc.TypeCatalog, catalog: c})
		for range schemas {
			s := next()
			docs = append(docs, visDoc{typ: searchdoc.TypeSchema, catalog: c, schema: s})
			for range tables {
				docs = append(docs, visDoc{typ: searchdoc.TypeTable, catalog: c, schema: s, table: next()})
			}
			for range 2 {
				m := next()
				docs = append(docs, visDoc{typ: searchdoc.TypeSemanticModel, catalog: c, schema: s, model: m})
				for range 2 {
					docs = append(docs, visDoc{typ: searchdoc.TypeMetric, catalog: c, schema: s, model: m})
				}
			}
		}
	}
	for i := range docs {
		docs[i].key = fmt.Sprint(i)
	}
	return docs
}

// visIndex indexes docs in batches of per, one segment each (merges off).
func visIndex(tb testing.TB, docs []visDoc, per int) bleve.Index {
	tb.Helper()
	noMerge := map[string]any{"scorchMergePlanOptions": map[string]any{"MaxSegmentsPerTier": 1000, "FloorSegmentSize": 1},
		"scorchPersisterOptions": map[string]any{"MaxSizeInMemoryMergePerWorker": 1}}
	idx, err := bleve.NewUsing(filepath.Join(tb.TempDir(), "idx"), searchdoc.NewMapping(), bleve.Config.DefaultIndexType, bleve.Config.DefaultKVStore, noMerge)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { idx.Close() })
	str := func(id int64) string { return strconv.FormatInt(id, 10) }
	for from := 0; from < len(docs); from += per {
		batch := idx.NewBatch()
		for _, d := range docs[from:min(from+per, len(docs))] {
			f := map[string]any{searchdoc.FieldType: d.typ, searchdoc.FieldMetalake: "m", searchdoc.FieldMetalakeID: "1", searchdoc.FieldCatalogID: str(d.catalog)}
			if d.schema != 0 {
				f[searchdoc.FieldSchemaID] = str(d.schema)
			}
			if d.table != 0 {
				f[searchdoc.FieldTableID] = str(d.table)
			}
			if d.model != 0 {
				f[searchdoc.FieldModelID] = str(d.model)
			}
			if err := batch.Index(d.key, f); err != nil {
				tb.Fatal(err)
			}
		}
		if err := idx.Batch(batch); err != nil {
			tb.Fatal(err)
		}
	}
	return idx
}

// accessOf is what catalogdb.Store.Access would answer about the user of
// g for the object a document is.
func accessOf(g *semcat.Grants, d visDoc) *semcat.Access {
	levels := []struct {
		kind semcat.EntityKind
		id   int64
	}{{semcat.KindMetalake, 1}, {semcat.KindCatalog, d.catalog}, {semcat.KindSchema, d.schema}, {semcat.KindTable, d.table}, {semcat.KindSemanticModel, d.model}}
	a := &semcat.Access{Owns: map[semcat.EntityKind]bool{}, Member: g.Member}
	for _, l := range levels {
		if l.id == 0 {
			continue
		}
		for _, b := range g.Bindings {
			if b.Kind == l.kind && b.ID == l.id {
				a.Bindings = append(a.Bindings, semcat.Binding{Level: l.kind, Privilege: b.Privilege, Condition: b.Condition})
			}
		}
		for _, id := range g.Owned[l.kind] {
			if id == l.id {
				a.Owns[l.kind] = true
			}
		}
	}
	return a
}

// visible is the per-object rule for a document (authz: a metric is seen
// with its model).
func visible(tb testing.TB, a *semcat.Access, typ string) bool {
	rule := map[string]func() (bool, error){
		searchdoc.TypeCatalog: a.CanUseCatalog, searchdoc.TypeSchema: a.CanUseSchema, searchdoc.TypeTable: a.CanSeeTable,
		searchdoc.TypeSemanticModel: a.CanSeeSemanticModel, searchdoc.TypeMetric: a.CanSeeSemanticModel,
	}[typ]
	ok, err := rule()
	if err != nil {
		tb.Fatal(err)
	}
	return ok
}

// filterBitmaps evaluates Visibility(g) on every segment of idx, and the
// documents whose keys want holds, as bitmaps.
func filterBitmaps(tb testing.TB, idx bleve.Index, g *semcat.Grants, want map[string]bool) (got, expected []*roaring.Bitmap) {
	tb.Helper()
	_, reader, err := OpenSnapshot(idx)
	if err != nil {
		tb.Fatal(err)
	}
	defer reader.Close()
	vis := Visibility(g)
	for _, s := range reader.Segments() {
		b := &segBitmaps{segPostings: newSegPostings(s.Segment(), nil), size: s.Segment().Count()}
		bm, err := b.filter(vis)
		if err != nil {
			tb.Fatal(err)
		}
		got = append(got, bm)
		exp := roaring.New()
		for key := range want {
			if err := b.orTerm(exp, "_id", key); err != nil {
				tb.Fatal(err)
			}
		}
		expected = append(expected, exp)
	}
	return got, expected
}

// randomGrants draws bindings (ALLOW and DENY of the privileges that decide
// visibility, at every level) and ownerships over docs.
func randomGrants(r *rand.Rand, docs []visDoc, bindings, owned int) *semcat.Grants {
	g := &semcat.Grants{Owned: map[semcat.EntityKind][]int64{}, Member: true}
	// pick draws an object: the metalake, a catalog, a schema, or a
	// table or model, with the weights of a level in 100.
	pick := func(metalake, catalog, schema int) (semcat.EntityKind, int64) {
		d := docs[r.IntN(len(docs))]
		switch x := r.IntN(100); {
		case x < metalake:
			return semcat.KindMetalake, 1
		case x < metalake+catalog || d.schema == 0:
			return semcat.KindCatalog, d.catalog
		case x < metalake+catalog+schema || d.table == 0 && d.model == 0:
			return semcat.KindSchema, d.schema
		case d.table != 0:
			return semcat.KindTable, d.table
		}
		return semcat.KindSemanticModel, d.model
	}
	privileges := []semcat.Privilege{semcat.UseCatalog, semcat.UseSchema, semcat.SelectTable, semcat.ModifyTable, semcat.SelectSemanticModel, semcat.ModifySemanticModel}
	for range bindings {
		kind, id := pick(10, 20, 20)
		cond := semcat.Allow
		if r.IntN(4) == 0 {
			cond = semcat.Deny
		}
		g.Bindings = append(g.Bindings, semcat.Grant{Kind: kind, ID: id, Privilege: privileges[r.IntN(len(privileges))], Condition: cond})
	}
	// Owning the metalake or a catalog shows all below it: the more
	// objects owned, the rarer those.
	metalake, catalog, schema := 5, 10, 20
	if owned > 20 {
		metalake, catalog, schema = 0, 0, 1
	}
	for range owned {
		kind, id := pick(metalake, catalog, schema)
		g.Owned[kind] = append(g.Owned[kind], id)
	}
	return g
}

// TestVisibilityAsAccess: the visibility filter passes exactly the
// documents whose object the per-object rules (semcat.Access) let the user
// see, for random grants with ALLOW, DENY and owners at every level, few
// and many of them (a large owned set is compiled differently).
func TestVisibilityAsAccess(t *testing.T) {
	docs := visCatalog(3, 4, 40)
	idx := visIndex(t, docs, 150)
	r := rand.New(rand.NewPCG(7, 43))
	for round := range 80 {
		bindings, owned := r.IntN(12), r.IntN(6)
		switch round % 4 {
		case 2:
			owned = 40 + r.IntN(50) // fewer tables than a segment holds
		case 3:
			owned = 300 + r.IntN(300) // more
		}
		g := randomGrants(r, docs, bindings, owned)
		if owned > 6 && round%8 < 4 {
			// Schema access everywhere, so that owning a table or model
			// decides (but for the DENY drawn).
			g.Bindings = append(g.Bindings, semcat.Grant{Kind: semcat.KindMetalake, ID: 1, Privilege: semcat.UseCatalog, Condition: semcat.Allow},
				semcat.Grant{Kind: semcat.KindMetalake, ID: 1, Privilege: semcat.UseSchema, Condition: semcat.Allow})
		}
		want := map[string]bool{}
		for _, d := range docs {
			if visible(t, accessOf(g, d), d.typ) {
				want[d.key] = true
			}
		}
		got, expected := filterBitmaps(t, idx, g, want)
		for i := range got {
			if !got[i].Equals(expected[i]) {
				t.Fatalf("round %d (%d bindings, %d owned), segment %d: the filter passes %v, the rules %v\ngrants %+v",
					round, bindings, owned, i, got[i].ToArray(), expected[i].ToArray(), g)
			}
		}
	}
}

// BenchmarkVisibilityOwned evaluates the visibility filter of a user who
// owns every table (10,000) of a catalog of 12 schemas, on every segment.
func BenchmarkVisibilityOwned(b *testing.B) {
	docs := visCatalog(1, 12, 834)
	idx := visIndex(b, docs, 1000)
	g := &semcat.Grants{Owned: map[semcat.EntityKind][]int64{}, Member: true,
		Bindings: []semcat.Grant{{Kind: semcat.KindMetalake, ID: 1, Privilege: semcat.UseCatalog, Condition: semcat.Allow},
			{Kind: semcat.KindMetalake, ID: 1, Privilege: semcat.UseSchema, Condition: semcat.Allow}}}
	for _, d := range docs {
		if d.table != 0 {
			g.Owned[semcat.KindTable] = append(g.Owned[semcat.KindTable], d.table)
		}
	}
	_, reader, err := OpenSnapshot(idx)
	if err != nil {
		b.Fatal(err)
	}
	defer reader.Close()
	b.ReportMetric(float64(len(reader.Segments())), "segments")
	for b.Loop() {
		vis := Visibility(g)
		for _, s := range reader.Segments() {
			sb := &segBitmaps{segPostings: newSegPostings(s.Segment(), nil), size: s.Segment().Count()}
			if _, err := sb.filter(vis); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// TestLargeVisibilityIsCostly: a caller whose visibility names thousands
// of ids (the tables it owns) searches in the costly-query slots; the owner
// of the metalake, whatever else it owns, does not.
func TestLargeVisibilityIsCostly(t *testing.T) {
	g := &semcat.Grants{Owned: map[semcat.EntityKind][]int64{}, Member: true,
		Bindings: []semcat.Grant{{Kind: semcat.KindMetalake, ID: 1, Privilege: semcat.UseCatalog, Condition: semcat.Allow},
			{Kind: semcat.KindMetalake, ID: 1, Privilege: semcat.UseSchema, Condition: semcat.Allow}}}
	for i := range heavyVisibility {
		g.Owned[semcat.KindTable] = append(g.Owned[semcat.KindTable], int64(100+i))
	}
	if n := visibilityTerms(Visibility(g)); n < heavyVisibility {
		t.Errorf("%d owned tables: %d terms, want at least %d", heavyVisibility, n, heavyVisibility)
	}
	g.Owned[semcat.KindTable] = g.Owned[semcat.KindTable][:10]
	if n := visibilityTerms(Visibility(g)); n >= heavyVisibility {
		t.Errorf("10 owned tables: %d terms", n)
	}
	g.Owned[semcat.KindTable] = nil
	for i := range 2 * heavyVisibility {
		g.Owned[semcat.KindTable] = append(g.Owned[semcat.KindTable], int64(100+i))
	}
	g.Owned[semcat.KindMetalake] = []int64{1}
	if n := visibilityTerms(Visibility(g)); n > 50 {
		t.Errorf("the metalake's owner: %d terms, want its ownership and the types'", n)
	}
}

// visTable is the small catalog of TestVisibilityAgreement, metalake 1:
//
//	c1 (2) ─ s1 (3) ─ t1 (4), model m1 (5) with metric x
//	       └ s2 (6) ─ t2 (7)
//	c2 (8) ─ s3 (9) ─ t3 (10)
var visTable = []visDoc{
	{key: "c1", typ: searchdoc.TypeCatalog, catalog: 2},
	{key: "c1.s1", typ: searchdoc.TypeSchema, catalog: 2, schema: 3},
	{key: "c1.s1.t1", typ: searchdoc.TypeTable, catalog: 2, schema: 3, table: 4},
	{key: "c1.s1.m1", typ: searchdoc.TypeSemanticModel, catalog: 2, schema: 3, model: 5},
	{key: "c1.s1.m1.x", typ: searchdoc.TypeMetric, catalog: 2, schema: 3, model: 5},
	{key: "c1.s2", typ: searchdoc.TypeSchema, catalog: 2, schema: 6},
	{key: "c1.s2.t2", typ: searchdoc.TypeTable, catalog: 2, schema: 6, table: 7},
	{key: "c2", typ: searchdoc.TypeCatalog, catalog: 8},
	{key: "c2.s3", typ: searchdoc.TypeSchema, catalog: 8, schema: 9},
	{key: "c2.s3.t3", typ: searchdoc.TypeTable, catalog: 8, schema: 9, table: 10},
}

// TestVisibilityAgreement is the table of grants × entities on which the
// visibility rule, written twice, must answer alike: semcat.Access's
// per-object rules behind authz's member check (what every other route
// answers), and the search side (visibilityFor's member check and the
// Visibility filter, evaluated both as the search does, over postings
// bitmaps, and by Bleve's own searchers) over a real Bleve index of the
// same entities. Each case also names what it must see, so that two rules
// wrong alike do not pass.
func TestVisibilityAgreement(t *testing.T) {
	idx := visIndex(t, visTable, len(visTable))
	const (
		ml  = semcat.KindMetalake
		cat = semcat.KindCatalog
		sch = semcat.KindSchema
		tab = semcat.KindTable
		mod = semcat.KindSemanticModel
	)
	allow := func(k semcat.EntityKind, id int64, p semcat.Privilege) semcat.Grant {
		return semcat.Grant{Kind: k, ID: id, Privilege: p, Condition: semcat.Allow}
	}
	deny := func(k semcat.EntityKind, id int64, p semcat.Privilege) semcat.Grant {
		return semcat.Grant{Kind: k, ID: id, Privilege: p, Condition: semcat.Deny}
	}
	// use is schema access everywhere: USE_CATALOG and USE_SCHEMA on the
	// metalake.
	use := []semcat.Grant{allow(ml, 1, semcat.UseCatalog), allow(ml, 1, semcat.UseSchema)}
	with := func(gs ...semcat.Grant) []semcat.Grant { return append(slices.Clone(use), gs...) }
	owns := func(k semcat.EntityKind, id int64) map[semcat.EntityKind][]int64 {
		return map[semcat.EntityKind][]int64{k: {id}}
	}
	const structure = "c1 c1.s1 c1.s2 c2 c2.s3 " // what schema access everywhere shows
	const missing = "metalake missing"
	tests := []struct {
		name     string
		bindings []semcat.Grant
		owned    map[semcat.EntityKind][]int64
		member   bool
		admin    bool
		want     string // the keys seen, in visTable's order, or missing
	}{
		{name: "member, no grants", member: true, want: ""},
		{name: "non-member", want: missing},
		{name: "non-member owning a table", owned: owns(tab, 4), bindings: nil, want: missing},
		{name: "service admin, non-member", admin: true, want: ""},
		{name: "service admin, non-member, owning c2", admin: true, owned: owns(cat, 8), want: "c2 c2.s3 c2.s3.t3"},
		{name: "service admin, member", admin: true, member: true, bindings: use, want: structure},
		{name: "owner of the metalake", member: true, owned: owns(ml, 1), want: "c1 c1.s1 c1.s1.t1 c1.s1.m1 c1.s1.m1.x c1.s2 c1.s2.t2 c2 c2.s3 c2.s3.t3"},
		{name: "owner of the metalake, not a user of it", owned: owns(ml, 1), want: "c1 c1.s1 c1.s1.t1 c1.s1.m1 c1.s1.m1.x c1.s2 c1.s2.t2 c2 c2.s3 c2.s3.t3"},
		{name: "owner of the metalake, DENY everything", owned: owns(ml, 1), bindings: []semcat.Grant{deny(ml, 1, semcat.UseCatalog), deny(ml, 1, semcat.UseSchema), deny(ml, 1, semcat.SelectTable)},
			want: "c1 c1.s1 c1.s1.t1 c1.s1.m1 c1.s1.m1.x c1.s2 c1.s2.t2 c2 c2.s3 c2.s3.t3"},
		{name: "owner of c1", member: true, owned: owns(cat, 2), want: "c1 c1.s1 c1.s1.t1 c1.s1.m1 c1.s1.m1.x c1.s2 c1.s2.t2"},
		{name: "owner of c1, DENY USE_CATALOG on it", member: true, owned: owns(cat, 2), bindings: []semcat.Grant{deny(cat, 2, semcat.UseCatalog)},
			want: "c1 c1.s1 c1.s1.t1 c1.s1.m1 c1.s1.m1.x c1.s2 c1.s2.t2"},
		{name: "owner of s1", member: true, owned: owns(sch, 3), want: "c1.s1 c1.s1.t1 c1.s1.m1 c1.s1.m1.x"},
		{name: "owner of s1, DENY USE_CATALOG on the metalake", member: true, owned: owns(sch, 3), bindings: []semcat.Grant{deny(ml, 1, semcat.UseCatalog)},
			want: "c1.s1 c1.s1.t1 c1.s1.m1 c1.s1.m1.x"},
		{name: "owner of t1 without schema access", member: true, owned: owns(tab, 4), want: ""},
		{name: "owner of t1", member: true, owned: owns(tab, 4), bindings: use, want: structure + "c1.s1.t1"},
		{name: "owner of t1, DENY USE_SCHEMA on s1", member: true, owned: owns(tab, 4), bindings: with(deny(sch, 3, semcat.UseSchema)), want: "c1 c1.s2 c2 c2.s3"},
		{name: "owner of m1", member: true, owned: owns(mod, 5), bindings: use, want: structure + "c1.s1.m1 c1.s1.m1.x"},
		{name: "USE_CATALOG on the metalake", member: true, bindings: []semcat.Grant{allow(ml, 1, semcat.UseCatalog)}, want: "c1 c2"},
		{name: "USE_CATALOG on c1", member: true, bindings: []semcat.Grant{allow(cat, 2, semcat.UseCatalog)}, want: "c1"},
		{name: "USE_SCHEMA without USE_CATALOG", member: true, bindings: []semcat.Grant{allow(ml, 1, semcat.UseSchema)}, want: ""},
		{name: "USE_CATALOG on c1, USE_SCHEMA on s2", member: true, bindings: []semcat.Grant{allow(cat, 2, semcat.UseCatalog), allow(sch, 6, semcat.UseSchema)}, want: "c1 c1.s2"},
		{name: "schema access", member: true, bindings: use, want: structure},
		{name: "SELECT_TABLE on the metalake", member: true, bindings: with(allow(ml, 1, semcat.SelectTable)), want: structure + "c1.s1.t1 c1.s2.t2 c2.s3.t3"},
		{name: "SELECT_TABLE on c1", member: true, bindings: with(allow(cat, 2, semcat.SelectTable)), want: structure + "c1.s1.t1 c1.s2.t2"},
		{name: "SELECT_TABLE on s1", member: true, bindings: with(allow(sch, 3, semcat.SelectTable)), want: structure + "c1.s1.t1"},
		{name: "SELECT_TABLE on t1", member: true, bindings: with(allow(tab, 4, semcat.SelectTable)), want: structure + "c1.s1.t1"},
		{name: "SELECT_TABLE without schema access", member: true, bindings: []semcat.Grant{allow(ml, 1, semcat.SelectTable), allow(ml, 1, semcat.UseCatalog)}, want: "c1 c2"},
		{name: "MODIFY_TABLE on s2", member: true, bindings: with(allow(sch, 6, semcat.ModifyTable)), want: structure + "c1.s2.t2"},
		{name: "SELECT_TABLE, DENY on t1", member: true, bindings: with(allow(ml, 1, semcat.SelectTable), deny(tab, 4, semcat.SelectTable)), want: structure + "c1.s2.t2 c2.s3.t3"},
		{name: "SELECT_TABLE, DENY on s2", member: true, bindings: with(allow(ml, 1, semcat.SelectTable), deny(sch, 6, semcat.SelectTable)), want: structure + "c1.s1.t1 c2.s3.t3"},
		{name: "SELECT_TABLE, DENY on c1", member: true, bindings: with(allow(ml, 1, semcat.SelectTable), deny(cat, 2, semcat.SelectTable)), want: structure + "c2.s3.t3"},
		{name: "DENY SELECT_TABLE on the metalake, ALLOW on t1", member: true, bindings: with(deny(ml, 1, semcat.SelectTable), allow(tab, 4, semcat.SelectTable)), want: structure},
		{name: "DENY SELECT_TABLE on t1, MODIFY_TABLE on it", member: true, bindings: with(deny(tab, 4, semcat.SelectTable), allow(tab, 4, semcat.ModifyTable)), want: structure + "c1.s1.t1"},
		{name: "DENY USE_SCHEMA on s1", member: true, bindings: with(allow(ml, 1, semcat.SelectTable), allow(ml, 1, semcat.SelectSemanticModel), deny(sch, 3, semcat.UseSchema)),
			want: "c1 c1.s2 c1.s2.t2 c2 c2.s3 c2.s3.t3"},
		{name: "DENY USE_CATALOG on c2", member: true, bindings: with(allow(ml, 1, semcat.SelectTable), allow(ml, 1, semcat.SelectSemanticModel), deny(cat, 8, semcat.UseCatalog)),
			want: "c1 c1.s1 c1.s1.t1 c1.s1.m1 c1.s1.m1.x c1.s2 c1.s2.t2"},
		{name: "SELECT_SEMANTIC_MODEL on m1", member: true, bindings: with(allow(mod, 5, semcat.SelectSemanticModel)), want: structure + "c1.s1.m1 c1.s1.m1.x"},
		{name: "SELECT_SEMANTIC_MODEL on c1, DENY on m1", member: true, bindings: with(allow(cat, 2, semcat.SelectSemanticModel), deny(mod, 5, semcat.SelectSemanticModel)), want: structure},
		{name: "DENY SELECT_SEMANTIC_MODEL, MODIFY_SEMANTIC_MODEL on s1", member: true, bindings: with(deny(ml, 1, semcat.SelectSemanticModel), allow(sch, 3, semcat.ModifySemanticModel)),
			want: structure + "c1.s1.m1 c1.s1.m1.x"},
		{name: "SELECT_TABLE shows no models", member: true, bindings: with(allow(ml, 1, semcat.SelectTable)), want: structure + "c1.s1.t1 c1.s2.t2 c2.s3.t3"},
		{name: "a non-member's grants", bindings: with(allow(ml, 1, semcat.SelectTable)), want: missing},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.want = inVisTableOrder(tt.want)
			g := &semcat.Grants{Bindings: tt.bindings, Owned: tt.owned, Member: tt.member || len(tt.owned[ml]) > 0}
			if g.Owned == nil {
				g.Owned = map[semcat.EntityKind][]int64{}
			}
			// The rules, as authz applies them: the metalake exists
			// for its members and the service admins, then each object
			// per its rule.
			var rules []string
			for _, d := range visTable {
				a := accessOf(g, d)
				if !tt.admin && !a.IsMember() {
					rules = []string{missing}
					break
				}
				if visible(t, a, d.typ) {
					rules = append(rules, d.key)
				}
			}
			if got := strings.Join(rules, " "); got != tt.want {
				t.Errorf("semcat.Access sees %q, want %q", got, tt.want)
			}

			vis, err := visibilityFor(g, tt.admin, "m")
			if tt.want == missing {
				if semcat.ErrorCode(err) != semcat.ENOTFOUND {
					t.Errorf("search: err %v, want the metalake missing", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]bool{}
			for _, k := range strings.Fields(tt.want) {
				want[k] = true
			}
			got, expected := filterBitmaps(t, idx, g, want)
			for i := range got {
				if !got[i].Equals(expected[i]) {
					t.Errorf("the search's filter passes documents %v, want %v (%s)", got[i].ToArray(), expected[i].ToArray(), tt.want)
				}
			}
			req := bleve.NewSearchRequestOptions(vis, len(visTable)+1, 0, false)
			res, err := idx.Search(req)
			if err != nil {
				t.Fatal(err)
			}
			var hits []string
			for _, h := range res.Hits {
				hits = append(hits, h.ID)
			}
			if got := inVisTableOrder(strings.Join(hits, " ")); got != tt.want {
				t.Errorf("Bleve's searchers of the filter find %q, want %q", got, tt.want)
			}
		})
	}
}

// inVisTableOrder returns the keys of visTable in keys (or missing), in
// visTable's order.
func inVisTableOrder(keys string) string {
	order := func(key string) int { return slices.IndexFunc(visTable, func(d visDoc) bool { return d.key == key }) }
	ks := strings.Fields(keys)
	if len(ks) > 0 && order(ks[0]) < 0 {
		return keys
	}
	slices.SortFunc(ks, func(a, b string) int { return order(a) - order(b) })
	return strings.Join(ks, " ")
}
