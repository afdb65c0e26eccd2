// Package accesslog writes one log line per HTTP request: method, route,
// status, duration and user (SPEC §9's operations, issue "a request log").
//
// The handlers that know more than the URL fill the line in: the API names
// the route it matched (its path template, so that names in paths do not
// make every line different) and the user it authenticated, and the MCP
// handler the same, through SetRoute and SetUser on the request's context.
package accesslog

import (
	"context"
	"log/slog"
	"net/http"
	"sync"
	"time"
)

// entry is what the handlers tell about the request being logged.
type entry struct {
	mu    sync.Mutex
	route string
	user  string
}

type entryKey struct{}

// SetRoute names the route a request matched, when an access log is
// written for it; elsewhere it does nothing.
func SetRoute(ctx context.Context, route string) {
	if e, ok := ctx.Value(entryKey{}).(*entry); ok {
		e.mu.Lock()
		e.route = route
		e.mu.Unlock()
	}
}

// SetUser records the user a request acts as, when an access log is
// written for it; elsewhere it does nothing.
func SetUser(ctx context.Context, user string) {
	if e, ok := ctx.Value(entryKey{}).(*entry); ok {
		e.mu.Lock()
		e.user = user
		e.mu.Unlock()
	}
}

// Middleware returns a middleware that logs one line at Info per request
// once it is answered: "request" with method, route (the URL path unless a
// handler named the route), status, duration_ms, bytes and user ("" when
// none was authenticated).
func Middleware(logger *slog.Logger) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			e := &entry{route: r.URL.Path}
			rec := &recorder{ResponseWriter: w}
			next.ServeHTTP(rec, r.WithContext(context.WithValue(r.Context(), entryKey{}, e)))
			status := rec.status
			if status == 0 {
				status = http.StatusOK
			}
			e.mu.Lock()
			route, user := e.route, e.user
			e.mu.Unlock()
			logger.LogAttrs(r.Context(), slog.LevelInfo, "request",
				slog.String("method", r.Method),
				slog.String("route", route),
				slog.Int("status", status),
				slog.Float64("duration_ms", float64(time.Since(start).Microseconds())/1000),
				slog.Int64("bytes", rec.bytes),
				slog.String("user", user),
			)
		})
	}
}

// recorder keeps the status and size of an answer. Unwrap lets
// http.ResponseController reach the connection's own writer (deadlines,
// flushes).
type recorder struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	n, err := r.ResponseWriter.Write(b)
	r.bytes += int64(n)
	return n, err
}

// Flush passes a flush on, for streamed answers.
func (r *recorder) Flush() {
	if f, ok := r.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (r *recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }
