package postgres_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/api/apitest"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
	"github.com/semcat/semcat/connectors/postgres"
	"github.com/semcat/semcat/indexer"
	"github.com/semcat/semcat/internal/authz"
	"github.com/semcat/semcat/internal/events"
	"github.com/semcat/semcat/internal/sources"
	"github.com/semcat/semcat/search"
)

func TestMain(m *testing.M) { pgtest.Main(m) }

// proxy forwards a loopback TCP port to the test PostgreSQL (its Unix
// socket, or its TCP address with DATABASE_URL); stopping it is the
// source going down, starting it again on the same port its return.
type proxy struct {
	t      testing.TB
	addr   string
	dial   func() (net.Conn, error)
	mu     sync.Mutex
	ln     net.Listener
	conns  map[net.Conn]bool
	wg     sync.WaitGroup
	closed bool
}

func newProxy(t testing.TB, host string, port uint16) *proxy {
	p := &proxy{t: t, conns: map[net.Conn]bool{}}
	if strings.HasPrefix(host, "/") {
		socket := filepath.Join(host, fmt.Sprintf(".s.PGSQL.%d", port))
		p.dial = func() (net.Conn, error) { return net.Dial("unix", socket) }
	} else {
		target := net.JoinHostPort(host, fmt.Sprint(port))
		p.dial = func() (net.Conn, error) { return net.Dial("tcp", target) }
	}
	p.addr = "127.0.0.1:0"
	p.start()
	t.Cleanup(func() { p.stop(); p.wg.Wait() })
	return p
}

func (p *proxy) start() {
	p.mu.Lock()
	defer p.mu.Unlock()
	var ln net.Listener
	var err error
	for range 50 { // the port of a stopped proxy may take a moment to free
		if ln, err = net.Listen("tcp", p.addr); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		p.t.Fatal(err)
	}
	p.ln, p.addr, p.closed = ln, ln.Addr().String(), false
	p.wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := p.dial()
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			if p.closed {
				p.mu.Unlock()
				in.Close()
				out.Close()
				return
			}
			p.conns[in], p.conns[out] = true, true
			p.mu.Unlock()
			p.wg.Go(func() { io.Copy(out, in); out.Close() })
			p.wg.Go(func() { io.Copy(in, out); in.Close() })
		}
	})
}

// stop closes the port and every connection through it.
func (p *proxy) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	p.ln.Close()
	for c := range p.conns {
		c.Close()
	}
	p.conns = map[net.Conn]bool{}
}

// syncBuffer is a log written by many goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// harness is semcat wired as cmd/semcat wires it — the store behind the
// connector behind the authorization rules, search over an index that
// follows the outbox, events into an audit log, the log into a buffer —
// and a source database on the test's PostgreSQL, reached over TCP.
type harness struct {
	t         testing.TB
	store     *catalogdb.Store
	conn      *postgres.Connector
	api       *apitest.Client
	index     *indexer.Indexer
	src       *pgx.Conn // the source, as its owner
	srcDB     string
	proxy     *proxy
	log       *syncBuffer
	auditPath string
	bodies    []string // every response body
	metrics   *prometheus.Registry
	bus       *events.Bus
	srcUser   string
}

const password = "pw-Zq81-never-shown"

func newHarness(t testing.TB) *harness {
	t.Helper()
	ctx := context.Background()
	h := &harness{t: t, log: &syncBuffer{}}
	logger := slog.New(slog.NewTextHandler(h.log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	var err error
	if h.store, err = catalogdb.Open(ctx, pgtest.NewDatabase(t), logger); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.store.Close)
	h.index, err = indexer.Open(ctx, indexer.Options{Dir: t.TempDir(), Store: h.store, Consumer: "pgtest", Logger: logger, Wake: h.store.Commits()})
	if err != nil {
		t.Fatal(err)
	}
	runCtx, stop := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { defer close(done); h.index.Run(runCtx) }()
	t.Cleanup(func() { stop(); <-done; h.index.Close(context.Background()) })

	h.conn = postgres.New(h.store, logger)
	inner := h.conn.Services(h.store)
	svc := authz.New(inner, h.store, []string{"admin"}, logger)
	reg := prometheus.NewRegistry()
	reg.MustRegister(h.conn.Collector())
	bus := events.NewBus(logger, reg, 1024)
	h.auditPath = filepath.Join(t.TempDir(), "audit.log")
	audit, err := events.NewAuditLogFile(h.auditPath)
	if err != nil {
		t.Fatal(err)
	}
	bus.Register("audit", audit)
	h.bus = bus
	bus.Start()
	t.Cleanup(func() { bus.Close(context.Background()); audit.Close() })
	authn, err := api.NewAuthenticator(api.AuthConfig{Mode: api.AuthSimple})
	if err != nil {
		t.Fatal(err)
	}
	isAdmin := func(u string) bool { return u == "admin" }
	h.api = apitest.NewServerWithConfig(t, api.Services{
		Metalakes: svc, Catalogs: svc, Schemas: svc, Tables: svc, Models: svc, Tags: svc, Metrics: svc, Access: svc,
		Metadata: svc, Policies: svc, Search: &search.Service{Index: h.index, Store: h.store, Authorization: true, Admin: isAdmin},
		Connections: h.conn.Connections(&semcat.Connections{Metalakes: svc, Catalogs: svc, Source: sources.Test, MayCreateCatalog: svc.MayCreateCatalog}),
		Sources:     h.conn,
	}, api.Config{Logger: logger, Authenticate: authn, IsAdmin: isAdmin,
		Middleware: []api.Middleware{api.EventMiddleware(bus.Publish)}})
	h.metrics = reg

	// The source: a database of its own, reached over TCP.
	dsn := pgtest.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	h.srcDB = cfg.Database
	if h.src, err = pgx.ConnectConfig(ctx, cfg); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.src.Close(context.Background()) })
	h.proxy = newProxy(t, cfg.Host, cfg.Port)
	h.srcUser = cfg.User
	h.ok("POST", "/api/metalakes", `{"name":"m"}`)
	return h
}

