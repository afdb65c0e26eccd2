package api

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/semcat/semcat"
)

// errorClass is how one semcat error code appears on the wire: an HTTP
// status, a Gravitino error code and an exception type name.
type errorClass struct {
	status int
	code   int
	// typ names the exception; for not-found and already-exists errors it
	// depends on the entity the error is about.
	typ func(semcat.EntityKind) string
}

// errorTable maps semcat error codes to their wire form (SPEC §2). Any code
// not listed here is an internal error.
var errorTable = map[string]errorClass{
	semcat.EINVALID:      {http.StatusBadRequest, 1001, named("IllegalArgumentException")},
	semcat.EUNAUTHORIZED: {http.StatusUnauthorized, 1011, named("UnauthorizedException")},
	semcat.EFORBIDDEN:    {http.StatusForbidden, 1008, named("ForbiddenException")},
	semcat.ENOTFOUND:     {http.StatusNotFound, 1003, noSuch},
	semcat.EEXISTS:       {http.StatusConflict, 1004, alreadyExists},
	semcat.ENOTEMPTY:     {http.StatusConflict, 1005, named("NonEmptyEntityException")},
	semcat.ECONFLICT:     {http.StatusConflict, 1012, named("ConcurrentModificationException")},
	semcat.EUNSUPPORTED:  {http.StatusMethodNotAllowed, 1006, named("UnsupportedOperationException")},
	semcat.ENOTINUSE:     {http.StatusConflict, 1009, notInUse},
	semcat.EINUSE:        {http.StatusConflict, 1010, inUse},
	semcat.ETOOLARGE:     {http.StatusRequestEntityTooLarge, 1001, named("IllegalArgumentException")},
	semcat.EMEDIATYPE:    {http.StatusUnsupportedMediaType, 1001, named("IllegalArgumentException")},
	semcat.ENOTCAUGHTUP:  {http.StatusServiceUnavailable, 1013, named("IndexNotCaughtUpException")},
	semcat.EDEADLINE:     {http.StatusServiceUnavailable, 1013, named("ServiceUnavailableException")},
	semcat.EUNAVAILABLE:  {http.StatusServiceUnavailable, 1013, named("ServiceUnavailableException")},
	semcat.ECONNFAILED:   {http.StatusBadGateway, 1007, named("ConnectionFailedException")},
	// Nobody reads it: the client went away. 499 is how proxies log that.
	semcat.ECANCELED: {statusClientClosed, 1002, named("RequestCancelledException")},
}

// statusClientClosed is the status of a request whose client went away
// before the answer (nginx's 499), for the audit log and the counters.
const statusClientClosed = 499

// StartingHandler answers while the server starts (the index may take
// minutes to build): /healthz 200, so that a liveness probe does not kill a
// server that is busy starting, and every other route 503 (EUNAVAILABLE)
// with a Retry-After, /readyz included.
func StartingHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/healthz" && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
			if err := writeJSON(w, http.StatusOK, map[string]string{"status": "ok"}); err != nil {
				Error(w, r, err)
			}
			return
		}
		w.Header().Set("Retry-After", "5")
		Error(w, r, semcat.Errorf(semcat.EUNAVAILABLE, "semcat is starting (waiting for its database, or building its search index); try again shortly"))
	})
}

// internalError is the class of every error not in errorTable.
var internalError = errorClass{http.StatusInternalServerError, 1002, named("InternalError")}

// internalMessage is the only message an internal error ever shows; the real
// error goes to the log.
const internalMessage = "internal server error"

func named(name string) func(semcat.EntityKind) string {
	return func(semcat.EntityKind) string { return name }
}

// noSuch names a not-found exception after its entity: NoSuchSchemaException.
func noSuch(kind semcat.EntityKind) string {
	if kind == "" {
		return "NotFoundException"
	}
	return "NoSuch" + kind.Title() + "Exception"
}

// alreadyExists names an already-exists exception after its entity:
// TableAlreadyExistsException (EntityAlreadyExistsException without one).
func alreadyExists(kind semcat.EntityKind) string {
	return kind.Title() + "AlreadyExistsException"
}

