package api

import (
	"context"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/semcat/semcat"
)

// Browsers (SPEC §2.11). A page on any origin can make a browser send
// requests to a local semcat: simple ones, without asking first (a POST
// of text/plain or a form, fetch with mode no-cors), and, through DNS
// rebinding, requests whose Host is the attacker's name resolved to
// 127.0.0.1. The guard refuses what only such a page would send:
//
//   - a Host that does not name the server (a loopback name or address, the
//     address the connection came in on, the listen address's host, or
//     one of AllowedHosts): 403, on every route;
//   - a request that changes state (POST, PUT, PATCH, DELETE) from another
//     origin (its Origin, or Sec-Fetch-Site: cross-site, when Origin is
//     absent) unless the origin is one of AllowedOrigins: 403;
//   - a request that changes state whose body is not application/json
//     (or Gravitino's semcat.TagValuesMediaType; a Content-Type of another type,
//     or none with a body): 415. A page sends neither to another origin
//     without asking first.
//
// The allowed origins get CORS answers, preflight included, so that a page
// served from one of them can use the API with credentials.

// BrowserConfig is what the guard allows beyond the server's own names.
type BrowserConfig struct {
	// ListenHost is the host of the listen address (its name when it was
	// given as one); requests may name it.
	ListenHost string
	// AllowedHosts are more names a request's Host may have ("*": any).
	AllowedHosts []string
	// AllowedOrigins are origins ("https://ui.example.com") whose pages
	// may change state and read answers ("*": any).
	AllowedOrigins []string
}

