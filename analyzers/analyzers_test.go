package analyzers_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/bleve/v2/search/query"
	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat/analyzers"
)

// analyze runs the analyzer registered as name over in and returns its
// terms in order, checking the invariants every token must keep.
func analyze(tb testing.TB, name, in string) []string {
	tb.Helper()
	var terms []string
	for _, t := range analyzeAll(tb, name, in) {
		if !strings.HasPrefix(t, analyzers.AcronymMarker) { // acronym terms: stems_test.go
			terms = append(terms, t)
		}
	}
	return terms
}

// analyzeAll is analyze with the acronym terms.
func analyzeAll(tb testing.TB, name, in string) []string {
	tb.Helper()
	a, err := registry.NewCache().AnalyzerNamed(name)
	if err != nil {
		tb.Fatalf("AnalyzerNamed(%q): %v", name, err)
	}
	tokens := a.Analyze([]byte(in))
	checkTokens(tb, in, tokens)
	var terms []string
	for _, t := range tokens {
		terms = append(terms, string(t.Term))
	}
	return terms
}

// checkTokens checks what Bleve and the rest of semcat rely on: positions
// 1, 2, 3, …; offsets inside the input; terms that are non-empty, valid
// UTF-8, at most MaxTermBytes, and distinct.
func checkTokens(tb testing.TB, in string, tokens analysis.TokenStream) {
	tb.Helper()
	seen := map[string]bool{}
	for i, t := range tokens {
		if t.Position != i+1 {
			tb.Errorf("%q: token %d %q at position %d, want %d", in, i, t.Term, t.Position, i+1)
		}
		if t.Start < 0 || t.Start > t.End || t.End > len(in) {
			tb.Errorf("%q: token %q spans [%d, %d), outside the input", in, t.Term, t.Start, t.End)
		}
		if len(t.Term) == 0 || len(t.Term) > analyzers.MaxTermBytes || !utf8.Valid(t.Term) {
			tb.Errorf("%q: token %d has a bad term %q (%d bytes)", in, i, t.Term, len(t.Term))
		}
		if seen[string(t.Term)] {
			tb.Errorf("%q: term %q emitted twice", in, t.Term)
		}
		seen[string(t.Term)] = true
	}
}

var (
	longWords = strings.Repeat("ab ", 3000)     // 9000 bytes, 3000 words "ab"
	longWord  = strings.Repeat("ab-", 2000)     // one 6000-byte word
	longUmlat = "b" + strings.Repeat("Ä", 3000) // 6001 bytes, Ä is 2 bytes
)

func TestValueAnalyzer(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		// SPEC §5.2.
		{"Alpha Tango Charlie", []string{"alpha", "tango", "charlie"}},
		{"av4_av5", []string{"av4_av5", "av4", "av5"}},
		{"tag12-tag33", []string{"tag12-tag33", "tag12", "tag33"}},
		{"a.b/c", []string{"a.b/c", "a", "b", "c"}},
		{"a,b;c:d", []string{"a,b;c:d", "a", "b", "c", "d"}},
		// A one-word value is its word, once; a word without separators
		// is its only part, once.
		{"Alpha", []string{"alpha"}},
		{"x-x", []string{"x-x", "x"}},
		{"foo Foo FOO", []string{"foo"}},
		{"a-b b-a", []string{"a-b", "a", "b", "b-a"}},
		// Words and parts in order; the whole value of several words is
		// the exact analyzer's.
		{"Sales EU-West prod_db", []string{
			"sales", "eu-west", "eu", "west", "prod_db", "prod", "db",
		}},
		// Whitespace runs, of any Unicode kind, collapse and trim.
		{"  Alpha \t\n Tango  ", []string{"alpha", "tango"}},
		{"a\u00a0\u2003b", []string{"a", "b"}},
		// Unicode lower-casing, as strings.ToLower.
		{"Ärger Öl", []string{"ärger", "öl"}},
		{"ΣΟΦΙΑ", []string{"σοφια"}},
		{"\u212a", []string{"k"}},                         // KELVIN SIGN
		{"\u0130", []string{"i"}},                         // İ shrinks by a byte
		{"\u023a-X", []string{"\u2c65-x", "\u2c65", "x"}}, // Ⱥ grows by one
		{"a\xffB", []string{"a\ufffdb"}},                  // invalid UTF-8 becomes U+FFFD
		{"x\xff-y", []string{"x\ufffd-y", "x\ufffd", "y"}},
		// Empty parts are skipped; separators alone make no parts.
		{"--x", []string{"--x", "x"}},
		{"x-", []string{"x-", "x"}},
		{"a--b", []string{"a--b", "a", "b"}},
		{"--", []string{"--"}},
		{" ./ ", []string{"./"}},
		{"-- ./", []string{"--", "./"}},
		// Nothing in, nothing out.
		{"", nil},
		{" \t\n ", nil},
		// Long terms are cut to MaxTermBytes, never inside a character.
		{longWords, []string{"ab"}},
		{longWord, []string{strings.Repeat("ab-", 1365) + "a", "ab"}},
		{longUmlat, []string{"b" + strings.Repeat("ä", 2047)}},
	}
	for _, tt := range tests {
		got := analyze(t, analyzers.AnalyzerValue, tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("value %.40q: (-want +got)\n%s", tt.in, diff)
		}
	}
}

