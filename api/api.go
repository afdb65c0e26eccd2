// Package api serves semcat's REST API (SPEC §2) over HTTP: a gorilla/mux
// router whose handlers decode requests strictly, call the domain services,
// and write every error through Error, which maps semcat's error codes to
// HTTP statuses and Gravitino-compatible codes in one table.
package api

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/internal/accesslog"
)

// Defaults for Config fields left zero.
const (
	DefaultMaxBodyBytes   = 8 << 20
	DefaultRequestTimeout = 30 * time.Second
)

// AnonymousUser is the user of every request when Config.Authenticate is nil.
const AnonymousUser = "anonymous"

// PositionHeader carries the position of a successful write (SPEC §5.6).
const PositionHeader = "X-Semcat-Position"

// Services are the domain services the API calls. All are required.
type Services struct {
	Metalakes semcat.MetalakeService
	Catalogs  semcat.CatalogService
	Schemas   semcat.SchemaService
	Tables    semcat.TableService
	Models    semcat.SemanticModelService
	Tags      semcat.TagService
	Policies  semcat.PolicyService
	Metrics   semcat.MetricDiscoveryService
	Access    semcat.AccessControlService
	Search    semcat.SearchService
	Metadata  semcat.MetadataService
	// Connections tests catalogs' sources (testConnection); nil tests
	// none: every catalog is taken to have no external source.
	Connections semcat.ConnectionService
	Synonyms    semcat.SynonymService
	// Sources refreshes the mirrors of catalogs with an external source
	// (POST …/catalogs/{c}/refresh); nil: no catalog has one.
	Sources SourceRefresher
}

// Middleware wraps a handler. Middlewares listed in Config.Middleware run
// after authentication and after the route has matched, so they can read the
// user (semcat.UserFromContext), the operation (Operation) and the path
// variables (mux.Vars): the seam for authorization and events.
type Middleware func(http.Handler) http.Handler

// Config configures the handler. The zero value is usable.
type Config struct {
	// MaxBodyBytes limits request bodies; larger ones are 413. Default 8 MiB.
	MaxBodyBytes int64
	// Logger receives internal errors (and nothing about client errors).
	// Default slog.Default().
	Logger *slog.Logger
	// Ready reports whether the service can serve requests (/readyz). Nil
	// means always ready.
	Ready func(ctx context.Context) error
	// Version is reported by GET /api/version.
	Version string
	// Authenticate returns the user a request acts as. An error (normally a
	// semcat EUNAUTHORIZED error) fails the request. Nil means every request
	// is AnonymousUser.
	Authenticate func(r *http.Request) (user string, err error)
	// RequestTimeout is the deadline of every request's context, so that
	// internal retries of concurrent alters stop in time. Default 30s.
	RequestTimeout time.Duration
	// Middleware wraps every /api route, outermost first.
	Middleware []Middleware
	// Reindex rebuilds the search index (POST /api/admin/reindex); nil
	// answers 501. IsAdmin, when set, says who may call it.
	Reindex func(ctx context.Context) error
	IsAdmin func(user string) bool
	// ReindexProgress reports the latest rebuild's progress (GET
	// /api/admin/reindex); nil answers 501.
	ReindexProgress func() semcat.RebuildProgress
	// DatabaseDown, when set, says whether the database is known to be
	// down (semcat's database watch, which logs the outage once). While it
	// is, requests that pass their deadline are not logged one by one
	// (SPEC §9: one line when the database goes, one when it is back).
	DatabaseDown func() bool
}

