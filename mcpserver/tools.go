package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"reflect"
	"runtime/debug"
	"slices"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
)

// Tool names.
const (
	ToolListMetrics     = "list_metrics"
	ToolListMetricInfos = "list_metric_infos"
	ToolSearch          = "search"
)

// Search limits: the REST API's (SPEC §2.6).
const (
	DefaultSearchLimit = 20
	MaxSearchLimit     = 1000
	MaxSearchOffset    = 10000
	DefaultFacetSize   = 10
	MaxFacetSize       = 1000
)

var (
	searchTypes  = []string{"catalog", "schema", "table", "semantic_model", "metric"}
	searchScopes = []string{"user", "system"}
	searchSorts  = []string{"relevance", "name", "-name", "created", "-created"}
	searchFacets = []string{"type", "catalog", "schema", "tags", "owner"}
)

// SchemaArgs are the arguments of list_metrics and list_metric_infos: the
// schema, and the filters of GET …/semantic-model-metrics (SPEC §2.8).
type SchemaArgs struct {
	Metalake string   `json:"metalake,omitempty" jsonschema:"the metalake; omit to use the server's default metalake"`
	Catalog  string   `json:"catalog" jsonschema:"the catalog (a relational catalog)"`
	Schema   string   `json:"schema" jsonschema:"the schema whose semantic models' metrics are listed"`
	Names    []string `json:"names,omitempty" jsonschema:"only the metrics of these names (of any model of the schema)"`
	Query    string   `json:"query,omitempty" jsonschema:"only the metrics this search query matches among the schema's metrics, best first (the query language of search)"`
	Limit    int      `json:"limit,omitempty" jsonschema:"at most this many metrics; a result also ends before 64 KB, with a cursor for the rest"`
	Cursor   string   `json:"cursor,omitempty" jsonschema:"the cursor of the previous result (same other arguments), for the metrics after it"`
}

// MetricIdentifiers is the result of list_metrics: the shape of
// GET .../semantic-model-metrics without the code.
type MetricIdentifiers struct {
	Identifiers []semcat.NameIdentifier `json:"identifiers" jsonschema:"the metrics, sorted by model then metric name (best first with a query); namespace is [metalake, catalog, schema, model]"`
	Cursor      string                  `json:"cursor,omitempty" jsonschema:"present when more metrics follow: pass it as cursor, with the same other arguments, for the next page"`
}

// MetricInfo is one metric with its full namespace and its definition as
// stored.
type MetricInfo struct {
	Namespace []string        `json:"namespace" jsonschema:"[metalake, catalog, schema, model]"`
	Metric    json.RawMessage `json:"metric" jsonschema:"the complete metric definition, as stored"`
}

// MetricInfos is the result of list_metric_infos: the shape of
// GET .../semantic-model-metrics?details=true without the code.
type MetricInfos struct {
	Metrics []MetricInfo `json:"metrics" jsonschema:"the metrics with their definitions, sorted by model then metric name (best first with a query)"`
	Cursor  string       `json:"cursor,omitempty" jsonschema:"present when more metrics follow: pass it as cursor, with the same other arguments, for the next page"`
}

// SearchArgs are the arguments of search: the query and the filters of SPEC
// §2.6.
type SearchArgs struct {
	Metalake string   `json:"metalake,omitempty" jsonschema:"the metalake; omit to use the server's default metalake"`
	Query    string   `json:"query" jsonschema:"the query: words, \"phrases\", prefix*, key:value, tags:t, schema:field, field:type, schema:a.b, +required, -excluded, or * for everything"`
	Type     []string `json:"type,omitempty" jsonschema:"only entities of these types (the REST parameter type)"`
	Types    []string `json:"types,omitempty" jsonschema:"deprecated: the old name of type, still accepted"`
	// Catalog, Schema and Owner take one value or several, as the REST
	// parameters repeat (SPEC §2.6).
	Catalog   stringList `json:"catalog,omitempty" jsonschema:"only entities in this catalog, or in any of these catalogs"`
	Schema    stringList `json:"schema,omitempty" jsonschema:"only entities in this schema, or in any of these schemas"`
	Owner     stringList `json:"owner,omitempty" jsonschema:"only entities with this owner, or with any of these owners (a user or group name)"`
	Tag       []string   `json:"tag,omitempty" jsonschema:"only entities that have all these tags (the REST parameter tag)"`
	Tags      []string   `json:"tags,omitempty" jsonschema:"deprecated: the old name of tag, still accepted"`
	Scope     string     `json:"scope,omitempty" jsonschema:"match only user metadata or only system metadata; default both"`
	Sort      string     `json:"sort,omitempty" jsonschema:"the order of results; default relevance"`
	Limit     int        `json:"limit,omitempty" jsonschema:"results per page"`
	Offset    int        `json:"offset,omitempty" jsonschema:"results to skip; cannot be combined with cursor"`
	Cursor    string     `json:"cursor,omitempty" jsonschema:"the cursor of the previous page, to get the next one"`
	Facets    []string   `json:"facets,omitempty" jsonschema:"facets to count"`
	FacetSize int        `json:"facetSize,omitempty" jsonschema:"values per facet"`
	// MinPosition and WaitMs are the REST API's (SPEC §5.6).
	MinPosition string `json:"minPosition,omitempty" jsonschema:"a write's position (X-Semcat-Position): answer only once the search index covers that write"`
	WaitMs      int    `json:"waitMs,omitempty" jsonschema:"how long to wait for minPosition, in milliseconds"`
}

