package search

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	bq "github.com/blevesearch/bleve/v2/search/query"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/analyzers"
	q "github.com/semcat/semcat/query"
)

// facetFields maps facet names to their fields.
var facetFields = map[string]string{"type": q.FieldType, "catalog": q.FieldCatalog, "schema": q.FieldSchema, "tags": q.FieldTags}

// sortValues gives each sort the number of values its cursor carries: each
// order is total, since it ends in the sort key, whose identifier and type
// are unique in a metalake (relevance: score, key; name: key; created:
// creation time, key).
var sortValues = map[string]int{"relevance": 2, "name": 1, "-name": 1, "created": 2, "-created": 2}

// cursorState is what a cursor carries: the sort values of the last hit of
// the previous page, and what it was a cursor for.
type cursorState struct {
	After   []string `json:"a"`
	Sort    string   `json:"s"`
	Query   string   `json:"q"`
	Filters string   `json:"f"` // filtersKey
}

// filtersKey identifies a search's filters, so that a cursor is not
// reused under others, where it would start the page at an arbitrary
// point. Repeatable filters count as sets.
func filtersKey(req semcat.SearchRequest) string {
	types, tags := slices.Sorted(slices.Values(req.Types)), slices.Sorted(slices.Values(req.Tags))
	b, _ := json.Marshal([]any{req.Metalake, slices.Compact(types), req.Catalog, req.Schema, slices.Compact(tags), req.Scope})
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:9])
}

// baseFilters are the filters of a search or suggestion in a metalake,
// restricted to types when any are given.
func baseFilters(metalake string, types []string) []bq.Query {
	filters := []bq.Query{filterTerm(q.FieldMetalake, metalake)}
	if len(types) > 0 {
		var ts []bq.Query
		for _, t := range types {
			ts = append(ts, filterTerm(q.FieldType, t))
		}
		filters = append(filters, bq.NewDisjunctionQuery(ts))
	}
	return filters
}

func filterTerm(field, value string) bq.Query {
	t := bq.NewTermQuery(value)
	t.SetField(field)
	return t
}

// search runs a search over the index. The position of the answer is the
// index's position when the search started.
func search(ctx context.Context, x Index, req semcat.SearchRequest, visible bq.Query) (*semcat.SearchResult, error) {
	parsed, err := q.Parse(req.Query)
	if err != nil {
		return nil, semcat.Errorf(semcat.EINVALID, "query: %s", strings.TrimPrefix(err.Error(), "query: "))
	}
	plan, err := q.NewPlan(parsed, q.Options{Scope: req.Scope, Synonyms: synonymsFrom(ctx)})
	if err != nil {
		return nil, semcat.Errorf(semcat.EINVALID, "query: %s", strings.TrimPrefix(err.Error(), "query: "))
	}
	filters := baseFilters(req.Metalake, req.Types)
	if req.Catalog != "" {
		filters = append(filters, filterTerm(q.FieldCatalog, req.Catalog))
	}
	if req.Schema != "" {
		filters = append(filters, filterTerm(q.FieldSchema, req.Schema))
	}
	// A tag is a user or a system tag, as the scope allows; the facet
	// counts the same (SPEC §2.6).
	tagFields := scopeFields(req.Scope, q.FieldTags, q.FieldSystemTags)
	for _, t := range req.Tags {
		var either []bq.Query
		for _, f := range tagFields {
			either = append(either, filterTerm(f, t))
		}
		filters = append(filters, bq.NewDisjunctionQuery(either))
	}
	if visible != nil {
		filters = append(filters, visible)
	}

	sortName := req.Sort
	if sortName == "" {
		sortName = "relevance"
	}
	values, ok := sortValues[sortName]
	if !ok {
		return nil, semcat.Errorf(semcat.EINVALID, "sort: unknown sort '%s' (want relevance, name, -name, created or -created)", req.Sort)
	}
	creq := collectRequest{plan: plan, filters: filters, sort: sortName, limit: req.Limit, offset: req.Offset, tagFields: tagFields}
	if req.Profile {
		creq.reads = q.Reads{}
	}
	if req.Cursor != "" {
		cs, err := decodeCursorToken(req.Cursor)
		if err != nil || cs.Sort != sortName || cs.Query != req.Query || cs.Filters != filtersKey(req) || len(cs.After) != values {
			return nil, semcat.Errorf(semcat.EINVALID, "cursor: not a cursor of this search (it must come from the previous page of the same query, filters and sort)")
		}
		creq.offset = 0
		creq.after = cs.After
	}
	facetSize := req.FacetSize
	if facetSize <= 0 {
		facetSize = 10
	}
	for _, f := range req.Facets {
		if _, ok := facetFields[f]; !ok {
			return nil, semcat.Errorf(semcat.EINVALID, "facets: unknown facet '%s' (want type, catalog, schema or tags)", f)
		}
		if creq.facets == nil {
			creq.facets = map[string]int{}
		}
		creq.facets[f] = facetSize
	}

	position := x.Position()
	var res *collected
	var fieldAnalyzer func(string) []string
	err = x.Read(func(idx bleve.Index) error {
		var err error
		creq.prefetch = x.LargerThanMemory()
		res, err = collect(ctx, x.Columns(), idx, creq)
		if err != nil {
			return err
		}
		m := idx.Mapping()
		fieldAnalyzer = tokensOf(m.AnalyzerNamed(analyzers.AnalyzerSchemaField))
		return nil
	})
	if tc := (*q.TooComplexError)(nil); errors.As(err, &tc) {
		return nil, semcat.Errorf(semcat.EINVALID, "%s", tc.Error())
	} else if err != nil {
		return nil, fmt.Errorf("search: %w", err)
	}
	leaves := res.leaves
	out := &semcat.SearchResult{Total: res.total, Position: position, Results: make([]semcat.SearchHit, 0, len(res.hits))}
	if creq.reads != nil {
		out.Profile = &semcat.SearchProfile{Fields: creq.reads.Sorted()}
	}
	for _, h := range res.hits {
		st, err := DecodePayload(h.stored)
		if err != nil {
			return nil, fmt.Errorf("search: document %s: %w", h.id, err)
		}
		out.Results = append(out.Results, semcat.SearchHit{Entity: st.Entity, Score: h.score, Metadata: st.Metadata,
			Matches: matches(leaves, st, fieldAnalyzer)})
	}
	if len(req.Facets) > 0 {
		out.Facets = map[string][]semcat.FacetValue{}
		for name, counts := range res.facets {
			values := []semcat.FacetValue{}
			for _, c := range counts {
				values = append(values, semcat.FacetValue{Value: c.term, Count: c.count, Scope: c.scope})
			}
			out.Facets[name] = values
		}
	}
	pageEnd := uint64(req.Offset + len(res.hits))
	if req.Cursor != "" {
		pageEnd = 0 // unknown depth: decide by a full page
	}
	if len(res.hits) == req.Limit && req.Limit > 0 && (req.Cursor != "" || pageEnd < res.total) {
		after := res.hits[len(res.hits)-1].sort
		out.Cursor = encodeCursorToken(cursorState{After: after, Sort: sortName, Query: req.Query, Filters: filtersKey(req)})
	}
	return out, nil
}

