package mcpserver

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/semcat/semcat"
)

// Tools for an agent to read what it found (SPEC §2.8): one entity, the
// children of a namespace, and type-ahead.
const (
	ToolGetEntity    = "get_entity"
	ToolListEntities = "list_entities"
	ToolSuggest      = "suggest"
)

// Limits of list_entities and suggest: the REST API's suggest limits, and
// pages of a listing.
const (
	DefaultListLimit    = 100
	MaxListLimit        = 1000
	DefaultSuggestLimit = 10
	MaxSuggestLimit     = 100
	MaxPrefixLength     = 128
)

// entityTypes are the types get_entity and list_entities know.
var entityTypes = []string{"catalog", "schema", "table", "semantic_model", "metric"}

// EntityArgs are the arguments of get_entity.
type EntityArgs struct {
	Metalake string `json:"metalake,omitempty" jsonschema:"the metalake; omit to use the server's default metalake"`
	Type     string `json:"type" jsonschema:"the entity's type"`
	FullName string `json:"fullName" jsonschema:"the entity's dotted name below the metalake: catalog, catalog.schema, catalog.schema.table, catalog.schema.model or catalog.schema.model.metric (a search result's namespace without the metalake, and its name)"`
	Offset   int    `json:"offset,omitempty" jsonschema:"for a table, the first column to return; for a semantic model, the first metric: the nextOffset of a result that did not hold them all"`
}

// EntityOutput is the result of get_entity.
type EntityOutput struct {
	Type      string   `json:"type" jsonschema:"the entity's type"`
	Namespace []string `json:"namespace" jsonschema:"the entity's namespace, from the metalake down"`
	Name      string   `json:"name" jsonschema:"the entity's name"`
	// Entity is the entity as the REST API's load answers it: a catalog,
	// schema or table (with its columns and their comments) as GET …
	// answers it, a semantic model with its definition (datasets,
	// relationships, metrics), or a metric as its model defines it.
	Entity json.RawMessage `json:"entity" jsonschema:"the entity as the REST API answers it, with its properties (and a table's columns and comments, a model's datasets, relationships and metrics)"`
	Tags   []string        `json:"tags" jsonschema:"the entity's tags, its own and those it inherits from its schema and catalog (none for a metric)"`
	// A result holds at most MaxResultBytes: a table's columns or a
	// model's metrics that do not fit are left for the next call.
	Part       string `json:"part,omitempty" jsonschema:"present when the entity is given in parts: columns (a table's) or metrics (a semantic model's)"`
	Total      int    `json:"total,omitempty" jsonschema:"with part: how many columns or metrics the entity has"`
	NextOffset int    `json:"nextOffset,omitempty" jsonschema:"present when more columns or metrics follow: pass it as offset for the next part"`
}

// ListArgs are the arguments of list_entities.
type ListArgs struct {
	Metalake  string `json:"metalake,omitempty" jsonschema:"the metalake; omit to use the server's default metalake"`
	Type      string `json:"type" jsonschema:"the type of the children to list"`
	Namespace string `json:"namespace,omitempty" jsonschema:"the parent, dotted, below the metalake: empty for catalogs, catalog for schemas, catalog.schema for tables and semantic models, catalog.schema.model for metrics"`
	Limit     int    `json:"limit,omitempty" jsonschema:"children per page"`
	Offset    int    `json:"offset,omitempty" jsonschema:"children to skip"`
}

// ListOutput is the result of list_entities.
type ListOutput struct {
	Identifiers []semcat.NameIdentifier `json:"identifiers" jsonschema:"this page of children, sorted by name; namespace is the parent's, from the metalake down"`
	Total       int                     `json:"total" jsonschema:"how many children there are"`
	NextOffset  int                     `json:"nextOffset,omitempty" jsonschema:"present when more children follow: pass it as offset for the next page"`
}

// SuggestArgs are the arguments of suggest.
type SuggestArgs struct {
	Metalake string   `json:"metalake,omitempty" jsonschema:"the metalake; omit to use the server's default metalake"`
	Prefix   string   `json:"prefix" jsonschema:"what was typed: entities whose name, or a part of it, starts with it (any letter case)"`
	Type     []string `json:"type,omitempty" jsonschema:"only entities of these types (the REST parameter type)"`
	Types    []string `json:"types,omitempty" jsonschema:"deprecated: the old name of type, still accepted"`
	Limit    int      `json:"limit,omitempty" jsonschema:"how many suggestions"`
}