// withDefaults returns c with zero fields set to their defaults.
func (c Config) withDefaults() Config {
	if c.MaxBodyBytes <= 0 {
		c.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if c.Logger == nil {
		c.Logger = slog.Default()
	}
	if c.RequestTimeout <= 0 {
		c.RequestTimeout = DefaultRequestTimeout
	}
	return c
}

// handler holds what every route handler needs.
type handler struct {
	svc Services
	cfg Config
}

// handlerFunc is a route handler; a returned error is written by Error.
type handlerFunc func(w http.ResponseWriter, r *http.Request) error

// route is one REST operation. name is the operation name that Operation
// reports to middlewares (for authorization and events).
type route struct {
	name   string
	method string
	path   string
	fn     handlerFunc
}

// NewHandler returns the HTTP handler of the whole API: the routes of SPEC
// §2.1–2.3 and the tag routes of §2.5 under /api, plus /healthz, /readyz,
// /api/version and the OpenAPI description at /api/openapi.yaml.
func NewHandler(svc Services, cfg Config) http.Handler {
	cfg = cfg.withDefaults()
	h := &handler{svc: svc, cfg: cfg}

	router := mux.NewRouter()
	// Match on the escaped path so that a name containing '/' (allowed by
	// SPEC §1) can be addressed as %2F; pathName unescapes each variable.
	router.UseEncodedPath()
	router.NotFoundHandler = http.HandlerFunc(notFound)
	router.MethodNotAllowedHandler = methodNotAllowed(router)

	router.Handle("/healthz", h.handle(h.healthz)).Methods(http.MethodGet).Name("healthz")
	router.Handle("/readyz", http.HandlerFunc(h.readyz)).Methods(http.MethodGet).Name("readyz")
	router.Handle(openAPIPath, http.HandlerFunc(serveOpenAPI)).Methods(http.MethodGet).Name("getOpenAPI")

	apiChain := append([]Middleware{h.authenticate}, cfg.Middleware...)
	for _, rt := range h.routes() {
		router.Handle(rt.path, chain(h.handle(rt.fn), apiChain...)).Methods(rt.method).Name(rt.name)
	}
	return chain(router, h.withRequestContext, recoverPanics, answerClose)
}

// MethodClose is the HTTP method the Gravitino client's close() sends.
const MethodClose = "CLOSE"

// answerClose answers "CLOSE /", which the official Gravitino client's
// close() sends and which fails unless answered with a success; there is
// nothing to release. Every other request goes to next.
func answerClose(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method == MethodClose && r.URL.Path == "/" {
			writeBody(w, http.StatusOK, []byte(`{"code":0}`))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// routes lists every /api route.
func (h *handler) routes() []route {
	const (
		metalake = "/api/metalakes/{metalake}"
		catalog  = metalake + "/catalogs/{catalog}"
		schema   = catalog + "/schemas/{schema}"
	)
	get, post, put, del, patch := http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch
	return append([]route{
		{"getVersion", get, "/api/version", h.version},

		{"createMetalake", post, "/api/metalakes", h.createMetalake},
		{"listMetalakes", get, "/api/metalakes", h.listMetalakes},
		{"loadMetalake", get, metalake, h.loadMetalake},
		{"alterMetalake", put, metalake, h.alterMetalake},
		{"dropMetalake", del, metalake, h.dropMetalake},
		{"setMetalakeInUse", patch, metalake, h.setMetalakeInUse},

		{"createCatalog", post, metalake + "/catalogs", h.createCatalog},
		{"listCatalogs", get, metalake + "/catalogs", h.listCatalogs},
		{"loadCatalog", get, catalog, h.loadCatalog},
		{"alterCatalog", put, catalog, h.alterCatalog},
		{"dropCatalog", del, catalog, h.dropCatalog},
		{"setCatalogInUse", patch, catalog, h.setCatalogInUse},
		{"testConnection", post, metalake + "/catalogs/testConnection", h.testConnection},
		{"testCatalogConnection", post, catalog + "/testConnection", h.testCatalogConnection},
		{"refreshCatalog", post, catalog + "/refresh", h.refreshCatalog},

		{"createSchema", post, catalog + "/schemas", h.createSchema},
		{"listSchemas", get, catalog + "/schemas", h.listSchemas},
		{"loadSchema", get, schema, h.loadSchema},
		{"alterSchema", put, schema, h.alterSchema},
		{"dropSchema", del, schema, h.dropSchema},

		{"createTable", post, schema + "/tables", h.createTable},
		{"createTables", post, schema + "/tables:batchCreate", h.createTables},
		{"listTables", get, schema + "/tables", h.listTables},
		{"loadTable", get, schema + "/tables/{table}", h.loadTable},
		{"alterTable", put, schema + "/tables/{table}", h.alterTable},
		{"dropTable", del, schema + "/tables/{table}", h.dropTable},
		{"listPartitions", get, schema + "/tables/{table}/partitions", h.tablePartitions},
		{"addPartitions", post, schema + "/tables/{table}/partitions", h.tablePartitions},
		{"loadPartition", get, schema + "/tables/{table}/partitions/{partition}", h.tablePartitions},
		{"dropPartition", del, schema + "/tables/{table}/partitions/{partition}", h.tablePartitions},

		{"createSemanticModel", post, schema + "/semantic-models", h.createSemanticModel},
		{"listSemanticModels", get, schema + "/semantic-models", h.listSemanticModels},
		{"loadSemanticModel", get, schema + "/semantic-models/{model}", h.loadSemanticModel},
		{"alterSemanticModel", put, schema + "/semantic-models/{model}", h.alterSemanticModel},
		{"dropSemanticModel", del, schema + "/semantic-models/{model}", h.dropSemanticModel},
		{"listSemanticModelMetrics", get, schema + "/semantic-model-metrics", h.listSchemaMetrics},

		{"search", get, metalake + "/search", h.search},
		{"suggest", get, metalake + "/suggest", h.suggest},
		{"getObjectMetadata", get, metalake + "/objects/{type}/{fullName}/metadata", h.objectMetadata},
		{"reindex", post, "/api/admin/reindex", h.reindex},
		{"getReindexProgress", get, "/api/admin/reindex", h.reindexProgress},

		{"createTag", post, metalake + "/tags", h.createTag},
		{"listTags", get, metalake + "/tags", h.listTags},
		{"loadTag", get, metalake + "/tags/{tag}", h.loadTag},
		{"dropTag", del, metalake + "/tags/{tag}", h.dropTag},
		{"alterTag", put, metalake + "/tags/{tag}", h.alterTag},
		{"listTagObjects", get, metalake + "/tags/{tag}/objects", h.tagObjects},
		{"listObjectTags", get, metalake + "/objects/{type}/{fullName}/tags", h.listObjectTags},
		{"associateTags", post, metalake + "/objects/{type}/{fullName}/tags", h.associateTags},
		{"loadObjectTag", get, metalake + "/objects/{type}/{fullName}/tags/{tag}", h.loadObjectTag},
		{"listStatistics", get, metalake + "/objects/{type}/{fullName}/statistics", h.listStatistics},
		{"updateStatistics", put, metalake + "/objects/{type}/{fullName}/statistics", h.updateStatistics},
		{"dropStatistics", post, metalake + "/objects/{type}/{fullName}/statistics", h.dropStatistics},

		{"createPolicy", post, metalake + "/policies", h.createPolicy},
		{"listPolicies", get, metalake + "/policies", h.listPolicies},
		{"loadPolicy", get, metalake + "/policies/{policy}", h.loadPolicy},
		{"alterPolicy", put, metalake + "/policies/{policy}", h.alterPolicy},
		{"setPolicy", patch, metalake + "/policies/{policy}", h.setPolicy},
		{"dropPolicy", del, metalake + "/policies/{policy}", h.dropPolicy},
		{"listPolicyObjects", get, metalake + "/policies/{policy}/objects", h.policyObjects},
		{"listObjectPolicies", get, metalake + "/objects/{type}/{fullName}/policies", h.listObjectPolicies},
		{"associatePolicies", post, metalake + "/objects/{type}/{fullName}/policies", h.associatePolicies},
		{"loadObjectPolicy", get, metalake + "/objects/{type}/{fullName}/policies/{policy}", h.loadObjectPolicy},
		{"getObjectPrivileges", get, metalake + "/objects/{type}/{fullName}/privileges", h.getObjectPrivileges},

		{"getSynonyms", get, metalake + "/synonyms", h.getSynonyms},
		{"setSynonyms", put, metalake + "/synonyms", h.setSynonyms},
	}, h.accessControlRoutes()...)
}

// Operation returns the name of the operation a request was routed to
// ("createTable", "dropSemanticModel", ...), or "" outside a route.
func Operation(r *http.Request) string {
	if rt := mux.CurrentRoute(r); rt != nil {
		return rt.GetName()
	}
	return ""
}

// handle adapts a handlerFunc: an error it returns is written by Error.
func (h *handler) handle(fn handlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// Recovering here, too, logs a handler's panic with its operation and
		// user.
		defer recoverPanic(w, r)
		if err := fn(w, r); err != nil {
			Error(w, r, err)
		}
	})
}

// chain wraps next in the middlewares, the first one outermost.
func chain(next http.Handler, mws ...Middleware) http.Handler {
	for i := len(mws) - 1; i >= 0; i-- {
		next = mws[i](next)
	}
	return next
}

type loggerKey struct{}

// withRequestContext gives the request its deadline and carries the logger
// for Error. A search that first waits for a position (minPosition, up to
// waitMs) gets the wait on top of the usual deadline: waitMs may be as
// long as the request timeout, and a wait that succeeds must leave the
// search time to answer.
func (h *handler) withRequestContext(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		ctx, cancel := context.WithTimeout(r.Context(), h.cfg.RequestTimeout+requestedWait(r))
		defer cancel()
		ctx = context.WithValue(ctx, loggerKey{}, h.cfg.Logger)
		if h.cfg.DatabaseDown != nil {
			ctx = context.WithValue(ctx, databaseDownKey{}, h.cfg.DatabaseDown)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

type databaseDownKey struct{}

// databaseDown reports whether Config.DatabaseDown, carried by the
// request's context, says the database is down.
func databaseDown(r *http.Request) bool {
	down, ok := r.Context().Value(databaseDownKey{}).(func() bool)
	return ok && down()
}

// loggerFrom returns the logger NewHandler put into the request context.
func loggerFrom(r *http.Request) *slog.Logger {
	if l, ok := r.Context().Value(loggerKey{}).(*slog.Logger); ok {
		return l
	}
	return slog.Default()
}

// authenticate puts the request's user into its context, or fails it.
func (h *handler) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if tmpl, err := mux.CurrentRoute(r).GetPathTemplate(); err == nil {
			accesslog.SetRoute(r.Context(), tmpl)
		}
		user := AnonymousUser
		if h.cfg.Authenticate != nil {
			u, err := h.cfg.Authenticate(r)
			if err != nil {
				Error(w, r, err)
				return
			}
			if u == "" {
				Error(w, r, semcat.Errorf(semcat.EUNAUTHORIZED, "authentication required"))
				return
			}
			user = u
		}
		accesslog.SetUser(r.Context(), user)
		next.ServeHTTP(w, r.WithContext(semcat.NewContextWithUser(r.Context(), user)))
	})
}

// recoverPanics turns a panic (of a middleware, say) into a logged 500
// instead of a dropped connection.
func recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer recoverPanic(w, r)
		next.ServeHTTP(w, r)
	})
}

// recoverPanic, deferred, answers a panic with an internal error.
func recoverPanic(w http.ResponseWriter, r *http.Request) {
	if v := recover(); v != nil {
		if v == http.ErrAbortHandler {
			panic(v)
		}
		Error(w, r, panicError{value: v, stack: debug.Stack()})
	}
}

// panicError is a recovered panic, reported (and logged, with its stack) as
// an internal error.
type panicError struct {
	value any
	stack []byte
}

func (p panicError) Error() string { return fmt.Sprintf("panic: %v\n%s", p.value, p.stack) }

func (h *handler) healthz(w http.ResponseWriter, r *http.Request) error {
	return writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// readyTimeout bounds Ready: /readyz answers within a second whatever the
// database does (SPEC §9).
const readyTimeout = 900 * time.Millisecond

// readyz answers 200 when Ready succeeds and 503 with the error body when it
// fails or does not answer within readyTimeout.
func (h *handler) readyz(w http.ResponseWriter, r *http.Request) {
	if h.cfg.Ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), readyTimeout)
		defer cancel()
		// Ready should heed ctx; if it does not, /readyz answers anyway.
		done := make(chan error, 1)
		go func() { done <- h.cfg.Ready(ctx) }()
		var err error
		select {
		case err = <-done:
		case <-ctx.Done():
			err = ctx.Err()
		}
		if err != nil && ctx.Err() == context.DeadlineExceeded && r.Context().Err() == nil {
			err = semcat.Errorf(semcat.EUNAVAILABLE, "not ready: no answer within %s", readyTimeout)
		}
		if err != nil {
			writeError(w, r, err, http.StatusServiceUnavailable)
			return
		}
	}
	if err := writeJSON(w, http.StatusOK, map[string]string{"status": "ok"}); err != nil {
		Error(w, r, err)
	}
}

