package indexer_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/analyzers"
	"github.com/semcat/semcat/search"
	"github.com/semcat/semcat/searchdoc"
)

// TestPrefixExpansion: a prefix expands over the field's dictionary,
// skipping the terms with a part boundary after the prefix.
// Over random values of words, identifiers and separators, every prefix
// of every word and part finds exactly the tables that have a term
// starting with it (analyzers.ValueHas), as a bare word and as key:value;
// and the expansion walks the words, not the identifiers holding them.
func TestPrefixExpansion(t *testing.T) {
	t.Parallel()
	s, x := seededIndexer(t)
	rng := rand.New(rand.NewPCG(7, 8))
	pieces := []string{"vu", "kut", "ra", "lus", "-", "_", ".", "/", "9", " "}
	values := map[string]string{}
	for i := range 60 {
		var b strings.Builder
		for range 1 + rng.IntN(9) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		name := letters("qt", i)
		values[name] = b.String()
		tc := table(name, "col")
		tc.Properties = map[string]string{"p": b.String()}
		checker(t)(s.CreateTable(ctx, ns, tc))
	}
	// Identifiers that all start with the word vukut.
	for i := range 40 {
		name := letters("qi", i)
		values[name] = fmt.Sprintf("vukut_lus_%d", i)
		tc := table(name, "col")
		tc.Properties = map[string]string{"p": values[name]}
		checker(t)(s.CreateTable(ctx, ns, tc))
	}
	catchUp(t, x)
	svc := &search.Service{Index: x, Store: s}

	prefixes := map[string]bool{}
	for _, v := range values {
		for _, w := range strings.Fields(v) {
			for _, part := range strings.FieldsFunc(w, func(r rune) bool { return r < 0x80 && analyzers.IsSeparator(byte(r)) }) {
				for n := 1; n <= len(part); n++ {
					prefixes[part[:n]] = true
				}
			}
		}
	}
	if len(prefixes) < 20 {
		t.Fatalf("only %d prefixes to try", len(prefixes))
	}
	for p := range prefixes {
		var want []string
		for name, v := range values {
			if analyzers.ValueHas(v, p, true) {
				want = append(want, name)
			}
		}
		slices.Sort(want)
		queries := []string{"p:" + p + "*"}
		if p[0] > '9' { // a bare digit also finds the numbers of ids and times
			queries = append(queries, p+"*")
		}
		for _, query := range queries {
			res, err := svc.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: query, Types: []string{"table"}, Limit: 200, Profile: true})
			if err != nil {
				t.Fatalf("%s: %v", query, err)
			}
			var got []string
			for _, h := range res.Results {
				got = append(got, h.Entity.Name)
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s found %v, want %v", query, got, want)
			}
		}
	}

	// The identifiers' 40 words are skipped: their part vukut finds them.
	for _, query := range []string{"vukut*", "p:vukut*"} {
		res, err := svc.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: query, Types: []string{"table"}, Limit: 200, Profile: true})
		if err != nil {
			t.Fatal(err)
		}
		if res.Total < 40 {
			t.Errorf("%s: %d hits, want the 40 identifiers' tables at least", query, res.Total)
		}
		for _, f := range res.Profile.Fields {
			if (f.Field == searchdoc.FieldUserValues || f.Field == searchdoc.UserPropertyPrefix+"p") && f.Terms >= 20 {
				t.Errorf("%s walked %d terms of %s, want the words starting with vukut only", query, f.Terms, f.Field)
			}
		}
	}
}

// letters names the i-th table after prefix in letters only, so that no
// prefix of the values finds a name.
func letters(prefix string, i int) string {
	return prefix + string(rune('a'+i/26)) + string(rune('a'+i%26))
}