// stringList is an argument that takes one string or a list of them.
type stringList []string

func (l *stringList) UnmarshalJSON(b []byte) error {
	var one string
	if err := json.Unmarshal(b, &one); err == nil {
		*l = stringList{one}
		return nil
	}
	var many []string
	if err := json.Unmarshal(b, &many); err != nil {
		return err
	}
	*l = many
	return nil
}

// SearchOutput is the result of search: the shape of GET .../search without
// the code.
type SearchOutput struct {
	Total    uint64                         `json:"total" jsonschema:"how many entities match (only those the caller may see)"`
	Position string                         `json:"position,omitempty" jsonschema:"how far the search index has applied writes"`
	Results  []semcat.SearchHit             `json:"results" jsonschema:"this page of results"`
	Facets   map[string][]semcat.FacetValue `json:"facets,omitempty" jsonschema:"the requested facets: values with counts"`
	Cursor   string                         `json:"cursor,omitempty" jsonschema:"present when more results follow: pass it as cursor for the next page"`
}

// toolset holds what the tool handlers need.
type toolset struct {
	svc      Services
	metalake string
	timeout  time.Duration
	logger   *slog.Logger
	events   func(semcat.Event)
}

func newToolset(svc Services, cfg Config) *toolset {
	t := &toolset{svc: svc, metalake: cfg.DefaultMetalake, timeout: cfg.CallTimeout, logger: loggerOf(cfg), events: cfg.Events}
	if t.timeout <= 0 {
		t.timeout = DefaultCallTimeout
	}
	return t
}

// readOnly are the annotations of every tool.
func readOnly(title string) *mcp.ToolAnnotations {
	no := false
	return &mcp.ToolAnnotations{Title: title, ReadOnlyHint: true, IdempotentHint: true, DestructiveHint: &no, OpenWorldHint: &no}
}

