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
	"github.com/semcat/semcat/searchdoc"
)

// facetFields maps facet names to their fields.
var facetFields = map[string]string{"type": searchdoc.FieldType, "catalog": searchdoc.FieldCatalog, "schema": searchdoc.FieldSchema, "tags": searchdoc.FieldTags, "owner": searchdoc.FieldOwner}

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
	set := func(vs []string) []string { return slices.Compact(slices.Sorted(slices.Values(vs))) }
	b, _ := json.Marshal([]any{req.Metalake, slices.Compact(types), set(withOne(req.Catalog, req.Catalogs)), set(withOne(req.Schema, req.Schemas)),
		slices.Compact(tags), req.Scope, set(req.Owners)})
	sum := sha256.Sum256(b)
	return base64.RawURLEncoding.EncodeToString(sum[:9])
}

// baseFilters are the filters of a search or suggestion in a metalake,
// restricted to types when any are given.
func baseFilters(metalake string, types []string) []bq.Query {
	filters := []bq.Query{filterTerm(searchdoc.FieldMetalake, metalake)}
	if len(types) > 0 {
		var ts []bq.Query
		for _, t := range types {
			ts = append(ts, filterTerm(searchdoc.FieldType, t))
		}
		filters = append(filters, bq.NewDisjunctionQuery(ts))
	}
	return filters
}

// withOne is values with one more in front, when it is not empty.
func withOne(one string, values []string) []string {
	if one == "" {
		return values
	}
	return append([]string{one}, values...)
}

