package search

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/semcat/semcat/analyzers"
	"github.com/semcat/semcat/searchdoc"
)

// TestPartStopKeepsEveryDocument: for each field partStop prunes, over
// random texts, every prefix that finds a text through some term it starts
// (a full expansion) also finds it through a term partsAutomaton accepts —
// a pruned expansion loses no document — and, where terms hold part
// boundaries, the pruning does skip terms.
func TestPartStopKeepsEveryDocument(t *testing.T) {
	m := searchdoc.NewMapping()
	rng := rand.New(rand.NewPCG(3, 4))
	pieces := []string{"vu", "Kut", "ra", "lUs", "é", "9", "-", "_", ".", "/", ":", "'s", "(", "€", " "}
	names := []string{"vu", "Kut", "ra", "é", "9", "-", "_", " "} // no '.' or ':' in a schema's names
	text := func(n int, pieces []string) string {
		var b strings.Builder
		for range n {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	for _, field := range []string{searchdoc.FieldUserValues, searchdoc.UserPropertyPrefix + "k", searchdoc.FieldName, searchdoc.FieldDescription, searchdoc.FieldColumns, searchdoc.FieldSchemaFields} {
		a := m.AnalyzerNamed(analyzerOf(field))
		var docs [][]string
		for range 300 {
			// A text; for the schema fields, a table's entries: every
			// field at any depth, "path:type".
			values := []string{text(1+rng.IntN(10), pieces)}
			if field == searchdoc.FieldSchemaFields {
				values = nil
				var add func(path string, depth int)
				add = func(path string, depth int) {
					for range 1 + rng.IntN(3) {
						p := strings.TrimPrefix(path+"."+text(1+rng.IntN(3), names), ".")
						values = append(values, p+":"+[]string{"int", "struct", "string"}[rng.IntN(3)])
						if depth < 2 && rng.IntN(3) == 0 {
							add(p, depth+1)
						}
					}
				}
				add("", 0)
			}
			var terms []string
			for _, v := range values {
				for _, tok := range a.Analyze([]byte(v)) {
					terms = append(terms, string(tok.Term))
				}
			}
			docs = append(docs, terms)
		}
		prefixes := map[string]bool{}
		for _, terms := range docs {
			for _, term := range terms {
				for i := 1; i <= len(term); i++ {
					prefixes[term[:i]] = true
				}
			}
		}
		pruned, tried := 0, 0
		for p := range prefixes {
			stop := partStop(field, p)
			if stop == nil {
				continue
			}
			tried++
			aut := partsAutomaton{prefix: p, stop: stop}
			for i, terms := range docs {
				full, kept := false, false
				for _, term := range terms {
					if strings.HasPrefix(term, p) {
						full = true
						if accepts(aut, term) {
							kept = true
						} else {
							pruned++
						}
					}
				}
				if full != kept {
					t.Errorf("%s: prefix %q finds text %d (%q) only through pruned terms", field, p, i, terms)
				}
			}
		}
		// AnalyzerName's terms are segments and parts: nothing to skip.
		if tried < 20 || pruned == 0 && field != searchdoc.FieldName {
			t.Errorf("%s: %d prefixes pruned, %d terms skipped", field, tried, pruned)
		}
	}
}

// analyzerOf is the analyzer of the fields TestPartStopKeepsEveryDocument
// tries.
func analyzerOf(field string) string {
	switch field {
	case searchdoc.FieldName:
		return analyzers.AnalyzerName
	case searchdoc.FieldDescription, searchdoc.FieldColumns:
		return analyzers.AnalyzerText
	case searchdoc.FieldSchemaFields:
		return analyzers.AnalyzerSchemaField
	}
	return analyzers.AnalyzerValue
}

// accepts runs the automaton over term as the dictionary walk does,
// stopping where it can no longer match.
func accepts(a partsAutomaton, term string) bool {
	s := a.Start()
	for i := 0; i < len(term); i++ {
		if s = a.Accept(s, term[i]); !a.CanMatch(s) {
			return false
		}
	}
	return a.IsMatch(s)
}