func TestExactAnalyzer(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Alpha Tango Charlie", []string{"alpha tango charlie"}},
		{"  Alpha \t Tango\n\nCharlie ", []string{"alpha tango charlie"}},
		{"av4_av5", []string{"av4_av5"}},
		{"Ärger Öl", []string{"ärger öl"}},
		{"--", []string{"--"}},
		{"", nil},
		{"   ", nil},
		// A value of up to MaxWholeBytes is kept whole; a longer one is cut
		// (at a character boundary) and followed by a hash of all of it,
		// first cut to MaxTermBytes.
		{strings.Repeat("x", analyzers.MaxWholeBytes), []string{strings.Repeat("x", analyzers.MaxWholeBytes)}},
		{strings.Repeat("x", analyzers.MaxWholeBytes+1), []string{long(strings.Repeat("x", analyzers.MaxWholeBytes+1))}},
		{longWords, []string{long(strings.Repeat("ab ", 1365) + "a")}},
		{longUmlat, []string{long("b" + strings.Repeat("ä", 2047))}},
	}
	for _, tt := range tests {
		got := analyze(t, analyzers.AnalyzerExact, tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("exact %.40q: (-want +got)\n%s", tt.in, diff)
		}
		var want string
		if tt.want != nil {
			want = tt.want[0]
		}
		if got := analyzers.WholeTerm(analyzers.Normalize(tt.in)); got != want {
			t.Errorf("WholeTerm(Normalize(%.40q)) = %.40q, want %.40q", tt.in, got, want)
		}
	}
	if got, want := long("b" + strings.Repeat("ä", 2047))[:analyzers.MaxWholeBytes], "b"+strings.Repeat("ä", 127); !strings.HasPrefix(got, want) || len(long("b"+strings.Repeat("ä", 2047))) != len(want)+32 {
		t.Errorf("a long value's term starts %.40q…, want its first %d bytes, cut before a character", got, len(want))
	}
}

// long is the exact analyzer's term for a normalized value longer than
// MaxWholeBytes: its first MaxWholeBytes, not splitting a character, and
// the first 16 bytes of its SHA-256 in hex.
func long(norm string) string {
	n := analyzers.MaxWholeBytes
	for !utf8.RuneStart(norm[n]) {
		n--
	}
	sum := sha256.Sum256([]byte(norm))
	return norm[:n] + hex.EncodeToString(sum[:16])
}

