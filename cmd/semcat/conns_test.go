package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/semcat/semcat"
)

// rawConn is a client connection written by hand, from a chosen loopback
// address, for requests that hold it (slow bodies, long waits).
type rawConn struct {
	net.Conn
	answers chan string // "status code type retry-after message", or the read error
}

// dialFrom connects to m from the loopback address from (each its own
// remote address to the server) and sends req; the answer, when one
// comes, is on answers.
func dialFrom(t *testing.T, m *Main, from, req string) *rawConn {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}}
	c, err := d.Dial("tcp", strings.TrimPrefix(m.URL(), "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	rc := &rawConn{Conn: c, answers: make(chan string, 1)}
	if _, err := io.WriteString(c, req); err != nil {
		t.Fatal(err)
	}
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			rc.answers <- err.Error()
			return
		}
		defer resp.Body.Close()
		var body struct {
			Code    int    `json:"code"`
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		json.NewDecoder(resp.Body).Decode(&body)
		rc.answers <- fmt.Sprintf("%d %d %s %s %s", resp.StatusCode, body.Code, body.Type, resp.Header.Get("Retry-After"), body.Message)
	}()
	return rc
}

// basicAuth is the Authorization header of user in mode simple.
func basicAuth(user string) string {
	r, _ := http.NewRequest("GET", "/", nil)
	r.SetBasicAuth(user, "x")
	return r.Header.Get("Authorization")
}

// slowBody is a request whose body never finishes arriving.
func slowBody(user string) string {
	return "POST /api/metalakes/m/catalogs HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + basicAuth(user) +
		"\r\nContent-Type: application/json\r\nContent-Length: 4096\r\n\r\n{\"name\":"
}

// longWait is a search that waits up to 30 s for a position the index
// has not reached.
func longWait(user, position string) string {
	return "GET /api/metalakes/m/search?query=x&minPosition=" + position + "&waitMs=30000 HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " +
		basicAuth(user) + "\r\n\r\n"
}

// waitHeld waits until the server charges n connections to caller.
func waitHeld(t *testing.T, m *Main, caller string, n int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m.conns.Held(caller) == n {
			return
		}
	}
	t.Fatalf("%s holds %d connections, want %d", caller, m.conns.Held(caller), n)
}

// waitBusy waits until the server has n requests in progress.
func waitBusy(t *testing.T, m *Main, n int) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if m.conns.Stats().Busy == n {
			return
		}
	}
	t.Fatalf("%d requests in progress, want %d", m.conns.Stats().Busy, n)
}

