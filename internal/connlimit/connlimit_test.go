package connlimit_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/semcat/semcat/internal/connlimit"
)

// serve runs an HTTP server of handler behind a Limiter of max
// connections (perAddress from one address) and returns its address.
func serve(t *testing.T, max, perAddress int, handler http.Handler) (*connlimit.Limiter, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := connlimit.New(max, perAddress)
	// Each request is charged to the caller its X-Caller names, or to its
	// address without one.
	claiming := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := l.Claim(r, r.Header.Get("X-Caller")); err != nil {
			if refusal, ok := err.(*connlimit.Refusal); ok && refusal.Abort {
				panic(http.ErrAbortHandler)
			}
			w.Header().Set("Connection", "close")
			http.Error(w, err.Error(), http.StatusServiceUnavailable)
			return
		}
		handler.ServeHTTP(w, r)
	})
	srv := &http.Server{Handler: claiming, ConnState: l.ConnState, ConnContext: l.ConnContext, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l.Listener(ln))
	t.Cleanup(func() { srv.Close() })
	return l, ln.Addr().String()
}

// get sends one GET on conn and reads the answer's status line and body.
func get(t *testing.T, conn net.Conn, r *bufio.Reader) (int, string) {
	t.Helper()
	return getAs(t, conn, r, "")
}

// getAs is get with the caller in X-Caller.
func getAs(t *testing.T, conn net.Conn, r *bufio.Reader, caller string) (int, string) {
	t.Helper()
	return getPath(t, conn, r, caller, "/")
}

// getPath is getAs of path.
func getPath(t *testing.T, conn net.Conn, r *bufio.Reader, caller, path string) (int, string) {
	t.Helper()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: x\r\nX-Caller: %s\r\n\r\n", path, caller); err != nil {
		return 0, err.Error()
	}
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

// dial connects to addr from the loopback address 127.0.0.<from>: each
// its own remote address to the server.
func dial(t *testing.T, addr string, from int) (net.Conn, *bufio.Reader) {
	t.Helper()
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, byte(from))}}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// TestIdleMakeRoom: at the cap, idle keep-alive connections (and ones that
// never sent a request) give way to a newcomer, longest idle first.
func TestIdleMakeRoom(t *testing.T) {
	l, addr := serve(t, 4, 0, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	type client struct {
		c net.Conn
		r *bufio.Reader
	}
	var idle []client
	for i := range 3 {
		c, r := dial(t, addr, 1+i)
		if status, _ := get(t, c, r); status != 200 {
			t.Fatalf("status %d", status)
		}
		idle = append(idle, client{c, r})
	}
	silent, _ := dial(t, addr, 4) // connects, says nothing
	_ = silent
	waitOpen(t, l, 4)
	// Three newcomers, each served: each closes the longest quiet one.
	for i := range 3 {
		c, r := dial(t, addr, 5+i)
		if status, body := get(t, c, r); status != 200 || body != "ok" {
			t.Fatalf("newcomer %d: %d %q", i, status, body)
		}
	}
	if s := l.Stats(); s.Open > 4 || s.Refused != 0 || s.Evicted != 3 {
		t.Errorf("%+v; want at most 4 open, 0 refused, 3 evicted", s)
	}
	// The first idle connections went first: the oldest is closed.
	idle[0].c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := idle[0].r.ReadByte(); err == nil {
		t.Error("the longest idle connection is still open")
	}
}

// TestBusyRefuse: when every connection has a request in progress, a
// newcomer is told 503 and closed, and the busy ones finish.
func TestBusyRefuse(t *testing.T) {
	release := make(chan struct{})
	started := make(chan struct{}, 8)
	l, addr := serve(t, 2, 0, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-release
		io.WriteString(w, "done")
	}))
	done := make(chan string, 2)
	for i := range 2 {
		c, r := dial(t, addr, 1+i)
		go func() {
			status, body := get(t, c, r)
			done <- fmt.Sprint(status, " ", body)
		}()
		<-started
	}
	c, r := dial(t, addr, 3)
	status, body := get(t, c, r)
	if status != http.StatusServiceUnavailable || !strings.Contains(body, `"code":1013`) {
		t.Errorf("a newcomer while both are busy: %d %q", status, body)
	}
	close(release)
	for range 2 {
		if got := <-done; got != "200 done" {
			t.Errorf("a busy request: %s", got)
		}
	}
	if s := l.Stats(); s.Refused != 1 || s.Evicted != 0 {
		t.Errorf("%+v; want 1 refused, 0 evicted", s)
	}
}