// TestWholePrefix checks that a prefix query term on an exact field
// (WholePrefix) finds exactly the values starting with it, long ones
// included, up to MaxWholePrefixBytes: for every prefix of values whose
// characters of one to four bytes fall across the cut in every way.
func TestWholePrefix(t *testing.T) {
	for _, c := range []string{"a", "é", "日", "😀"} {
		for pad := range 4 {
			value := strings.Repeat("x", analyzers.MaxWholeBytes-8+pad) + strings.Repeat(c, 12) + " tail"
			other := value[:len(value)-1] + "x"
			term := analyze(t, analyzers.AnalyzerExact, value)[0]
			otherTerm := analyze(t, analyzers.AnalyzerExact, other)[0]
			if term == otherTerm {
				t.Fatalf("values differing in their last byte share the term %.40q…", term)
			}
			for n := 1; n <= len(value); n++ {
				if !utf8.RuneStart(value[n%len(value)]) && n < len(value) {
					continue
				}
				p := analyzers.WholePrefix(analyzers.Normalize(value[:n]))
				if len(p) > analyzers.MaxWholePrefixBytes {
					t.Fatalf("WholePrefix of %d bytes is %d bytes long", n, len(p))
				}
				if !strings.HasPrefix(term, p) || !analyzers.ExactHas(value, p, true) {
					t.Fatalf("the term of %q… does not start with WholePrefix of its first %d bytes", value[:20], n)
				}
				if n <= analyzers.MaxWholePrefixBytes {
					_, size := utf8.DecodeLastRuneInString(value[:n])
					bad := analyzers.WholePrefix(analyzers.Normalize(value[:n-size] + "!"))
					if strings.HasPrefix(term, bad) || analyzers.ExactHas(value, bad, true) {
						t.Fatalf("the term of %q… starts with %q…, which the value does not", value[:20], bad[max(0, len(bad)-10):])
					}
				}
			}
			if !analyzers.ExactHas(value, analyzers.WholeTerm(analyzers.Normalize(value)), false) ||
				analyzers.ExactHas(other, analyzers.WholeTerm(analyzers.Normalize(value)), false) {
				t.Fatalf("ExactHas does not tell %q… from a value differing in its last byte", value[:20])
			}
		}
	}
}

func TestSchemaFieldAnalyzer(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		// SPEC §5.3: {"EmpName": "string", "EmpContact": {"EmpTel":
		// "integer", "EmpAddr": "string"}}.
		{"EmpName:string", []string{"empname", "empname:string"}},
		{"EmpContact:struct", []string{"empcontact", "empcontact:struct"}},
		{"EmpContact.EmpTel:integer", []string{
			"emptel", "empcontact.emptel", "emptel:integer", "empcontact.emptel:integer",
		}},
		{"EmpContact.EmpAddr:string", []string{
			"empaddr", "empcontact.empaddr", "empaddr:string", "empcontact.empaddr:string",
		}},
		// Deeper paths; segments may hold / = - _.
		{"a.B.c:Map", []string{"c", "a.b.c", "c:map", "a.b.c:map"}},
		{"x/y=z.D-e_f:LIST", []string{"d-e_f", "x/y=z.d-e_f", "d-e_f:list", "x/y=z.d-e_f:list"}},
		// A model's dataset field.
		{"Orders.Amount:decimal", []string{"amount", "orders.amount", "amount:decimal", "orders.amount:decimal"}},
		// No type: name and path only.
		{"EmpContact.EmpTel", []string{"emptel", "empcontact.emptel"}},
		{"EmpName", []string{"empname"}},
		{"a.b:", []string{"b", "a.b"}},
		// The type is what follows the last ':'.
		{"a.b:x:Int", []string{"b:x", "a.b:x", "b:x:int", "a.b:x:int"}},
		// Whitespace around the pieces is trimmed; case folds as Unicode.
		{" EmpTel : Integer ", []string{"emptel", "emptel:integer"}},
		{"Ärger.Öl:String", []string{"öl", "ärger.öl", "öl:string", "ärger.öl:string"}},
		// Degenerate entries.
		{"a.:int", []string{"a.", "a.:int"}},
		{":int", nil},
		{"", nil},
		{"  ", nil},
		{strings.Repeat("x", 5000) + ":int", []string{strings.Repeat("x", 4096)}},
	}
	for _, tt := range tests {
		got := analyze(t, analyzers.AnalyzerSchemaField, tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("schema field %.40q: (-want +got)\n%s", tt.in, diff)
		}
	}
}

