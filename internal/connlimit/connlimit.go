// Package connlimit caps the connections an HTTP server holds open and
// shares them fairly between callers (SPEC §2.11), so that neither idle and
// slow clients nor one busy caller can keep everyone else from being
// served.
//
// Every open connection is charged to one holder: its remote address until
// a request on it names its caller (Claim), then that caller. A holder has
// at most a quarter of the connections, busy or idle: past that, a new
// connection or request of the same holder first closes one of the
// holder's own quiet connections (idle between requests, or still sending
// a request's header: Go's server calls a connection active only once the
// header is in), and is refused when they are all busy. Optionally, one
// remote address holds at most perAddress connections whatever callers it
// names, for callers whose names are not verified (rotating them would
// otherwise multiply the share). At the overall cap a new connection makes
// room by closing the connection that has been quiet longest; when every
// one is busy, the new one is answered 503 and closed.
//
// Go's http.Server bounds each phase of a request in time, but nothing
// bounds how many connections it holds; netutil.LimitListener bounds them
// by not accepting, which lets a thousand idle clients, or one caller's
// slow bodies, keep every newcomer waiting.
package connlimit

import (
	"container/list"
	"context"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"sync"
	"time"
)

// Limiter tracks the connections of one http.Server. Wrap its listener with
// Listener, set the server's ConnState and ConnContext to the Limiter's,
// and Claim each request's connection for its caller.
type Limiter struct {
	max, share, perAddress int

	mu sync.Mutex
	// open holds every open connection.
	open  map[net.Conn]*conn
	quiet *list.List // of *conn: the idle and new, longest quiet first
	// held counts the connections of each holder; fromAddress those of
	// each remote address, whoever holds them.
	held, fromAddress map[string]int
	stats             Stats
}

// conn is one open connection.
type conn struct {
	nc      net.Conn
	address string // the remote IP address
	holder  string // addressHolder(address), or callerHolder(a claimed caller)
	// quiet is its element of Limiter.quiet, nil while a request is in
	// progress on it.
	quiet *list.Element
	// refused: a request on it was refused (Claim); it closes once the
	// refusal is sent, and no longer counts for its address.
	refused bool
}

// Holders: a remote address and a caller never share a name.
func addressHolder(address string) string { return "address " + address }
func callerHolder(caller string) string   { return "caller " + caller }

// Stats is what the limiter did.
type Stats struct {
	// Open is how many connections are open now; Busy, how many of them
	// have a request in progress.
	Open, Busy int
	// Refused counts new connections answered 503 and closed; Evicted,
	// quiet connections closed to make room; TurnedAway, requests
	// refused because their caller held its share (Claim).
	Refused, Evicted, TurnedAway int
}

// New returns a Limiter of at most n open connections (at least 1), a
// quarter of them (at least 1) for each holder, and at most perAddress for
// one remote address (0: no bound but n).
func New(n, perAddress int) *Limiter {
	n = max(n, 1)
	if perAddress <= 0 || perAddress > n {
		perAddress = n
	}
	return &Limiter{max: n, share: max(n/4, 1), perAddress: perAddress,
		open: map[net.Conn]*conn{}, quiet: list.New(), held: map[string]int{}, fromAddress: map[string]int{}}
}

// Share is the most connections one holder has open at once.
func (l *Limiter) Share() int { return l.share }

// Stats reports what the limiter holds and did.
func (l *Limiter) Stats() Stats {
	l.mu.Lock()
	defer l.mu.Unlock()
	s := l.stats
	s.Open = len(l.open)
	s.Busy = s.Open - l.quiet.Len()
	return s
}

// Held reports how many open connections are charged to caller, as named
// to Claim (a refused request's connection included until it closes).
func (l *Limiter) Held(caller string) int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.held[callerHolder(caller)]
}

// Listener returns ln whose Accept keeps to the cap and the shares.
func (l *Limiter) Listener(ln net.Listener) net.Listener { return &listener{Listener: ln, l: l} }

type listener struct {
	net.Listener
	l *Limiter
}

// RetryAfter is the Retry-After, in seconds, of a refusal: connections are
// busy for at most a request's time, most for much less.
const RetryAfter = 1

// refusal is what a connection refused at Accept is told before it is
// closed.
func refusal(message string) []byte {
	body := `{"code":1013,"type":"ServiceUnavailableException","message":` + strconv.Quote(message) + `,"stack":[]}`
	return []byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: " + strconv.Itoa(RetryAfter) +
		"\r\nConnection: close\r\nContent-Length: " + strconv.Itoa(len(body)) + "\r\n\r\n" + body)
}

func (ln *listener) Accept() (net.Conn, error) {
	for {
		c, err := ln.Listener.Accept()
		if err != nil {
			return nil, err
		}
		victim, refused := ln.l.admit(c)
		if victim != nil {
			victim.Close()
		}
		if refused == "" {
			return c, nil
		}
		// Say why, briefly, and go on accepting.
		go func() {
			c.SetWriteDeadline(time.Now().Add(time.Second))
			c.Write(refusal(refused))
			c.Close()
		}()
	}
}

// remoteAddress is the IP address of c's peer (its whole address if it
// has no port).
func remoteAddress(c net.Conn) string {
	a := c.RemoteAddr().String()
	if host, _, err := net.SplitHostPort(a); err == nil {
		return host
	}
	return a
}

// admit registers c, charged to its remote address, and returns the
// connection to close to make room for it (nil for none); or the reason
// there is no room.
func (l *Limiter) admit(c net.Conn) (victim net.Conn, refused string) {
	address := remoteAddress(c)
	holder := addressHolder(address)
	l.mu.Lock()
	defer l.mu.Unlock()
	// One victim is enough: each bound is at most reached, and a victim
	// for a narrower bound also counts in the wider ones.
	var v *conn
	switch {
	case l.held[holder] >= l.share:
		if v = l.oldestQuiet(func(o *conn) bool { return o.holder == holder }); v == nil {
			refused = fmt.Sprintf("too many connections from %s not charged to a user (at most %d of %d for one address, every one busy); try again", address, l.share, l.max)
		}
	case l.fromAddress[address] >= l.perAddress:
		if v = l.oldestQuiet(func(o *conn) bool { return o.address == address }); v == nil {
			refused = fmt.Sprintf("too many connections from %s (at most %d of %d, every one busy); try again", address, l.perAddress, l.max)
		}
	case len(l.open) >= l.max:
		if v = l.oldestQuiet(func(*conn) bool { return true }); v == nil {
			refused = "too many open connections, every one busy with a request; try again"
		}
	}
	if refused != "" {
		l.stats.Refused++
		return nil, refused
	}
	if v != nil {
		l.remove(v)
		l.stats.Evicted++
		victim = v.nc
	}
	cn := &conn{nc: c, address: address, holder: holder}
	cn.quiet = l.quiet.PushBack(cn)
	l.open[c] = cn
	l.held[holder]++
	l.fromAddress[address]++
	return victim, ""
}

// oldestQuiet returns the longest quiet connection that match accepts, or
// nil; l.mu is held.
func (l *Limiter) oldestQuiet(match func(*conn) bool) *conn {
	for e := l.quiet.Front(); e != nil; e = e.Next() {
		if c := e.Value.(*conn); match(c) {
			return c
		}
	}
	return nil
}

// remove forgets c; l.mu is held.
func (l *Limiter) remove(c *conn) {
	if l.open[c.nc] != c {
		return
	}
	if c.quiet != nil {
		l.quiet.Remove(c.quiet)
		c.quiet = nil
	}
	delete(l.open, c.nc)
	l.release(c.holder)
	if !c.refused {
		l.leaveAddress(c.address)
	}
}