// SuggestOutput is the result of suggest: the shape of GET …/suggest
// without the code.
type SuggestOutput struct {
	Suggestions []semcat.Suggestion `json:"suggestions" jsonschema:"the suggestions, best first; highlight is the name as HTML with the match in <b>"`
}

func (a EntityArgs) identifier() []string {
	return append([]string{a.Metalake}, strings.Split(a.FullName, ".")...)
}
func (a ListArgs) identifier() []string { return []string{a.Metalake} }

// The REST operations get_entity and list_entities stand for, by type (a
// metric is read from its model).
func (a EntityArgs) operation() string {
	return map[string]string{"catalog": "loadCatalog", "schema": "loadSchema", "table": "loadTable",
		"semantic_model": "loadSemanticModel", "metric": "loadSemanticModel"}[a.Type]
}
func (a ListArgs) operation() string {
	return map[string]string{"catalog": "listCatalogs", "schema": "listSchemas", "table": "listTables",
		"semantic_model": "listSemanticModels", "metric": "loadSemanticModel"}[a.Type]
}
func (a SuggestArgs) identifier() []string { return []string{a.Metalake} }
func (o ListOutput) count() int            { return len(o.Identifiers) }
func (o SuggestOutput) count() int         { return len(o.Suggestions) }

// parts splits a dotted name below the metalake into n names, each valid.
// A metric's name, the last part of its dotted name, is a name inside a
// definition: any non-empty text, dots included (SPEC §2.10).
func parts(field, dotted string, n int, what string) ([]string, error) {
	ps := strings.SplitN(dotted, ".", n)
	if dotted == "" || len(ps) != n {
		return nil, semcat.Errorf(semcat.EINVALID, "%s: %s is named by %d dotted parts, got '%s'", field, what, n, dotted)
	}
	for i, p := range ps {
		if what == "a metric" && i == n-1 {
			if p == "" {
				return nil, semcat.Errorf(semcat.EINVALID, "%s: the metric's name is empty", field)
			}
			continue
		}
		if err := semcat.ValidateName(field, p); err != nil {
			return nil, err
		}
	}
	return ps, nil
}

// depth is how many dotted parts name an entity of each type below the
// metalake.
var depth = map[string]int{"catalog": 1, "schema": 2, "table": 3, "semantic_model": 3, "metric": 4}

// getEntity is get_entity: the load the REST API answers for the entity,
// and its tags.
func (t *toolset) getEntity(ctx context.Context, in EntityArgs) (EntityOutput, error) {
	metalake, err := t.metalakeOf(in.Metalake)
	if err != nil {
		return EntityOutput{}, err
	}
	n, ok := depth[in.Type]
	if !ok {
		return EntityOutput{}, semcat.Errorf(semcat.EINVALID, "type: unknown type '%s' (want catalog, schema, table, semantic_model or metric)", in.Type)
	}
	ps, err := parts("fullName", in.FullName, n, "a "+in.Type)
	if err != nil {
		return EntityOutput{}, err
	}
	out := EntityOutput{Type: in.Type, Namespace: append([]string{metalake}, ps[:n-1]...), Name: ps[n-1], Tags: []string{}}
	ns := semcat.Namespace{Metalake: metalake}
	if n >= 2 {
		ns.Catalog = ps[0]
	}
	if n >= 3 {
		ns.Schema = ps[1]
	}
	var entity any
	switch in.Type {
	case "catalog":
		entity, err = t.svc.Catalogs.GetCatalog(ctx, metalake, ps[0])
	case "schema":
		entity, err = t.svc.Schemas.GetSchema(ctx, ns, ps[1])
	case "table":
		entity, err = t.svc.Tables.GetTable(ctx, ns, ps[2])
	case "semantic_model":
		entity, err = t.svc.Models.GetSemanticModel(ctx, ns, ps[2])
	case "metric":
		var m *semcat.SemanticModel
		if m, err = t.svc.Models.GetSemanticModel(ctx, ns, ps[2]); err == nil {
			i := slices.IndexFunc(m.Definition.Metrics, func(x semcat.Metric) bool { return x.Name == ps[3] })
			if i < 0 {
				return EntityOutput{}, semcat.NotFound(semcat.KindMetric, "metric '%s' of semantic model '%s.%s' does not exist", ps[3], metalake, strings.Join(ps[:3], "."))
			}
			entity = m.Definition.Metrics[i]
		}
	}
	if err != nil {
		return EntityOutput{}, err
	}
	if in.Type != "metric" {
		kind := semcat.EntityKind(in.Type)
		if out.Tags, err = t.svc.Tags.ListObjectTags(ctx, metalake, semcat.ObjectRef{Type: kind, FullName: in.FullName}); err != nil {
			return EntityOutput{}, err
		}
	}
	switch e := entity.(type) {
	case *semcat.Table:
		return entityPart(out, in.Offset, "columns", e.Columns, func(cols []semcat.Column) any {
			part := *e
			part.Columns = cols
			return &part
		})
	case *semcat.SemanticModel:
		return entityPart(out, in.Offset, "metrics", e.Definition.Metrics, func(ms []semcat.Metric) any {
			part := *e
			part.Definition.Metrics = ms
			return &part
		})
	}
	if in.Offset != 0 {
		return EntityOutput{}, semcat.Errorf(semcat.EINVALID, "offset: only a table's columns or a semantic model's metrics come in parts")
	}
	if out.Entity, err = json.Marshal(entity); err != nil {
		return EntityOutput{}, err
	}
	return out, nil
}