// BrowserGuard returns the middleware that applies cfg to every request.
func BrowserGuard(cfg BrowserConfig) Middleware {
	g := &browserGuard{cfg: cfg}
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if err := g.check(w, r); err != nil {
				writeError(w, r, err, 0)
				return
			}
			if r.Method == http.MethodOptions && r.Header.Get("Access-Control-Request-Method") != "" && w.Header().Get("Access-Control-Allow-Origin") != "" {
				// A preflight of an allowed origin: the headers say it all.
				w.WriteHeader(http.StatusNoContent)
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

type browserGuard struct{ cfg BrowserConfig }

// check returns why r is refused, or nil; for an allowed foreign origin
// it sets the CORS headers of the answer.
func (g *browserGuard) check(w http.ResponseWriter, r *http.Request) error {
	if host := hostOnly(r.Host); r.Host != "" && !g.hostAllowed(r.Context(), host) {
		return semcat.Errorf(semcat.EFORBIDDEN, "Host: '%s' does not name this server; start it with --allowed-hosts %s to serve that name", host, host)
	}
	origin := r.Header.Get("Origin")
	foreign := false
	switch {
	case origin != "":
		foreign = !sameOrigin(origin, r.Host)
	case r.Header.Get("Sec-Fetch-Site") == "cross-site":
		foreign, origin = true, "a cross-site page"
	}
	allowed := foreign && origin != "a cross-site page" && g.originAllowed(origin)
	if allowed {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", origin)
		h.Set("Access-Control-Allow-Credentials", "true")
		h.Add("Vary", "Origin")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET, HEAD, POST, PUT, PATCH, DELETE")
			h.Set("Access-Control-Allow-Headers", "Authorization, Content-Type, If-Match, Accept")
			h.Set("Access-Control-Max-Age", "600")
		}
		h.Set("Access-Control-Expose-Headers", PositionHeader+", ETag")
	}
	if !changesState(r.Method) {
		return nil
	}
	if foreign && !allowed {
		return semcat.Errorf(semcat.EFORBIDDEN, "Origin: requests from %s may not change this server's state; start it with --allowed-origins to allow an origin", quoteOrigin(origin))
	}
	ct := r.Header.Get("Content-Type")
	if ct == "" && r.ContentLength == 0 {
		return nil // no body (POST /api/admin/reindex, a DELETE)
	}
	if mt, _, err := mime.ParseMediaType(ct); err != nil || (mt != "application/json" && mt != semcat.TagValuesMediaType) {
		if ct == "" {
			ct = "none"
		} else {
			ct = "'" + ct + "'"
		}
		return semcat.Errorf(semcat.EMEDIATYPE, "Content-Type: a %s request must send application/json, got %s", r.Method, ct)
	}
	return nil
}

func quoteOrigin(o string) string {
	if strings.Contains(o, "://") || o == "null" {
		return "'" + o + "'"
	}
	return o
}

// changesState reports whether a request of method may change state.
func changesState(method string) bool {
	switch method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	return true
}

// hostAllowed reports whether host (no port) names this server.
func (g *browserGuard) hostAllowed(ctx context.Context, host string) bool {
	host = strings.ToLower(strings.TrimSuffix(host, "."))
	if host == "localhost" || strings.HasSuffix(host, ".localhost") {
		return true
	}
	if ip := net.ParseIP(host); ip != nil {
		if ip.IsLoopback() {
			return true
		}
		// An address is no DNS name an attacker controls: the one the
		// connection came in on is the server's.
		if local, ok := ctx.Value(http.LocalAddrContextKey).(net.Addr); ok {
			if lh, _, err := net.SplitHostPort(local.String()); err == nil && net.ParseIP(lh).Equal(ip) {
				return true
			}
		}
	}
	if g.cfg.ListenHost != "" && strings.EqualFold(host, strings.Trim(g.cfg.ListenHost, "[]")) {
		return true
	}
	return slices.ContainsFunc(g.cfg.AllowedHosts, func(h string) bool { return h == "*" || strings.EqualFold(h, host) })
}

func (g *browserGuard) originAllowed(origin string) bool {
	return slices.ContainsFunc(g.cfg.AllowedOrigins, func(o string) bool {
		return o == "*" || strings.EqualFold(strings.TrimSuffix(o, "/"), origin)
	})
}

// sameOrigin reports whether origin (scheme://host[:port]) is the server
// the request named in its Host: the same host and port, a port left out
// being the origin's scheme's default on both sides. The scheme itself is
// not compared: a proxy may end TLS in front of semcat.
func sameOrigin(origin, host string) bool {
	u, err := url.Parse(origin)
	if err != nil || u.Host == "" {
		return false // "null" (a sandboxed or file page) is nobody's own
	}
	def := map[string]string{"http": "80", "https": "443"}[u.Scheme]
	port := func(hostport string) string {
		if _, p, err := net.SplitHostPort(hostport); err == nil && p != "" {
			return p
		}
		return def
	}
	return strings.EqualFold(hostOnly(u.Host), hostOnly(host)) && port(u.Host) == port(host)
}

// hostOnly returns hostport's host, without brackets.
func hostOnly(hostport string) string {
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		return h
	}
	return strings.Trim(hostport, "[]")
}

// BodyDeadline returns the middleware that gives a request's body d to
// arrive, so that a client dripping a byte at a time lets its connection
// go (SPEC §2.11), and then lifts the deadline: http.Server's ReadTimeout
// would also end a long request (a search waiting for the index, a
// rebuild) whose body is long read, by cancelling its context when the
// server's watch on the idle connection times out.
func BodyDeadline(d time.Duration) Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			rc := http.NewResponseController(w)
			if r.ContentLength == 0 {
				_ = rc.SetReadDeadline(time.Time{}) // nothing to read
			} else {
				_ = rc.SetReadDeadline(time.Now().Add(d))
				r.Body = &deadlineBody{ReadCloser: r.Body, lift: func() { _ = rc.SetReadDeadline(time.Time{}) }}
			}
			next.ServeHTTP(w, r)
		})
	}
}

// deadlineBody lifts the read deadline once the body is wholly read.
type deadlineBody struct {
	io.ReadCloser
	lift   func()
	lifted bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.lifted {
		b.lifted = true
		b.lift()
	}
	return n, err
}
