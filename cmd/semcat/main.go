// Command semcat runs the semcat metadata catalog and search service, and
// talks to a running one from the command line.
//
//	semcat serve [--addr 127.0.0.1:8090] [--data-dir ./var] [--database-url URL]
//	             [--config semcat.yaml] [--demo] [--auth none] ...
//	semcat search <query> [--type table] [--json] ...
//	semcat metrics <metalake.catalog.schema> [--details]
//	semcat tables|models|schemas|catalogs|metalakes list|get ...
//	semcat tags list|get|create|drop|object|associate ...
//	semcat reindex | import FILE | status | mcp | version
package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/semcat/semcat/internal/localpg"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/spf13/cobra"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/connectors/postgres"
	"github.com/semcat/semcat/indexer"
	"github.com/semcat/semcat/internal/accesslog"
	"github.com/semcat/semcat/internal/authz"
	"github.com/semcat/semcat/internal/connlimit"
	"github.com/semcat/semcat/internal/demo"
	"github.com/semcat/semcat/internal/events"
	"github.com/semcat/semcat/internal/jobs"
	"github.com/semcat/semcat/internal/sources"
	"github.com/semcat/semcat/mcpserver"
	"github.com/semcat/semcat/search"
	"github.com/semcat/semcat/web"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	os.Exit(report(os.Stderr, run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr)))
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	root := newRootCommand(getenv, stdout, stderr)
	root.SetArgs(args)
	return root.Execute()
}

// serveCommand is semcat serve, which parses its own flags (LoadConfig):
// each setting is also an environment variable and a config file key.
func serveCommand(getenv func(string) string) *cobra.Command {
	return &cobra.Command{
		Use:                "serve [flags]",
		Short:              "run the catalog and search service (semcat serve --help for flags)",
		DisableFlagParsing: true,
		Annotations:        local,
		RunE: func(cmd *cobra.Command, args []string) error {
			cfg, err := LoadConfig(args, getenv)
			if err != nil {
				return err
			}
			// SIGHUP too: closing the terminal semcat runs in stops it in
			// order, managed PostgreSQL included, rather than killing it
			// and leaving the cluster running.
			ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
			defer stop()
			m := NewMain(cfg, cmd.OutOrStdout(), cmd.ErrOrStderr())
			if err := m.Run(ctx); err != nil {
				m.Close(context.Background())
				if ctx.Err() != nil {
					return nil // stopped while starting (waiting for the database, say)
				}
				return err
			}
			<-ctx.Done()
			m.Logger.Info("shutting down")
			closeCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			return m.Close(closeCtx)
		},
	}
}

// versionCommand is semcat version (also semcat --version).
func versionCommand() *cobra.Command {
	return &cobra.Command{
		Use:         "version",
		Short:       "print the version",
		Args:        argsBetween(0, 0),
		Annotations: local,
		RunE: func(cmd *cobra.Command, _ []string) error {
			fmt.Fprintln(cmd.OutOrStdout(), "semcat", version)
			return nil
		},
	}
}

// didYouMean names the candidate closest to a mistyped word (closest), as
// " (did you mean \"x\"?)", or "" when none is close.
func didYouMean(word string, candidates []string) string {
	if best := closest(word, candidates); best != "" {
		return fmt.Sprintf(" (did you mean %q?)", best)
	}
	return ""
}