// entityPart is out with the entity with as many of its items (a table's
// columns, a model's metrics) from offset as fit in one result; with is
// the entity holding the given items. An entity that fits whole is given
// whole, with no part.
func entityPart[T any](out EntityOutput, offset int, part string, items []T, with func([]T) any) (EntityOutput, error) {
	if offset < 0 || offset > len(items) || offset > 0 && offset == len(items) {
		return EntityOutput{}, semcat.Errorf(semcat.EINVALID, "offset: the entity has %d %s, got %d", len(items), part, offset)
	}
	whole, err := json.Marshal(with(items))
	if err != nil {
		return EntityOutput{}, err
	}
	if offset == 0 && fits(out, whole) {
		out.Entity = whole
		return out, nil
	}
	out.Part, out.Total = part, len(items)
	empty, err := json.Marshal(with([]T{}))
	if err != nil {
		return EntityOutput{}, err
	}
	out.Entity = empty
	shell, err := json.Marshal(out)
	if err != nil {
		return EntityOutput{}, err
	}
	n, err := fitting(items[offset:], len(shell)+len(`,"nextOffset":0000000`))
	if err != nil {
		return EntityOutput{}, err
	}
	if out.Entity, err = json.Marshal(with(items[offset : offset+n])); err != nil {
		return EntityOutput{}, err
	}
	if offset+n < len(items) {
		out.NextOffset = offset + n
	}
	return out, nil
}

// fits reports whether out with entity fits in one result, which holds the
// output twice (text and structured content).
func fits(out EntityOutput, entity json.RawMessage) bool {
	out.Entity = entity
	b, err := json.Marshal(out)
	if err != nil {
		return false
	}
	quoted, err := json.Marshal(string(b))
	return err == nil && resultOverhead+len(b)+len(quoted) <= MaxResultBytes
}

// parentDepth is how many dotted parts name the parent of each type's
// entities below the metalake.
var parentDepth = map[string]int{"catalog": 0, "schema": 1, "table": 2, "semantic_model": 2, "metric": 3}

