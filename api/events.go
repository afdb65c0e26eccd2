package api

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/gorilla/mux"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/semcat/semcat"
)

// MetricsHandler serves the metrics gathered by g in the Prometheus text
// format (GET /metrics, SPEC §2.9).
func MetricsHandler(g prometheus.Gatherer) http.Handler {
	return promhttp.HandlerFor(g, promhttp.HandlerOpts{ErrorHandling: promhttp.ContinueOnError})
}

// EventMiddleware emits the events of SPEC §7 for every /api operation:
// pre before the handler runs, then success (with the result count of a
// listing) or failure (with the error's code and user-safe message).
// publish must not block; events.Bus.Publish never does. A panic in
// publish is logged and otherwise ignored: events never fail a request.
//
// List it in Config.Middleware before any middleware that may refuse the
// request (authorization), so that refusals are failure events too.
func EventMiddleware(publish func(semcat.Event)) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			vars := mux.Vars(r)
			e := semcat.Event{
				Operation:  Operation(r),
				User:       semcat.UserFromContext(r.Context()),
				Metalake:   unescapeVar(vars["metalake"]),
				Identifier: eventIdentifier(r),
				Interface:  semcat.InterfaceREST,
			}
			pre := e
			pre.Phase, pre.Time = semcat.EventPre, start
			safePublish(r, publish, pre)

			rec := &eventRecorder{}
			sw := &statusWriter{ResponseWriter: w}
			defer func() {
				e.Time = time.Now()
				e.Duration = e.Time.Sub(start)
				v := recover()
				if v != nil {
					// A panic that no handler recovered; the outer recovery
					// answers 500.
					rec.err = semcat.Errorf(semcat.EINTERNAL, "internal error")
				}
				rec.outcome(&e, sw.status)
				safePublish(r, publish, e)
				if v != nil {
					panic(v)
				}
			}()
			next.ServeHTTP(sw, r.WithContext(context.WithValue(r.Context(), recorderKey{}, rec)))
		})
	}
}

// safePublish calls publish, turning a panic into a log line.
func safePublish(r *http.Request, publish func(semcat.Event), e semcat.Event) {
	defer func() {
		if v := recover(); v != nil {
			loggerFrom(r).ErrorContext(r.Context(), "publishing event panicked",
				"operation", e.Operation, "phase", string(e.Phase), "panic", v)
		}
	}()
	publish(e)
}

// eventRecorder collects, for EventMiddleware, what a handler tells about
// its outcome: the error Error wrote, and the count of a listing. It lives
// in the request context; only the request's goroutine touches it.
type eventRecorder struct {
	err   error
	count *int
}

type recorderKey struct{}

func recorderFrom(r *http.Request) *eventRecorder {
	rec, _ := r.Context().Value(recorderKey{}).(*eventRecorder)
	return rec
}

// RecordCount records that a listing returned n items, for the result
// count of its success event. Without EventMiddleware it does nothing.
func RecordCount(r *http.Request, n int) {
	if rec := recorderFrom(r); rec != nil {
		rec.count = &n
	}
}

// recordError records the error an operation failed with; Error calls it.
func recordError(r *http.Request, err error) {
	if rec := recorderFrom(r); rec != nil {
		rec.err = err
	}
}

// outcome completes e as a success or failure. An error that Error wrote
// decides; without one, a status of 400 or more written some other way is
// still a failure.
func (rec *eventRecorder) outcome(e *semcat.Event, status int) {
	switch {
	case rec.err != nil:
		e.Phase = semcat.EventFailure
		e.ErrorCode = semcat.ErrorCode(rec.err)
		e.Error = semcat.ErrorMessage(rec.err)
	case status >= http.StatusBadRequest:
		e.Phase = semcat.EventFailure
		e.ErrorCode = semcat.EINVALID
		if status >= http.StatusInternalServerError {
			e.ErrorCode = semcat.EINTERNAL
		}
		e.Error = http.StatusText(status)
	default:
		e.Phase = semcat.EventSuccess
		e.ResultCount = rec.count
	}
}

// statusWriter remembers the status a handler wrote (0: none yet, which
// net/http answers as 200).
type statusWriter struct {
	http.ResponseWriter
	status int
}

func (w *statusWriter) WriteHeader(status int) {
	if w.status == 0 {
		w.status = status
	}
	w.ResponseWriter.WriteHeader(status)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	return w.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the underlying writer.
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// eventIdentifier returns the path an operation addresses, from the
// metalake down: the route's path variables in the order of its template,
// with a dotted {fullName} split into its parts and the {type} of an object
// left out ("/metalakes/{metalake}/objects/{type}/{fullName}/tags" with
// table rel.sales.orders gives [m rel sales orders]). A creation addresses
// the namespace it creates in.
func eventIdentifier(r *http.Request) []string {
	rt := mux.CurrentRoute(r)
	if rt == nil {
		return nil
	}
	tmpl, err := rt.GetPathTemplate()
	if err != nil {
		return nil
	}
	vars := mux.Vars(r)
	var id []string
	for _, name := range templateVars(tmpl) {
		v := unescapeVar(vars[name])
		switch name {
		case "type":
		case "fullName":
			id = append(id, strings.Split(v, ".")...)
		default:
			id = append(id, v)
		}
	}
	return id
}

// templateVars returns the names of the variables of a mux path template,
// in order: "{name}" or "{name:pattern}".
func templateVars(tmpl string) []string {
	var names []string
	for {
		open := strings.IndexByte(tmpl, '{')
		if open < 0 {
			return names
		}
		depth, end := 0, -1
		for i := open; i < len(tmpl) && end < 0; i++ {
			switch tmpl[i] {
			case '{':
				depth++
			case '}':
				if depth--; depth == 0 {
					end = i
				}
			}
		}
		if end < 0 {
			return names
		}
		name, _, _ := strings.Cut(tmpl[open+1:end], ":")
		names = append(names, name)
		tmpl = tmpl[end+1:]
	}
}

// unescapeVar unescapes a path variable (the router matches the escaped
// path); a malformed one is kept as it is, for the handler to reject.
func unescapeVar(v string) string {
	if u, err := url.PathUnescape(v); err == nil {
		return u
	}
	return v
}