// leaveAddress takes one connection off address's count; l.mu is held.
func (l *Limiter) leaveAddress(address string) {
	if l.fromAddress[address]--; l.fromAddress[address] <= 0 {
		delete(l.fromAddress, address)
	}
}

// release takes one connection off holder's count; l.mu is held.
func (l *Limiter) release(holder string) {
	if l.held[holder]--; l.held[holder] <= 0 {
		delete(l.held, holder)
	}
}

// ConnState follows each connection through its states: quiet while new
// or idle, busy while a request is in progress, gone when closed or
// hijacked.
func (l *Limiter) ConnState(nc net.Conn, state http.ConnState) {
	l.mu.Lock()
	defer l.mu.Unlock()
	c, ok := l.open[nc]
	if !ok {
		return // closed to make room, or never admitted
	}
	switch state {
	case http.StateActive:
		if c.quiet != nil {
			l.quiet.Remove(c.quiet)
			c.quiet = nil
		}
	case http.StateIdle:
		// An idle connection stays with the caller of its last request:
		// a caller's share counts its idle connections too.
		if c.quiet == nil {
			c.quiet = l.quiet.PushBack(c)
		}
	case http.StateClosed, http.StateHijacked:
		l.remove(c)
	}
}

type connKey struct{}

// ConnContext, as http.Server's ConnContext, lets Claim find a request's
// connection.
func (l *Limiter) ConnContext(ctx context.Context, nc net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, nc)
}

// Refusal is Claim's error: the request's caller holds its share of the
// connections, every one busy.
type Refusal struct {
	Message string
	// Abort: the caller holds twice its share already, refused requests
	// whose connections are closing; close this one at once, unanswered
	// (panic with http.ErrAbortHandler), not charged to anyone.
	Abort bool
}

func (e *Refusal) Error() string { return e.Message }

// Claim charges the connection of r to caller ("": to its remote address,
// the caller when callers are not told apart), before the request's body
// is read. When the caller already holds its share, one of its quiet
// connections is closed to make room; when they are all busy, Claim
// returns a *Refusal and the request should be answered 503 and its
// connection closed (or, with Abort, closed unanswered). Either way the
// request's body is not to be read: set the connection's read deadline to
// now, or Go's server reads what is left of it (up to 256 KiB), however
// slowly it comes, before it closes the connection.
func (l *Limiter) Claim(r *http.Request, caller string) error {
	nc, _ := r.Context().Value(connKey{}).(net.Conn)
	var victim *conn
	err := func() error {
		l.mu.Lock()
		defer l.mu.Unlock()
		c, ok := l.open[nc]
		if !ok {
			return nil // not through Listener, or closed meanwhile
		}
		holder, who := callerHolder(caller), "user '"+caller+"'"
		if caller == "" {
			holder, who = addressHolder(c.address), c.address
		}
		if c.holder == holder {
			return nil
		}
		var refusal *Refusal
		if l.held[holder] >= l.share {
			if victim = l.oldestQuiet(func(o *conn) bool { return o.holder == holder }); victim != nil {
				l.remove(victim)
				l.stats.Evicted++
			} else {
				l.stats.TurnedAway++
				refusal = &Refusal{Message: fmt.Sprintf("too many connections in use by %s (at most %d of %d at once, every one busy); try again when one is done", who, l.share, l.max)}
				if l.held[holder] >= 2*l.share {
					// A caller that goes on opening connections past
					// its refusals, each closing only after its answer
					// (Go's server waits half a second for it to be
					// read), would fill the server with them.
					refusal.Abort = true
					return refusal
				}
			}
		}
		// A refused request's connection is the caller's too, past its
		// share, until it closes after the refusal (half a second when
		// it has a body): not its address's, where it would count
		// against other callers there.
		l.release(c.holder)
		c.holder = holder
		l.held[holder]++
		if refusal != nil {
			c.refused = true
			l.leaveAddress(c.address)
			return refusal
		}
		return nil
	}()
	if victim != nil {
		victim.nc.Close()
	}
	return err
}