// waitOpen waits until the server holds n connections open.
func waitOpen(t *testing.T, l *connlimit.Limiter, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if l.Stats().Open == n {
			return
		}
	}
	t.Fatalf("%d connections open, want %d", l.Stats().Open, n)
}

// holding is a handler whose requests of /hold hold their connection
// until release is closed, each announced on started; others answer at
// once.
func holding(started chan<- struct{}, release <-chan struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hold" {
			started <- struct{}{}
			<-release
		}
		io.WriteString(w, "ok")
	})
}

// hold sends a request of /hold as each of callers from 127.0.0.<from>,
// each on its own connection, and waits until each holds its connection;
// their answers come on the returned channel once released.
func hold(t *testing.T, addr string, from int, callers []string, started <-chan struct{}) <-chan string {
	t.Helper()
	done := make(chan string, len(callers))
	for _, caller := range callers {
		c, r := dial(t, addr, from)
		go func() {
			status, body := getPath(t, c, r, caller, "/hold")
			done <- fmt.Sprint(status, " ", body)
		}()
		select {
		case <-started:
		case got := <-done:
			t.Fatalf("a request of %s answered %s instead of holding its connection", caller, got)
		}
	}
	return done
}

// TestCallerShare: one caller holding its quarter of the connections busy
// is answered 503 for more, while another caller from the same address is
// served; its own idle connection gives way to its next request.
func TestCallerShare(t *testing.T) {
	started, release := make(chan struct{}, 16), make(chan struct{})
	l, addr := serve(t, 8, 0, holding(started, release))
	if l.Share() != 2 {
		t.Fatalf("share %d, want 2", l.Share())
	}
	held := hold(t, addr, 1, []string{"hog", "hog"}, started)
	c, r := dial(t, addr, 1)
	if status, body := getAs(t, c, r, "hog"); status != http.StatusServiceUnavailable || !strings.Contains(body, "user 'hog'") || !strings.Contains(body, "at most 2 of 8") {
		t.Errorf("the hog's third request: %d %q, want 503 naming the hog and its share", status, body)
	}
	// Its connection is closed with the refusal.
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	if _, err := r.ReadByte(); err == nil {
		t.Error("the refused connection is still open")
	}
	for i := range 3 {
		c, r := dial(t, addr, 1)
		if status, body := getAs(t, c, r, "alice"); status != 200 || body != "ok" {
			t.Errorf("alice's request %d while the hog holds its share: %d %q", i, status, body)
		}
	}
	close(release)
	for range 2 {
		if got := <-held; got != "200 ok" {
			t.Errorf("a held request: %s", got)
		}
	}
	if s := l.Stats(); s.TurnedAway != 1 || s.Refused != 0 {
		t.Errorf("%+v; want 1 turned away, 0 refused", s)
	}

	// Bob with two idle connections: a third request closes one of them
	// (the longer idle, as far as the server saw them go idle).
	var idle []net.Conn
	var readers []*bufio.Reader
	for range 2 {
		c, r := dial(t, addr, 2)
		if status, _ := getAs(t, c, r, "bob"); status != 200 {
			t.Fatalf("bob: %d", status)
		}
		idle, readers = append(idle, c), append(readers, r)
	}
	c, r = dial(t, addr, 2)
	if status, _ := getAs(t, c, r, "bob"); status != 200 {
		t.Errorf("bob's third request, his others idle: %d, want 200", status)
	}
	served := 0
	for i := range idle {
		if status, _ := getAs(t, idle[i], readers[i], "bob"); status == 200 {
			served++
		}
	}
	if served != 1 {
		t.Errorf("%d of bob's two idle connections still serve, want 1", served)
	}
}