func TestOffsets(t *testing.T) {
	type tok struct {
		Term       string
		Start, End int
		Position   int
	}
	tests := []struct {
		analyzer, in string
		want         []tok
	}{
		{analyzers.AnalyzerValue, " Alpha  Tango-Charlie ", []tok{
			{"alpha", 1, 6, 1},
			{"tango-charlie", 8, 21, 2},
			{"tango", 8, 13, 3},
			{"charlie", 14, 21, 4},
		}},
		// Offsets are into the input even where lower-casing changes
		// a character's length (Ⱥ is 2 bytes, ⱥ 3).
		{analyzers.AnalyzerValue, "\u023aa-B", []tok{
			{"\u2c65a-b", 0, 5, 1},
			{"\u2c65a", 0, 3, 2},
			{"b", 4, 5, 3},
		}},
		{analyzers.AnalyzerExact, "  Ärger  Öl", []tok{{"ärger öl", 2, 13, 1}}},
		{analyzers.AnalyzerSchemaField, "Emp.Tel:integer", []tok{
			{"tel", 4, 7, 1},
			{"emp.tel", 0, 7, 2},
			{"tel:integer", 4, 15, 3},
			{"emp.tel:integer", 0, 15, 4},
		}},
	}
	for _, tt := range tests {
		a, err := registry.NewCache().AnalyzerNamed(tt.analyzer)
		if err != nil {
			t.Fatal(err)
		}
		var got []tok
		for _, tk := range a.Analyze([]byte(tt.in)) {
			got = append(got, tok{string(tk.Term), tk.Start, tk.End, tk.Position})
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s %q: (-want +got)\n%s", tt.analyzer, tt.in, diff)
		}
	}
}

// TestTermsAreIndependent pins that no two tokens share bytes, so a token
// filter that rewrites one term in place leaves the others alone.
func TestTermsAreIndependent(t *testing.T) {
	a, err := registry.NewCache().AnalyzerNamed(analyzers.AnalyzerValue)
	if err != nil {
		t.Fatal(err)
	}
	tokens := a.Analyze([]byte("xy ab-cd ef"))
	for i := range tokens[0].Term {
		tokens[0].Term[i] = 'X'
	}
	var got []string
	for _, tk := range tokens[1:] {
		got = append(got, string(tk.Term))
	}
	if diff := cmp.Diff([]string{"ab-cd", "ab", "cd", "ef"}, got); diff != "" {
		t.Errorf("after rewriting the first term: (-want +got)\n%s", diff)
	}
}

func TestRegisteredTokenizers(t *testing.T) {
	cache := registry.NewCache()
	for _, name := range []string{analyzers.TokenizerValue, analyzers.TokenizerExact, analyzers.TokenizerSchemaField} {
		if _, err := cache.TokenizerNamed(name); err != nil {
			t.Errorf("TokenizerNamed(%q): %v", name, err)
		}
	}
}