// listEntities is list_entities: the REST API's listing of the parent's
// children of a type, one page of it.
func (t *toolset) listEntities(ctx context.Context, in ListArgs) (ListOutput, error) {
	metalake, err := t.metalakeOf(in.Metalake)
	if err != nil {
		return ListOutput{}, err
	}
	n, ok := parentDepth[in.Type]
	if !ok {
		return ListOutput{}, semcat.Errorf(semcat.EINVALID, "type: unknown type '%s' (want catalog, schema, table, semantic_model or metric)", in.Type)
	}
	var ps []string
	if n == 0 {
		if in.Namespace != "" {
			return ListOutput{}, semcat.Errorf(semcat.EINVALID, "namespace: catalogs are listed with no namespace, got '%s'", in.Namespace)
		}
	} else if ps, err = parts("namespace", in.Namespace, n, "the parent of a "+in.Type); err != nil {
		return ListOutput{}, err
	}
	limit := in.Limit
	if limit == 0 {
		limit = DefaultListLimit
	} else if limit < 1 || limit > MaxListLimit {
		return ListOutput{}, semcat.Errorf(semcat.EINVALID, "limit: must be a whole number from 1 to %d, got %d", MaxListLimit, limit)
	}
	if in.Offset < 0 {
		return ListOutput{}, semcat.Errorf(semcat.EINVALID, "offset: must not be negative, got %d", in.Offset)
	}
	ns := semcat.Namespace{Metalake: metalake}
	if n >= 1 {
		ns.Catalog = ps[0]
	}
	if n >= 2 {
		ns.Schema = ps[1]
	}
	var names []string
	switch in.Type {
	case "catalog":
		var cs []*semcat.Catalog
		if cs, err = t.svc.Catalogs.ListCatalogs(ctx, metalake); err == nil {
			for _, c := range cs {
				names = append(names, c.Name)
			}
		}
	case "schema":
		names, err = t.svc.Schemas.ListSchemas(ctx, ns)
	case "table":
		names, err = t.svc.Tables.ListTables(ctx, ns)
	case "semantic_model":
		names, err = t.svc.Models.ListSemanticModels(ctx, ns)
	case "metric":
		var m *semcat.SemanticModel
		if m, err = t.svc.Models.GetSemanticModel(ctx, ns, ps[2]); err == nil {
			for _, x := range m.Definition.Metrics {
				names = append(names, x.Name)
			}
			slices.Sort(names)
		}
	}
	if err != nil {
		return ListOutput{}, err
	}
	parent := append([]string{metalake}, ps...)
	out := ListOutput{Identifiers: []semcat.NameIdentifier{}, Total: len(names)}
	for _, name := range names[min(in.Offset, len(names)):min(in.Offset+limit, len(names))] {
		out.Identifiers = append(out.Identifiers, semcat.NameIdentifier{Namespace: slices.Clone(parent), Name: name})
	}
	// At most MaxResultBytes a result: fewer, and nextOffset for the rest.
	fit, err := fitting(out.Identifiers, len(`{"identifiers":[],"total":0,"nextOffset":0}`)+40)
	if err != nil {
		return ListOutput{}, err
	}
	out.Identifiers = out.Identifiers[:fit]
	if in.Offset+fit < len(names) {
		out.NextOffset = in.Offset + fit
	}
	return out, nil
}

// suggest is suggest: one type-ahead call of the search service.
func (t *toolset) suggest(ctx context.Context, in SuggestArgs) (SuggestOutput, error) {
	req := semcat.SuggestRequest{Prefix: in.Prefix, Limit: in.Limit}
	var err error
	if req.Metalake, err = t.metalakeOf(in.Metalake); err != nil {
		return SuggestOutput{}, err
	}
	if n := len([]rune(req.Prefix)); n < 1 || n > MaxPrefixLength || strings.TrimSpace(req.Prefix) == "" {
		return SuggestOutput{}, semcat.Errorf(semcat.EINVALID, "prefix: must be 1-%d characters, not blank", MaxPrefixLength)
	}
	if req.Types, err = typesArg(append(slices.Clone(in.Type), in.Types...)); err != nil {
		return SuggestOutput{}, err
	}
	if req.Limit == 0 {
		req.Limit = DefaultSuggestLimit
	} else if req.Limit < 1 || req.Limit > MaxSuggestLimit {
		return SuggestOutput{}, semcat.Errorf(semcat.EINVALID, "limit: must be a whole number from 1 to %d, got %d", MaxSuggestLimit, req.Limit)
	}
	res, err := t.svc.Search.Suggest(ctx, req)
	if err != nil {
		return SuggestOutput{}, err
	}
	out := SuggestOutput{Suggestions: res.Suggestions}
	if out.Suggestions == nil {
		out.Suggestions = []semcat.Suggestion{}
	}
	return out, nil
}

func entityArgsSchema(required bool) any {
	s := inputSchema[EntityArgs]()
	s.Properties["type"].Enum = anys(entityTypes)
	requireMetalake(s, required)
	return s
}

func listArgsSchema(required bool) any {
	s := inputSchema[ListArgs]()
	s.Properties["type"].Enum = anys(entityTypes)
	setRange(s.Properties["limit"], 1, MaxListLimit, DefaultListLimit)
	s.Properties["offset"].Minimum = new(float64)
	requireMetalake(s, required)
	return s
}

func suggestArgsSchema(required bool) any {
	s := inputSchema[SuggestArgs]()
	s.Properties["type"].Items.Enum = anys(searchTypes)
	s.Properties["types"].Items.Enum = anys(searchTypes)
	min, max := 1, MaxPrefixLength
	s.Properties["prefix"].MinLength, s.Properties["prefix"].MaxLength = &min, &max
	setRange(s.Properties["limit"], 1, MaxSuggestLimit, DefaultSuggestLimit)
	requireMetalake(s, required)
	return s
}