// register adds the tools, and nothing else, to server. Their metalake
// argument is required unless the server has a default metalake.
func (t *toolset) register(server *mcp.Server) {
	need := t.metalake == ""
	mcp.AddTool(server, &mcp.Tool{
		Name:         ToolListMetrics,
		Description:  "List the metrics of every semantic model of a schema in one call, as identifiers: namespace [metalake, catalog, schema, model] and metric name, sorted by model then metric name.",
		Annotations:  readOnly("List a schema's metrics"),
		InputSchema:  schemaArgsSchema(need),
		OutputSchema: outputSchema[MetricIdentifiers](),
	}, handle(t, ToolListMetrics, t.listMetrics))
	mcp.AddTool(server, &mcp.Tool{
		Name:         ToolListMetricInfos,
		Description:  "List the metrics of every semantic model of a schema in one call, with their complete definitions: namespace [metalake, catalog, schema, model] and the metric as stored, sorted by model then metric name.",
		Annotations:  readOnly("List a schema's metrics with definitions"),
		InputSchema:  schemaArgsSchema(need),
		OutputSchema: outputSchema[MetricInfos](),
	}, handle(t, ToolListMetricInfos, t.listMetricInfos))
	mcp.AddTool(server, &mcp.Tool{
		Name:         ToolSearch,
		Description:  "Search the metadata of catalogs, schemas, tables, semantic models and metrics. Each result names the entity, why it matched (matches) and its system and user metadata (properties and tags). Filters narrow by type, catalog, schema, owner (each one value or a list of alternatives), tags and scope; facets count values (type, catalog, schema, tags, owner); page with limit and offset or cursor; minPosition (a write's position) waits until that write is searchable.",
		Annotations:  readOnly("Search the catalog"),
		InputSchema:  searchArgsSchema(need),
		OutputSchema: outputSchema[SearchOutput](),
	}, handle(t, ToolSearch, t.search))
	mcp.AddTool(server, &mcp.Tool{
		Name:         ToolGetEntity,
		Description:  "Get one entity by type and dotted name: a catalog, a schema, a table with its columns and their comments, a semantic model with its datasets, relationships and metrics, or one metric; with its properties and tags, as the REST API answers it.",
		Annotations:  readOnly("Get an entity"),
		InputSchema:  entityArgsSchema(need),
		OutputSchema: outputSchema[EntityOutput](),
	}, handle(t, ToolGetEntity, t.getEntity))
	mcp.AddTool(server, &mcp.Tool{
		Name:         ToolListEntities,
		Description:  "List the children of a namespace by type, sorted by name and paged: the metalake's catalogs, a catalog's schemas, a schema's tables or semantic models, a semantic model's metrics.",
		Annotations:  readOnly("Browse a namespace"),
		InputSchema:  listArgsSchema(need),
		OutputSchema: outputSchema[ListOutput](),
	}, handle(t, ToolListEntities, t.listEntities))
	mcp.AddTool(server, &mcp.Tool{
		Name:         ToolSuggest,
		Description:  "Type-ahead: the entities whose name, or a part of it, starts with a prefix (any letter case), best first: names starting with it before later parts, shorter names first.",
		Annotations:  readOnly("Suggest entities for a prefix"),
		InputSchema:  suggestArgsSchema(need),
		OutputSchema: outputSchema[SuggestOutput](),
	}, handle(t, ToolSuggest, t.suggest))
}

// handle adapts fn to a typed tool handler: the call acts as the context's
// user within the call timeout, a panic becomes an internal error, every
// error becomes a tool error with its user-safe message, and the call
// emits its events as a REST operation does (SPEC §2.8): pre, then success
// or failure, under the name of the REST operation it stands for and with
// interface "mcp".
func handle[In, Out any](t *toolset, tool string, fn func(context.Context, In) (Out, error)) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (_ *mcp.CallToolResult, out Out, err error) {
		var zero Out
		ev := semcat.Event{Operation: operation(tool, in), User: semcat.UserFromContext(ctx), Interface: semcat.InterfaceMCP}
		if a, ok := any(in).(interface{ identifier() []string }); ok {
			ev.Identifier = a.identifier()
			if len(ev.Identifier) > 0 && ev.Identifier[0] == "" {
				ev.Identifier[0] = t.metalake
			}
			if len(ev.Identifier) > 0 {
				ev.Metalake = ev.Identifier[0]
			}
		}
		start := time.Now()
		pre := ev
		pre.Phase, pre.Time = semcat.EventPre, start
		t.publish(pre)
		var failed error // the call's own error, for its failure event
		defer func() {
			if p := recover(); p != nil {
				t.logger.Error("mcp: tool call panicked", "tool", tool, "panic", p, "stack", string(debug.Stack()))
				failed = semcat.Errorf(semcat.EINTERNAL, "internal error")
				out, err = zero, t.toolError(ctx, tool, failed)
			}
			ev.Time = time.Now()
			ev.Duration = ev.Time.Sub(start)
			if failed != nil {
				ev.Phase, ev.ErrorCode, ev.Error = semcat.EventFailure, semcat.ErrorCode(failed), semcat.ErrorMessage(failed)
			} else {
				ev.Phase = semcat.EventSuccess
				if c, ok := any(out).(interface{ count() int }); ok {
					n := c.count()
					ev.ResultCount = &n
				}
			}
			t.publish(ev)
		}()
		if ev.User == "" {
			failed = errNoUser
			return nil, zero, errNoUser
		}
		ctx, cancel := context.WithTimeout(ctx, t.timeout)
		defer cancel()
		if out, err = fn(ctx, in); err != nil {
			failed = api.AsTransient(err) // audited with the code REST's answer has
			return nil, zero, t.toolError(ctx, tool, failed)
		}
		// The text content is the output exactly as encoded here, so that
		// metric definitions keep their stored form; the SDK would re-encode
		// it from the structured content, which sorts object keys.
		data, err := json.Marshal(out)
		if err != nil {
			failed = err
			return nil, zero, t.toolError(ctx, tool, err)
		}
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(data)}}}, out, nil
	}
}

