package api_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/api/apitest"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
	"github.com/semcat/semcat/internal/sources"
)

// newConnectionServer is newStoreServer with testConnection wired to the
// real source tester.
func newConnectionServer(t *testing.T) *apitest.Client {
	t.Helper()
	s, err := catalogdb.Open(context.Background(), pgtest.NewDatabase(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	c := apitest.NewServer(t, api.Services{Metalakes: s, Catalogs: s, Schemas: s, Tables: s, Models: s, Tags: s, Metrics: s, Access: s,
		Connections: &semcat.Connections{Metalakes: s, Catalogs: s, Source: sources.Test}})
	c.MustOK("POST", "/api/metalakes", `{"name":"m"}`)
	c.MustOK("POST", "/api/metalakes/m/catalogs", `{"name":"rel","type":"relational"}`)
	return c
}

// TestTestConnectionWithoutSource: a catalog without an external source
// (provider semcat, or none given) always connects: {"code": 0}, and
// nothing is created.
func TestTestConnectionWithoutSource(t *testing.T) {
	t.Parallel()
	for _, c := range []*apitest.Client{newConnectionServer(t), func() *apitest.Client { c, _ := newStoreServer(t, api.Config{}); return c }()} {
		for _, body := range []string{
			`{"name": "new", "type": "relational", "provider": null, "comment": null, "properties": null}`,
			`{"name": "new", "type": "RELATIONAL", "provider": "semcat", "properties": {"k": "v"}}`,
		} {
			_, resp := c.MustOK("POST", "/api/metalakes/m/catalogs/testConnection", body)
			if len(resp) != 1 || resp["code"] != 0.0 {
				t.Errorf("testConnection %s: %v, want just {\"code\": 0}", body, resp)
			}
		}
		if status, _, _ := c.Do("GET", "/api/metalakes/m/catalogs/new", nil); status != 404 {
			t.Errorf("testConnection created the catalog: GET answers %d", status)
		}
		if _, resp := c.MustOK("POST", "/api/metalakes/m/catalogs/rel/testConnection", nil); len(resp) != 1 || resp["code"] != 0.0 {
			t.Errorf("testConnection of catalog rel: %v", resp)
		}
		errs := []struct {
			path, body string
			status     int
			typ        string
		}{
			{"/api/metalakes/nope/catalogs/testConnection", `{"name": "new", "type": "relational"}`, 404, "NoSuchMetalakeException"},
			{"/api/metalakes/m/catalogs/nope/testConnection", "", 404, "NoSuchCatalogException"},
			{"/api/metalakes/m/catalogs/testConnection", `{"name": "new"}`, 400, "IllegalArgumentException"},
			{"/api/metalakes/m/catalogs/testConnection", `{"name": "new", "type": "relational", "extra": 1}`, 400, "IllegalArgumentException"},
			{"/api/metalakes/m/catalogs/testConnection", `{"name": "rel", "type": "relational"}`, 409, "CatalogAlreadyExistsException"},
			{"/api/metalakes/off/catalogs/testConnection", `{"name": "new", "type": "relational"}`, 409, "MetalakeNotInUseException"},
		}
		c.MustOK("POST", "/api/metalakes", `{"name":"off"}`)
		c.MustOK("PATCH", "/api/metalakes/off", `{"inUse": false}`)
		for _, e := range errs {
			var body any
			if e.body != "" {
				body = e.body
			}
			if status, _, resp := c.Do("POST", e.path, body); status != e.status || resp["type"] != e.typ {
				t.Errorf("POST %s %s: %d %v, want %d %s", e.path, e.body, status, resp, e.status, e.typ)
			}
		}
	}
}

// TestTestConnectionPostgreSQL: a jdbc-postgresql catalog connects to the
// test PostgreSQL (over TCP, as a JDBC URL names it), and fails 502/1007
// with the source's reason against a closed port, never echoing the
// password.
func TestTestConnectionPostgreSQL(t *testing.T) {
	t.Parallel()
	c := newConnectionServer(t)
	dsn := pgtest.NewDatabase(t)
	cfg, err := pgx.ParseConfig(dsn)
	if err != nil {
		t.Fatal(err)
	}
	addr := tcpProxy(t, cfg.Host, cfg.Port)
	const password = "s3cret-pw"
	props := func(url string) string {
		return fmt.Sprintf(`{"jdbc-url": %q, "jdbc-driver": "org.postgresql.Driver", "jdbc-database": %q, "jdbc-user": %q, "jdbc-password": %q}`,
			url, cfg.Database, cfg.User, password)
	}
	good := props("jdbc:postgresql://" + addr + "/" + cfg.Database)
	body := `{"name": "pg", "type": "relational", "provider": "jdbc-postgresql", "comment": null, "properties": ` + good + `}`
	if _, resp := c.MustOK("POST", "/api/metalakes/m/catalogs/testConnection", body); resp["code"] != 0.0 {
		t.Errorf("testConnection to the test PostgreSQL: %v", resp)
	}
	c.MustOK("POST", "/api/metalakes/m/catalogs", body)
	// Now that it exists, a test of its creation is 409, as in Gravitino.
	if status, _, resp := c.Do("POST", "/api/metalakes/m/catalogs/testConnection", body); status != 409 || resp["type"] != "CatalogAlreadyExistsException" {
		t.Errorf("testConnection of an existing catalog's creation: %d %v", status, resp)
	}
	c.MustOK("POST", "/api/metalakes/m/catalogs/pg/testConnection", nil)

	closed := closedPort(t)
	bad := props("jdbc:postgresql://" + closed + "/" + cfg.Database + "?user=x&password=" + password)
	c.MustOK("POST", "/api/metalakes/m/catalogs", `{"name": "down", "type": "relational", "provider": "jdbc-postgresql", "properties": `+bad+`}`)
	body = `{"name": "down_too", "type": "relational", "provider": "jdbc-postgresql", "properties": ` + bad + `}`
	for _, r := range []struct{ path, body string }{
		{"/api/metalakes/m/catalogs/testConnection", body},
		{"/api/metalakes/m/catalogs/down/testConnection", ""},
	} {
		var b any
		if r.body != "" {
			b = r.body
		}
		status, _, resp := c.Do("POST", r.path, b)
		msg, _ := resp["message"].(string)
		if status != 502 || resp["code"] != 1007.0 || resp["type"] != "ConnectionFailedException" {
			t.Errorf("POST %s against a closed port: %d %v, want 502/1007 ConnectionFailedException", r.path, status, resp)
		}
		if !strings.Contains(msg, closed[strings.LastIndex(closed, ":")+1:]) || !strings.Contains(msg, "refused") {
			t.Errorf("the message does not give the source's reason: %q", msg)
		}
		if strings.Contains(msg, password) {
			t.Errorf("the message echoes the password: %q", msg)
		}
	}
	// Properties that do not name a PostgreSQL database are the request's
	// fault.
	body = `{"name": "x", "type": "relational", "provider": "jdbc-postgresql", "properties": {"jdbc-url": "jdbc:mysql://h:1/d"}}`
	if status, _, resp := c.Do("POST", "/api/metalakes/m/catalogs/testConnection", body); status != 400 || !strings.HasPrefix(resp["message"].(string), "properties.jdbc-url:") {
		t.Errorf("a MySQL URL: %d %v", status, resp)
	}
}

// tcpProxy forwards a loopback TCP port to the PostgreSQL socket in dir
// (the test cluster listens on a Unix socket only) and returns its
// host:port.
func tcpProxy(t *testing.T, dir string, port uint16) string {
	t.Helper()
	if !strings.HasPrefix(dir, "/") {
		return fmt.Sprintf("%s:%d", dir, port) // already TCP (DATABASE_URL)
	}
	socket := filepath.Join(dir, fmt.Sprintf(".s.PGSQL.%d", port))
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { ln.Close(); wg.Wait() })
	wg.Go(func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("unix", socket)
			if err != nil {
				in.Close()
				continue
			}
			wg.Go(func() { io.Copy(out, in); out.Close() })
			wg.Go(func() { io.Copy(in, out); in.Close() })
		}
	})
	return ln.Addr().String()
}

// closedPort returns a loopback host:port nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}
