// Package connlimit caps the connections an HTTP server holds open, so
// that idle and slow clients cannot take every file descriptor (SPEC
// §2.11): at the cap, a new connection makes room by closing the
// connection that has waited longest without a request in progress (idle
// between requests, or still sending its first request's header); when
// every connection is busy with a request, the new one is answered 503
// and closed.
//
// Go's http.Server has timeouts for each phase of a request, but nothing
// that bounds how many connections it holds; netutil.LimitListener bounds
// them by not accepting, which lets a thousand idle clients keep every
// newcomer waiting until they time out.
package connlimit

import (
	"container/list"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Limiter tracks the connections of one http.Server. Wrap its listener with
// Listener and set the server's ConnState to the Limiter's ConnState.
type Limiter struct {
	max int

	mu sync.Mutex
	// open holds every open connection: its element of quiet, or nil
	// while a request is in progress on it.
	open  map[net.Conn]*list.Element
	quiet *list.List // of net.Conn: the idle and new, longest quiet first
	// refused and evicted count what the cap did.
	refused, evicted int
}

// New returns a Limiter of at most n open connections (at least 1).
func New(n int) *Limiter {
	return &Limiter{max: max(n, 1), open: map[net.Conn]*list.Element{}, quiet: list.New()}
}

// Stats reports the connections open now, how many were refused and how
// many were closed to make room.
func (l *Limiter) Stats() (open, refused, evicted int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.open), l.refused, l.evicted
}

// Listener returns ln whose Accept keeps to the cap.
func (l *Limiter) Listener(ln net.Listener) net.Listener { return &listener{Listener: ln, l: l} }

type listener struct {
	net.Listener
	l *Limiter
}

// refusal is what a connection over the cap is told before it is closed.
var refusal = func() []byte {
	body := `{"code":1013,"type":"ServiceUnavailableException","message":"too many open connections, every one busy with a request; try again","stack":[]}`
	return []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}()

func (ln *listener) Accept() (net.Conn, error) {
	for {
		c, err := ln.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if victim, ok := ln.l.admit(c); ok {
			if victim != nil {
				victim.Close()
			}
			return c, nil
		}
		// Every slot holds a request in progress: say so, briefly, and
		// go on accepting.
		go func() {
			c.SetWriteDeadline(time.Now().Add(time.Second))
			c.Write(refusal)
			c.Close()
		}()
	}
}

// admit registers c, and returns the connection to close to make room for
// it (nil for none), or false when there is no room.
func (l *Limiter) admit(c net.Conn) (net.Conn, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	var victim net.Conn
	if len(l.open) >= l.max {
		front := l.quiet.Front()
		if front == nil {
			l.refused++
			return nil, false
		}
		victim = front.Value.(net.Conn)
		l.remove(victim)
		l.evicted++
	}
	l.open[c] = l.quiet.PushBack(c)
	return victim, true
}

// remove forgets c; l.mu is held.
func (l *Limiter) remove(c net.Conn) {
	e, ok := l.open[c]
	if !ok {
		return
	}
	if e != nil {
		l.quiet.Remove(e)
	}
	delete(l.open, c)
}

// ConnState follows each connection through its states: quiet while new
// or idle, busy while a request is in progress, gone when closed or
// hijacked.
func (l *Limiter) ConnState(c net.Conn, state http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	e, ok := l.open[c]
	if !ok {
		return // closed to make room, or never admitted
	}
	switch state {
	case http.StateActive:
		if e != nil {
			l.quiet.Remove(e)
			l.open[c] = nil
		}
	case http.StateIdle:
		if e == nil {
			l.open[c] = l.quiet.PushBack(c)
		}
	case http.StateClosed, http.StateHijacked:
		l.remove(c)
	}
}