// toolOperations are the REST operations the tools stand for; get_entity
// and list_entities stand for the load or listing of their type.
var toolOperations = map[string]string{
	ToolListMetrics:     "listSemanticModelMetrics",
	ToolListMetricInfos: "listSemanticModelMetrics",
	ToolSearch:          "search",
	ToolSuggest:         "suggest",
}

// operation names the REST operation a call of tool with arguments in
// stands for; the tool's own name when there is none (an unknown type).
func operation(tool string, in any) string {
	if a, ok := in.(interface{ operation() string }); ok {
		if op := a.operation(); op != "" {
			return op
		}
	} else if op, ok := toolOperations[tool]; ok {
		return op
	}
	return tool
}

// publish hands an event to the configured listener, if any; a panic in it
// is logged and never fails the call.
func (t *toolset) publish(e semcat.Event) {
	if t.events == nil {
		return
	}
	defer func() {
		if p := recover(); p != nil {
			t.logger.Error("mcp: publishing an event panicked", "operation", e.Operation, "panic", p)
		}
	}()
	t.events(e)
}

// The events' identifiers and result counts.
func (a SchemaArgs) identifier() []string { return []string{a.Metalake, a.Catalog, a.Schema} }
func (a SearchArgs) identifier() []string { return []string{a.Metalake} }
func (o MetricIdentifiers) count() int    { return len(o.Identifiers) }
func (o MetricInfos) count() int          { return len(o.Metrics) }
func (o SearchOutput) count() int         { return len(o.Results) }

// toolError returns the error a client sees, "<exception type>: <message>"
// as the REST API's error body names them (a generic text, with the
// details logged, for an internal error), and hands its wire form to the
// call's structuredErrors middleware.
func (t *toolset) toolError(ctx context.Context, tool string, err error) error {
	var se *semcat.Error
	switch {
	case api.TransientFault(err) != "":
		// An outage is logged once each way (the database watch), not
		// once per call; the answer says what is wrong (503's wire form).
		t.logger.Debug("mcp: tool call met a transient fault", "tool", tool, "user", semcat.UserFromContext(ctx), "error", err)
	case errors.As(err, &se):
		if se.Code == semcat.EINTERNAL {
			t.logger.Error("mcp: tool call failed", "tool", tool, "user", semcat.UserFromContext(ctx), "error", err)
		}
	case errors.Is(err, context.DeadlineExceeded):
		t.logger.Warn("mcp: tool call timed out", "tool", tool, "timeout", t.timeout)
		err = semcat.Errorf(semcat.EDEADLINE, "the call did not finish within %s", t.timeout)
	case errors.Is(err, context.Canceled):
		err = semcat.Errorf(semcat.ECANCELED, "the call was cancelled")
	default:
		t.logger.Error("mcp: tool call failed", "tool", tool, "user", semcat.UserFromContext(ctx), "error", err)
	}
	info := wireError(err)
	if h, ok := ctx.Value(errorKey{}).(*ToolErrorInfo); ok {
		*h = info
	}
	return fmt.Errorf("%s: %s", info.Type, info.Message)
}

// ToolErrorInfo is the structured content of a failed tool call: the
// error's Gravitino code and exception type, as the REST API's error body
// has them, and its message.
type ToolErrorInfo struct {
	Code    int    `json:"code"`
	Type    string `json:"type"`
	Message string `json:"message"`
}

func wireError(err error) ToolErrorInfo {
	code, typ, msg := api.WireError(err)
	return ToolErrorInfo{Code: code, Type: typ, Message: msg}
}

// errorKey is the context key of the *ToolErrorInfo a tool call's error
// is written to.
type errorKey struct{}

// structuredErrors gives every failed tool call its error's code and type
// as structured content: the wire form toolError recorded, or, for
// arguments the SDK refused before the tool ran, an invalid argument.
func structuredErrors(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		info := &ToolErrorInfo{}
		res, err := next(context.WithValue(ctx, errorKey{}, info), method, req)
		r, ok := res.(*mcp.CallToolResult)
		if err != nil || !ok || !r.IsError {
			return res, err
		}
		if info.Type == "" {
			var text string
			for _, c := range r.Content {
				if tc, ok := c.(*mcp.TextContent); ok {
					text += tc.Text
				}
			}
			*info = wireError(semcat.Errorf(semcat.EINVALID, "%s", text))
			r.Content = []mcp.Content{&mcp.TextContent{Text: info.Type + ": " + info.Message}}
		}
		r.StructuredContent = info
		return r, nil
	}
}