// TestIndex builds a real Bleve index whose mapping names the analyzers and
// checks that the queries the query compiler will issue find the right
// documents.
func TestIndex(t *testing.T) {
	field := func(analyzer string) *mapping.FieldMapping {
		fm := bleve.NewTextFieldMapping()
		fm.Analyzer = analyzer
		fm.Store = false
		return fm
	}
	dm := bleve.NewDocumentMapping()
	dm.AddFieldMappingsAt("v", field(analyzers.AnalyzerValue))
	dm.AddFieldMappingsAt("x", field(analyzers.AnalyzerExact))
	dm.AddFieldMappingsAt("f", field(analyzers.AnalyzerSchemaField))
	im := bleve.NewIndexMapping()
	im.DefaultMapping = dm
	if err := im.Validate(); err != nil {
		t.Fatalf("mapping: %v", err)
	}

	idx, err := bleve.New(filepath.Join(t.TempDir(), "index"), im)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := idx.Close(); err != nil {
			t.Error(err)
		}
	})
	docs := map[string]map[string]any{
		"emp": {
			"v": "Alpha Tango Charlie",
			"x": "Alpha  Tango Charlie",
			"f": []string{"EmpName:string", "EmpContact:struct", "EmpContact.EmpTel:integer", "EmpContact.EmpAddr:string"},
		},
		"orders": {
			"v": "av4_av5 tag12-tag33",
			"x": "Alpha Tango",
			"f": []string{"Orders.Amount:decimal", "Orders.Tel:string"},
		},
	}
	for id, doc := range docs {
		if err := idx.Index(id, doc); err != nil {
			t.Fatalf("Index(%s): %v", id, err)
		}
	}

	term := func(field, term string) query.Query {
		q := bleve.NewTermQuery(term)
		q.SetField(field)
		return q
	}
	prefix := func(field, prefix string) query.Query {
		q := bleve.NewPrefixQuery(prefix)
		q.SetField(field)
		return q
	}
	tests := []struct {
		name string
		q    query.Query
		want []string
	}{
		{"word", term("v", "tango"), []string{"emp"}},
		{"whole value is the exact field's", term("v", "alpha tango charlie"), nil},
		{"part", term("v", "av5"), []string{"orders"}},
		{"word with separator", term("v", "tag12-tag33"), []string{"orders"}},
		{"exact", term("x", "alpha tango charlie"), []string{"emp"}},
		{"exact is whole", term("x", "tango"), nil},
		{"exact prefix", prefix("x", analyzers.Normalize("ALPHA  Tango")), []string{"emp", "orders"}},
		{"field name", term("f", "emptel"), []string{"emp"}},
		{"top-level field", term("f", "empname"), []string{"emp"}},
		{"field path", term("f", "empcontact.emptel"), []string{"emp"}},
		{"field prefix", prefix("f", "emp"), []string{"emp"}},
		{"name:type", term("f", "emptel:integer"), []string{"emp"}},
		{"path:type", term("f", "empcontact.emptel:integer"), []string{"emp"}},
		{"name in both", term("f", "tel"), []string{"orders"}},
		{"name:type elsewhere", term("f", "tel:string"), []string{"orders"}},
		{"type alone is no term", term("f", "integer"), nil},
	}
	for _, tt := range tests {
		req := bleve.NewSearchRequestOptions(tt.q, 10, 0, false)
		res, err := idx.Search(req)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var got []string
		for _, h := range res.Hits {
			got = append(got, h.ID)
		}
		slices.Sort(got)
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s: (-want +got)\n%s", tt.name, diff)
		}
	}
}

// FuzzValueAnalyzer checks AnalyzerValue against a plain restatement of the
// words-and-parts half of SPEC §5.2 (the whole value is AnalyzerExact's),
// built from the strings package.
func FuzzValueAnalyzer(f *testing.F) {
	for _, s := range []string{"Alpha Tango Charlie", "av4_av5", "--x", "a\xffB", "\u0130-\u212a", " ./ ", "ΣΟΦΙΑ x.y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		got := analyze(t, analyzers.AnalyzerValue, in)
		if diff := cmp.Diff(referenceValue(in), got); diff != "" {
			t.Errorf("%q: (-reference +got)\n%s", in, diff)
		}
	})
}

func referenceValue(in string) []string {
	var out []string
	seen := map[string]bool{}
	add := func(term string) {
		if len(term) > analyzers.MaxTermBytes {
			term = term[:analyzers.MaxTermBytes]
			for !utf8.ValidString(term) {
				term = term[:len(term)-1]
			}
		}
		if term != "" && !seen[term] {
			seen[term] = true
			out = append(out, term)
		}
	}
	words := strings.Fields(in)
	for _, w := range words {
		w = strings.ToLower(w)
		add(w)
		for _, p := range strings.FieldsFunc(w, func(r rune) bool { return strings.ContainsRune("-_.,:;/", r) }) {
			add(p)
		}
	}
	return out
}

// FuzzSchemaFieldAnalyzer checks that any entry yields well-formed tokens.
func FuzzSchemaFieldAnalyzer(f *testing.F) {
	for _, s := range []string{"EmpContact.EmpTel:integer", "EmpName", ":", ".:", "a.:b", " a . b : c "} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		analyze(t, analyzers.AnalyzerSchemaField, in)
	})
}

func BenchmarkValueAnalyzer(b *testing.B) {
	a, err := registry.NewCache().AnalyzerNamed(analyzers.AnalyzerValue)
	if err != nil {
		b.Fatal(err)
	}
	for _, bb := range []struct{ name, value string }{
		{"1word", "production"},
		{"3words", "Alpha Tango Charlie"},
		{"8words", "Customer master data for EU-West, owned by data_platform/core"},
	} {
		in := []byte(bb.value)
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(in)))
			for b.Loop() {
				a.Analyze(in)
			}
		})
	}
}