// closest returns the candidate closest to a mistyped word (at most two
// edits away, or one for short words), or else the only one the word
// starts, or "".
func closest(word string, candidates []string) string {
	best, bestD := "", 3
	if len([]rune(word)) <= 3 {
		bestD = 2
	}
	if starts := slices.DeleteFunc(slices.Clone(candidates), func(c string) bool { return !strings.HasPrefix(c, strings.ToLower(word)) }); len(word) >= 2 && len(starts) == 1 {
		best = starts[0]
	}
	for _, c := range candidates {
		if d := editDistance(strings.ToLower(word), c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}

// editDistance is the optimal string alignment distance of a and b:
// insertions, deletions, substitutions and adjacent transpositions.
func editDistance(a, b string) int {
	x, y := []rune(a), []rune(b)
	d := make([][]int, len(x)+1)
	for i := range d {
		d[i] = make([]int, len(y)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(x); i++ {
		for j := 1; j <= len(y); j++ {
			cost := 1
			if x[i-1] == y[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && x[i-1] == y[j-2] && x[i-2] == y[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(x)][len(y)]
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: semcat <command> [flags]

running the service:
  serve       run the catalog and search service (semcat serve --help for flags)
  reset       start over: delete a stopped server's data directory and its PostgreSQL cluster
  mcp         serve the Model Context Protocol over stdio, answering from a running server
  version     print the version
  completion SHELL   print a completion script (bash, zsh, fish, powershell): source <(semcat completion bash)

talking to a running server:
  search <query>                      search the metadata: semcat search EmpTel --type table
  suggest <prefix>                    type-ahead: names starting with a prefix: semcat suggest emp
  metrics <metalake.catalog.schema>   list a schema's metrics (--details: with definitions)
  models list|get <identifier>        semantic models: semcat models get demo.warehouse.sales.sales
  tables list|get <identifier>        tables: semcat tables list demo.hr.people
  schemas, catalogs, metalakes        list|get, the same way
  tags list|get|create|drop|object|associate
                                      tags: semcat tags object table demo.hr.people.employees
  metadata <type> <identifier>        an object's system and user metadata
  reindex                             rebuild the server's search index and swap it in
  import FILE|-                       create the entities of a JSON Lines file (one per line:
                                      {"type":"table","namespace":"m.c.s","entity":{...},"tags":[...]})
  status                              whether the server is up and ready, and its version

Identifiers are dotted from the metalake down (metalake.catalog.schema.table); the
metalake may be left out when --metalake (SEMCAT_METALAKE) names it or the server has
only one. The commands that talk to a server take, before or after the command:
  --server URL     the server (default SEMCAT_URL, or http://127.0.0.1:8090)
  --user NAME      user name, for a server with --auth simple (SEMCAT_USER)
  --token JWT      bearer token, for a server with --auth jwt (SEMCAT_TOKEN)
  --json           print the result as JSON, in the REST API's shapes
semcat help <command> (or semcat <command> --help) tells what a command does and its flags.
Exit status: 0 success, 1 failure, 2 bad usage, 3 not found.
`)
}

// Main is a running semcat server: the managed PostgreSQL (if any), the
// store and the HTTP server. End-to-end tests reuse it.
type Main struct {
	Config Config
	Logger *slog.Logger
	stdout io.Writer

	pg       *localpg.Cluster
	Store    *catalogdb.Store
	Registry *prometheus.Registry
	bus      *events.Bus
	audit    *events.AuditLog
	jobs     *jobs.Scheduler
	Indexer  *indexer.Indexer
	stopTail context.CancelFunc
	tailDone chan struct{}
	server   *http.Server
	serving  atomic.Pointer[http.Handler] // what server answers with: StartingHandler, then the API
	ln       net.Listener
	conns    *connlimit.Limiter
	// releaseDataDir drops the data directory's lock (lockDataDir).
	releaseDataDir func()
	served         chan error
	pprof          *http.Server

	stopMemoryLimit func()

	// watch checks the database for /readyz and logs it lost and regained.
	watch     *catalogdb.Watch
	stopWatch context.CancelFunc
	watchDone chan struct{}

	// sources mirrors the catalogs of external sources (PostgreSQL) on
	// their schedules until stopSources.
	sources     *postgres.Connector
	stopSources context.CancelFunc
	sourcesDone chan struct{}
}

// NewMain returns a Main for cfg that logs JSON lines to stderr.
func NewMain(cfg Config, stdout, stderr io.Writer) *Main {
	level := slog.LevelInfo
	_ = level.UnmarshalText([]byte(cfg.LogLevel))
	logger := slog.New(slog.NewJSONHandler(stderr, &slog.HandlerOptions{Level: level}))
	return &Main{Config: cfg, Logger: logger, stdout: stdout}
}

// URL returns the base URL the server listens on.
func (m *Main) URL() string { return "http://" + m.ln.Addr().String() }

// Run starts PostgreSQL (managed or given), opens the store, loads the demo
// catalog if asked, and starts serving. It returns once the server listens.
func (m *Main) Run(ctx context.Context) error {
	cfg := m.Config
	dataDir, err := filepath.Abs(cfg.DataDir)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dataDir, 0o755); err != nil {
		return fmt.Errorf("data dir: %w", err)
	}
	if m.releaseDataDir, err = lockDataDir(dataDir); err != nil {
		return err
	}
	// Listen first: /healthz answers while PostgreSQL starts and the index
	// builds (minutes at a million entities), the rest 503 until ready.
	if err := m.listen(); err != nil {
		return err
	}
	url := cfg.DatabaseURL
	if url == "" {
		m.Logger.Info("starting managed PostgreSQL", "dir", filepath.Join(dataDir, "pg"))
		if m.pg, err = localpg.Start(ctx, localpg.Options{DataDir: dataDir, Logger: m.Logger}); err != nil {
			return err
		}
		url = m.pg.URL("semcat")
		m.stopMemoryLimit = startMemoryLimit(m.Logger, m.pg.PID, m.pg.MemoryBudget())
	} else {
		m.stopMemoryLimit = startMemoryLimit(m.Logger, func() int { return 0 }, 0)
	}
	if m.Store, err = m.openStore(ctx, url); err != nil {
		return err
	}
	m.watch = catalogdb.NewWatch(m.Store, m.Logger)
	watchCtx, stopWatch := context.WithCancel(context.Background())
	m.stopWatch, m.watchDone = stopWatch, make(chan struct{})
	go func() {
		defer close(m.watchDone)
		m.watch.Run(watchCtx)
	}()
	if cfg.Demo {
		loaded, err := demo.LoadIfEmpty(ctx, m.Store)
		if err != nil {
			return err
		}
		if loaded {
			m.Logger.Info("loaded the example catalog", "metalake", demo.Metalake)
		}
	}
	if err := m.startIndexer(ctx, dataDir); err != nil {
		return err
	}
	handler, err := m.handler(dataDir)
	if err != nil {
		return err
	}
	if err := m.startJobs(); err != nil {
		return err
	}
	if err := m.startPprof(); err != nil {
		return err
	}
	m.serving.Store(&handler)
	m.Logger.Info("semcat is serving", "url", m.URL())
	if cfg.Demo {
		m.printWelcome()
	}
	return nil
}

// openStore opens the store on the database at url. An external database
// that is not up yet (starting, failing over), or goes away again while
// semcat connects, is waited for rather than given up on (SPEC §9).
func (m *Main) openStore(ctx context.Context, url string) (*catalogdb.Store, error) {
	for pause := time.Second; ; pause = min(2*pause, 10*time.Second) {
		if m.Config.DatabaseURL != "" {
			if err := catalogdb.WaitReachable(ctx, url, m.Logger); err != nil {
				return nil, err
			}
		}
		s, err := catalogdb.Open(ctx, url, m.Logger)
		if err == nil || m.Config.DatabaseURL == "" || ctx.Err() != nil || !catalogdb.Unreachable(err) {
			return s, err
		}
		if pause == time.Second {
			m.Logger.Warn("the database went away (or turned read-only) while semcat connected to it; waiting for it again", "err", err)
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(pause):
		}
	}
}

// indexMetrics are the search index's tail loop's health on /metrics.
func indexMetrics(x *indexer.Indexer) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "semcat_index_poll_errors_total",
			Help: "Polls of the outbox that failed (the database unreachable, say)."},
			func() float64 { return float64(x.Health().PollErrors) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "semcat_index_failing_seconds",
			Help: "How long the outbox polls have been failing; 0 while they succeed."},
			func() float64 { return x.Health().FailingFor.Seconds() }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "semcat_index_position",
			Help: "The transaction horizon the search index has applied (the minPosition it satisfies)."},
			func() float64 { return float64(x.Health().Position) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "semcat_index_lag_transactions",
			Help: "Transactions begun at or after the index's horizon, as of the last poll: writes not yet searchable."},
			func() float64 { return float64(x.Health().Lag) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "semcat_index_held_seconds",
			Help: "How long the index's horizon has stayed put with transactions waiting behind it (a transaction left open); 0 when it moves."},
			func() float64 { return x.Health().HeldFor.Seconds() }),
	}
}

// ready is /readyz: the database answers (the watch's check, over its own
// connection and within its own deadline) and the search index is open.
func (m *Main) ready(ctx context.Context) error {
	if err := m.watch.Check(ctx); err != nil {
		return err
	}
	return m.Indexer.Ready()
}

// listen starts serving on cfg.Addr with api.StartingHandler until Run
// installs the real handler.
func (m *Main) listen() error {
	starting := api.StartingHandler()
	m.serving.Store(&starting)
	ln, err := net.Listen("tcp", m.Config.Addr)
	if err != nil {
		return err
	}
	// Each phase of a request is bounded, so that a client that sends
	// slowly, reads slowly or sits idle lets its connection go (SPEC
	// §2.11): the header in 10 s, the body in bodyTimeout (handler), the
	// answer within the longest a request may take (a search's 30 s wait
	// for the index on top of the 30 s deadline; a rebuild lifts it), an
	// idle keep-alive connection for 30 s; and at the cap of open
	// connections a newcomer closes the longest idle one, each caller
	// holding at most a quarter of them (fairConnections).
	m.conns = newConnLimiter(m.Config)
	m.ln = m.conns.Listener(ln)
	m.server = &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { (*m.serving.Load()).ServeHTTP(w, r) }), ConnState: m.conns.ConnState,
		ConnContext:       m.conns.ConnContext,
		ReadHeaderTimeout: 10 * time.Second, WriteTimeout: 2 * time.Minute, IdleTimeout: 30 * time.Second}
	m.served = make(chan error, 1)
	go func() { m.served <- m.server.Serve(m.ln) }()
	return nil
}

func (m *Main) printWelcome() {
	u := m.URL()
	fmt.Fprintf(m.stdout, `
semcat is running at %[1]s  (Ctrl-C to stop) — open it in a browser to search

Try:
  curl -s %[1]s/api/metalakes/demo/catalogs/hr/schemas/people/tables/employees
  curl -s %[1]s/api/metalakes/demo/catalogs/warehouse/schemas/sales/semantic-models/sales
  curl -s '%[1]s/api/metalakes/demo/catalogs/warehouse/schemas/main/semantic-models'

`, u)
}

// services returns the catalog services the API calls: the store, guarded
// by the authorization rules when authorization is on.
func (m *Main) services() api.Services {
	m.sources = postgres.New(m.Store, m.Logger)
	var svc authz.Inner = m.sources.Services(m.Store)
	connections := &semcat.Connections{Source: sources.Test}
	if m.Config.Authorization {
		admins := m.Config.ServiceAdmins
		if m.Config.Auth == api.AuthNone {
			admins = append(append([]string{}, admins...), m.Config.AnonymousUser)
		}
		guarded := authz.New(svc, m.Store, admins, m.Logger)
		svc, connections.MayCreateCatalog = guarded, guarded.MayCreateCatalog
	}
	connections.Metalakes, connections.Catalogs = svc, svc
	searches := &search.Service{Index: m.Indexer, Store: m.Store, Authorization: m.Config.Authorization, Admin: m.isAdmin}
	searches.Synonyms = &search.SynonymCache{Load: m.Store.GetSynonyms}
	m.Store.WatchSynonyms(searches.Synonyms.Invalidate)
	return api.Services{Metalakes: svc, Catalogs: svc, Schemas: svc, Tables: svc, Models: svc, Tags: svc, Metrics: svc, Access: svc,
		Search: searches, Metadata: svc, Policies: svc, Connections: m.sources.Connections(connections), Sources: m.sources, Synonyms: svc}
}

// startIndexer opens (or builds) the search index under <data-dir>/index
// and starts tailing the outbox into it.
// cacheSweep is the indexer's CacheSweep for the configured interval,
// where 0 means off.
func cacheSweep(d time.Duration) time.Duration {
	if d == 0 {
		return -1
	}
	return d
}

// residentIndex is the indexer's ResidentIndex for the configured MiB,
// where 0 means no bound.
func residentIndex(mib int) int64 {
	if mib == 0 {
		return -1
	}
	return int64(mib) << 20
}

func (m *Main) startIndexer(ctx context.Context, dataDir string) error {
	dir := filepath.Join(dataDir, "index")
	host, _ := os.Hostname()
	sum := sha256.Sum256([]byte(dir))
	var err error
	m.Indexer, err = indexer.Open(ctx, indexer.Options{
		Dir: dir, Store: m.Store, Logger: m.Logger, Wake: m.Store.Commits(),
		Consumer:      host + ":" + hex.EncodeToString(sum[:6]),
		CacheSweep:    cacheSweep(m.Config.IndexCacheSweep),
		ResidentIndex: residentIndex(m.Config.IndexResidentMiB),
		// The database watch logs an outage, once each way.
		DatabaseWatched: true,
	})
	if err != nil {
		return err
	}
	tailCtx, cancel := context.WithCancel(context.Background())
	m.stopTail, m.tailDone = cancel, make(chan struct{})
	go func() {
		defer close(m.tailDone)
		m.Indexer.Run(tailCtx)
	}()
	return nil
}

// handler builds the HTTP handler: authentication, events (audit log and
// Prometheus counters, served at /metrics) and the API.
// bodyTimeout is how long a request's body may take to arrive: an 8 MiB
// body at 280 KB/s.
const bodyTimeout = 30 * time.Second

func (m *Main) handler(dataDir string) (http.Handler, error) {
	cfg := m.Config
	authCfg, err := cfg.AuthConfig()
	if err != nil {
		return nil, err
	}
	authenticate, err := api.NewAuthenticator(authCfg)
	if err != nil {
		return nil, err
	}
	fair, authenticate := m.fairConnections(authenticate)
	m.Registry = prometheus.NewRegistry()
	m.Registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.Registry.MustRegister(indexMetrics(m.Indexer)...)
	m.Registry.MustRegister(connMetrics(m.conns)...)
	m.bus = events.NewBus(m.Logger, m.Registry, 4096)
	if path := cfg.AuditLog; path != "-" {
		if path == "" {
			path = filepath.Join(dataDir, "audit.log")
		}
		if m.audit, err = events.NewAuditLogFile(path); err != nil {
			return nil, err
		}
		m.bus.Register("audit", m.audit)
	}
	m.bus.Register("metrics", events.NewMetrics(m.Registry))
	m.bus.Start()

	svc := m.services()
	apiHandler := api.NewHandler(svc, api.Config{
		MaxBodyBytes:    cfg.MaxBodyBytes,
		Logger:          m.Logger,
		Ready:           m.ready,
		Version:         version,
		Authenticate:    authenticate,
		Middleware:      []api.Middleware{api.EventMiddleware(m.bus.Publish)},
		Reindex:         m.Indexer.Rebuild,
		ReindexProgress: m.Indexer.RebuildProgress,
		IsAdmin:         m.isAdmin,
		DatabaseDown:    m.watch.Down,
	})
	mux := http.NewServeMux()
	mux.Handle("/metrics", api.MetricsHandler(m.Registry))
	mux.Handle("/mcp", mcpserver.HTTPHandler(mcpserver.Services{Metrics: svc.Metrics, Search: svc.Search,
		Catalogs: svc.Catalogs, Schemas: svc.Schemas, Tables: svc.Tables, Models: svc.Models, Tags: svc.Tags},
		mcpserver.Config{DefaultMetalake: cfg.DefaultMetalake, Version: version, Logger: m.Logger, MaxBodyBytes: cfg.MaxBodyBytes,
			Events: m.bus.Publish}, authenticate))
	page := web.Handler()
	mux.Handle("GET /{$}", page)
	mux.Handle("GET /assets/", page)
	mux.Handle("/", apiHandler)
	listenHost, _, _ := net.SplitHostPort(cfg.Addr)
	guard := api.BrowserGuard(api.BrowserConfig{ListenHost: listenHost, AllowedHosts: cfg.AllowedHosts, AllowedOrigins: cfg.AllowedOrigins})
	h := fair(api.BodyDeadline(bodyTimeout)(guard(mux)))
	if cfg.AccessLog {
		h = accesslog.Middleware(m.Logger)(h)
	}
	return h, nil
}

// isAdmin: with authorization off everyone is; otherwise the service admins.
func (m *Main) isAdmin(user string) bool {
	if !m.Config.Authorization {
		return true
	}
	for _, a := range m.Config.ServiceAdmins {
		if a == user {
			return true
		}
	}
	return m.Config.Auth == api.AuthNone && user == m.Config.AnonymousUser
}

// startJobs schedules the in-process jobs (SPEC §8).
func (m *Main) startJobs() error {
	cfg := m.Config
	m.jobs = jobs.New(m.Logger, m.Registry)
	policy := catalogdb.RetentionPolicy{DeletedAfter: cfg.RetentionDeletedAfter, KeepVersions: cfg.RetentionKeepVersions}
	add := []struct {
		name, spec string
		fn         func(context.Context) error
	}{
		{"retention", cfg.RetentionSchedule, jobs.RetentionJob(m.Store, policy, m.Logger)},
		{"outbox-prune", cfg.PruneSchedule, func(ctx context.Context) error {
			n, err := m.Store.PruneOutbox(ctx, cfg.ConsumerTimeout)
			if n > 0 {
				m.Logger.Info("pruned the outbox", "rows", n)
			}
			return err
		}},
		{"index-scrub", cfg.ScrubSchedule, func(ctx context.Context) error {
			st, err := m.Indexer.Scrub(ctx, cfg.ScrubSample)
			if st.Reindexed+st.Deleted > 0 {
				m.Logger.Warn("the index scrub repaired documents", "checked", st.Checked, "reindexed", st.Reindexed, "deleted", st.Deleted, "pending", st.Pending)
			}
			return err
		}},
	}
	for _, j := range add {
		if err := m.jobs.Add(j.name, j.spec, j.fn); err != nil {
			return err
		}
	}
	m.jobs.Start()
	m.Registry.MustRegister(m.sources.Collector())
	sourcesCtx, stopSources := context.WithCancel(context.Background())
	m.stopSources, m.sourcesDone = stopSources, make(chan struct{})
	go func() {
		defer close(m.sourcesDone)
		m.sources.Run(sourcesCtx)
	}()
	return nil
}

// Close stops serving (finishing in-flight requests), stops the jobs and the
// event listeners, closes the store and stops the managed PostgreSQL. It may
// be called more than once.
func (m *Main) Close(ctx context.Context) error {
	var errs []error
	if m.Indexer != nil {
		m.Indexer.Stop() // a rebuild would hold its request and connections
	}
	if m.server != nil {
		errs = append(errs, m.server.Shutdown(ctx))
		if err := <-m.served; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
		m.server = nil
	}
	if m.pprof != nil {
		errs = append(errs, m.pprof.Shutdown(ctx))
		m.pprof = nil
	}
	if m.jobs != nil {
		errs = append(errs, m.jobs.Stop(ctx))
		m.jobs = nil
	}
	if m.stopSources != nil {
		m.stopSources()
		<-m.sourcesDone
		m.stopSources = nil
	}
	if m.stopTail != nil {
		m.stopTail()
		<-m.tailDone
		m.stopTail = nil
	}
	if m.Indexer != nil {
		errs = append(errs, m.Indexer.Close(ctx))
		m.Indexer = nil
	}
	if m.bus != nil {
		errs = append(errs, m.bus.Close(ctx))
		m.bus = nil
	}
	if m.audit != nil {
		errs = append(errs, m.audit.Close())
		m.audit = nil
	}
	if m.stopWatch != nil {
		m.stopWatch()
		<-m.watchDone
		m.stopWatch = nil
	}
	if m.Store != nil {
		m.Store.Close()
		m.Store = nil
	}
	if m.pg != nil {
		errs = append(errs, m.pg.Stop(ctx))
		m.pg = nil
	}
	if m.stopMemoryLimit != nil {
		m.stopMemoryLimit()
		m.stopMemoryLimit = nil
	}
	if m.releaseDataDir != nil {
		m.releaseDataDir()
		m.releaseDataDir = nil
	}
	return errors.Join(errs...)
}