// metalakeOf returns the metalake argument, or the default metalake.
func (t *toolset) metalakeOf(arg string) (string, error) {
	if arg == "" {
		if t.metalake == "" {
			return "", semcat.Errorf(semcat.EINVALID, "metalake: required (this server has no default metalake)")
		}
		arg = t.metalake
	}
	if err := semcat.ValidateName("metalake", arg); err != nil {
		return "", err
	}
	return arg, nil
}

// schemaNamespace validates the arguments of the discovery tools.
func (t *toolset) schemaNamespace(in SchemaArgs) (semcat.Namespace, error) {
	var ns semcat.Namespace
	var err error
	if ns.Metalake, err = t.metalakeOf(in.Metalake); err != nil {
		return ns, err
	}
	if err := semcat.ValidateName("catalog", in.Catalog); err != nil {
		return ns, err
	}
	if err := semcat.ValidateName("schema", in.Schema); err != nil {
		return ns, err
	}
	ns.Catalog, ns.Schema = in.Catalog, in.Schema
	return ns, nil
}

// modelNamespace returns [metalake, catalog, schema, model] in a new slice.
func modelNamespace(ns semcat.Namespace, model string) []string {
	return []string{ns.Metalake, ns.Catalog, ns.Schema, model}
}

// listMetrics is list_metrics: one identifier-only discovery call,
// narrowed and paged as its arguments say, within MaxResultBytes.
func (t *toolset) listMetrics(ctx context.Context, in SchemaArgs) (MetricIdentifiers, error) {
	ns, sel, err := t.selectMetrics(ctx, in, false)
	if err != nil {
		return MetricIdentifiers{}, err
	}
	items := make([]semcat.NameIdentifier, len(sel.Metrics))
	for i, m := range sel.Metrics {
		items[i] = semcat.NameIdentifier{Namespace: modelNamespace(ns, m.Model), Name: m.Name}
	}
	n, err := fitting(items, len(`{"identifiers":[]}`))
	if err != nil {
		return MetricIdentifiers{}, err
	}
	page := sel.Page(n)
	return MetricIdentifiers{Identifiers: items[:len(page.Metrics)], Cursor: page.Cursor}, nil
}

// listMetricInfos is list_metric_infos: one detailed discovery call,
// narrowed and paged as its arguments say, within MaxResultBytes.
func (t *toolset) listMetricInfos(ctx context.Context, in SchemaArgs) (MetricInfos, error) {
	ns, sel, err := t.selectMetrics(ctx, in, true)
	if err != nil {
		return MetricInfos{}, err
	}
	items := make([]MetricInfo, len(sel.Metrics))
	for i, m := range sel.Metrics {
		items[i] = MetricInfo{Namespace: modelNamespace(ns, m.Model), Metric: m.Definition}
	}
	n, err := fitting(items, len(`{"metrics":[]}`))
	if err != nil {
		return MetricInfos{}, err
	}
	page := sel.Page(n)
	return MetricInfos{Metrics: items[:len(page.Metrics)], Cursor: page.Cursor}, nil
}

// selectMetrics validates the arguments of the discovery tools and
// selects the metrics they ask for, from their cursor on.
func (t *toolset) selectMetrics(ctx context.Context, in SchemaArgs, details bool) (semcat.Namespace, *semcat.MetricSelection, error) {
	ns, err := t.schemaNamespace(in)
	if err != nil {
		return ns, nil, err
	}
	f := semcat.MetricFilter{Names: in.Names, Query: in.Query, Limit: in.Limit, Cursor: in.Cursor}
	if in.Limit < 0 || in.Limit > semcat.MaxMetricLimit {
		return ns, nil, semcat.Errorf(semcat.EINVALID, "limit: must be a whole number from 1 to %d, got %d", semcat.MaxMetricLimit, in.Limit)
	}
	sel, err := semcat.SelectMetrics(ctx, t.svc.Metrics, t.svc.Search, ns, details, f)
	return ns, sel, err
}