// TestValueHas checks ValueHas against AnalyzerValue's terms and ExactHas
// against AnalyzerExact's. The values are random, over an alphabet of upper
// and lower case, non-ASCII letters whose case mapping changes their
// length, Unicode and ASCII whitespace, separators and invalid bytes. The
// candidates are every term the analyzers make, prefixes of each, and
// random strings. Both answer as "some term equals (or starts with) it"
// does.
func TestValueHas(t *testing.T) {
	alphabet := []string{"a", "B", "c", "é", "É", "İ", "ſ", " ", "\t", "\u00a0", "-", "_", ".", ",", ":", ";", "/", "\xff", "x1"}
	rng := rand.New(rand.NewPCG(1, 2))
	randomValue := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	long := strings.Repeat("ab", analyzers.MaxTermBytes) + "-cd " + strings.Repeat("é", analyzers.MaxTermBytes)
	values := []string{"", " ", "tag12-tag33 X", "Alpha Tango Charlie", "a--b", "-a-", "KOFO-bar baz", long}
	for range 3000 {
		values = append(values, randomValue(rng.IntN(12)))
	}
	// ASCII values, which ValueHas scans without lower-casing into a
	// buffer, and long ones, whose exact term is cut and hashed.
	ascii := []string{"a", "B", "c", "x1", " ", "  ", "\t", "-", "_", ".", ":", "/", "Zz"}
	for range 1000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(ascii[rng.IntN(len(ascii))])
		}
		values = append(values, b.String())
	}
	for range 30 {
		v := randomValue(100 + rng.IntN(200))
		values = append(values, v, strings.ToUpper(v), "  "+strings.ReplaceAll(v, " ", "   "))
	}
	for _, v := range values {
		terms := analyze(t, analyzers.AnalyzerValue, v)
		want := func(term string, prefix bool) bool {
			return slices.ContainsFunc(terms, func(t string) bool {
				if prefix {
					return strings.HasPrefix(t, term)
				}
				return t == term
			})
		}
		candidates := []string{"", "a", "b", "x1", "ab", strings.ToLower(v), randomValue(2), randomValue(3)}
		for _, term := range terms {
			for i := range min(len(term), 8) {
				candidates = append(candidates, term[:i])
			}
			candidates = append(candidates, term, term[:len(term)-1], term+"a")
		}
		exact := analyze(t, analyzers.AnalyzerExact, v)
		wantExact := func(term string, prefix bool) bool {
			return len(exact) == 1 && (exact[0] == term || prefix && strings.HasPrefix(exact[0], term))
		}
		candidates = append(candidates, exact...)
		for _, e := range exact {
			for _, n := range []int{1, 2, analyzers.MaxWholePrefixBytes - 1, analyzers.MaxWholePrefixBytes, analyzers.MaxWholePrefixBytes + 1, analyzers.MaxWholeBytes} {
				if n < len(e) {
					candidates = append(candidates, e[:n], e[:n]+"x")
				}
			}
		}
		for _, c := range candidates {
			for _, prefix := range []bool{false, true} {
				if got := analyzers.ValueHas(v, c, prefix); got != want(c, prefix) {
					t.Fatalf("ValueHas(%q, %q, %v) = %v; the analyzer's terms %q say %v", v, c, prefix, got, terms, !got)
				}
				if got := analyzers.ExactHas(v, c, prefix); got != wantExact(c, prefix) {
					t.Fatalf("ExactHas(%q, %q, %v) = %v; the exact analyzer's terms %q say %v", v, c, prefix, got, exact, !got)
				}
			}
		}
	}
}

