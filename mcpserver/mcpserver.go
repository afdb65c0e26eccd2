// Package mcpserver serves semcat to AI agents over the Model Context
// Protocol (SPEC §2.8), with the official Go MCP SDK: `semcat mcp` over stdio
// (ServeStdio) and /mcp over streamable HTTP (HTTPHandler).
//
// The server is read-only by construction: it registers exactly its
// read-only tools (list_metrics, list_metric_infos, search, get_entity,
// list_entities, suggest), and each calls read methods of the domain
// services. Their ReadOnlyHint annotations only describe
// that; nothing else is reachable. Every tool call runs as the authenticated
// user (semcat.NewContextWithUser), so the services' authorization applies
// exactly as for the REST API. Failures of a call (invalid arguments, missing
// schema, forbidden, internal errors) are tool errors (IsError results with
// the error's user-safe message), never protocol errors.
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/internal/accesslog"
)

// AnonymousUser is the user of every call when no user is given: HTTPHandler
// with a nil authenticator, ServeStdio with an empty user.
const AnonymousUser = "anonymous"

// DefaultCallTimeout bounds every tool call when Config.CallTimeout is zero.
const DefaultCallTimeout = 30 * time.Second

// Name is the server name reported to MCP clients.
const Name = "semcat"

// Config configures the server. The zero value is usable, except that tools
// then need an explicit metalake argument.
type Config struct {
	// DefaultMetalake is used by every tool whose metalake argument is
	// omitted. Empty means the argument is required.
	DefaultMetalake string
	// Version is reported to clients as the server version.
	Version string
	// Logger receives internal errors of tool calls (their details never go
	// to the client) and the SDK's own log. Default slog.Default() for
	// internal errors; the SDK logs nothing when nil.
	Logger *slog.Logger
	// CallTimeout bounds each tool call. Default DefaultCallTimeout.
	CallTimeout time.Duration
	// MaxBodyBytes bounds an HTTP request's body, as the REST API's
	// limit does (413 beyond it). Default the SDK's, 4 MiB.
	MaxBodyBytes int64
	// Events, when set, receives the events of every tool call (the REST
	// API's event bus: the audit log and the counters).
	Events func(semcat.Event)
}

// Services are the domain services the tools call. All are required.
type Services struct {
	Metrics  semcat.MetricDiscoveryService
	Search   semcat.SearchService
	Catalogs semcat.CatalogService
	Schemas  semcat.SchemaService
	Tables   semcat.TableService
	Models   semcat.SemanticModelService
	Tags     semcat.TagService
}

// NewServer returns an MCP server with the three read-only tools. Tool calls
// act as semcat.UserFromContext of the context the server (or its session)
// is run with; a call without a user fails. Use HTTPHandler or ServeStdio,
// which provide the user, unless you connect the server yourself.
func NewServer(svc Services, cfg Config) *mcp.Server {
	version := cfg.Version
	if version == "" {
		version = "dev"
	}
	server := mcp.NewServer(&mcp.Implementation{
		Name:    Name,
		Title:   "semcat metadata catalog",
		Version: version,
	}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       sdkLogger(loggerOf(cfg)),
		// Tools only: no logging capability, and the tool list never changes.
		Capabilities: &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{}},
	})
	t := newToolset(svc, cfg)
	t.register(server)
	server.AddReceivingMiddleware(structuredErrors, sessionLog(loggerOf(cfg)))
	return server
}

// HTTPHandler returns the streamable HTTP handler of the MCP server, to be
// mounted at /mcp. It is stateless: every HTTP request is authenticated
// with user (nil means every request is AnonymousUser) and its tool calls
// act as that user; a request that fails authentication gets the REST API's
// error body (401 with code 1011 for an EUNAUTHORIZED error) and never reaches
// the server.
//
// Requests that arrive on a loopback address with a non-loopback Host header
// are refused (403) as DNS-rebinding protection.
func HTTPHandler(svc Services, cfg Config, user func(r *http.Request) (string, error)) http.Handler {
	server := NewServer(svc, cfg)
	mcpHandler := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return server }, &mcp.StreamableHTTPOptions{
		Stateless:                    true,
		JSONResponse:                 true,
		Logger:                       sdkLogger(loggerOf(cfg)),
		PropagateRequestCancellation: true,
		MaxRequestBodyBytes:          max(cfg.MaxBodyBytes, 0),
	})
	logger := loggerOf(cfg)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := AnonymousUser
		if user != nil {
			var err error
			if name, err = user(r); err != nil {
				writeHTTPError(w, logger, err)
				return
			} else if name == "" {
				writeHTTPError(w, logger, semcat.Errorf(semcat.EUNAUTHORIZED, "no authenticated user"))
				return
			}
		}
		if r.Method == http.MethodPost {
			if ok := limitBatch(w, r, cfg.MaxBodyBytes); !ok {
				return
			}
		}
		accesslog.SetUser(r.Context(), name)
		mcpHandler.ServeHTTP(w, r.WithContext(semcat.NewContextWithUser(r.Context(), name)))
	})
}