// loadPagila builds Pagila's schema (testdata/pagila-schema.sql) in the
// source, without what the test cluster cannot have (the postgres role),
// and comments a few of its
// objects, as a documented warehouse would.
func (h *harness) loadPagila() {
	h.t.Helper()
	b, err := os.ReadFile("testdata/pagila-schema.sql")
	if err != nil {
		h.t.Fatal(err)
	}
	sql := string(b)
	sql = regexp.MustCompile(`(?m)^ALTER .* OWNER TO postgres;$`).ReplaceAllString(sql, "")
	h.exec(sql)
	h.exec(`SET search_path = public`)
	h.exec(`COMMENT ON TABLE public.film IS 'Films in the rental catalogue, one row per title'`,
		`COMMENT ON COLUMN public.film.rental_rate IS 'Price of one rental'`,
		`COMMENT ON TABLE public.customer IS 'Customers of the stores'`,
		`CREATE SCHEMA finance`,
		`COMMENT ON SCHEMA finance IS 'Money in and out'`,
		`CREATE TABLE finance.ledger (entry_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY, amount numeric(12,2) NOT NULL DEFAULT 0,
			currency char(3) NOT NULL DEFAULT 'EUR', memo text, tags text[], booked_at timestamptz NOT NULL DEFAULT now(), UNIQUE (booked_at, amount))`,
		`CREATE UNIQUE INDEX ledger_memo_key ON finance.ledger (memo) INCLUDE (currency)`,
		`CREATE UNIQUE INDEX ledger_partial_key ON finance.ledger (currency) WHERE memo IS NULL`,
		`CREATE FOREIGN DATA WRAPPER dummy`,
		`CREATE SERVER elsewhere FOREIGN DATA WRAPPER dummy`,
		`CREATE FOREIGN TABLE finance.rates (currency char(3), rate double precision) SERVER elsewhere`)
}

// exec runs statements in the source; a failure fails the test.
func (h *harness) exec(stmts ...string) {
	h.t.Helper()
	for _, s := range stmts {
		if _, err := h.src.Exec(context.Background(), s); err != nil {
			h.t.Fatalf("source: %s: %v", firstLine(s), err)
		}
	}
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return s
}

// catalogBody is the creation request of a PostgreSQL catalog over the
// source.
func (h *harness) catalogBody(name, extra string) string {
	url := "jdbc:postgresql://" + h.proxy.addr + "/" + h.srcDB
	return fmt.Sprintf(`{"name": %q, "type": "relational", "provider": "jdbc-postgresql", "comment": "Pagila",
		"properties": {"jdbc-url": %q, "jdbc-driver": "org.postgresql.Driver", "jdbc-user": %q, "jdbc-password": %q%s}}`,
		name, url, h.srcUser, password, extra)
}

// do sends a request as the admin and keeps the body.
func (h *harness) do(method, path string, body any) (int, http.Header, map[string]any) {
	h.t.Helper()
	status, hdr, resp := h.api.Do(method, path, body, "Authorization", "Basic YWRtaW46eA==")
	b, _ := json.Marshal(resp)
	h.bodies = append(h.bodies, string(b))
	return status, hdr, resp
}

func (h *harness) ok(method, path string, body any) (http.Header, map[string]any) {
	h.t.Helper()
	status, hdr, resp := h.do(method, path, body)
	if status != 200 {
		h.t.Fatalf("%s %s: %d %v", method, path, status, resp)
	}
	return hdr, resp
}

// outboxRows counts the outbox's rows.
func (h *harness) outboxRows() int {
	h.t.Helper()
	var n int
	if err := h.store.Pool().QueryRow(context.Background(), `SELECT count(*) FROM outbox`).Scan(&n); err != nil {
		h.t.Fatal(err)
	}
	return n
}

// search returns the "type:name" of the results of q, once the index has
// the writes up to pos.
func (h *harness) search(q, pos string) []string {
	h.t.Helper()
	v := url.Values{"query": {q}, "limit": {"50"}}
	if pos != "" {
		v.Set("minPosition", pos)
	}
	_, resp := h.ok("GET", "/api/metalakes/m/search?"+v.Encode(), nil)
	var out []string
	rs, _ := resp["results"].([]any)
	for _, r := range rs {
		e := r.(map[string]any)["entity"].(map[string]any)
		out = append(out, fmt.Sprintf("%s:%s", e["type"], e["name"]))
	}
	return out
}
