package query

import (
	"slices"
	"strings"

	"github.com/semcat/semcat/analyzers"
	"github.com/semcat/semcat/searchdoc"
)

// Terms that stand for a run of the query's words (SPEC §5.2, revision 3):
// compounds, acronyms of a phrase, and the metalake's synonyms. Each is an
// optional term that covers the words it replaces (Term.Covers), so that a
// document matching it counts those words as matched (search/coverage.go).

// Synonyms are a metalake's synonym sets, ready for planning: each entry,
// lower-cased with its words as the text analyzer reads them, maps to the
// other entries of its sets.
type Synonyms struct {
	alts     map[string][][]string
	maxWords int
}

// NewSynonyms reads synonym sets (SPEC §2.6). Entries that hold no word
// are left out.
func NewSynonyms(sets [][]string) *Synonyms {
	s := &Synonyms{alts: map[string][][]string{}}
	for _, set := range sets {
		var entries [][]string
		for _, e := range set {
			if ws := entryWords(e); len(ws) > 0 {
				entries = append(entries, ws)
			}
		}
		for i, e := range entries {
			key := strings.Join(e, " ")
			s.maxWords = max(s.maxWords, len(e))
			for j, other := range entries {
				if i != j && strings.Join(other, " ") != key && !slices.ContainsFunc(s.alts[key], func(a []string) bool { return slices.Equal(a, other) }) {
					s.alts[key] = append(s.alts[key], other)
				}
			}
		}
	}
	return s
}

// Len is the number of entries that have another.
func (s *Synonyms) Len() int {
	if s == nil {
		return 0
	}
	return len(s.alts)
}

// entryWords are the words of a synonym entry as a query reads them.
func entryWords(e string) []string {
	var out []string
	for _, w := range strings.Fields(e) {
		if tw := analyzers.TextWord(w); tw != "" {
			out = append(out, tw)
		}
	}
	return out
}

// joinedWord is a word with '-' and apostrophes taken out, when it had
// any and is then one word of letters and digits ("e-mail" → "email",
// "o'neil" → "oneil"); "" otherwise.
func joinedWord(text string) string {
	if !strings.ContainsAny(text, "-'’") {
		return ""
	}
	j := strings.NewReplacer("-", "", "'", "", "’", "").Replace(text)
	if !analyzers.IsWord(j) {
		return ""
	}
	return strings.ToLower(j)
}

// acronym adds, for a word that can be an acronym (2–6 letters, not a stop
// word), the phrases whose initials spell it, ranked as a word form (SPEC
// §5.4). A two-letter word is an acronym only alone: in a query of several
// words "id" or "at" is rarely one, and would find every "item
// description" and "account type".
func (c *planner) acronym(g *groups, w string) {
	if !c.system || !analyzers.IsAcronymWord(w) || analyzers.IsStopWord(w) || len(w) < 3 && c.words > 1 {
		return
	}
	a := analyzers.AcronymTerm(w)
	g.add(InName, Form, wName*kForm, Clause{Field: searchdoc.FieldName, Term: a})
	g.add(InDescription, Form, wDescription*kForm, Clause{Field: searchdoc.FieldDescription, Term: a})
	g.add(InColumns, Form, wColumn*kForm, Clause{Field: searchdoc.FieldColumns, Term: a})
}

// minPhraseAcronym is the fewest words of a query phrase looked for as the
// acronym of their initials: two words' initials ("refunded orders": ro)
// are as often any two-letter token as the phrase's acronym.
const minPhraseAcronym = 3

