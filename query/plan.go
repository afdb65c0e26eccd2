package query

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/analyzers"
	"github.com/semcat/semcat/searchdoc"
)

// A Plan is a parsed query ready to run over the index (package search): its
// terms, required, optional and excluded, each a list of the ways it can
// match (Groups), weighted by where and how the match is (rank.go).
type Plan struct {
	// All: `*` is a positive term, so every document matches (and the
	// terms only rank them).
	All bool
	// Required terms must all match; Optional ones add score, and when
	// nothing is required (and not All) a result matches at least one;
	// Excluded ones must not match.
	Required, Optional, Excluded []*Term
}

// Term is one term of the query: a word, a phrase, a key:value, a tag, a
// schema field, a property key.
type Term struct {
	Text   string  // the term as the query wrote it
	Groups []Group // the ways it matches, best weight first
	// Typos are the ways it matches within one or two edits, tried when
	// none of Groups finds the term in the index (SPEC §5.2), or finds it
	// only as a rare misspelling (search/eval.go).
	Typos []Group
	// Scale multiplies the term's score: 1, or kPart for a part of an
	// identifier word (identifierParts).
	Scale float64
	// Covers are the query words the term stands for, by their place in
	// the query (search/coverage.go): a word its own, a compound, acronym or
	// synonym the run of words it replaces; none for an identifier's
	// parts. A document ranks first by how many words its terms cover.
	Covers []int
	// BoostOnly: the term adds to the score of documents that other
	// terms found, and finds none itself (expand.go, together): those
	// that match every word of Together.
	BoostOnly bool
	Together  []int
	word      *Word // the term's word, if it is one
}

// Where says where a match is, for ranking: the name counts most, then the
// description, then columns, then everything else (SPEC §5.4).
type Where int

const (
	InName Where = iota
	InDescription
	InColumns
	InOther
	// InContext: in a parent's description, which a document carries at
	// a low weight (search/context.go).
	InContext
)

var whereNames = [...]string{InName: "name", InDescription: "description", InColumns: "columns", InOther: "other", InContext: "context"}

func (w Where) String() string { return whereNames[w] }

// How says how a match is: exact > word form > prefix > typo.
type How int

const (
	Exact How = iota
	Form
	Prefix
	Typo
)

var howNames = [...]string{Exact: "exact", Form: "form", Prefix: "prefix", Typo: "typo"}

func (h How) String() string { return howNames[h] }

// Group is one way a term matches: a document matches it when it holds a
// term of one of the clauses (with AllOf, of every clause).
type Group struct {
	Where   Where
	How     How
	Weight  float64
	AllOf   bool
	Clauses []Clause
}

// MatchMode is how a clause finds terms in a field's dictionary.
type MatchMode int

const (
	// MatchTerm is the term itself.
	MatchTerm MatchMode = iota
	// MatchPrefix is every term that starts with Term.
	MatchPrefix
	// MatchForm is every term whose analyzers.StemKey is Term: its
	// inflections and derived forms.
	MatchForm
	// MatchTypo is every term within Distance edits of Term
	// (insertions, deletions, substitutions and transpositions).
	MatchTypo
)

// Clause is a set of terms of one field.
type Clause struct {
	Field    string
	Term     string
	Mode     MatchMode
	Distance int // MatchTypo
	// Word is a MatchForm's word, which it leaves out: the word itself
	// is an exact match, another group.
	Word string
	// Boundary keeps, of a MatchPrefix, only the terms in which Term is
	// followed by a character that is not a letter or digit, or by
	// nothing, after an optional plural ending: the names that start with
	// a word's parts ("dim_crm" → dim_crm_account, not dim_crmx;
	// "greenhouse_job" → greenhouse_jobs_source).
	Boundary bool
}

func (c Clause) String() string {
	switch c.Mode {
	case MatchPrefix:
		if c.Boundary {
			return c.Field + ":" + c.Term + "_*"
		}
		return c.Field + ":" + c.Term + "*"
	case MatchForm:
		return c.Field + ":~" + c.Term
	case MatchTypo:
		return fmt.Sprintf("%s:%s~%d", c.Field, c.Term, c.Distance)
	}
	return c.Field + ":" + c.Term
}