// MaxResultBytes bounds a tool result (SPEC §2.8, §2.11): the JSON-RPC
// message of a discovery call's result, which holds its output twice (as
// text and as structured content), stays within it; a cursor gives the
// rest.
const MaxResultBytes = 64 << 10

// resultOverhead is room for what a result holds besides its items: the
// JSON-RPC envelope, the content's framing, and the cursor, twice.
const resultOverhead = 1024

// fitting returns how many of items, from the first, fit in one result
// whose output without items is empty bytes long. An item counts as it is
// encoded in the structured content, plus once more as escaped inside the
// text content. The first item not fitting at all is an error: a result
// cannot hold it.
func fitting[T any](items []T, empty int) (int, error) {
	size := resultOverhead + 2*empty
	for i, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return 0, err
		}
		quoted, err := json.Marshal(string(b))
		if err != nil {
			return 0, err
		}
		size += len(b) + len(quoted) - 2 + 2 // and a comma each
		if size > MaxResultBytes {
			if i == 0 {
				return 0, semcat.Errorf(semcat.ETOOLARGE, "the first item of this page is larger than a tool result may be (%d KB); read it through the REST API", MaxResultBytes>>10)
			}
			return i, nil
		}
	}
	return len(items), nil
}

// search is search: one call of the search service, after waiting for
// minPosition if given.
func (t *toolset) search(ctx context.Context, in SearchArgs) (SearchOutput, error) {
	req, err := t.searchRequest(in)
	if err != nil {
		return SearchOutput{}, err
	}
	var res *semcat.SearchResult
	switch {
	case in.MinPosition != "":
		res, err = t.searchAfter(ctx, req, in.MinPosition, in.WaitMs)
	case in.WaitMs != 0:
		return SearchOutput{}, semcat.Errorf(semcat.EINVALID, "waitMs: only with minPosition")
	default:
		res, err = t.svc.Search.Search(ctx, req)
	}
	if err != nil {
		return SearchOutput{}, err
	}
	// A result holds at most MaxResultBytes: a page larger than that is
	// asked for again with the limit that fits, so that its cursor is the
	// search's own for the rest.
	if n, err := fitting(res.Results, searchEnvelope(res)); err != nil {
		return SearchOutput{}, err
	} else if n < len(res.Results) {
		req.Limit = n
		if res, err = t.svc.Search.Search(ctx, req); err != nil {
			return SearchOutput{}, err
		}
	}
	out := SearchOutput{
		Total:    res.Total,
		Position: res.Position.String(),
		Results:  res.Results,
		Facets:   res.Facets,
		Cursor:   res.Cursor,
	}
	if out.Results == nil {
		out.Results = []semcat.SearchHit{}
	}
	return out, nil
}

// searchEnvelope is the size of a search output without its results.
func searchEnvelope(res *semcat.SearchResult) int {
	b, _ := json.Marshal(SearchOutput{Total: res.Total, Position: res.Position.String(), Results: []semcat.SearchHit{}, Facets: res.Facets})
	return len(b)
}

// Waits for a position (SPEC §5.6), as the REST API's.
const (
	DefaultWaitMs = 5000
	MaxWaitMs     = 30000
)

// searcherAfter is a search service that waits for a position within the
// search itself: the REST client (semcat mcp), whose API waits only so.
type searcherAfter interface {
	SearchAfter(ctx context.Context, req semcat.SearchRequest, minPosition semcat.Position, wait time.Duration) (*semcat.SearchResult, error)
}

// searchChecker is a search service that fails, before it reads the
// index, a search that cannot answer: the metalake missing, or not the
// caller's (search.Service.CheckSearch).
type searchChecker interface {
	CheckSearch(ctx context.Context, metalake string) error
}

