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
// connections and returns its address.
func serve(t *testing.T, max int, handler http.Handler) (*connlimit.Limiter, string) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	l := connlimit.New(max)
	srv := &http.Server{Handler: handler, ConnState: l.ConnState, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(l.Listener(ln))
	t.Cleanup(func() { srv.Close() })
	return l, ln.Addr().String()
}

// get sends one GET on conn and reads the answer's status line and body.
func get(t *testing.T, conn net.Conn, r *bufio.Reader) (int, string) {
	t.Helper()
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: x\r\n\r\n"); err != nil {
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

func dial(t *testing.T, addr string) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, bufio.NewReader(c)
}

// TestIdleMakeRoom: at the cap, idle keep-alive connections (and ones that
// never sent a request) give way to a newcomer, longest idle first.
func TestIdleMakeRoom(t *testing.T) {
	l, addr := serve(t, 4, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok") }))
	type client struct {
		c net.Conn
		r *bufio.Reader
	}
	var idle []client
	for range 3 {
		c, r := dial(t, addr)
		if status, _ := get(t, c, r); status != 200 {
			t.Fatalf("status %d", status)
		}
		idle = append(idle, client{c, r})
	}
	silent, _ := dial(t, addr) // connects, says nothing
	_ = silent
	waitOpen(t, l, 4)
	// Three newcomers, each served: each closes the longest quiet one.
	for i := range 3 {
		c, r := dial(t, addr)
		if status, body := get(t, c, r); status != 200 || body != "ok" {
			t.Fatalf("newcomer %d: %d %q", i, status, body)
		}
	}
	open, refused, evicted := l.Stats()
	if open > 4 || refused != 0 || evicted != 3 {
		t.Errorf("open %d, refused %d, evicted %d; want at most 4, 0, 3", open, refused, evicted)
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
	l, addr := serve(t, 2, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started <- struct{}{}
		<-release
		io.WriteString(w, "done")
	}))
	done := make(chan string, 2)
	for range 2 {
		c, r := dial(t, addr)
		go func() {
			status, body := get(t, c, r)
			done <- fmt.Sprint(status, " ", body)
		}()
		<-started
	}
	c, r := dial(t, addr)
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
	if _, refused, evicted := l.Stats(); refused != 1 || evicted != 0 {
		t.Errorf("refused %d, evicted %d; want 1, 0", refused, evicted)
	}
}

// waitOpen waits until the server holds n connections open.
func waitOpen(t *testing.T, l *connlimit.Limiter, n int) {
	t.Helper()
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(5 * time.Millisecond) {
		if open, _, _ := l.Stats(); open == n {
			return
		}
	}
	open, _, _ := l.Stats()
	t.Fatalf("%d connections open, want %d", open, n)
}
