package sources

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"

	"github.com/semcat/semcat"
)

func TestPostgreSQLConfig(t *testing.T) {
	tests := []struct {
		props            map[string]string
		host, db, user   string
		port             uint16
		wantErr, errPath string
	}{
		{props: map[string]string{"jdbc-url": "jdbc:postgresql://db.example:6543/shop", "jdbc-user": "u", "jdbc-password": "p"},
			host: "db.example", port: 6543, db: "shop", user: "u"},
		{props: map[string]string{"jdbc-url": "jdbc:postgresql://db.example/shop?ssl=true&password=other", "jdbc-user": "u"},
			host: "db.example", port: 5432, db: "shop", user: "u"},
		{props: map[string]string{"jdbc-url": "jdbc:postgresql://db.example:5433/", "jdbc-database": "sales", "jdbc-user": "u"},
			host: "db.example", port: 5433, db: "sales", user: "u"},
		{props: map[string]string{"jdbc-url": "jdbc:postgresql://localhost/shop?socketFactory=org.newsclub.net.unix.AFUNIXSocketFactory$FactoryArg&socketFactoryArg=/run/pg/.s.PGSQL.5433", "jdbc-user": "u"},
			host: "/run/pg", port: 5433, db: "shop", user: "u"},
		{props: map[string]string{"jdbc-url": "jdbc:postgresql://localhost/shop?socketFactoryArg=/run/pg/socket"}, errPath: "properties.jdbc-url: socketFactoryArg '/run/pg/socket' is not"},
		{props: map[string]string{}, errPath: "properties.jdbc-url: a jdbc-postgresql catalog needs"},
		{props: map[string]string{"jdbc-url": "jdbc:mysql://h:3306/d"}, errPath: "properties.jdbc-url: 'jdbc:mysql://h:3306/d' is not"},
		{props: map[string]string{"jdbc-url": "jdbc:postgresql:shop"}, errPath: "properties.jdbc-url:"},
	}
	for _, tt := range tests {
		cfg, err := PostgreSQLConfig(tt.props)
		if tt.errPath != "" {
			if semcat.ErrorCode(err) != semcat.EINVALID || !strings.HasPrefix(semcat.ErrorMessage(err), tt.errPath) {
				t.Errorf("%v: %v, want EINVALID %q", tt.props, err, tt.errPath)
			}
			continue
		}
		if err != nil {
			t.Errorf("%v: %v", tt.props, err)
			continue
		}
		if cfg.Host != tt.host || cfg.Port != tt.port || cfg.Database != tt.db || cfg.User != tt.user || cfg.Password != tt.props["jdbc-password"] {
			t.Errorf("%v: host %s port %d db %s user %s password %q", tt.props, cfg.Host, cfg.Port, cfg.Database, cfg.User, cfg.Password)
		}
	}
}

// TestTestProviders: a provider without a source connects; a PostgreSQL
// catalog whose server refuses fails with ECONNFAILED, without the
// password.
func TestTestProviders(t *testing.T) {
	for _, p := range []string{"semcat", "hive", "lakehouse-iceberg"} {
		if err := Test(t.Context(), p, map[string]string{"jdbc-url": "nonsense"}); err != nil {
			t.Errorf("provider %s: %v", p, err)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	err = Test(context.Background(), ProviderPostgreSQL, map[string]string{"jdbc-url": "jdbc:postgresql://" + addr + "/db", "jdbc-user": "u", "jdbc-password": "hunter2"})
	var se *semcat.Error
	if !errors.As(err, &se) || se.Code != semcat.ECONNFAILED || strings.Contains(se.Message, "hunter2") || !strings.Contains(se.Message, addr) {
		t.Errorf("closed port: %v", err)
	}
	if got := reason(errors.New("auth failed for hunter2"), "hunter2"); strings.Contains(got, "hunter2") {
		t.Errorf("reason keeps the password: %q", got)
	}
}