// anyTerm is a filter on any of values of a keyword field, or nil for none.
func anyTerm(field string, values []string) bq.Query {
	values = slices.Compact(slices.Sorted(slices.Values(values)))
	switch len(values) {
	case 0:
		return nil
	case 1:
		return filterTerm(field, values[0])
	}
	ts := make([]bq.Query, len(values))
	for i, v := range values {
		ts[i] = filterTerm(field, v)
	}
	return bq.NewDisjunctionQuery(ts)
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
	// Filters of a facet (type, catalog, schema, owner) take several
	// values as alternatives; each facet's counts leave out its own filter
	// (multi-select faceting), so a chosen value does not hide the others.
	filters := []bq.Query{filterTerm(searchdoc.FieldMetalake, req.Metalake)}
	facetFilters := map[string]bq.Query{}
	for _, f := range []struct {
		facet  string
		values []string
	}{
		{"type", req.Types},
		{"catalog", withOne(req.Catalog, req.Catalogs)},
		{"schema", withOne(req.Schema, req.Schemas)},
		{"owner", req.Owners},
	} {
		if fq := anyTerm(facetFields[f.facet], f.values); fq != nil {
			facetFilters[f.facet] = fq
			filters = append(filters, fq)
		}
	}
	// A tag is a user or a system tag, as the scope allows; the facet
	// counts the same (SPEC §2.6). Every tag given must be present, so the
	// tags facet counts within the other tags chosen.
	tagFields := scopeFields(req.Scope, searchdoc.FieldTags, searchdoc.FieldSystemTags)
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
		creq.reads = Reads{}
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
			return nil, semcat.Errorf(semcat.EINVALID, "facets: unknown facet '%s' (want type, catalog, schema, tags or owner)", f)
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
		// A facet whose filter is set counts the hits of every other filter.
		for name, size := range creq.facets {
			own, ok := facetFilters[name]
			if !ok {
				continue
			}
			other := creq
			other.filters = slices.DeleteFunc(slices.Clone(filters), func(f bq.Query) bool { return f == own })
			other.facets = map[string]int{name: size}
			other.sort, other.limit, other.offset, other.after, other.reads = "name", 0, 0, nil, nil
			counted, err := collect(ctx, x.Columns(), idx, other)
			if err != nil {
				return err
			}
			res.facets[name] = counted.facets[name]
		}
		m := idx.Mapping()
		fieldAnalyzer = tokensOf(m.AnalyzerNamed(analyzers.AnalyzerSchemaField))
		return nil
	})
	if tc := (*TooComplexError)(nil); errors.As(err, &tc) {
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
		st, err := searchdoc.DecodePayload(h.stored)
		if err != nil {
			return nil, fmt.Errorf("search: document %s: %w", h.id, err)
		}
		ms := matches(leaves, st, fieldAnalyzer)
		clipSchemaProperty(st.Metadata.System.Properties)
		out.Results = append(out.Results, semcat.SearchHit{Entity: st.Entity, Score: h.score, Metadata: st.Metadata, Matches: ms})
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

// matches explains a hit: which keys (and for columns and fields which
// paths, by name or by comment) the query's terms (leaves) match, found by
// running the fields' analyzers over the entity's stored metadata. It needs
// no term locations, so neither the index nor the search carries them; a
// leaf the hit does not contain adds nothing.
//
// The answer is brief (SPEC §2.6): each key once (the system properties
// that repeat the name or the column list are the name's and the columns'
// matches), each column or field once (its name before its comment), the
// keys before the columns, at most semcat.MaxMatches of them and
// semcat.MaxMatchLength characters a value.
func matches(leaves []q.Leaf, st *searchdoc.Payload, fields func(string) []string) []semcat.Match {
	text := memoized(textTokens)
	// Values are not analyzed: ValueHas and ExactHas ask of a value, in
	// one pass, what its terms would answer. Schema entries are analyzed,
	// each once however many leaves look at it, and only when they can
	// hold the leaf at all (a table's field list is most of its metadata).
	fields = memoized(fields)
	squashed := memoized(squash)
	var leafText string // the current leaf's text, squashed
	could := func(v string) bool { return strings.Contains(squashed(v), leafText) }
	var keyed, columns []semcat.Match
	keyAt := map[string]int{}    // key → index in keyed
	columnAt := map[string]int{} // path → index in columns
	columnKey := "field"
	if st.Entity.Type == "table" {
		columnKey = "column"
	}
	add := func(key, value string) {
		switch key {
		case "entity-name":
			key = "name"
		case searchdoc.SchemaProperty:
			return // the columns' or fields' own matches say which
		}
		if i, ok := keyAt[key]; ok {
			if key == "tags" && !slices.Contains(strings.Split(keyed[i].Value, ", "), value) {
				keyed[i].Value += ", " + value
			}
			return
		}
		keyAt[key] = len(keyed)
		keyed = append(keyed, semcat.Match{Key: key, Value: value})
	}
	addColumn := func(path, in, value string) {
		if i, ok := columnAt[path]; ok {
			if in == "name" && columns[i].In != "name" {
				columns[i] = semcat.Match{Key: columnKey, Field: path, Value: value, In: in}
			}
			return
		}
		columnAt[path] = len(columns)
		columns = append(columns, semcat.Match{Key: columnKey, Field: path, Value: value, In: in})
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
		case field == searchdoc.FieldNameExact:
			if exactHas(st.Entity.Name) {
				add("name", st.Entity.Name)
			}
		case field == searchdoc.FieldUserValues:
			propMatches(user.Properties, "", false)
			tagMatches(user.Tags, false)
		case field == searchdoc.FieldUserExact:
			propMatches(user.Properties, "", true)
			tagMatches(user.Tags, true)
		case field == searchdoc.FieldSystemValues:
			propMatches(sys.Properties, "", false)
			tagMatches(sys.Tags, false)
		case field == searchdoc.FieldSystemExact:
			propMatches(sys.Properties, "", true)
			tagMatches(sys.Tags, true)
		case field == searchdoc.FieldTagsExact:
			tagMatches(user.Tags, true)
		case field == searchdoc.FieldSystemTagsExact:
			tagMatches(sys.Tags, true)
		case field == searchdoc.FieldPoliciesExact:
			if v, ok := sys.Properties[semcat.PoliciesProperty]; ok {
				for _, p := range strings.Split(v, ", ") {
					if exactHas(p) {
						add(semcat.PoliciesProperty, p)
					}
				}
			}
		case field == searchdoc.FieldUserKeys:
			keyMatches(user.Properties)
		case field == searchdoc.FieldSystemKeys:
			keyMatches(sys.Properties)
		case field == searchdoc.FieldName:
			if anyOf(analyzers.IdentifierParts(st.Entity.Name), is) {
				add("name", st.Entity.Name)
			}
		case field == searchdoc.FieldDescription:
			for _, key := range []string{"comment", "description"} {
				if v, ok := sys.Properties[key]; ok && could(v) && anyOf(text(v), is) {
					add(key, v)
				}
			}
		case field == searchdoc.FieldColumns:
			for _, f := range st.Fields {
				name := analyzers.SchemaFieldName(f)
				if could(name) && anyOf(text(name), is) {
					addColumn(schemaPath(f), "name", schemaPath(f))
				}
			}
			for _, c := range st.Comments {
				if could(c.Text) && anyOf(text(c.Text), is) {
					addColumn(c.Path, "comment", c.Text)
				}
			}
		case field == searchdoc.FieldSchemaFields:
			for _, f := range st.Fields {
				if could(f) && anyOf(fields(f), is) {
					addColumn(schemaPath(f), "name", schemaPath(f))
				}
			}
		case strings.HasPrefix(field, searchdoc.UserPropertyExactPrefix):
			propMatches(user.Properties, strings.TrimPrefix(field, searchdoc.UserPropertyExactPrefix), true)
		case strings.HasPrefix(field, searchdoc.UserPropertyPrefix):
			propMatches(user.Properties, strings.TrimPrefix(field, searchdoc.UserPropertyPrefix), false)
		case strings.HasPrefix(field, searchdoc.SystemPropertyExactPrefix):
			propMatches(sys.Properties, strings.TrimPrefix(field, searchdoc.SystemPropertyExactPrefix), true)
		case strings.HasPrefix(field, searchdoc.SystemPropertyPrefix):
			propMatches(sys.Properties, strings.TrimPrefix(field, searchdoc.SystemPropertyPrefix), false)
		}
	}
	// Columns matched by name first: a name says more than one of many
	// comments that share a word.
	sort.SliceStable(columns, func(i, j int) bool { return columns[i].In == "name" && columns[j].In != "name" })
	out := append(keyed, columns...)
	if out == nil {
		out = []semcat.Match{}
	}
	if len(out) > semcat.MaxMatches {
		out = out[:semcat.MaxMatches]
	}
	for i := range out {
		out[i].Field = clip(out[i].Field)
		out[i].Value = clip(out[i].Value)
	}
	return out
}

// MaxSchemaProperty is how many characters of the system property
// "schema" (a table's column list, a model's dataset records) a search
// result carries: a page of tables of a thousand columns stays tens of
// kilobytes (SPEC §2.6). The matches name the columns that matched; the
// object's metadata (GET …/metadata) and the table itself have them all.
const MaxSchemaProperty = 1024

// clipSchemaProperty cuts the "schema" system property to
// MaxSchemaProperty characters, after a whole column, ending in ", …".
func clipSchemaProperty(props map[string]string) {
	v, ok := props[searchdoc.SchemaProperty]
	if !ok || len(v) <= MaxSchemaProperty {
		return
	}
	cut := v[:MaxSchemaProperty-3]
	for !utf8.ValidString(cut) {
		cut = cut[:len(cut)-1]
	}
	if i := strings.LastIndex(cut, ", "); i > 0 {
		cut = cut[:i]
	}
	props[searchdoc.SchemaProperty] = cut + ", …"
}

// clip cuts s to semcat.MaxMatchLength characters, the last one an
// ellipsis when it was longer.
func clip(s string) string {
	if len(s) <= semcat.MaxMatchLength {
		return s
	}
	n := 0
	for i := range s {
		if n == semcat.MaxMatchLength-1 {
			return s[:i] + "…"
		}
		n++
	}
	return s
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