// notInUse names the exception of an operation under a disabled metalake
// or catalog: CatalogNotInUseException.
func notInUse(kind semcat.EntityKind) string {
	return kind.Title() + "NotInUseException"
}

// inUse names the exception of a drop of an enabled metalake or catalog
// without force: MetalakeInUseException.
func inUse(kind semcat.EntityKind) string {
	return kind.Title() + "InUseException"
}

// errorBody is the JSON body of every error response. Stack is Gravitino's
// field, always empty: the official client builds an exception's message
// from the message and the stack, and a body without it gives an empty
// message.
type errorBody struct {
	Code    int      `json:"code"`
	Type    string   `json:"type"`
	Message string   `json:"message"`
	Stack   []string `json:"stack"`
}

// Transient faults: failures that pass by themselves, which answer 503
// (EUNAVAILABLE) with what is wrong and a Retry-After rather than 500 (SPEC
// §9). Their messages are also how the log tells them apart.
const (
	msgDatabaseDown     = "the database is unavailable (unreachable, restarting or failing over); try again shortly"
	msgDatabaseReadOnly = "the database is failing over (the server reached is read-only); try again shortly"
	msgDatabaseDiskFull = "the database's disk is full; writes fail until space is freed"
	msgDatabaseBusy     = "the database is overloaded (out of connections or memory); try again shortly"
	msgIndexDiskFull    = "the disk under semcat's search index is full; indexing resumes once space is freed"
)

// retryAfter is the Retry-After of a 503 that does not set its own.
const retryAfter = "5"

// transientFault returns the message of a transient fault, or "" if err is
// none. A pgconn error about the connection itself (one that could not be
// made, or broke) is the database being unavailable; so are SQLSTATE class
// 08 (connection exception) and 57P01–57P03 (the server shutting down,
// crashed or starting). Serialization failures and deadlocks (40001,
// 40P01) are no outage: the store retries them and reports ECONFLICT.
func transientFault(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		switch code := pgErr.Code; {
		case strings.HasPrefix(code, "08"), code == "57P01", code == "57P02", code == "57P03":
			return msgDatabaseDown
		case code == "25006": // read_only_sql_transaction: a standby, or a primary being demoted
			return msgDatabaseReadOnly
		case code == "53100":
			return msgDatabaseDiskFull
		case code == "53200", code == "53300":
			return msgDatabaseBusy
		}
		// Any other answer of a live server is no outage, a connection
		// it refused included: a wrong password or a missing database
		// does not pass by itself.
		return ""
	}
	var connect *pgconn.ConnectError
	var retry interface{ SafeToRetry() bool }
	switch {
	case errors.Is(err, syscall.ENOSPC):
		return msgIndexDiskFull
	case errors.As(err, &connect), errors.Is(err, pgconn.ErrConnClosed):
		return msgDatabaseDown
	case errors.As(err, &retry), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET),
		errors.Is(err, syscall.ECONNREFUSED), errors.Is(err, syscall.EPIPE):
		// pgconn's errors about the connection (a failed send or receive)
		// are the ones that say whether a retry is safe.
		return msgDatabaseDown
	}
	return ""
}

// TransientFault returns what is wrong when err is a transient fault (an
// outage, a failover, a full disk; SPEC §9), or "" when it is none: other
// interfaces (MCP) log and answer such faults as the REST API does.
func TransientFault(err error) string { return transientFault(err) }

// AsTransient returns err as the EUNAVAILABLE error the REST API answers
// and audits for it when it is a transient fault without a semcat code
// (still wrapping err), and err itself otherwise.
func AsTransient(err error) error { return asTransient(err) }

// asTransient returns err as an EUNAVAILABLE error with the message of its
// transient fault, still wrapping err, if it is one without a semcat code;
// otherwise err as it is. The audit log and the counters then see the code
// the answer has.
func asTransient(err error) error {
	if semcat.ErrorCode(err) != semcat.EINTERNAL {
		return err
	}
	var e *semcat.Error
	if errors.As(err, &e) {
		return err // an EINTERNAL that someone chose
	}
	if msg := transientFault(err); msg != "" {
		return fmt.Errorf("%w: %w", semcat.Errorf(semcat.EUNAVAILABLE, "%s", msg), err)
	}
	return err
}

// classify returns the wire form of err and whether it is internal.
func classify(err error) (errorBody, int, bool) {
	err = asTransient(err)
	class, ok := errorTable[semcat.ErrorCode(err)]
	if !ok {
		return errorBody{Code: internalError.code, Type: internalError.typ(""), Message: internalMessage, Stack: []string{}}, internalError.status, true
	}
	typ := class.typ(semcat.ErrorEntity(err))
	var e *semcat.Error
	if errors.As(err, &e) && e.Type != "" {
		typ = e.Type
	}
	return errorBody{Code: class.code, Type: typ, Message: semcat.ErrorMessage(err), Stack: []string{}}, class.status, false
}

// WireError returns the Gravitino code, exception type and user-safe
// message an error response carries for err (the MCP server's tool errors
// carry them too).
func WireError(err error) (code int, typ, message string) {
	b, _, _ := classify(err)
	return b.Code, b.Type, b.Message
}

// Error writes err as an error response: the status, code and type of its
// semcat error code, and its user-safe message. Any other error is a 500
// with a generic message; only those are logged, with the real error.
func Error(w http.ResponseWriter, r *http.Request, err error) {
	err = asTransient(err)
	recordError(r, err)
	writeError(w, r, err, 0)
}

// writeError writes every error response; status, when not 0, overrides the
// status of err's class (405 for a wrong method, 503 for /readyz).
func writeError(w http.ResponseWriter, r *http.Request, err error, status int) {
	body, classStatus, internal := classify(err)
	if status == 0 {
		status = classStatus
	}
	switch {
	case internal && errors.Is(r.Context().Err(), context.Canceled):
		// The client went away while something failed; nobody reads this
		// response.
		status = statusClientClosed
		logRequest(r, slog.LevelInfo, "request cancelled by the client", status, err)
	case internal:
		logRequest(r, slog.LevelError, "internal error", status, err)
	case status == statusClientClosed:
		logRequest(r, slog.LevelInfo, "request cancelled by the client", status, err)
	case semcat.ErrorCode(err) == semcat.EDEADLINE && databaseDown(r):
		// A database that hangs: the watch has logged it, once.
		logRequest(r, slog.LevelDebug, "request deadline passed while the database is down", status, err)
	case semcat.ErrorCode(err) == semcat.EDEADLINE:
		logRequest(r, slog.LevelWarn, "request deadline passed", status, err)
	case body.Message == msgDatabaseDown:
		// The outage is logged once as it begins and once as it ends
		// (the database watch in cmd/semcat), not once per request.
		logRequest(r, slog.LevelDebug, "the database is unavailable", status, err)
	case status == http.StatusServiceUnavailable && semcat.ErrorCode(err) == semcat.EUNAVAILABLE && transientFault(err) != "":
		if faultLogs.due(body.Message) {
			logRequest(r, slog.LevelWarn, "transient fault (logged once a minute)", status, err)
		}
	}
	// Headers that describe a successful result must not survive on an error.
	w.Header().Del(PositionHeader)
	w.Header().Del("ETag")
	if status == http.StatusServiceUnavailable && w.Header().Get("Retry-After") == "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	if err := writeJSON(w, status, body); err != nil {
		loggerFrom(r).ErrorContext(r.Context(), "writing error response", "err", err)
	}
}

// logRequest logs a request's failure.
func logRequest(r *http.Request, level slog.Level, msg string, status int, err error) {
	loggerFrom(r).Log(r.Context(), level, msg,
		"method", r.Method, "path", r.URL.EscapedPath(), "operation", Operation(r),
		"user", semcat.UserFromContext(r.Context()), "status", status, "err", err)
}

// faultLogs spaces the log lines of transient faults other than an outage
// (a full disk, say): one a minute for each, not one per request.
var faultLogs = &logLimiter{every: time.Minute, last: map[string]time.Time{}}

// logLimiter says when a kind of line is due again.
type logLimiter struct {
	every time.Duration
	mu    sync.Mutex
	last  map[string]time.Time
}

// due reports whether a line of kind may be logged now, and if so counts
// it as logged.
func (l *logLimiter) due(kind string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if t, ok := l.last[kind]; ok && now.Sub(t) < l.every {
		return false
	}
	l.last[kind] = now
	return true
}
