// Package query is semcat's search language (SPEC §5): Parse turns a query
// string into a small tree of typed nodes, each printing itself back with
// String; Simplify normalises the tree; NewPlan turns it into a plan of
// weighted ways to match over the search-document fields of package searchdoc
// (plan.go, rank.go); package search runs a plan over an index snapshot's
// postings bitmaps. The package knows nothing of Bleve, so each step is
// tested on its own.
//
// The shape of a parsed query (SPEC §5.1):
//
//   - no required terms: a result matches at least one optional term —
//     (or a b c); an entity matching more of them ranks higher.
//   - required terms (+a): a result matches every required term; the
//     optional ones only add score — (and a (optional (or b c))).
//   - excluded terms (-x): a result matches none of them — (not x) inside
//     the and.
//
// A query needs at least one required or optional term.
package query

import (
	"strings"
	"unicode"
)

// Q is a node of a parsed query. String prints it in the canonical form the
// tests compare: leaves in the query syntax (keys, values and tags as typed),
// combinators as (and …), (or …), (not …) and (optional …).
type Q interface {
	String() string
}

// Word is a bare term: a token of any property value, tag, schema field
// name or path, or the entity's name (SPEC §5.1). Prefix: it ended in *,
// which is not part of Text.
type Word struct {
	Text   string
	Prefix bool
}

// Phrase is a double-quoted term: a whole property value or name equal to
// Text (or, with Prefix, starting with it).
type Phrase struct {
	Text   string
	Prefix bool
}

// KeyValue is key:value — property Key holds a token Value (or, Phrase, the
// whole value Value). A KeyValue that is not a phrase also means the schema
// entry Key:Value, so that f:TYPE finds field f of type TYPE.
type KeyValue struct {
	Key, Value     string
	Phrase, Prefix bool
}

// KeyExists is key:* — the entity has property Key.
type KeyExists struct {
	Key string
}

// Tag is tags:name — the entity has tag Name (or, Prefix, a tag starting
// with Name; tags:* is any tag).
type Tag struct {
	Name   string
	Prefix bool
}

// Policy is policies:name — the entity carries policy Name itself (or,
// Prefix, a policy starting with Name; policies:* is any policy). Policies
// are system metadata (SPEC §2.10).
type Policy struct {
	Name   string
	Prefix bool
}

// SchemaField is schema:path or schema:path:type — the entity's schema has
// a field with that name or dotted path at any depth, of type Type when it
// is set; with Prefix, an entry starting with path (and :type).
type SchemaField struct {
	Path, Type string
	Prefix     bool
}

// HasSchema is schema:* — the entity has a schema at all.
type HasSchema struct{}

// PropertyKey is properties:key — the entity has property Key (with Prefix,
// a property whose key starts with Key; properties:* is any property).
type PropertyKey struct {
	Key    string
	Prefix bool
}

// All is * — every entity (the search's filters still apply).
type All struct{}

// Nothing matches no entity: a term made only of separators.
type Nothing struct{}

// And matches what every positive child matches and no Not child does;
// Optional children only add score.
type And struct {
	Children []Q
}

// Or matches what at least one child matches; an entity matching more
// children scores higher.
type Or struct {
	Children []Q
}

// Not excludes what Child matches. It is meaningful inside an And.
type Not struct {
	Child Q
}

// Optional matches everything, and adds Child's score where Child matches:
// the optional terms of a query that has required terms.
type Optional struct {
	Child Q
}

func (q *Word) String() string   { return q.Text + star(q.Prefix) }
func (q *Phrase) String() string { return `"` + q.Text + star(q.Prefix) + `"` }

func (q *KeyValue) String() string {
	if q.Phrase {
		return q.Key + `:"` + q.Value + star(q.Prefix) + `"`
	}
	return q.Key + ":" + q.Value + star(q.Prefix)
}

func (q *KeyExists) String() string   { return q.Key + ":*" }
func (q *Tag) String() string         { return "tags:" + value(q.Name, q.Prefix) }
func (q *Policy) String() string      { return "policies:" + value(q.Name, q.Prefix) }
func (q *HasSchema) String() string   { return "schema:*" }
func (q *PropertyKey) String() string { return "properties:" + value(q.Key, q.Prefix) }
func (q *All) String() string         { return "*" }
func (q *Nothing) String() string     { return "(nothing)" }
func (q *And) String() string         { return list("and", q.Children) }
func (q *Or) String() string          { return list("or", q.Children) }
func (q *Not) String() string         { return "(not " + q.Child.String() + ")" }
func (q *Optional) String() string    { return "(optional " + q.Child.String() + ")" }

func (q *SchemaField) String() string {
	entry := q.Path
	if q.Type != "" {
		entry += ":" + q.Type
	}
	return "schema:" + value(entry, q.Prefix)
}

func star(prefix bool) string {
	if prefix {
		return "*"
	}
	return ""
}

// value prints a tag, key or schema entry, quoted when it holds whitespace
// or is empty (tags:"" is a tag of no characters; tags:* any tag).
func value(s string, prefix bool) string {
	if (s == "" && !prefix) || strings.IndexFunc(s, unicode.IsSpace) >= 0 {
		return `"` + s + star(prefix) + `"`
	}
	return s + star(prefix)
}