// TestFairConnections (SPEC §2.11, revision 3): one caller holding busy
// connections — long minPosition waits and slow bodies, as many as the
// server takes — holds a quarter of them and is answered 503 with a
// Retry-After for more, while another caller is served; one remote address
// naming a new user on each connection (mode simple) holds at most half;
// with --auth none, one remote address holds a quarter. And a minPosition
// wait on a metalake that is missing or not the caller's answers at once,
// over REST and MCP.
func TestFairConnections(t *testing.T) {
	cfg := testConfig(t)
	cfg.Auth = "simple"
	cfg.Authorization = true
	cfg.ServiceAdmins = []string{"admin"}
	cfg.MaxConnections = 16
	m := startMain(t, cfg)
	share := m.conns.Share()
	if share != 4 {
		t.Fatalf("share %d of 16, want 4", share)
	}
	admin := client{t: t, base: m.URL(), user: "admin"}
	hog := client{t: t, base: m.URL(), user: "hog"}
	alice := client{t: t, base: m.URL(), user: "alice"}
	admin.ok("POST", "/api/metalakes", `{"name":"m"}`)
	admin.ok("POST", "/api/metalakes", `{"name":"other"}`)
	admin.ok("POST", "/api/metalakes/m/users", `{"name":"hog"}`)
	hdr, _ := admin.ok("POST", "/api/metalakes/m/users", `{"name":"alice"}`)
	written, err := semcat.ParsePosition("position", hdr.Get("X-Semcat-Position"))
	if err != nil {
		t.Fatal(err)
	}
	// A position far past every write: waiting for it takes the whole
	// waitMs.
	ahead := semcat.Position{TxID: written.TxID + 1_000_000}.String()

	// A wait on a metalake the hog may search runs (and fails after it);
	// one on a missing metalake, or on one it is not a member of, answers
	// at once: well before the 30 s wait would end.
	waitQuery := func(metalake string, waitMs int) string {
		return "/api/metalakes/" + metalake + "/search?" + url.Values{"query": {"x"}, "minPosition": {ahead}, "waitMs": {fmt.Sprint(waitMs)}}.Encode()
	}
	if status, _, out := hog.do("GET", waitQuery("m", 200), ""); status != 503 || out["type"] != "IndexNotCaughtUpException" {
		t.Fatalf("a short wait on the hog's metalake: %d %v, want 503 IndexNotCaughtUpException", status, out)
	}
	for _, metalake := range []string{"nosuch", "other"} {
		start := time.Now()
		status, _, out := hog.do("GET", waitQuery(metalake, 30000), "")
		if took := time.Since(start); status != 404 || out["type"] != "NoSuchMetalakeException" || took > 15*time.Second {
			t.Errorf("a 30 s wait on metalake %s: %d %v after %v, want 404 NoSuchMetalakeException at once", metalake, status, out, took)
		}
	}
	ctx := t.Context()
	mcpHTTP := &http.Client{Transport: roundTripper(func(r *http.Request) (*http.Response, error) {
		r = r.Clone(r.Context())
		r.SetBasicAuth("hog", "x")
		return http.DefaultTransport.RoundTrip(r)
	})}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, nil).Connect(ctx,
		&mcp.StreamableClientTransport{Endpoint: m.URL() + "/mcp", HTTPClient: mcpHTTP, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, metalake := range []string{"nosuch", "other"} {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "search",
			Arguments: map[string]any{"metalake": metalake, "query": "x", "minPosition": ahead, "waitMs": 30000}})
		if err != nil {
			t.Fatal(err)
		}
		var out map[string]any
		b, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(b, &out)
		if took := time.Since(start); !res.IsError || out["code"] != 1003.0 || took > 15*time.Second {
			t.Errorf("MCP search with a 30 s wait on metalake %s: %v %v after %v, want NoSuchMetalakeException at once", metalake, out, contentText(res), took)
		}
	}
	cs.Close()

	// The hog opens as many connections as the server takes, alternately
	// a long wait and a slow body: its first four, one after another,
	// hold; the others, all at once, are answered 503 with a Retry-After
	// and closed (or, once twice its share are open, closed unanswered).
	http.DefaultClient.CloseIdleConnections()
	waitHeld(t, m, "hog", 0)
	request := func(i int) string {
		if i%2 == 1 {
			return slowBody("hog")
		}
		return longWait("hog", ahead)
	}
	var held []*rawConn
	for i := range share {
		held = append(held, dialFrom(t, m, "127.0.0.1", request(i)))
		waitHeld(t, m, "hog", i+1)
	}
	var excess []*rawConn
	for i := share; i < cfg.MaxConnections; i++ {
		excess = append(excess, dialFrom(t, m, "127.0.0.1", request(i)))
	}
	refused := 0
	for i, c := range excess {
		got := <-c.answers
		switch {
		case strings.HasPrefix(got, "503 1013 ServiceUnavailableException 1 ") && strings.Contains(got, "user 'hog'"):
			refused++
		case strings.HasPrefix(got, "503 ") || strings.HasPrefix(got, "2") || strings.HasPrefix(got, "4"):
			t.Errorf("the hog's connection %d: %q, want 503 with a Retry-After naming the hog, or closed", share+i, got)
		}
	}
	if refused == 0 {
		t.Error("none of the hog's excess requests was answered 503")
	}
	// Another user, from the same address, is served at once, while the
	// refused connections may still be closing.
	alice.ok("GET", "/api/metalakes/m", "")
	alice.ok("GET", "/api/metalakes/m/search?query=x", "")
	waitHeld(t, m, "hog", share)

	// From another address, a new user name on each connection, each a
	// slow body: at most half the connections hold; the rest are refused
	// at once.
	for i := range cfg.MaxConnections {
		name := fmt.Sprintf("rotating%d", i)
		c := dialFrom(t, m, "127.0.0.2", slowBody(name))
		if i < cfg.MaxConnections/2 {
			waitHeld(t, m, name, 1)
			held = append(held, c)
			continue
		}
		if got := <-c.answers; !strings.HasPrefix(got, "503 1013 ServiceUnavailableException 1 ") || !strings.Contains(got, "127.0.0.2") {
			t.Errorf("rotating name %d: %q, want 503 naming the address", i, got)
		}
	}
	alice.ok("GET", "/api/metalakes/m/search?query=x", "")
	bob := dialFrom(t, m, "127.0.0.3", "GET /api/metalakes HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: "+basicAuth("admin")+"\r\n\r\n")
	if got := <-bob.answers; !strings.HasPrefix(got, "200 ") {
		t.Errorf("a third address while the others hold: %q", got)
	}
	for _, c := range held {
		select {
		case got := <-c.answers:
			t.Errorf("a held connection answered early: %q", got)
		default:
		}
	}
	// Each of the hog's excess connections was turned away as it asked,
	// or, still idle (its header not all there yet on a busy machine),
	// evicted to make room: either way it was not served.
	s := m.conns.Stats()
	if s.TurnedAway+s.Evicted < cfg.MaxConnections-share || s.TurnedAway == 0 || s.Refused != cfg.MaxConnections/2 {
		t.Errorf("%+v; want %d turned away or evicted (the hog's excess), %d refused (the rotating names' excess)", s, cfg.MaxConnections-share, cfg.MaxConnections/2)
	}
	resp, err := http.Get(m.URL() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{fmt.Sprintf("semcat_connections_turned_away_total %d\n", s.TurnedAway),
		fmt.Sprintf("semcat_connections_refused_total %d\n", cfg.MaxConnections/2)} {
		if !strings.Contains(string(metrics), want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}

	// With --auth none the caller is the remote address: one address
	// holding busy connections leaves another served.
	anonymous := cfg
	anonymous.Auth, anonymous.Authorization = "none", false
	anonymous.DataDir, anonymous.DatabaseURL = t.TempDir(), m.pg.URL("semcat")
	n := startMain(t, anonymous)
	for i := range anonymous.MaxConnections {
		c := dialFrom(t, n, "127.0.0.2", request(i))
		if i < share {
			waitBusy(t, n, i+1)
			continue
		}
		if got := <-c.answers; !strings.HasPrefix(got, "503 1013 ServiceUnavailableException 1 ") || !strings.Contains(got, "127.0.0.2") {
			t.Errorf("connection %d from the busy address: %q, want 503 naming it", i, got)
		}
	}
	client{t: t, base: n.URL()}.ok("GET", "/api/metalakes/m/search?query=x", "")
}

// roundTripper is a function as an http.RoundTripper.
type roundTripper func(*http.Request) (*http.Response, error)

func (f roundTripper) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