// String prints a plan, one term per line, for tests and debugging.
func (p *Plan) String() string {
	var b strings.Builder
	if p.All {
		b.WriteString("all\n")
	}
	for _, part := range []struct {
		name  string
		terms []*Term
	}{{"required", p.Required}, {"optional", p.Optional}, {"excluded", p.Excluded}} {
		for _, t := range part.terms {
			fmt.Fprintf(&b, "%s %s:", part.name, t.Text)
			for _, g := range t.Groups {
				b.WriteString(" " + g.String())
			}
			for _, g := range t.Typos {
				b.WriteString(" " + g.String())
			}
			b.WriteString("\n")
		}
	}
	return b.String()
}

func (g Group) String() string {
	var cs []string
	for _, c := range g.Clauses {
		cs = append(cs, c.String())
	}
	op := "|"
	if g.AllOf {
		op = "&"
	}
	return fmt.Sprintf("[%s/%s %g %s]", g.Where, g.How, g.Weight, strings.Join(cs, op))
}

// Scopes, the values of Options.Scope (SPEC §2.6).
const (
	ScopeUser   = "user"
	ScopeSystem = "system"
)

// Options control NewPlan.
type Options struct {
	// Scope is "" (user and system metadata), ScopeUser or ScopeSystem.
	// User scope searches user property values, keys and tags; system
	// scope system property values, keys and tags, entity names,
	// descriptions, columns and schemas. Scope narrows tags:, the tag
	// filter and the tags facet alike: user tags, system tags.
	Scope string
	// Synonyms are the metalake's synonym sets (SPEC §2.6), nil for none.
	Synonyms *Synonyms
}

// NewPlan turns a parsed query into a plan over the fields of package searchdoc. It
// simplifies q first. It fails only for an unknown scope or node type.
//
// Term by term (t is the value lower-cased with whitespace collapsed, as
// the analyzers index it):
//
//	word       the whole name; the name's parts (every segment of t); names
//	           that start with t; the description's, the columns' and the
//	           values' words; column names and paths; whole values; and the
//	           word forms of all of these; typos when none of it is in the
//	           index
//	wor*       the same for "wor" without forms and typos, and the terms
//	           starting with it in the name, its parts, the description,
//	           the columns and the values
//	"a b"      the whole name; whole values (with *: starting with it)
//	key:v      the property's tokens and whole value; the schema entry
//	           key:v, so that f:TYPE finds field f of type TYPE
//	key:*      searchdoc.FieldUserKeys, searchdoc.FieldSystemKeys hold key
//	tags:t     searchdoc.FieldTagsExact, searchdoc.FieldSystemTagsExact (with *: and prefix)
//	policies:p searchdoc.FieldPoliciesExact, in system scope (with *: and prefix)
//	schema:f   searchdoc.FieldSchemaFields holds f, a.b, f:type or a.b:type (with *:
//	           and prefix)
//	schema:*   searchdoc.FieldHas holds "schema"
//	properties:k  as key:* (with *: and prefix on the key fields)
//	*          every document
//
// In a query of several words, stop words (`the`, `by`, …) that are not
// required are left out, unless every word is one (SPEC §5.2).
func NewPlan(q Q, opts Options) (*Plan, error) {
	c := planner{user: true, system: true}
	switch opts.Scope {
	case "":
	case ScopeUser:
		c.system = false
	case ScopeSystem:
		c.user = false
	default:
		return nil, semcat.Errorf(semcat.EINVALID, "scope: unknown scope '%s' (want user or system)", opts.Scope)
	}
	p := &Plan{}
	var optional []Q
	add := func(list *[]*Term, leaf Q) error {
		t, err := c.term(leaf)
		if err != nil || t == nil {
			return err
		}
		*list = append(*list, t)
		return nil
	}
	var positive func(q Q) error
	positive = func(q Q) error {
		switch q := q.(type) {
		case *All:
			p.All = true
		case *Nothing:
		case *Or:
			for _, child := range q.Children {
				if err := positive(child); err != nil {
					return err
				}
			}
		default:
			optional = append(optional, q)
		}
		return nil
	}
	switch q := Simplify(q).(type) {
	case *Nothing:
		return p, nil
	case *And:
		for _, child := range q.Children {
			var err error
			switch child := child.(type) {
			case *Not:
				err = leaves(child.Child, func(l Q) error { return add(&p.Excluded, l) })
			case *Optional:
				err = leaves(child.Child, func(l Q) error { optional = append(optional, l); return nil })
			case *All:
				p.All = true
			default:
				err = leaves(child, func(l Q) error { return add(&p.Required, l) })
			}
			if err != nil {
				return nil, err
			}
		}
		if len(p.Required) > 0 {
			p.All = false // a required term decides the matches
		}
	default:
		if err := positive(q); err != nil {
			return nil, err
		}
	}
	seq := optional // the query's optional terms in order, stop words included
	c.words = len(seq) + len(p.Required)
	optional = withoutStopWords(optional, len(p.Required))
	place := map[Q]int{}
	for i, l := range seq {
		place[l] = i
	}
	for _, l := range optional {
		n := len(p.Optional)
		if err := add(&p.Optional, l); err != nil {
			return nil, err
		}
		if len(p.Optional) > n {
			p.Optional[n].Covers = []int{place[l]}
		}
	}
	p.Optional = append(p.Optional, c.runs(seq, optional, opts.Synonyms)...)
	p.Optional = append(p.Optional, c.identifierParts(append(slices.Clip(p.Required), p.Optional...))...)
	for _, t := range p.Excluded {
		t.Typos = nil // -word excludes the word, not its neighbours
	}
	return p, nil
}