func list(op string, children []Q) string {
	var b strings.Builder
	b.WriteString("(" + op)
	for _, c := range children {
		b.WriteString(" " + c.String())
	}
	b.WriteString(")")
	return b.String()
}

// Simplify returns q normalised: a term made only of separators becomes
// Nothing; nested Ands and Ors are flattened; Nothing is dropped from an
// Or, and makes an And that requires it Nothing; an And keeps All only when
// it has no other positive child; a one-child And or Or is its child.
// Simplify does not change what q matches, and never modifies q.
func Simplify(q Q) Q {
	switch q := q.(type) {
	case *Word:
		if matchesNothing(q.Text, q.Prefix) {
			return &Nothing{}
		}
	case *Phrase:
		if matchesNothing(q.Text, q.Prefix) {
			return &Nothing{}
		}
	case *KeyValue:
		if matchesNothing(q.Value, q.Prefix) {
			return &Nothing{}
		}
	case *Tag:
		if matchesNothing(q.Name, q.Prefix) {
			return &Nothing{}
		}
	case *Policy:
		if matchesNothing(q.Name, q.Prefix) {
			return &Nothing{}
		}
	case *SchemaField:
		if matchesNothing(q.Path+q.Type, q.Prefix) {
			return &Nothing{}
		}
	case *PropertyKey:
		if matchesNothing(q.Key, q.Prefix) {
			return &Nothing{}
		}
	case *Or:
		return simplifyOr(q)
	case *And:
		return simplifyAnd(q)
	case *Not:
		return &Not{Child: Simplify(q.Child)}
	case *Optional:
		return &Optional{Child: Simplify(q.Child)}
	}
	return q
}

func simplifyOr(q *Or) Q {
	var children []Q
	for _, c := range q.Children {
		switch c := Simplify(c).(type) {
		case *Nothing:
		case *Or:
			children = append(children, c.Children...)
		default:
			children = append(children, c)
		}
	}
	switch len(children) {
	case 0:
		return &Nothing{}
	case 1:
		return children[0]
	}
	return &Or{Children: children}
}

func simplifyAnd(q *And) Q {
	var flat []Q
	for _, c := range q.Children {
		s := Simplify(c)
		if s, ok := s.(*And); ok {
			flat = append(flat, s.Children...)
			continue
		}
		flat = append(flat, s)
	}
	var children []Q
	positives, all := 0, false
	for _, c := range flat {
		switch c := c.(type) {
		case *Nothing:
			return &Nothing{}
		case *Not:
			switch c.Child.(type) {
			case *Nothing:
				continue
			case *All:
				return &Nothing{}
			}
		case *Optional:
			if _, ok := c.Child.(*Nothing); ok {
				continue
			}
		case *All:
			all = true
			continue
		default:
			positives++
		}
		children = append(children, c)
	}
	if all && positives == 0 {
		children = append([]Q{&All{}}, children...)
		positives++
	}
	switch {
	case len(children) == 0:
		return &All{}
	case len(children) == 1 && positives == 1:
		return children[0]
	}
	return &And{Children: children}
}

// matchesNothing reports whether a term value matches nothing: it is made
// only of separators (SPEC §5.1), or empty — except an empty prefix, which
// matches anything (tags:*).
func matchesNothing(text string, prefix bool) bool {
	if text == "" {
		return !prefix
	}
	return strings.IndexFunc(text, func(r rune) bool { return !isSeparator(r) }) < 0
}

// isSeparator reports whether r splits a word into parts (SPEC §5.2), or is
// whitespace, which splits terms.
func isSeparator(r rune) bool {
	switch r {
	case '-', '_', '.', ',', ':', ';', '/':
		return true
	}
	return unicode.IsSpace(r)
}

// Weigh counts a parsed query's terms and, of those, the ones that expand
// to many index terms: prefixes, quoted or not ("a*", key:"a b*", tags:p*),
// and key:* and schema:*, which read every term of a field. The search's
// costly-query slots weigh a query by them (SPEC §2.11).
func Weigh(q Q) (terms, prefixes int) {
	count := func(prefix bool) {
		terms++
		if prefix {
			prefixes++
		}
	}
	var walk func(Q)
	walk = func(q Q) {
		switch q := q.(type) {
		case *And:
			for _, c := range q.Children {
				walk(c)
			}
		case *Or:
			for _, c := range q.Children {
				walk(c)
			}
		case *Not:
			walk(q.Child)
		case *Optional:
			walk(q.Child)
		case *Word:
			count(q.Prefix)
		case *Phrase:
			count(q.Prefix)
		case *KeyValue:
			count(q.Prefix)
		case *Tag:
			count(q.Prefix)
		case *SchemaField:
			count(q.Prefix)
		case *PropertyKey:
			count(q.Prefix)
		case *KeyExists, *HasSchema:
			count(true)
		default: // All, Nothing
			count(false)
		}
	}
	walk(q)
	return terms, prefixes
}