// GravitinoAPIVersion is the version of Gravitino's REST API semcat
// implements (SPEC §2.10): Gravitino's clients refuse a server whose
// major.minor is below their own, and the reference client is 2.0.
const GravitinoAPIVersion = "2.0.0"

// version answers in Gravitino's shape, {"version": {"version",
// "compileDate", "gitCommit"}}, which Gravitino's clients check before any
// other call; semcat's own version is in semcatVersion.
func (h *handler) version(w http.ResponseWriter, r *http.Request) error {
	return ok(w, "version", map[string]string{
		"version":       GravitinoAPIVersion,
		"compileDate":   buildStamp.date,
		"gitCommit":     buildStamp.commit,
		"semcatVersion": h.cfg.Version,
	})
}

// buildStamp is when and from which commit the binary was built, as the Go
// toolchain recorded it, or "unknown" (a build outside a git checkout):
// Gravitino's clients require both fields to be non-empty.
var buildStamp = func() (stamp struct{ date, commit string }) {
	stamp.date, stamp.commit = "unknown", "unknown"
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return stamp
	}
	for _, s := range info.Settings {
		switch {
		case s.Key == "vcs.time" && s.Value != "":
			stamp.date = s.Value
		case s.Key == "vcs.revision" && s.Value != "":
			stamp.commit = s.Value
		}
	}
	return stamp
}()

func notFound(w http.ResponseWriter, r *http.Request) {
	Error(w, r, semcat.Errorf(semcat.ENOTFOUND, "no such route: %s %s", r.Method, r.URL.EscapedPath()))
}

// methodNotAllowed answers 405 with an Allow header listing the methods the
// path does support.
func methodNotAllowed(router *mux.Router) http.Handler {
	methods := []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete, http.MethodPatch}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var allowed []string
		for _, m := range methods {
			probe := r.Clone(r.Context())
			probe.Method = m
			var match mux.RouteMatch
			if router.Match(probe, &match) && match.MatchErr == nil {
				allowed = append(allowed, m)
			}
		}
		list := strings.Join(allowed, ", ")
		w.Header().Set("Allow", list)
		err := semcat.Errorf(semcat.EINVALID, "method %s is not allowed on %s (allowed: %s)", r.Method, r.URL.EscapedPath(), list)
		writeError(w, r, err, http.StatusMethodNotAllowed)
	})
}
