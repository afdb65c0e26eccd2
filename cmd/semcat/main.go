// Command semcat runs the semcat metadata catalog and search service.
//
//	semcat serve [--addr 127.0.0.1:8090] [--data-dir ./var] [--database-url URL]
//	             [--config semcat.yaml] [--demo] [--auth none] ...
//	semcat version
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"time"

	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/internal/demo"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

func main() {
	if err := run(os.Args[1:], os.Getenv, os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "semcat:", err)
		os.Exit(1)
	}
}

func run(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		return usage(stderr)
	}
	switch args[0] {
	case "serve":
		cfg, err := LoadConfig(args[1:], getenv)
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		m := NewMain(cfg, stdout, stderr)
		if err := m.Run(ctx); err != nil {
			m.Close(context.Background())
			return err
		}
		<-ctx.Done()
		m.Logger.Info("shutting down")
		closeCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		return m.Close(closeCtx)
	case "version", "--version":
		fmt.Fprintln(stdout, "semcat", version)
		return nil
	case "help", "-h", "--help":
		usage(stdout)
		return nil
	}
	usage(stderr)
	return fmt.Errorf("unknown command %q", args[0])
}

func usage(w io.Writer) error {
	fmt.Fprint(w, `usage: semcat <command> [flags]

commands:
  serve     run the catalog and search service (semcat serve --help for flags)
  version   print the version
`)
	return errors.New("no command given")
}

// Main is a running semcat server: the managed PostgreSQL (if any), the
// store and the HTTP server. End-to-end tests reuse it.
type Main struct {
	Config Config
	Logger *slog.Logger
	stdout io.Writer

	pg     *catalogdb.LocalPostgres
	Store  *catalogdb.Store
	server *http.Server
	ln     net.Listener
	served chan error
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
	url := cfg.DatabaseURL
	if url == "" {
		m.Logger.Info("starting managed PostgreSQL", "dir", filepath.Join(dataDir, "pg"))
		if m.pg, err = catalogdb.StartLocal(ctx, catalogdb.LocalOptions{DataDir: dataDir, Logger: m.Logger}); err != nil {
			return err
		}
		url = m.pg.URL("semcat")
	}
	if m.Store, err = catalogdb.Open(ctx, url, m.Logger); err != nil {
		return err
	}
	if cfg.Demo {
		loaded, err := demo.LoadIfEmpty(ctx, m.Store)
		if err != nil {
			return err
		}
		if loaded {
			m.Logger.Info("loaded the example catalog", "metalake", demo.Metalake)
		}
	}
	handler := api.NewHandler(api.Services{
		Metalakes: m.Store, Catalogs: m.Store, Schemas: m.Store, Tables: m.Store, Models: m.Store, Tags: m.Store, Metrics: m.Store,
	}, api.Config{
		MaxBodyBytes: cfg.MaxBodyBytes,
		Logger:       m.Logger,
		Ready:        m.Store.Ping,
		Version:      version,
	})
	if m.ln, err = net.Listen("tcp", cfg.Addr); err != nil {
		return err
	}
	m.server = &http.Server{Handler: handler, ReadHeaderTimeout: 10 * time.Second}
	m.served = make(chan error, 1)
	go func() { m.served <- m.server.Serve(m.ln) }()
	m.Logger.Info("semcat is serving", "url", m.URL())
	if cfg.Demo {
		m.printWelcome()
	}
	return nil
}

func (m *Main) printWelcome() {
	u := m.URL()
	fmt.Fprintf(m.stdout, `
semcat is running at %[1]s  (Ctrl-C to stop)

Try:
  curl -s %[1]s/api/metalakes/demo/catalogs/hr/schemas/people/tables/employees
  curl -s %[1]s/api/metalakes/demo/catalogs/warehouse/schemas/sales/semantic-models/sales
  curl -s '%[1]s/api/metalakes/demo/catalogs/warehouse/schemas/main/semantic-models'

`, u)
}

// Close stops serving (finishing in-flight requests), closes the store and
// stops the managed PostgreSQL.
func (m *Main) Close(ctx context.Context) error {
	var errs []error
	if m.server != nil {
		errs = append(errs, m.server.Shutdown(ctx))
		if err := <-m.served; !errors.Is(err, http.ErrServerClosed) {
			errs = append(errs, err)
		}
	}
	if m.Store != nil {
		m.Store.Close()
	}
	if m.pg != nil {
		errs = append(errs, m.pg.Stop(ctx))
	}
	return errors.Join(errs...)
}
