package api_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"syscall"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
)

func newLogger(w io.Writer) *slog.Logger { return slog.New(slog.NewTextHandler(w, nil)) }

// TestErrorTable checks the mapping of every semcat error code to its HTTP
// status, Gravitino code and exception type, and that only internal errors
// are logged and none of them shows its text.
func TestErrorTable(t *testing.T) {
	tests := []struct {
		err        error
		wantStatus int
		want       map[string]any
		wantLogged bool
	}{
		{semcat.Errorf(semcat.EINVALID, "name: bad"), 400, errBody(1001, "IllegalArgumentException", "name: bad"), false},
		{semcat.Errorf(semcat.EUNAUTHORIZED, "who are you"), 401, errBody(1011, "UnauthorizedException", "who are you"), false},
		{semcat.Errorf(semcat.EFORBIDDEN, "no"), 403, errBody(1008, "ForbiddenException", "no"), false},
		{semcat.NotFound(semcat.KindMetalake, "no metalake"), 404, errBody(1003, "NoSuchMetalakeException", "no metalake"), false},
		{semcat.NotFound(semcat.KindSchema, "no schema"), 404, errBody(1003, "NoSuchSchemaException", "no schema"), false},
		{semcat.NotFound(semcat.KindSemanticModel, "no model"), 404, errBody(1003, "NoSuchSemanticModelException", "no model"), false},
		{semcat.NotFound(semcat.KindTag, "no tag"), 404, errBody(1003, "NoSuchTagException", "no tag"), false},
		{semcat.Errorf(semcat.ENOTFOUND, "gone"), 404, errBody(1003, "NotFoundException", "gone"), false},
		{semcat.AlreadyExists(semcat.KindTable, "exists"), 409, errBody(1004, "TableAlreadyExistsException", "exists"), false},
		{semcat.AlreadyExists(semcat.KindSemanticModel, "exists"), 409, errBody(1004, "SemanticModelAlreadyExistsException", "exists"), false},
		{semcat.Errorf(semcat.EEXISTS, "exists"), 409, errBody(1004, "EntityAlreadyExistsException", "exists"), false},
		{semcat.Errorf(semcat.ENOTEMPTY, "has schemas"), 409, errBody(1005, "NonEmptyEntityException", "has schemas"), false},
		{semcat.Errorf(semcat.ECONFLICT, "changed"), 409, errBody(1012, "ConcurrentModificationException", "changed"), false},
		{semcat.Errorf(semcat.EUNSUPPORTED, "not relational"), 405, errBody(1006, "UnsupportedOperationException", "not relational"), false},
		{semcat.Errorf(semcat.ETOOLARGE, "too big"), 413, errBody(1001, "IllegalArgumentException", "too big"), false},
		{semcat.Errorf(semcat.ENOTCAUGHTUP, "index behind"), 503, errBody(1013, "IndexNotCaughtUpException", "index behind"), false},
		{semcat.Errorf(semcat.EUNAVAILABLE, "starting"), 503, errBody(1013, "ServiceUnavailableException", "starting"), false},
		{fmt.Errorf("load: %w", semcat.NotFound(semcat.KindTable, "no table")), 404, errBody(1003, "NoSuchTableException", "no table"), false},
		{errors.New(`ERROR: relation "secret" does not exist (SQLSTATE 42P01)`), 500, errBody(1002, "InternalError", "internal server error"), true},
		{semcat.Errorf(semcat.EINTERNAL, "disk full at /var/lib/pg"), 500, errBody(1002, "InternalError", "internal server error"), true},
		{&semcat.Error{Code: "no_such_code", Message: "typo"}, 500, errBody(1002, "InternalError", "internal server error"), true},
		// A deadline that passed, in the engine or the database (SPEC §2).
		{fmt.Errorf("search: %w", context.DeadlineExceeded), 503, errBody(1013, "ServiceUnavailableException",
			"the request's deadline passed before it finished; narrow the request or try again later"), true},
		// Transient faults (SPEC §9): 503 with what is wrong. An outage
		// is logged by the database watch, once, not per request.
		{fmt.Errorf("catalogdb: %w", &pgconn.PgError{Code: "57P01", Message: "terminating connection due to administrator command"}), 503,
			errBody(1013, "ServiceUnavailableException", "the database is unavailable (unreachable, restarting or failing over); try again shortly"), false},
		{fmt.Errorf("catalogdb: %w", &pgconn.PgError{Code: "08006"}), 503,
			errBody(1013, "ServiceUnavailableException", "the database is unavailable (unreachable, restarting or failing over); try again shortly"), false},
		{fmt.Errorf("commit: %w", pgconn.ErrConnClosed), 503,
			errBody(1013, "ServiceUnavailableException", "the database is unavailable (unreachable, restarting or failing over); try again shortly"), false},
		{fmt.Errorf("catalogdb: %w", &pgconn.PgError{Code: "25006"}), 503,
			errBody(1013, "ServiceUnavailableException", "the database is failing over (the server reached is read-only); try again shortly"), true},
		{fmt.Errorf("catalogdb: %w", &pgconn.PgError{Code: "53100", Message: "could not extend file"}), 503,
			errBody(1013, "ServiceUnavailableException", "the database's disk is full; writes fail until space is freed"), true},
		{fmt.Errorf("rebuild: %w", &os.PathError{Op: "write", Path: "/x/index/000.zap", Err: syscall.ENOSPC}), 503,
			errBody(1013, "ServiceUnavailableException", "the disk under semcat's search index is full; indexing resumes once space is freed"), true},
		// Any other answer of the database is a bug, not a fault.
		{fmt.Errorf("catalogdb: %w", &pgconn.PgError{Code: "42P01", Message: `relation "secret" does not exist`}), 500, errBody(1002, "InternalError", "internal server error"), true},
		// The client went away: logged as that, not as an internal error.
		{fmt.Errorf("list: %w", context.Canceled), 499, errBody(1002, "RequestCancelledException", "the request was cancelled by its client"), true},
	}
	for _, tt := range tests {
		t.Run(tt.err.Error(), func(t *testing.T) {
			var logs strings.Builder
			f := newFake()
			f.err = tt.err
			res := do(t, api.NewHandler(services(f), api.Config{Logger: newLogger(&logs)}), "GET", "/api/metalakes/m", "")
			if res.status != tt.wantStatus {
				t.Errorf("status = %d, want %d", res.status, tt.wantStatus)
			}
			if diff := cmp.Diff(tt.want, res.body); diff != "" {
				t.Errorf("body (-want +got):\n%s", diff)
			}
			if tt.wantStatus == 503 && res.header.Get("Retry-After") == "" {
				t.Errorf("503 without Retry-After")
			}
			logged := logs.String()
			if tt.wantLogged != (logged != "") {
				t.Errorf("logged %q, want logged = %v", logged, tt.wantLogged)
			}
			level := map[int]string{499: "level=INFO", 503: "level=WARN"}[tt.wantStatus]
			if level == "" {
				level = "level=ERROR"
			}
			if tt.wantLogged && !strings.Contains(logged, level) {
				t.Errorf("not logged at %s: %q", level, logged)
			}
		})
	}
}

