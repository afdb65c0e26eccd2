// Package sources knows the external sources a catalog's provider names
// (SPEC §2.10, §2.12) well enough to test a connection to one. It is the
// hook of Gravitino's testConnection: a provider with a source gets a case
// in Test; every other provider (semcat's own, and those semcat only keeps
// the metadata of) has none, and its test succeeds.
package sources

import (
	"context"
	"errors"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/semcat/semcat"
)

// Gravitino's JDBC catalog properties.
const (
	PropertyJDBCURL      = "jdbc-url"
	PropertyJDBCUser     = "jdbc-user"
	PropertyJDBCPassword = "jdbc-password"
	PropertyJDBCDatabase = "jdbc-database"
)

// ProviderPostgreSQL is Gravitino's PostgreSQL catalog provider.
const ProviderPostgreSQL = "jdbc-postgresql"

// ConnectTimeout bounds one connection test, within the request's own
// deadline.
const ConnectTimeout = 10 * time.Second

// Test is a semcat.SourceTester: it connects to the source of a catalog of
// provider with properties, and closes the connection again.
func Test(ctx context.Context, provider string, properties map[string]string) error {
	switch provider {
	case ProviderPostgreSQL:
		return testPostgreSQL(ctx, properties)
	}
	return nil
}

// PostgreSQLConfig reads the connection of a jdbc-postgresql catalog from
// its properties: jdbc-url (jdbc:postgresql://host[:port]/database[?…]),
// jdbc-user, jdbc-password, and jdbc-database, which, when given, names
// the database instead of the URL.
func PostgreSQLConfig(properties map[string]string) (*pgx.ConnConfig, error) {
	raw := properties[PropertyJDBCURL]
	if raw == "" {
		return nil, semcat.Errorf(semcat.EINVALID, "properties.%s: a %s catalog needs a JDBC URL (jdbc:postgresql://host:port/database)", PropertyJDBCURL, ProviderPostgreSQL)
	}
	rest, ok := strings.CutPrefix(raw, "jdbc:postgresql:")
	if !ok || !strings.HasPrefix(rest, "//") {
		return nil, semcat.Errorf(semcat.EINVALID, "properties.%s: '%s' is not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database)", PropertyJDBCURL, raw)
	}
	u, err := url.Parse("postgres:" + rest)
	if err != nil || u.Host == "" {
		return nil, semcat.Errorf(semcat.EINVALID, "properties.%s: '%s' is not a PostgreSQL JDBC URL (jdbc:postgresql://host:port/database)", PropertyJDBCURL, raw)
	}
	// The JDBC driver's own parameters (user, password, ssl, ...) are not
	// libpq's; the properties say who connects. One is read: a Unix
	// socket, as pgjdbc reaches one through junixsocket
	// (socketFactoryArg=/dir/.s.PGSQL.5432).
	socket := u.Query().Get("socketFactoryArg")
	u.RawQuery, u.User = "", nil
	if db := properties[PropertyJDBCDatabase]; db != "" {
		u.Path = "/" + db
	}
	cfg, err := pgx.ParseConfig(u.String())
	if err != nil {
		return nil, semcat.Errorf(semcat.EINVALID, "properties.%s: '%s' is not a PostgreSQL JDBC URL", PropertyJDBCURL, raw)
	}
	if socket != "" {
		dir, file := path.Split(socket)
		port, err := strconv.ParseUint(strings.TrimPrefix(file, ".s.PGSQL."), 10, 16)
		if !strings.HasPrefix(socket, "/") || !strings.HasPrefix(file, ".s.PGSQL.") || err != nil {
			return nil, semcat.Errorf(semcat.EINVALID, "properties.%s: socketFactoryArg '%s' is not a PostgreSQL socket (/dir/.s.PGSQL.port)", PropertyJDBCURL, socket)
		}
		cfg.Host, cfg.Port = strings.TrimSuffix(dir, "/"), uint16(port)
		cfg.TLSConfig, cfg.Fallbacks = nil, nil // no TLS on a socket
	}
	cfg.User = properties[PropertyJDBCUser]
	cfg.Password = properties[PropertyJDBCPassword]
	cfg.ConnectTimeout = ConnectTimeout
	cfg.RuntimeParams["application_name"] = "semcat"
	return cfg, nil
}

func testPostgreSQL(ctx context.Context, properties map[string]string) error {
	cfg, err := PostgreSQLConfig(properties)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, ConnectTimeout)
	defer cancel()
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err == nil {
		err = conn.Ping(ctx)
		conn.Close(context.Background())
	}
	if err != nil {
		// The URL may carry the JDBC driver's parameters, a password among
		// them: the message names the server and database only.
		return semcat.ConnectionFailed("failed to connect to PostgreSQL database '%s' at %s:%d: %s", cfg.Database, cfg.Host, cfg.Port, reason(err, cfg.Password))
	}
	return nil
}

// reason is the source's own account of a failed connection, without the
// password (pgx does not put it in its errors; this makes sure).
func reason(err error, password string) string {
	msg := err.Error()
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		msg = pgErr.Message + " (SQLSTATE " + pgErr.Code + ")"
	}
	if password != "" {
		msg = strings.ReplaceAll(msg, password, "******")
	}
	return msg
}
