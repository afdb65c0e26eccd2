package main

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// HostileResult is DESIGN §6's hostile-load scenario: a normal search's
// latency alone, and again while idle connections, slow request bodies and
// the costliest queries SPEC §2.11 allows all run at once.
type HostileResult struct {
	Idle    Stats `json:"idle"`
	Hostile Stats `json:"hostile"`
	// Errors counts normal searches that failed under the load.
	Errors int `json:"errors"`
	// IdleConns and SlowBodies are how many of each the harness kept
	// open (reconnecting those the server cut); Cut counts the cuts.
	IdleConns  int   `json:"idleConnections"`
	SlowBodies int   `json:"slowBodies"`
	Cut        int64 `json:"connectionsCut"`
	// Costly are the costliest queries answered meanwhile, by status.
	Costly      map[int]int `json:"costlyQueriesByStatus"`
	CostlyQuery string      `json:"costlyQuery"`
	Ratio       float64     `json:"p99Ratio"` // hostile p99 ÷ idle p99
}

const (
	hostileIdleConns   = 1000
	hostileSlowBodies  = 200
	hostileCostlyLoops = 2
	targetHostileRatio = 2.0
)

// costlyQuery is the costliest query SPEC §2.11 admits: as many one- and
// two-character prefixes as a query may have terms (64), each matching a
// large share of the catalog, with every facet.
func costlyQuery() string {
	var terms []string
	for c := 'a'; c <= 'z'; c++ {
		terms = append(terms, string(c)+"*")
	}
	for c := '0'; c <= '9'; c++ {
		terms = append(terms, string(c)+"*")
	}
	for _, a := range "aeiost" {
		for _, b := range "aeiou" {
			if len(terms) < 64 {
				terms = append(terms, string(a)+string(b)+"*")
			}
		}
	}
	return strings.Join(terms, " ")
}

// runHostile measures n word searches alone, then starts the hostile load,
// lets it build for a few seconds and measures n more.
func runHostile(ctx context.Context, c *Client, g *Generator, n int, seed uint64) (HostileResult, error) {
	res := HostileResult{IdleConns: hostileIdleConns, SlowBodies: hostileSlowBodies, Costly: map[int]int{}, CostlyQuery: costlyQuery()}
	s := newSampler(g, rand.New(rand.NewPCG(seed, 25)))
	m := g.Plan.Metalake
	measure := func() ([]time.Duration, int) {
		var ds []time.Duration
		errs := 0
		for range n {
			t0 := time.Now()
			if _, err := c.Search(ctx, m, SearchParams{Query: s.word(), Limit: 20}); err != nil {
				errs++
				continue
			}
			ds = append(ds, time.Since(t0))
		}
		return ds, errs
	}
	idle, errs := measure()
	if errs > 0 {
		return res, fmt.Errorf("hostile load: %d of %d searches failed before any load", errs, n)
	}
	res.Idle = summarize(idle)

	addr := strings.TrimPrefix(c.base, "http://")
	load, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var cut atomic.Int64
	// Idle connections: open, send nothing, wait to be cut, reconnect.
	for range hostileIdleConns {
		wg.Go(func() {
			holdConn(load, addr, &cut, func(net.Conn) error { return nil })
		})
	}
	// Slow bodies: a create whose 100 kB body arrives a byte every 2 s.
	header := fmt.Sprintf("POST /api/metalakes/%s/catalogs HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n", m, addr)
	for range hostileSlowBodies {
		wg.Go(func() {
			holdConn(load, addr, &cut, func(conn net.Conn) error {
				if _, err := conn.Write([]byte(header)); err != nil {
					return err
				}
				tick := time.NewTicker(2 * time.Second)
				defer tick.Stop()
				for {
					select {
					case <-load.Done():
						return nil
					case <-tick.C:
						if _, err := conn.Write([]byte(" ")); err != nil {
							return err
						}
					}
				}
			})
		})
	}
	// The costliest queries, back to back.
	var mu sync.Mutex
	for range hostileCostlyLoops {
		wg.Go(func() {
			for load.Err() == nil {
				_, err := c.Search(load, m, SearchParams{Query: res.CostlyQuery, Facets: "type,catalog,schema,tags", Limit: 100})
				status := 200
				var apiErr *APIError
				switch {
				case errors.As(err, &apiErr):
					status = apiErr.Status
				case err != nil:
					status = 0
				}
				if load.Err() == nil {
					mu.Lock()
					res.Costly[status]++
					mu.Unlock()
				}
			}
		})
	}
	// Let the connections open and the first slow bodies start.
	select {
	case <-ctx.Done():
	case <-time.After(3 * time.Second):
	}
	hostile, errs := measure()
	stop()
	wg.Wait()
	res.Hostile, res.Errors, res.Cut = summarize(hostile), errs, cut.Load()
	if res.Idle.P99 > 0 {
		res.Ratio = res.Hostile.P99 / res.Idle.P99
	}
	return res, ctx.Err()
}

// holdConn keeps one connection to addr busy with use until ctx ends,
// reconnecting (and counting a cut) whenever the server closes it.
func holdConn(ctx context.Context, addr string, cut *atomic.Int64, use func(net.Conn) error) {
	var d net.Dialer
	for ctx.Err() == nil {
		conn, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			time.Sleep(100 * time.Millisecond)
			continue
		}
		closed := make(chan struct{})
		go func() {
			// The server's close shows as the end of the read.
			_, _ = conn.Read(make([]byte, 4096))
			close(closed)
		}()
		done := make(chan struct{})
		go func() {
			_ = use(conn)
			close(done)
		}()
		select {
		case <-ctx.Done():
		case <-closed:
			cut.Add(1)
		}
		conn.Close()
		<-done
	}
}