// MaxBatch is the most calls a JSON-RPC batch may hold (SPEC §2.11): each
// call may cost as much as one REST request, and a batch is one request.
const MaxBatch = 16

// limitBatch reads r's body (as far as maxBytes; 0: the SDK's default)
// and refuses a JSON-RPC batch of more than MaxBatch calls with a
// JSON-RPC error (400); it puts the body back for the SDK. It reports
// whether the request goes on.
func limitBatch(w http.ResponseWriter, r *http.Request, maxBytes int64) bool {
	if maxBytes <= 0 {
		maxBytes = 4 << 20
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBytes))
	if err != nil {
		var tooLarge *http.MaxBytesError
		if errors.As(err, &tooLarge) {
			writeRPCError(w, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes", maxBytes))
		} else {
			writeRPCError(w, http.StatusBadRequest, "reading the request body: "+err.Error())
		}
		return false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	if trimmed := bytes.TrimLeft(body, " \t\r\n"); len(trimmed) == 0 || trimmed[0] != '[' {
		return true
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	if _, err := dec.Token(); err != nil { // [
		return true // the SDK says what is wrong with it
	}
	calls := 0
	for dec.More() {
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return true
		}
		if calls++; calls > MaxBatch {
			writeRPCError(w, http.StatusBadRequest, fmt.Sprintf("batch: at most %d calls in one request", MaxBatch))
			return false
		}
	}
	return true
}

// writeRPCError answers with a JSON-RPC error of no request id.
func writeRPCError(w http.ResponseWriter, status int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]any{"jsonrpc": "2.0", "id": nil,
		"error": map[string]any{"code": -32600, "message": msg}})
}

// ServeStdio serves one MCP session over standard input and output until the
// client closes it or ctx ends; every tool call acts as user (empty means
// AnonymousUser). Nothing else may write to standard output meanwhile: log
// to standard error.
func ServeStdio(ctx context.Context, svc Services, cfg Config, user string) error {
	return serve(ctx, svc, cfg, user, &mcp.StdioTransport{})
}

// serve runs one session of a new server over t, as user.
func serve(ctx context.Context, svc Services, cfg Config, user string, t mcp.Transport) error {
	if user == "" {
		user = AnonymousUser
	}
	return NewServer(svc, cfg).Run(semcat.NewContextWithUser(ctx, user), t)
}

func loggerOf(cfg Config) *slog.Logger {
	if cfg.Logger != nil {
		return cfg.Logger
	}
	return slog.Default()
}

// httpErrors maps the semcat error codes an authenticator may return to the
// REST API's wire form (SPEC §2); anything else is an internal error.
var httpErrors = map[string]struct {
	status int
	code   int
	typ    string
}{
	semcat.EUNAUTHORIZED: {http.StatusUnauthorized, 1011, "UnauthorizedException"},
	semcat.EFORBIDDEN:    {http.StatusForbidden, 1008, "ForbiddenException"},
	semcat.EINVALID:      {http.StatusBadRequest, 1001, "IllegalArgumentException"},
}

// writeHTTPError answers a request whose authentication failed.
func writeHTTPError(w http.ResponseWriter, logger *slog.Logger, err error) {
	body := struct {
		Code    int      `json:"code"`
		Type    string   `json:"type"`
		Message string   `json:"message"`
		Stack   []string `json:"stack"`
	}{1002, "InternalError", "internal server error", []string{}}
	status := http.StatusInternalServerError
	if class, ok := httpErrors[semcat.ErrorCode(err)]; ok {
		status, body.Code, body.Type, body.Message = class.status, class.code, class.typ, semcat.ErrorMessage(err)
	} else {
		logger.Error("mcp: authentication failed", "error", err)
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(body)
}

// errNoUser fails a call on a server run without a user in its context.
var errNoUser = errors.New("unauthorized: this MCP session has no authenticated user")

const instructions = `semcat is a metadata catalog of metalakes, catalogs, schemas, tables and semantic models (with their metrics). All tools are read-only.
- list_metrics: the metrics of every semantic model of one schema, as identifiers {namespace: [metalake, catalog, schema, model], name}.
- list_metric_infos: the same metrics with their complete definitions. Ask only for what you need: names (a list of metric names) or query (a search among the schema's metrics, best first), and limit. A result holds at most 64 KB; pass its cursor, with the same other arguments, for the rest.
- search: full-text and field search over all metadata (query language: words, "phrases", prefix*, key:value, tags:t, schema:field, field:type, +required, -excluded, * for everything), with filters, facets and paging; minPosition waits for a write to be searchable.
- get_entity: one catalog, schema, table (columns and comments), semantic model (datasets, relationships, metrics) or metric, with its properties and tags.
- list_entities: the children of a namespace by type (catalogs; a catalog's schemas; a schema's tables or semantic models; a model's metrics), paged.
- suggest: entities whose name, or a part of it, starts with a prefix (type-ahead).
The metalake argument may be omitted when the server has a default metalake. A failed call's structured content has the error's Gravitino code, type and message.`