// TestAddressShare: connections not yet charged to a caller count against
// their remote address. Past its quarter, a new one closes the address's
// longest quiet one — a connection still sending its header (slow
// headers) is quiet — or is refused when they are all busy with requests
// that named no caller; another address is served.
func TestAddressShare(t *testing.T) {
	started, release := make(chan struct{}, 16), make(chan struct{})
	defer close(release)
	l, addr := serve(t, 8, 0, holding(started, release))
	// Two connections from .2 start a header and never finish it.
	var slow []*bufio.Reader
	for range 2 {
		c, r := dial(t, addr, 2)
		if _, err := io.WriteString(c, "GET / HTTP/1.1\r\nHost: x\r\n"); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		slow = append(slow, r)
	}
	waitOpen(t, l, 2)
	c, r := dial(t, addr, 2)
	if status, body := get(t, c, r); status != 200 || body != "ok" {
		t.Errorf("a third connection from the address: %d %q, want 200", status, body)
	}
	if _, err := slow[0].ReadByte(); err == nil {
		t.Error("the address's first slow connection is still open")
	}
	// Two requests of .3 that name no caller hold their connections: a
	// third connection from .3 is refused, one from .4 served.
	hold(t, addr, 3, []string{"", ""}, started)
	c, r = dial(t, addr, 3)
	if status, body := get(t, c, r); status != http.StatusServiceUnavailable || !strings.Contains(body, "127.0.0.3") {
		t.Errorf("a third connection from a busy address: %d %q, want 503 naming it", status, body)
	}
	c, r = dial(t, addr, 4)
	if status, body := get(t, c, r); status != 200 || body != "ok" {
		t.Errorf("another address: %d %q", status, body)
	}
	if s := l.Stats(); s.Refused != 1 || s.Evicted != 1 {
		t.Errorf("%+v; want 1 refused, 1 evicted", s)
	}
}

// TestPerAddress: with a bound per remote address, one address naming a
// new caller on each connection holds at most that many; another address
// is served.
func TestPerAddress(t *testing.T) {
	started, release := make(chan struct{}, 16), make(chan struct{})
	defer close(release)
	l, addr := serve(t, 8, 4, holding(started, release))
	hold(t, addr, 2, []string{"hog1", "hog2", "hog3", "hog4"}, started)
	c, r := dial(t, addr, 2)
	if status, body := getAs(t, c, r, "hog5"); status != http.StatusServiceUnavailable || !strings.Contains(body, "at most 4 of 8") {
		t.Errorf("a fifth caller from the same address: %d %q, want 503", status, body)
	}
	c, r = dial(t, addr, 1)
	if status, body := getAs(t, c, r, "alice"); status != 200 || body != "ok" {
		t.Errorf("another address: %d %q", status, body)
	}
	if s := l.Stats(); s.Refused != 1 {
		t.Errorf("%+v; want 1 refused", s)
	}
}

// TestAbortPastTwiceShare: a caller's refused connections count for it
// until they close; once it holds twice its share, a further request's
// connection is closed unanswered.
func TestAbortPastTwiceShare(t *testing.T) {
	started, release := make(chan struct{}, 16), make(chan struct{})
	defer close(release)
	l, addr := serve(t, 8, 0, holding(started, release))
	hold(t, addr, 1, []string{"hog", "hog"}, started)
	// Two refusals whose bodies never come: this server (unlike semcat's,
	// which sets a read deadline) goes on reading them after the refusal,
	// so they stay open.
	for range 2 {
		c, r := dial(t, addr, 1)
		if _, err := io.WriteString(c, "POST / HTTP/1.1\r\nHost: x\r\nX-Caller: hog\r\nContent-Length: 100\r\n\r\n"); err != nil {
			t.Fatal(err)
		}
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		resp, err := http.ReadResponse(r, nil)
		if err != nil || resp.StatusCode != http.StatusServiceUnavailable {
			t.Fatalf("a refused request: %v %v", resp, err)
		}
	}
	c, r := dial(t, addr, 1)
	if status, body := getAs(t, c, r, "hog"); status != 0 {
		t.Errorf("a request past twice the share: %d %q, want the connection closed unanswered", status, body)
	}
	if s := l.Stats(); s.TurnedAway != 3 {
		t.Errorf("%+v; want 3 turned away", s)
	}
	c, r = dial(t, addr, 1)
	if status, body := getAs(t, c, r, "alice"); status != 200 {
		t.Errorf("alice: %d %q", status, body)
	}
}
