package main

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/internal/connlimit"
)

// newConnLimiter returns the limiter of the server's connections (SPEC
// §2.11): at most cfg.MaxConnections, a quarter of them for each caller.
// In mode simple any request may name any user, so one remote address
// also holds at most half of them, whatever names it sends: rotating names
// cannot take every connection.
func newConnLimiter(cfg Config) *connlimit.Limiter {
	perAddress := 0
	if cfg.Auth == api.AuthSimple {
		perAddress = max(cfg.MaxConnections/2, 1)
	}
	return connlimit.New(cfg.MaxConnections, perAddress)
}

// authenticated is the outcome of a request's authentication, kept in its
// context so that it is done once.
type authenticated struct {
	user string
	err  error
}

type authenticatedKey struct{}

// fairConnections charges each request's connection to its caller before
// anything reads the request's body (SPEC §2.11): the authenticated user,
// or its remote address in mode none or when it is not authenticated. A
// request whose caller holds its share of the connections, every one busy,
// is answered 503 with a Retry-After, and its connection closed, while
// other callers are served. It returns the middleware and the
// authentication for the handlers behind it, which reuses the outcome.
func (m *Main) fairConnections(authenticate func(*http.Request) (string, error)) (api.Middleware, func(*http.Request) (string, error)) {
	byAddress := m.Config.Auth == api.AuthNone
	middleware := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			caller := ""
			if !byAddress {
				user, err := authenticate(r)
				r = r.WithContext(context.WithValue(r.Context(), authenticatedKey{}, authenticated{user, err}))
				if err == nil {
					caller = user
				}
			}
			if err := m.conns.Claim(r, caller); err != nil {
				// Nothing reads the body: not even Go's server, which
				// would otherwise drain it before closing, however slowly
				// it comes.
				_ = http.NewResponseController(w).SetReadDeadline(time.Now())
				if refusal, ok := err.(*connlimit.Refusal); ok && refusal.Abort {
					panic(http.ErrAbortHandler)
				}
				w.Header().Set("Retry-After", strconv.Itoa(connlimit.RetryAfter))
				w.Header().Set("Connection", "close")
				api.Error(w, r, semcat.Errorf(semcat.EUNAVAILABLE, "%s", err.Error()))
				return
			}
			next.ServeHTTP(w, r)
		})
	}
	reuse := func(r *http.Request) (string, error) {
		if a, ok := r.Context().Value(authenticatedKey{}).(authenticated); ok {
			return a.user, a.err
		}
		return authenticate(r)
	}
	return middleware, reuse
}

// connMetrics reports what the connection limiter holds and did.
func connMetrics(l *connlimit.Limiter) []prometheus.Collector {
	return []prometheus.Collector{
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "semcat_connections_open",
			Help: "Client connections open now."},
			func() float64 { return float64(l.Stats().Open) }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "semcat_connections_busy",
			Help: "Client connections with a request in progress."},
			func() float64 { return float64(l.Stats().Busy) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "semcat_connections_refused_total",
			Help: "New connections answered 503 and closed: every one they could take the place of was busy (--max-connections, or their address's share)."},
			func() float64 { return float64(l.Stats().Refused) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "semcat_connections_evicted_total",
			Help: "Quiet connections (idle, or still sending a header) closed to make room."},
			func() float64 { return float64(l.Stats().Evicted) }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "semcat_connections_turned_away_total",
			Help: "Requests answered 503 because their caller held its share of the connections, every one busy."},
			func() float64 { return float64(l.Stats().TurnedAway) }),
	}
}
