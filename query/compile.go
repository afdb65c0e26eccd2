package query

import (
	"fmt"
	"strings"
	"unicode"

	blevequery "github.com/blevesearch/bleve/v2/search/query"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/analyzers"
)

// Scopes, the values of Options.Scope (SPEC §2.6).
const (
	ScopeUser   = "user"
	ScopeSystem = "system"
)

// Options control Compile.
type Options struct {
	// Scope is "" (user and system metadata), ScopeUser or ScopeSystem.
	// User scope searches user property values, keys and tags; system
	// scope system property values, keys and tags, entity names and
	// schemas (a schema term under user scope matches nothing). Tags are
	// searched in both scopes, since FieldTagsExact holds user and system
	// tags together.
	Scope string
}

// Compile turns a parsed query into a Bleve query over the fields in
// fields.go, scored as rank.go describes. It simplifies q first. It builds
// Bleve queries directly, never Bleve's query-string syntax.
//
// Term by term (t is the value lower-cased with whitespace collapsed, as
// the analyzers index it; "prefix" is a PrefixQuery on t):
//
//	word       name: FieldNameExact; whole value: FieldUserExact,
//	           FieldSystemExact; token: FieldUserValues, FieldSystemValues,
//	           FieldSchemaFields
//	wor*       the same for "wor", and prefix on the token fields
//	"a b"      name: FieldNameExact; whole value: the Exact fields
//	"a b*"     the same for "a b", and prefix on the Exact fields
//	key:v      whole value: UserPropertyExactPrefix+key (and System…);
//	           token: UserPropertyPrefix+key (and System…); and the schema
//	           entry key:v on FieldSchemaFields, so that f:TYPE finds field
//	           f of type TYPE
//	key:v*     the same for v, and prefix on the token fields and the
//	           schema entry
//	key:"a b"  whole value (with *: and prefix) on the property's Exact field
//	key:*      FieldUserKeys, FieldSystemKeys hold key
//	tags:t     FieldTagsExact (with *: and prefix)
//	schema:f   FieldSchemaFields holds f, a.b, f:type or a.b:type (with *:
//	           and prefix)
//	schema:*   FieldHas holds "schema"
//	properties:k  as key:* (with *: and prefix on the key fields)
//	*          every document
//
// Compile fails only for an unknown scope or node type.
func Compile(q Q, opts Options) (blevequery.Query, error) {
	c := compiler{user: true, system: true}
	switch opts.Scope {
	case "":
	case ScopeUser:
		c.system = false
	case ScopeSystem:
		c.user = false
	default:
		return nil, semcat.Errorf(semcat.EINVALID, "scope: unknown scope '%s' (want user or system)", opts.Scope)
	}
	bq, err := c.compile(Simplify(q))
	if err != nil {
		return nil, err
	}
	if isNone(bq) {
		return bq, nil
	}
	return rescore(bq, 1/termScore, 0), nil
}

// compiler compiles one query for one scope.
type compiler struct {
	user, system bool
}

func (c *compiler) compile(q Q) (blevequery.Query, error) {
	var m match
	switch q := q.(type) {
	case *All:
		return rescore(blevequery.NewMatchAllQuery(), 0, termScore), nil
	case *Nothing:
		return blevequery.NewMatchNoneQuery(), nil
	case *Or:
		return c.or(q)
	case *And:
		return c.and(q)
	case *Not:
		child, err := c.compile(q.Child)
		if err != nil {
			return nil, err
		}
		return blevequery.NewBooleanQuery([]blevequery.Query{matchAllUnscored()}, nil, []blevequery.Query{child}), nil
	case *Optional:
		child, err := c.compile(q.Child)
		if err != nil {
			return nil, err
		}
		return blevequery.NewBooleanQuery([]blevequery.Query{matchAllUnscored()}, []blevequery.Query{child}, nil), nil
	case *Word:
		c.word(&m, q)
	case *Phrase:
		c.phrase(&m, q)
	case *KeyValue:
		c.keyValue(&m, q)
	case *KeyExists:
		c.keys(&m, wholeMatch, exact(q.Key))
	case *PropertyKey:
		c.keys(&m, wholeMatch, exact(q.Key))
		if q.Prefix {
			c.keys(&m, prefixMatch, prefix(q.Key))
		}
	case *Tag:
		m.term(wholeMatch, FieldTagsExact, exact(q.Name))
		if q.Prefix {
			m.prefix(prefixMatch, FieldTagsExact, prefix(q.Name))
		}
	case *SchemaField:
		if c.system {
			entry := exact(q.Path)
			if q.Type != "" {
				entry += ":" + exact(q.Type)
			}
			m.term(wholeMatch, FieldSchemaFields, entry)
			if q.Prefix {
				m.prefix(prefixMatch, FieldSchemaFields, entry)
			}
		}
	case *HasSchema:
		if c.system {
			m.term(wholeMatch, FieldHas, "schema")
		}
	default:
		return nil, fmt.Errorf("query: cannot compile %T", q)
	}
	return m.query(), nil
}

func (c *compiler) word(m *match, q *Word) {
	t := exact(q.Text)
	if c.system {
		m.term(nameMatch, FieldNameExact, t)
	}
	for _, f := range c.fields(FieldUserExact, FieldSystemExact) {
		m.term(wholeMatch, f, t)
	}
	tokenFields := c.fields(FieldUserValues, FieldSystemValues)
	if c.system {
		tokenFields = append(tokenFields, FieldSchemaFields)
	}
	for _, f := range tokenFields {
		m.term(tokenMatch, f, t)
		if q.Prefix {
			m.prefix(prefixMatch, f, prefix(q.Text))
		}
	}
}

func (c *compiler) phrase(m *match, q *Phrase) {
	t := exact(q.Text)
	whole := !q.Prefix || prefix(q.Text) == t // not "alpha *", which needs a word after alpha
	if c.system && whole {
		m.term(nameMatch, FieldNameExact, t)
	}
	for _, f := range c.fields(FieldUserExact, FieldSystemExact) {
		if whole {
			m.term(wholeMatch, f, t)
		}
		if q.Prefix {
			m.prefix(prefixMatch, f, prefix(q.Text))
		}
	}
}

func (c *compiler) keyValue(m *match, q *KeyValue) {
	key := strings.ToLower(q.Key) // as the indexer names property fields
	t := exact(q.Value)
	whole := !q.Prefix || prefix(q.Value) == t // as in phrase
	for _, f := range c.fields(UserPropertyExactPrefix+key, SystemPropertyExactPrefix+key) {
		if whole {
			m.term(wholeMatch, f, t)
		}
		if q.Prefix && q.Phrase {
			m.prefix(prefixMatch, f, prefix(q.Value))
		}
	}
	if q.Phrase {
		return
	}
	for _, f := range c.fields(UserPropertyPrefix+key, SystemPropertyPrefix+key) {
		m.term(tokenMatch, f, t)
		if q.Prefix {
			m.prefix(prefixMatch, f, prefix(q.Value))
		}
	}
	if c.system {
		entry := exact(q.Key) + ":" + t
		m.term(wholeMatch, FieldSchemaFields, entry)
		if q.Prefix {
			m.prefix(prefixMatch, FieldSchemaFields, entry)
		}
	}
}

// keys adds a clause for a property key on the key fields of the scope.
func (c *compiler) keys(m *match, k kind, key string) {
	for _, f := range c.fields(FieldUserKeys, FieldSystemKeys) {
		if k == prefixMatch {
			m.prefix(k, f, key)
		} else {
			m.term(k, f, key)
		}
	}
}

// fields returns the user field, the system field, or both, as the scope
// allows.
func (c *compiler) fields(user, system string) []string {
	var fs []string
	if c.user {
		fs = append(fs, user)
	}
	if c.system {
		fs = append(fs, system)
	}
	return fs
}

func (c *compiler) or(q *Or) (blevequery.Query, error) {
	var children []blevequery.Query
	for _, child := range q.Children {
		bq, err := c.compile(child)
		if err != nil {
			return nil, err
		}
		if !isNone(bq) {
			children = append(children, bq)
		}
	}
	if len(children) == 0 {
		return blevequery.NewMatchNoneQuery(), nil
	}
	return disjunction(children), nil
}

// and compiles an And into a Bleve boolean query: its positive children
// must match, its Optional children should (adding score), its Not
// children must not.
func (c *compiler) and(q *And) (blevequery.Query, error) {
	var must, should, mustNot []blevequery.Query
	for _, child := range q.Children {
		var err error
		var bq blevequery.Query
		switch child := child.(type) {
		case *Not:
			if bq, err = c.compile(child.Child); err == nil && !isNone(bq) {
				mustNot = append(mustNot, bq)
			}
		case *Optional:
			if bq, err = c.compile(child.Child); err == nil && !isNone(bq) {
				should = append(should, bq)
			}
		default:
			if bq, err = c.compile(child); err == nil {
				if isNone(bq) {
					return bq, nil // a required term that matches nothing
				}
				must = append(must, bq)
			}
		}
		if err != nil {
			return nil, err
		}
	}
	switch {
	case len(must) == 0:
		must = []blevequery.Query{matchAllUnscored()}
	case len(should) == 0 && len(mustNot) == 0:
		if len(must) == 1 {
			return must[0], nil
		}
		return blevequery.NewConjunctionQuery(must), nil
	}
	return blevequery.NewBooleanQuery(must, should, mustNot), nil
}

// matchAllUnscored matches every document and adds nothing to its score.
func matchAllUnscored() blevequery.Query {
	return rescore(blevequery.NewMatchAllQuery(), 0, 0)
}

func isNone(q blevequery.Query) bool {
	_, ok := q.(*blevequery.MatchNoneQuery)
	return ok
}

// exact is the term the analyzers index for a whole value, key, tag or
// schema entry equal to s: lower-cased, whitespace collapsed, trimmed.
func exact(s string) string {
	return analyzers.Normalize(s)
}

// prefix is the term a PrefixQuery for values starting with s looks for:
// exact(s), keeping one trailing space if s had any, since "alpha *" asks
// for a value with a word after "alpha".
func prefix(s string) string {
	t := analyzers.Normalize(s)
	if t != "" && strings.TrimRightFunc(s, unicode.IsSpace) != s {
		t += " "
	}
	return t
}