// searchAfter searches once the index covers the write at token, waiting
// at most waitMs (0: DefaultWaitMs); it fails with ENOTCAUGHTUP after that.
func (t *toolset) searchAfter(ctx context.Context, req semcat.SearchRequest, token string, waitMs int) (*semcat.SearchResult, error) {
	pos, err := semcat.ParsePosition("minPosition", token)
	if err != nil {
		return nil, err
	}
	if waitMs == 0 {
		waitMs = DefaultWaitMs
	} else if waitMs < 0 || waitMs > MaxWaitMs {
		return nil, semcat.Errorf(semcat.EINVALID, "waitMs: must be a whole number from 0 to %d, got %d", MaxWaitMs, waitMs)
	}
	wait := time.Duration(waitMs) * time.Millisecond
	if sa, ok := t.svc.Search.(searcherAfter); ok {
		return sa.SearchAfter(ctx, req, pos, wait)
	}
	// The wait starts only once the caller may search the metalake and it
	// exists (SPEC §2.11): a search that cannot answer answers at once.
	if c, ok := t.svc.Search.(searchChecker); ok {
		if err := c.CheckSearch(ctx, req.Metalake); err != nil {
			return nil, err
		}
	}
	wctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	err = t.svc.Search.WaitFor(wctx, pos)
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		return nil, semcat.Errorf(semcat.ENOTCAUGHTUP, "the search index has not yet applied position %s after %d ms; try again or raise waitMs", token, waitMs)
	}
	if err != nil {
		return nil, err
	}
	return t.svc.Search.Search(ctx, req)
}

// typesArg checks a types argument: entity types of search.
func typesArg(types []string) ([]string, error) {
	var out []string
	for _, typ := range types {
		if !slices.Contains(searchTypes, typ) {
			return nil, semcat.Errorf(semcat.EINVALID, "type: unknown type '%s' (want catalog, schema, table, semantic_model or metric)", typ)
		}
		out = append(out, typ)
	}
	return out, nil
}

// searchRequest validates the arguments of search as the REST API validates
// its parameters (SPEC §2.6).
func (t *toolset) searchRequest(in SearchArgs) (semcat.SearchRequest, error) {
	req := semcat.SearchRequest{
		Query:     in.Query,
		Scope:     in.Scope,
		Sort:      in.Sort,
		Limit:     in.Limit,
		Offset:    in.Offset,
		Cursor:    in.Cursor,
		FacetSize: in.FacetSize,
	}
	var err error
	if req.Metalake, err = t.metalakeOf(in.Metalake); err != nil {
		return req, err
	}
	if req.Types, err = typesArg(append(slices.Clone(in.Type), in.Types...)); err != nil {
		return req, err
	}
	// catalog, schema and owner: any of their values, as REST reads its
	// repeated parameters (an empty value is no filter).
	for _, p := range []struct {
		name string
		in   stringList
		dst  *[]string
	}{{"catalog", in.Catalog, &req.Catalogs}, {"schema", in.Schema, &req.Schemas}, {"owner", in.Owner, &req.Owners}} {
		for _, v := range p.in {
			if v == "" {
				continue
			}
			if err := semcat.ValidateName(p.name, v); err != nil {
				return req, err
			}
			*p.dst = append(*p.dst, v)
		}
	}
	for _, tag := range append(slices.Clone(in.Tag), in.Tags...) {
		if err := semcat.ValidateName("tag", tag); err != nil {
			return req, err
		}
		req.Tags = append(req.Tags, tag)
	}
	if req.Scope != "" && !slices.Contains(searchScopes, req.Scope) {
		return req, semcat.Errorf(semcat.EINVALID, "scope: must be user or system, got '%s'", req.Scope)
	}
	if req.Sort != "" && !slices.Contains(searchSorts, req.Sort) {
		return req, semcat.Errorf(semcat.EINVALID, "sort: must be relevance, name, -name, created or -created, got '%s'", req.Sort)
	}
	if req.Limit == 0 {
		req.Limit = DefaultSearchLimit
	} else if req.Limit < 1 || req.Limit > MaxSearchLimit {
		return req, semcat.Errorf(semcat.EINVALID, "limit: must be a whole number from 1 to %d, got %d", MaxSearchLimit, req.Limit)
	}
	if req.Offset < 0 || req.Offset > MaxSearchOffset {
		return req, semcat.Errorf(semcat.EINVALID, "offset: must be a whole number from 0 to %d, got %d", MaxSearchOffset, req.Offset)
	}
	if req.Cursor != "" && req.Offset != 0 {
		return req, semcat.Errorf(semcat.EINVALID, "cursor: cannot be combined with offset")
	}
	for _, f := range in.Facets {
		if !slices.Contains(searchFacets, f) {
			return req, semcat.Errorf(semcat.EINVALID, "facets: unknown facet '%s' (want type, catalog, schema, tags or owner)", f)
		}
		req.Facets = append(req.Facets, f)
	}
	if req.FacetSize == 0 {
		req.FacetSize = DefaultFacetSize
	} else if req.FacetSize < 1 || req.FacetSize > MaxFacetSize {
		return req, semcat.Errorf(semcat.EINVALID, "facetSize: must be a whole number from 1 to %d, got %d", MaxFacetSize, req.FacetSize)
	}
	return req, nil
}

// Schemas. The SDK would infer them from the Go types, but some inferred
// schemas are wrong for our values: json.RawMessage would be an array of
// bytes, and a nil map (properties of an entity without any) would fail an
// "object" schema. Output that fails its schema is a protocol error, so the
// output schemas allow what the services return; the input schemas add the
// allowed values and ranges that agents need to call the tools right.

// typeSchemas overrides the inferred schemas of some types.
var typeSchemas = map[reflect.Type]*jsonschema.Schema{
	// Any JSON value: a metric definition as stored.
	reflect.TypeFor[json.RawMessage](): {},
	reflect.TypeFor[map[string]string](): {
		Types:                []string{"null", "object"},
		AdditionalProperties: &jsonschema.Schema{Type: "string"},
	},
}

// outputSchema is the schema of T's JSON form.
func outputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](&jsonschema.ForOptions{TypeSchemas: typeSchemas})
	if err != nil {
		panic(fmt.Sprintf("mcpserver: output schema of %T: %v", *new(T), err))
	}
	// Facet maps may be null.
	if f := s.Properties["facets"]; f != nil && f.Type == "object" {
		f.Types, f.Type = []string{"null", "object"}, ""
	}
	return s
}

// inputSchema is the schema of T, without null for lists.
func inputSchema[T any]() *jsonschema.Schema {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("mcpserver: input schema of %T: %v", *new(T), err))
	}
	for _, p := range s.Properties {
		if len(p.Types) == 2 && p.Types[0] == "null" {
			p.Type, p.Types = p.Types[1], nil
		}
	}
	return s
}

// requireMetalake marks the metalake argument required in s (a server
// without a default metalake needs it).
func requireMetalake(s *jsonschema.Schema, required bool) {
	if required && !slices.Contains(s.Required, "metalake") {
		s.Required = append([]string{"metalake"}, s.Required...)
	}
}

func schemaArgsSchema(required bool) *jsonschema.Schema {
	s := inputSchema[SchemaArgs]()
	requireMetalake(s, required)
	// No default limit: a result ends at MaxResultBytes anyway.
	s.Properties["limit"].Minimum, s.Properties["limit"].Maximum = jsonschema.Ptr(1.0), jsonschema.Ptr(float64(semcat.MaxMetricLimit))
	one := 1
	s.Properties["names"].Items.MinLength = &one
	s.Properties["names"].MaxItems = jsonschema.Ptr(semcat.MaxMetricNames)
	return s
}

func searchArgsSchema(required bool) *jsonschema.Schema {
	s := inputSchema[SearchArgs]()
	requireMetalake(s, required)
	// No default: the SDK would fill it in, and it goes with minPosition.
	s.Properties["waitMs"].Minimum, s.Properties["waitMs"].Maximum = jsonschema.Ptr(0.0), jsonschema.Ptr(float64(MaxWaitMs))
	p := s.Properties
	p["type"].Items.Enum = anys(searchTypes)
	p["types"].Items.Enum = anys(searchTypes)
	p["scope"].Enum = anys(searchScopes)
	p["sort"].Enum = anys(searchSorts)
	p["facets"].Items.Enum = anys(searchFacets)
	for _, name := range []string{"catalog", "schema", "owner"} {
		p[name] = &jsonschema.Schema{Description: p[name].Description, AnyOf: []*jsonschema.Schema{
			{Type: "string"}, {Type: "array", Items: &jsonschema.Schema{Type: "string"}}}}
	}
	setRange(p["limit"], 1, MaxSearchLimit, DefaultSearchLimit)
	setRange(p["offset"], 0, MaxSearchOffset, 0)
	setRange(p["facetSize"], 1, MaxFacetSize, DefaultFacetSize)
	return s
}

func setRange(s *jsonschema.Schema, lo, hi, def int) {
	s.Minimum, s.Maximum = jsonschema.Ptr(float64(lo)), jsonschema.Ptr(float64(hi))
	s.Default = json.RawMessage(fmt.Sprint(def))
}

func anys(list []string) []any {
	out := make([]any, len(list))
	for i, v := range list {
		out[i] = v
	}
	return out
}