// runs returns the terms that stand for runs of seq, the query's optional
// terms in order (kept: those counted, without stop words):
//   - compounds: two adjacent words also match joined or with _ ("sign
//     up" → signup, sign_up; "zip code" → zip_code, ZipCode);
//   - acronyms: 3 to 6 adjacent words of letters, the first and last no
//     stop words, match the word their initials spell ("monthly active
//     users" → mau), as a word form;
//   - synonyms: a run of words that is an entry of a synonym set matches
//     the set's other entries, as a word form.
func (c *planner) runs(seq, kept []Q, syn *Synonyms) []*Term {
	words := make([]string, len(seq)) // "" where seq holds no bare word
	for i, q := range seq {
		if w, ok := q.(*Word); ok && !w.Prefix {
			words[i] = analyzers.TextWord(w.Text)
		}
	}
	counted := map[int]bool{}
	for i, q := range seq {
		counted[i] = slices.Contains(kept, q)
	}
	covers := func(from, to int) []int {
		var out []int
		for i := from; i < to; i++ {
			if counted[i] {
				out = append(out, i)
			}
		}
		return out
	}
	plain := func(from, to int, is func(string) bool) bool {
		for _, w := range words[from:to] {
			if w == "" || !is(w) {
				return false
			}
		}
		return true
	}
	var out []*Term
	emit := func(text string, cov []int, g *groups) {
		if len(cov) == 0 || len(g.list) == 0 {
			return
		}
		out = append(out, &Term{Text: text, Groups: g.sorted(), Scale: 1, Covers: cov})
	}
	if !c.system {
		return nil
	}
	for i := 0; i+1 < len(seq); i++ {
		if !plain(i, i+2, analyzers.IsWord) {
			continue
		}
		a, b := words[i], words[i+1]
		g := &groups{}
		c.word(g, &Word{Text: a + b})
		c.word(g, &Word{Text: a + "_" + b})
		emit(a+" "+b, covers(i, i+2), g)
	}
	for n := minPhraseAcronym; n <= analyzers.MaxAcronym; n++ {
		for i := 0; i+n <= len(seq); i++ {
			if !plain(i, i+n, letters) ||
				analyzers.IsStopWord(words[i]) || analyzers.IsStopWord(words[i+n-1]) {
				continue
			}
			ini := analyzers.Initials(words[i : i+n])
			g := &groups{}
			g.add(InName, Form, wWholeName*kForm, term(searchdoc.FieldNameExact, ini))
			g.add(InName, Form, wName*kForm, Clause{Field: searchdoc.FieldName, Term: ini})
			g.add(InDescription, Form, wDescription*kForm, Clause{Field: searchdoc.FieldDescription, Term: ini})
			g.add(InColumns, Form, wColumn*kForm, Clause{Field: searchdoc.FieldColumns, Term: ini})
			emit(strings.Join(words[i:i+n], " ")+" ("+ini+")", covers(i, i+n), g)
		}
	}
	// Together: a run of 2 to 6 adjacent words of letters, the first and
	// last no stop words, is looked up as the acronym term of its
	// initials, which the analyzers index for every run of words of a
	// name or description (analyzers/acronyms.go): among the documents
	// that match every word of the run, those that hold them next to
	// each other rank above those that hold them scattered (SPEC §5.4).
	// The term only adds to the score of documents found otherwise, and
	// only of those that match the run's words (Term.BoostOnly,
	// restrictTogether): another phrase with the same initials finds
	// nothing by itself. Its weight is context's, below any own match of
	// a word: at the description's weight it reordered the GitLab
	// catalog's sentences by whichever long description held some pair
	// of their words side by side (nDCG@10 0.809 against 0.819), and in
	// columns a wide table's column names held the initials of most
	// pairs (0.805). Columns have compounds instead (zip_code).
	for n := analyzers.MinAcronym; n <= analyzers.MaxAcronym; n++ {
		for i := 0; i+n <= len(seq); i++ {
			if !plain(i, i+n, letters) || analyzers.IsStopWord(words[i]) || analyzers.IsStopWord(words[i+n-1]) {
				continue
			}
			a := analyzers.AcronymTerm(analyzers.Initials(words[i : i+n]))
			g := &groups{}
			g.add(InName, Exact, ContextWeight, Clause{Field: searchdoc.FieldName, Term: a})
			g.add(InDescription, Exact, ContextWeight, Clause{Field: searchdoc.FieldDescription, Term: a})
			var run []int
			for k := i; k < i+n; k++ {
				run = append(run, k)
			}
			out = append(out, &Term{Text: strings.Join(words[i:i+n], " ") + " (together)", Groups: g.sorted(), Scale: 1, BoostOnly: true, Together: run})
		}
	}
	if syn.Len() > 0 {
		for n := 1; n <= syn.maxWords; n++ {
			for i := 0; i+n <= len(seq); i++ {
				if !plain(i, i+n, func(string) bool { return true }) {
					continue
				}
				alts := syn.alts[strings.Join(words[i:i+n], " ")]
				if len(alts) == 0 {
					continue
				}
				g := &groups{}
				for _, alt := range alts {
					c.alternative(g, alt)
				}
				emit(strings.Join(words[i:i+n], " ")+" (synonyms)", covers(i, i+n), g)
			}
		}
	}
	return out
}

// alternative adds the groups of a synonym, ranked as a word form: a word
// as a bare word matches; a phrase as the whole name, an identifier of its
// words (monthly_active_users), or all its words in the name, the
// description or the columns.
func (c *planner) alternative(g *groups, words []string) {
	tmp := &groups{}
	if len(words) == 1 {
		c.word(tmp, &Word{Text: words[0]})
	} else {
		tmp.add(InName, Exact, wWholeName, term(searchdoc.FieldNameExact, strings.Join(words, " ")))
		c.word(tmp, &Word{Text: strings.Join(words, "_")})
		for _, f := range []struct {
			where  Where
			field  string
			weight float64
		}{{InName, searchdoc.FieldName, wName}, {InDescription, searchdoc.FieldDescription, wDescription}, {InColumns, searchdoc.FieldColumns, wColumn}} {
			var all []Clause
			for _, w := range words {
				for _, s := range analyzers.Segments(w) {
					all = append(all, Clause{Field: f.field, Term: s})
				}
			}
			tmp.addAll(f.where, Exact, f.weight, all...)
		}
	}
	for _, gr := range tmp.list {
		how := gr.How
		if how == Exact {
			how = Form
		}
		if gr.AllOf {
			g.addAll(gr.Where, how, gr.Weight*kForm, gr.Clauses...)
		} else {
			g.add(gr.Where, how, gr.Weight*kForm, gr.Clauses...)
		}
	}
}

// letters reports whether w is letters a–z only.
func letters(w string) bool {
	return w != "" && strings.Trim(w, "abcdefghijklmnopqrstuvwxyz") == ""
}