// scopeFields returns the user field, the system field or both, as a
// search's scope allows.
func scopeFields(scope, user, system string) []string {
	switch scope {
	case q.ScopeUser:
		return []string{user}
	case q.ScopeSystem:
		return []string{system}
	}
	return []string{user, system}
}

func encodeCursorToken(c cursorState) string {
	b, _ := json.Marshal(c)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeCursorToken(s string) (cursorState, error) {
	var c cursorState
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return c, err
	}
	err = json.Unmarshal(b, &c)
	return c, err
}

// tokensOf runs an analyzer over a string.
func tokensOf(a analysis.Analyzer) func(string) []string {
	return func(s string) []string {
		if a == nil {
			return nil
		}
		var out []string
		for _, t := range a.Analyze([]byte(s)) {
			out = append(out, string(t.Term))
		}
		return out
	}
}

// matches explains a hit: which keys (and for schemas which field paths)
// the query's terms (leaves) match, found by running the fields' analyzers
// over the entity's stored metadata. It needs no term locations, so neither
// the index nor the search carries them; a leaf the hit does not contain
// adds nothing.
func matches(leaves []q.Leaf, st *Payload, fields func(string) []string) []semcat.Match {
	text := memoized(textTokens)
	// Values are not analyzed: ValueHas and ExactHas ask of a value, in
	// one pass, what its terms would answer. Schema entries are analyzed,
	// each once however many leaves look at it, and only when they can
	// hold the leaf at all (a table's field list is most of its metadata).
	fields = memoized(fields)
	squashed := memoized(squash)
	var leafText string // the current leaf's text, squashed
	could := func(v string) bool { return strings.Contains(squashed(v), leafText) }
	out := []semcat.Match{}
	seen := map[semcat.Match]bool{}
	add := func(key, value string) {
		m := semcat.Match{Key: key, Value: value}
		if !seen[m] {
			seen[m] = true
			out = append(out, m)
		}
	}
	anyOf := func(tokens []string, is func(string) bool) bool {
		for _, t := range tokens {
			if is(t) {
				return true
			}
		}
		return false
	}
	var leaf q.Leaf // the current leaf
	valueHas := func(v string) bool { return analyzers.ValueHas(v, leaf.Text, leaf.Prefix) }
	exactHas := func(v string) bool { return analyzers.ExactHas(v, leaf.Text, leaf.Prefix) }
	propMatches := func(props map[string]string, key string, exact bool) {
		for _, k := range sortedKeys(props) {
			v := props[k]
			if key != "" && !strings.EqualFold(k, key) {
				continue
			}
			if exact && exactHas(v) || !exact && valueHas(v) {
				add(k, v)
			}
		}
	}
	// Keys are indexed lower-cased, by AnalyzerExact (Document).
	keyMatches := func(props map[string]string) {
		for _, k := range sortedKeys(props) {
			if exactHas(strings.ToLower(k)) {
				add(k, props[k])
			}
		}
	}
	tagMatches := func(tags []string, exact bool) {
		for _, t := range tags {
			if exact && exactHas(t) || !exact && valueHas(t) {
				add("tags", t)
			}
		}
	}
	sys, user := st.Metadata.System, st.Metadata.User
	sorted := append([]q.Leaf(nil), leaves...)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].Field < sorted[j].Field })
	for _, leaf = range sorted {
		leafText = squash(leaf.Text)
		is := func(t string) bool { return t == leaf.Text }
		if leaf.Prefix {
			is = func(t string) bool { return strings.HasPrefix(t, leaf.Text) }
		}
		field := leaf.Field
		switch {
		case field == q.FieldNameExact:
			if exactHas(st.Entity.Name) {
				add("name", st.Entity.Name)
			}
		case field == q.FieldUserValues:
			propMatches(user.Properties, "", false)
			tagMatches(user.Tags, false)
		case field == q.FieldUserExact:
			propMatches(user.Properties, "", true)
			tagMatches(user.Tags, true)
		case field == q.FieldSystemValues:
			propMatches(sys.Properties, "", false)
			tagMatches(sys.Tags, false)
		case field == q.FieldSystemExact:
			propMatches(sys.Properties, "", true)
			tagMatches(sys.Tags, true)
		case field == q.FieldTagsExact:
			tagMatches(user.Tags, true)
		case field == q.FieldSystemTagsExact:
			tagMatches(sys.Tags, true)
		case field == q.FieldPoliciesExact:
			if v, ok := sys.Properties[semcat.PoliciesProperty]; ok {
				for _, p := range strings.Split(v, ", ") {
					if exactHas(p) {
						add(semcat.PoliciesProperty, p)
					}
				}
			}
		case field == q.FieldUserKeys:
			keyMatches(user.Properties)
		case field == q.FieldSystemKeys:
			keyMatches(sys.Properties)
		case field == q.FieldName:
			if anyOf(analyzers.IdentifierParts(st.Entity.Name), is) {
				add("name", st.Entity.Name)
			}
		case field == q.FieldDescription:
			for _, key := range []string{"comment", "description"} {
				if v, ok := sys.Properties[key]; ok && could(v) && anyOf(text(v), is) {
					add(key, v)
				}
			}
		case field == q.FieldColumns:
			for _, f := range st.Fields {
				name := analyzers.SchemaFieldName(f)
				if could(name) && anyOf(text(name), is) {
					add("schema", schemaPath(f))
				}
			}
			for _, c := range st.Comments {
				if could(c.Text) && anyOf(text(c.Text), is) {
					add("schema", c.Path)
				}
			}
		case field == q.FieldSchemaFields:
			for _, f := range st.Fields {
				if could(f) && anyOf(fields(f), is) {
					add("schema", schemaPath(f))
				}
			}
		case strings.HasPrefix(field, q.UserPropertyExactPrefix):
			propMatches(user.Properties, strings.TrimPrefix(field, q.UserPropertyExactPrefix), true)
		case strings.HasPrefix(field, q.UserPropertyPrefix):
			propMatches(user.Properties, strings.TrimPrefix(field, q.UserPropertyPrefix), false)
		case strings.HasPrefix(field, q.SystemPropertyExactPrefix):
			propMatches(sys.Properties, strings.TrimPrefix(field, q.SystemPropertyExactPrefix), true)
		case strings.HasPrefix(field, q.SystemPropertyPrefix):
			propMatches(sys.Properties, strings.TrimPrefix(field, q.SystemPropertyPrefix), false)
		}
	}
	return out
}