// leaves calls fn with each term of q, a term or an Or of terms.
func leaves(q Q, fn func(Q) error) error {
	switch q := q.(type) {
	case *Or:
		for _, c := range q.Children {
			if err := leaves(c, fn); err != nil {
				return err
			}
		}
		return nil
	case *Nothing:
		return nil
	}
	return fn(q)
}

// identifierParts returns, for each bare word of several segments
// ("fct_crm_opportunity"), each of its segments as an optional term scaled
// by kPart: an entity whose name shares most of an identifier's parts
// (mart_crm_opportunity) is what a half-remembered name may mean, ranked
// below every match of the identifier itself. Segments that are stop
// words, single characters or another term of the query are left out.
func (c *planner) identifierParts(terms []*Term) []*Term {
	have := map[string]bool{}
	for _, t := range terms {
		have[strings.ToLower(t.Text)] = true
	}
	var out []*Term
	for _, t := range terms {
		if t.word == nil || t.word.Prefix {
			continue
		}
		segs := analyzers.Segments(t.word.Text)
		if len(segs) < 2 {
			continue
		}
		for _, s := range segs {
			if len(s) < 2 || analyzers.IsStopWord(s) || have[s] {
				continue
			}
			have[s] = true
			part, _ := c.term(&Word{Text: s})
			part.Scale = kPart
			part.Text = t.Text + "/" + s
			out = append(out, part)
		}
	}
	return out
}

// withoutStopWords drops the bare stop words from the optional terms of a
// query of several terms, unless all its words are stop words.
func withoutStopWords(optional []Q, required int) []Q {
	if len(optional)+required < 2 {
		return optional
	}
	var kept []Q
	for _, q := range optional {
		if w, ok := q.(*Word); ok && !w.Prefix && analyzers.IsStopWord(analyzers.TextWord(w.Text)) {
			continue
		}
		kept = append(kept, q)
	}
	if len(kept) == 0 && required == 0 {
		return optional
	}
	return kept
}

// planner builds the terms of one query for one scope.
type planner struct {
	user, system bool
	// words is the number of terms of the query, stop words included: a
	// two-letter word is looked for as an acronym only in a query of one.
	words int
}