// TestErrorDirect checks Error outside NewHandler: it still answers and
// falls back to the default logger.
func TestErrorDirect(t *testing.T) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set(api.PositionHeader, "t1")
		api.Error(w, r, semcat.NotFound(semcat.KindCatalog, "no catalog 'c'"))
	})
	res := do(t, h, "GET", "/", "")
	if diff := cmp.Diff(errBody(1003, "NoSuchCatalogException", "no catalog 'c'"), res.body); diff != "" || res.status != 404 {
		t.Errorf("status %d, body (-want +got):\n%s", res.status, diff)
	}
	if res.header.Get(api.PositionHeader) != "" {
		t.Errorf("error response carries %s", api.PositionHeader)
	}
}

// TestStartingHandler: while the server starts, /healthz is 200 and every
// other route, /readyz included, 503 with Retry-After.
func TestStartingHandler(t *testing.T) {
	h := api.StartingHandler()
	for _, tt := range []struct {
		method, path string
		status       int
	}{
		{"GET", "/healthz", 200},
		{"HEAD", "/healthz", 200},
		{"GET", "/readyz", 503},
		{"GET", "/api/metalakes", 503},
		{"POST", "/api/metalakes", 503},
	} {
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest(tt.method, tt.path, nil))
		if rec.Code != tt.status {
			t.Errorf("%s %s while starting: %d, want %d", tt.method, tt.path, rec.Code, tt.status)
		}
		if tt.status == 503 && (rec.Header().Get("Retry-After") == "" || !strings.Contains(rec.Body.String(), "ServiceUnavailableException")) {
			t.Errorf("%s %s while starting: headers %v body %s", tt.method, tt.path, rec.Header(), rec.Body)
		}
	}
}

// TestDeadlineWhileDatabaseDown: a request that passes its deadline is
// logged, unless the database is known to be down: then the outage's one
// line says it all (SPEC §9). It answers 503 with Retry-After either way.
func TestDeadlineWhileDatabaseDown(t *testing.T) {
	for _, down := range []bool{false, true} {
		var logs strings.Builder
		f := newFake()
		f.err = fmt.Errorf("load: %w", context.DeadlineExceeded)
		h := api.NewHandler(services(f), api.Config{Logger: newLogger(&logs), DatabaseDown: func() bool { return down }})
		res := do(t, h, "GET", "/api/metalakes/m", "")
		if res.status != 503 || res.header.Get("Retry-After") == "" {
			t.Errorf("database down %v: %d, Retry-After %q; want 503 with one", down, res.status, res.header.Get("Retry-After"))
		}
		if logged := logs.String() != ""; logged == down {
			t.Errorf("database down %v: logged %q", down, logs.String())
		}
	}
}