// schemaPath is a schema entry's dotted path, without its type.
func schemaPath(entry string) string {
	if i := strings.LastIndexByte(entry, ':'); i >= 0 {
		return entry[:i]
	}
	return entry
}

// textTokens is what AnalyzerText makes of s.
var textTokens = func() func(string) []string {
	a, err := registry.NewCache().AnalyzerNamed(analyzers.AnalyzerText)
	if err != nil {
		panic(err)
	}
	return tokensOf(a)
}()

// squash is s lower-cased without whitespace. Every term the analyzers
// make of s (a token, a part, the whole value, a schema entry's name, path
// or name:type), squashed, is a substring of squash(s), and so is a prefix
// of such a term: a leaf whose squashed text is not in squash(s) cannot
// match s.
func squash(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf { // ASCII, most metadata
			i++
			switch {
			case c == ' ' || '\t' <= c && c <= '\r':
			case 'A' <= c && c <= 'Z':
				b = append(b, c+'a'-'A')
			default:
				b = append(b, c)
			}
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		if !unicode.IsSpace(r) {
			b = utf8.AppendRune(b, unicode.ToLower(r))
		}
	}
	return string(b)
}

// memoized returns f, remembering its answer for each string.
func memoized[T any](f func(string) T) func(string) T {
	seen := map[string]T{}
	return func(s string) T {
		v, ok := seen[s]
		if !ok {
			v = f(s)
			seen[s] = v
		}
		return v
	}
}

func sortedKeys(m map[string]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