// term returns the term of a leaf, or nil for one that matches nothing.
func (c *planner) term(q Q) (*Term, error) {
	t := &Term{Text: q.String(), Scale: 1}
	g := &groups{}
	switch q := q.(type) {
	case *Word:
		t.word = q
		c.word(g, q)
		if joined := joinedWord(q.Text); joined != "" {
			c.word(g, &Word{Text: joined, Prefix: q.Prefix}) // e-mail → email
		}
		if !q.Prefix {
			t.Typos = c.typos(q.Text)
			c.acronym(g, analyzers.TextWord(q.Text))
		}
	case *Phrase:
		c.phrase(g, q)
	case *KeyValue:
		c.keyValue(g, q)
	case *KeyExists:
		c.keys(g, Exact, exact(q.Key))
	case *PropertyKey:
		c.keys(g, Exact, exact(q.Key))
		if q.Prefix {
			c.keys(g, Prefix, prefix(q.Key))
		}
	case *Tag:
		for _, f := range c.fields(searchdoc.FieldTagsExact, searchdoc.FieldSystemTagsExact) {
			g.add(InOther, Exact, wOther, term(f, exact(q.Name)))
			if q.Prefix {
				g.add(InOther, Prefix, wOther*kPrefix, prefixClause(f, prefix(q.Name)))
			}
		}
	case *Policy:
		if c.system {
			g.add(InOther, Exact, wOther, term(searchdoc.FieldPoliciesExact, exact(q.Name)))
			if q.Prefix {
				g.add(InOther, Prefix, wOther*kPrefix, prefixClause(searchdoc.FieldPoliciesExact, prefix(q.Name)))
			}
		}
	case *SchemaField:
		if c.system {
			entry := exact(q.Path)
			if q.Type != "" {
				entry += ":" + exact(q.Type)
			}
			g.add(InColumns, Exact, wColumnName, term(searchdoc.FieldSchemaFields, entry))
			if q.Prefix {
				g.add(InColumns, Prefix, wColumnName*kPrefix, prefixClause(searchdoc.FieldSchemaFields, entry))
			}
		}
	case *HasSchema:
		if c.system {
			g.add(InOther, Exact, wOther, term(searchdoc.FieldHas, "schema"))
		}
	case *All, *Nothing:
		return nil, nil
	default:
		return nil, fmt.Errorf("query: cannot plan %T", q)
	}
	t.Groups = g.sorted()
	if len(t.Groups) == 0 && len(t.Typos) == 0 {
		t.Groups = nil
	}
	return t, nil
}

// groups collects a term's groups.
type groups struct{ list []*Group }

// add adds clauses as a group, into an existing one of the same where,
// how and weight.
func (g *groups) add(w Where, h How, weight float64, clauses ...Clause) {
	if len(clauses) == 0 {
		return
	}
	for _, cur := range g.list {
		if cur.Where == w && cur.How == h && cur.Weight == weight && !cur.AllOf {
			cur.Clauses = append(cur.Clauses, clauses...)
			return
		}
	}
	g.list = append(g.list, &Group{Where: w, How: h, Weight: weight, Clauses: clauses})
}

// addAll adds a group that matches documents holding every clause.
func (g *groups) addAll(w Where, h How, weight float64, clauses ...Clause) {
	if len(clauses) <= 1 {
		g.add(w, h, weight, clauses...)
		return
	}
	g.list = append(g.list, &Group{Where: w, How: h, Weight: weight, AllOf: true, Clauses: clauses})
}