// TestWordsNotIn checks that leaving a schema text's field names out of its
// value terms loses nothing a search can see: for random schema entries and
// texts made of their names, types and other words, the terms of the value
// together with the entries' terms are the same with WordsNotIn as
// without, and every term it leaves out is a field name a prefix expansion
// over the entries reads. And that it does leave words out.
func TestWordsNotIn(t *testing.T) {
	// SPEC §5.3's schema, as a table's schema text and its entries.
	entries := []string{"EmpName:string", "EmpContact:struct", "EmpContact.EmpTel:integer", "EmpContact.EmpAddr:string"}
	text := "EmpName string, EmpContact struct<EmpTel integer, EmpAddr string>"
	if got, want := analyzers.WordsNotIn(text, names(entries)), "string, struct<EmpTel integer, string>"; got != want {
		t.Errorf("WordsNotIn(%q) = %q, want %q", text, got, want)
	}

	rng := rand.New(rand.NewPCG(3, 4))
	alphabet := []string{"a", "B", "é", "İ", "ſ", "_", "-", ".", ":", "<", "\xff", "x1"}
	randomName := func() string {
		var b strings.Builder
		for range 1 + rng.IntN(5) {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 2000 {
		var entries, words []string
		for range 1 + rng.IntN(6) {
			path := randomName()
			if rng.IntN(3) == 0 {
				path = randomName() + "." + path
			}
			entries = append(entries, path+":"+[]string{"int", "String", "struct"}[rng.IntN(3)])
			name := analyzers.SchemaFieldName(entries[len(entries)-1])
			if terms := analyze(t, analyzers.AnalyzerSchemaField, entries[len(entries)-1]); name != "" && terms[0] != name {
				t.Fatalf("SchemaFieldName(%q) = %q; the analyzer's name term is %q", entries[len(entries)-1], name, terms[0])
			}
			// The text names the field as written, in another case, or
			// inside another word.
			switch w := path[strings.LastIndexByte(path, '.')+1:]; rng.IntN(4) {
			case 0:
				words = append(words, w)
			case 1:
				words = append(words, strings.ToUpper(w))
			case 2:
				words = append(words, "struct<"+w)
			default:
				words = append(words, randomName())
			}
		}
		text := strings.Join(words, []string{" ", "  ", ", ", "\t"}[rng.IntN(4)])
		reduced := analyzers.WordsNotIn(text, names(entries))
		var fieldTerms []string
		for _, e := range entries {
			fieldTerms = append(fieldTerms, analyze(t, analyzers.AnalyzerSchemaField, e)...)
		}
		union := func(value string) []string {
			terms := append(analyze(t, analyzers.AnalyzerValue, value), fieldTerms...)
			slices.Sort(terms)
			return slices.Compact(terms)
		}
		if diff := cmp.Diff(union(text), union(reduced)); diff != "" {
			t.Fatalf("the terms of %q and %q with entries %q differ (-text +reduced):\n%s", text, reduced, entries, diff)
		}
		// A prefix expansion over the schema fields skips the terms with a
		// dot or colon after the prefix: each value term left out must be
		// one it reads, so that prefixes find it there.
		left := analyze(t, analyzers.AnalyzerValue, reduced)
		for _, term := range analyze(t, analyzers.AnalyzerValue, text) {
			if !slices.Contains(left, term) && (strings.ContainsAny(term, ".:") || !slices.Contains(fieldTerms, term)) {
				t.Fatalf("WordsNotIn(%q) left out %q, which no prefix of the entries %q finds", text, term, entries)
			}
		}
	}
}

// names is the set of the entries' field names.
func names(entries []string) map[string]struct{} {
	out := map[string]struct{}{}
	for _, e := range entries {
		out[analyzers.SchemaFieldName(e)] = struct{}{}
	}
	return out
}

// BenchmarkExactHasLongValue explains a hit's schema text (about 1 KB)
// against the terms searches make of it: a word's whole-value term, a
// phrase prefix, and the long value's own term.
func BenchmarkExactHasLongValue(b *testing.B) {
	var cols []string
	for i := range 60 {
		cols = append(cols, fmt.Sprintf("column_%02d string", i))
	}
	value := strings.Join(cols, ", ")
	for _, bb := range []struct {
		name   string
		term   string
		prefix bool
	}{
		{"word", "sezu", false},
		{"prefix", "column_00 str", true},
		{"whole", analyzers.WholeTerm(analyzers.Normalize(value)), false},
	} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				analyzers.ExactHas(value, bb.term, bb.prefix)
			}
		})
	}
	// And a word search's explanation, which asks ValueHas.
	for _, bb := range []struct {
		name, term string
		prefix     bool
	}{{"value-word-absent", "sezu", false}, {"value-word-last", "column_59", false}} {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				analyzers.ValueHas(value, bb.term, bb.prefix)
			}
		})
	}
}