// sorted returns the groups by weight, best first, then by where and how.
func (g *groups) sorted() []Group {
	var out []Group
	for _, gr := range g.list {
		out = append(out, *gr)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j].Before(out[j-1]); j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Before reports whether a comes before b in a term's groups: the higher
// weight first, then where, how, and the clauses' text.
func (a Group) Before(b Group) bool {
	if a.Weight != b.Weight {
		return a.Weight > b.Weight
	}
	if a.Where != b.Where {
		return a.Where < b.Where
	}
	if a.How != b.How {
		return a.How < b.How
	}
	return a.String() < b.String()
}

func term(field, text string) Clause {
	if searchdoc.IsWholeField(field) {
		text = analyzers.WholeTerm(text)
	}
	return Clause{Field: field, Term: text}
}

// prefixClause is a prefix of field: every term of the field that starts
// with text.
func prefixClause(field, text string) Clause {
	if searchdoc.IsWholeField(field) {
		text = analyzers.WholePrefix(text)
	}
	return Clause{Field: field, Term: text, Mode: MatchPrefix}
}

// form is the clause of the word forms of a word on field, or false when
// the word has none worth looking for (short, or not a plain word).
func form(field, word string) (Clause, bool) {
	key := analyzers.StemKey(word)
	if len(key) < minFormKey || strings.IndexFunc(word, func(r rune) bool { return r < 'a' || r > 'z' }) >= 0 {
		return Clause{}, false
	}
	return Clause{Field: field, Term: key, Mode: MatchForm, Word: word}, true
}

// word adds the groups of a bare word (with Prefix, of a word prefix).
func (c *planner) word(g *groups, q *Word) {
	t := exact(q.Text)
	tw := analyzers.TextWord(q.Text)
	segs := analyzers.Segments(q.Text)
	identifier := len(segs) > 1
	if c.system {
		g.add(InName, Exact, wWholeName, term(searchdoc.FieldNameExact, t))
		var parts []Clause
		for _, s := range segs {
			parts = append(parts, Clause{Field: searchdoc.FieldName, Term: s})
		}
		g.addAll(InName, Exact, wName, parts...)
		// A name starting with a plain word has it as a part already
		// (wName); an identifier's start is worth more than its parts.
		if identifier && len(t) >= minNamePrefix {
			g.add(InName, Prefix, wIdentifierPrefix, Clause{Field: searchdoc.FieldNameExact, Term: analyzers.WholePrefix(t), Mode: MatchPrefix, Boundary: true})
		}
		if tw != "" {
			g.add(InDescription, Exact, wDescription, Clause{Field: searchdoc.FieldDescription, Term: tw})
			g.add(InColumns, Exact, wColumn, Clause{Field: searchdoc.FieldColumns, Term: tw})
		}
		// A column named the word has it in searchdoc.FieldColumns too, unless the
		// word is a path (a.b), a typed entry or punctuated.
		if tw != t || strings.ContainsAny(t, ".:") {
			g.add(InColumns, Exact, wColumnName, term(searchdoc.FieldSchemaFields, t))
		}
		if !q.Prefix && !identifier && len(segs) == 1 {
			if f, ok := form(searchdoc.FieldName, segs[0]); ok {
				g.add(InName, Form, wName*kForm, f)
				f.Field = searchdoc.FieldDescription
				g.add(InDescription, Form, wDescription*kForm, f)
				f.Field = searchdoc.FieldColumns
				g.add(InColumns, Form, wColumn*kForm, f)
				f.Field = searchdoc.FieldSystemValues
				g.add(InOther, Form, wOther*kForm, f)
			}
		}
	}
	// A value equal to the word has it as a token: the whole-value fields
	// would find nothing more for a word, which holds no space.
	for _, f := range c.fields(searchdoc.FieldUserValues, searchdoc.FieldSystemValues) {
		g.add(InOther, Exact, wOther, term(f, t))
	}
	if c.user && !q.Prefix && !identifier && len(segs) == 1 {
		if f, ok := form(searchdoc.FieldUserValues, segs[0]); ok {
			g.add(InOther, Form, wOther*kForm, f)
		}
	}
	if !q.Prefix {
		return
	}
	p := prefix(q.Text)
	if c.system {
		g.add(InName, Prefix, wName*kPrefix, Clause{Field: searchdoc.FieldName, Term: p, Mode: MatchPrefix})
		g.add(InDescription, Prefix, wDescription*kPrefix, Clause{Field: searchdoc.FieldDescription, Term: p, Mode: MatchPrefix})
		g.add(InColumns, Prefix, wColumn*kPrefix, Clause{Field: searchdoc.FieldColumns, Term: p, Mode: MatchPrefix}, prefixClause(searchdoc.FieldSchemaFields, p))
	}
	for _, f := range c.fields(searchdoc.FieldUserValues, searchdoc.FieldSystemValues) {
		g.add(InOther, Prefix, wOther*kPrefix, prefixClause(f, p))
	}
}

// typos returns the typo groups of a bare word: for a word of
// minTypoRunes to 8 letters, the terms one edit away in the name, the
// description, the columns and the values; from 9 letters, two.
func (c *planner) typos(text string) []Group {
	w := analyzers.TextWord(text)
	n := len([]rune(w))
	if n < minTypoRunes || strings.IndexFunc(w, func(r rune) bool { return !unicode.IsLetter(r) }) >= 0 {
		return nil
	}
	d := 1
	if n >= 9 {
		d = 2
	}
	clause := func(field string) Clause { return Clause{Field: field, Term: w, Mode: MatchTypo, Distance: d} }
	g := &groups{}
	if c.system {
		g.add(InName, Typo, wName*kTypo, clause(searchdoc.FieldName))
		g.add(InDescription, Typo, wDescription*kTypo, clause(searchdoc.FieldDescription))
		g.add(InColumns, Typo, wColumn*kTypo, clause(searchdoc.FieldColumns))
	}
	for _, f := range c.fields(searchdoc.FieldUserValues, searchdoc.FieldSystemValues) {
		g.add(InOther, Typo, wOther*kTypo, clause(f))
	}
	return g.sorted()
}

func (c *planner) phrase(g *groups, q *Phrase) {
	t := exact(q.Text)
	whole := !q.Prefix || prefix(q.Text) == t // not "alpha *", which needs a word after alpha
	if c.system && whole {
		g.add(InName, Exact, wWholeName, term(searchdoc.FieldNameExact, t))
	}
	for _, f := range c.fields(searchdoc.FieldUserExact, searchdoc.FieldSystemExact) {
		if whole {
			g.add(InOther, Exact, wOther, term(f, t))
		}
		if q.Prefix {
			g.add(InOther, Prefix, wOther*kPrefix, prefixClause(f, prefix(q.Text)))
		}
	}
}

func (c *planner) keyValue(g *groups, q *KeyValue) {
	key := strings.ToLower(q.Key) // as the indexer names property fields
	t := exact(q.Value)
	whole := !q.Prefix || prefix(q.Value) == t // as in phrase
	for _, f := range c.fields(searchdoc.UserPropertyExactPrefix+key, searchdoc.SystemPropertyExactPrefix+key) {
		if whole {
			g.add(InOther, Exact, wOther, term(f, t))
		}
		if q.Prefix && q.Phrase {
			g.add(InOther, Prefix, wOther*kPrefix, prefixClause(f, prefix(q.Value)))
		}
	}
	if q.Phrase {
		return
	}
	for _, f := range c.fields(searchdoc.UserPropertyPrefix+key, searchdoc.SystemPropertyPrefix+key) {
		g.add(InOther, Exact, wOther, term(f, t))
		if q.Prefix {
			g.add(InOther, Prefix, wOther*kPrefix, prefixClause(f, prefix(q.Value)))
		}
	}
	if c.system {
		entry := exact(q.Key) + ":" + t
		g.add(InColumns, Exact, wColumnName, term(searchdoc.FieldSchemaFields, entry))
		if q.Prefix {
			g.add(InColumns, Prefix, wColumnName*kPrefix, prefixClause(searchdoc.FieldSchemaFields, entry))
		}
	}
}

// keys adds a property key on the key fields of the scope.
func (c *planner) keys(g *groups, h How, key string) {
	for _, f := range c.fields(searchdoc.FieldUserKeys, searchdoc.FieldSystemKeys) {
		if h == Prefix {
			g.add(InOther, Prefix, wOther*kPrefix, prefixClause(f, key))
		} else {
			g.add(InOther, Exact, wOther, term(f, key))
		}
	}
}

// fields returns the user field, the system field, or both, as the scope
// allows.
func (c *planner) fields(user, system string) []string {
	var fs []string
	if c.user {
		fs = append(fs, user)
	}
	if c.system {
		fs = append(fs, system)
	}
	return fs
}

// exact is the term the analyzers index for a whole value, key, tag or
// schema entry equal to s: lower-cased, whitespace collapsed, trimmed.
func exact(s string) string {
	return analyzers.Normalize(s)
}

// prefix is the term a prefix looks for to find values starting with s:
// exact(s), keeping one trailing space if s had any, since "alpha *" asks
// for a value with a word after "alpha".
func prefix(s string) string {
	t := analyzers.Normalize(s)
	if t != "" && strings.TrimRightFunc(s, unicode.IsSpace) != s {
		t += " "
	}
	return t
}
