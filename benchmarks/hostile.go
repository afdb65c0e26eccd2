package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
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
	// Listing is the tag-objects listing beside a normal search.
	Listing ListingResult `json:"tagObjectsListing"`
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

// ListingResult is the per-row listing part of the hostile load (SPEC
// §2.11): GET …/tags/{t}/objects on a tag held by listingTables tables,
// listingLoops at once, beside a normal search. It runs on a second
// semcat serving with --authorization (the listing's cost was its
// authorization, which the main run does not enforce), holding only those
// tables, which are the generator's with their text; the caller is its
// anonymous user, a service admin that owns what it created.
type ListingResult struct {
	Tables int `json:"taggedTables"`
	Loops  int `json:"listingLoops"`
	// Rows is how many objects each listing answered (all must answer
	// every table).
	Rows int `json:"rows"`
	// Alone is the listing's latency one at a time, with nothing else
	// running; Listing its latency under its own load, Listings and
	// ListingErrors count those answered and failed.
	Alone         Stats `json:"listingAlone"`
	Listing       Stats `json:"listing"`
	Listings      int   `json:"listingsAnswered"`
	ListingErrors int   `json:"listingsFailed"`
	// Idle and Loaded are a normal word search alone and while the
	// listings run; Errors counts searches that failed meanwhile.
	Idle   Stats   `json:"idle"`
	Loaded Stats   `json:"underListing"`
	Errors int     `json:"errors"`
	Ratio  float64 `json:"p99Ratio"` // Loaded p99 ÷ Idle p99
	// LoadSeconds is how long creating the tables took.
	LoadSeconds float64 `json:"loadSeconds"`
}

const (
	listingTables = 10000
	listingLoops  = 4
	listingAlone  = 10
	listingTag    = "listing_hot"
)

// runListing starts a second semcat (binary bin, data under dir) with
// --authorization, creates listingTables tables of the generator's, every
// one with listingTag, and measures n word searches alone and then while
// listingLoops loops list the tag's objects. With profile > 0 it records
// the second server's CPU profile for that long from the moment the
// listings start, into profilePath.
func runListing(ctx context.Context, bin, dir string, g *Generator, n int, seed uint64, profile time.Duration, profilePath string) (res ListingResult, err error) {
	res = ListingResult{Tables: listingTables, Loops: listingLoops}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return res, err
	}
	s, err := startServer(ctx, bin, dir, profile > 0, "--authorization")
	defer func() {
		if s == nil {
			return
		}
		cluster, _ := s.ClusterDir()
		if serr := s.Stop(90 * time.Second); serr != nil {
			logf("warning: the listing's server: %v", serr)
		}
		if serr := s.stopOrphanedPostgres(60 * time.Second); serr != nil {
			logf("warning: the listing's server: %v", serr)
		}
		if serr := s.removeOutsideCluster(cluster); serr != nil {
			logf("warning: the listing's server: %v", serr)
		}
	}()
	if err != nil {
		return res, err
	}
	c := newClient(s.URL)
	m := g.Plan.Metalake
	base := "/api/metalakes/" + url.PathEscape(m)
	t0 := time.Now()
	if _, err := c.do(ctx, http.MethodPost, "/api/metalakes", map[string]any{"name": m}, nil); err != nil {
		return res, err
	}
	for _, t := range append(slices.Clone(g.Tags), listingTag) {
		if _, err := c.do(ctx, http.MethodPost, base+"/tags", map[string]any{"name": t}, nil); err != nil {
			return res, err
		}
	}
	const catalog, perSchema, batch = "listing", 1000, 100
	if _, err := c.do(ctx, http.MethodPost, base+"/catalogs", map[string]any{"name": catalog, "type": "relational"}, nil); err != nil {
		return res, err
	}
	// The generator's tables in plan order, again and again until there
	// are enough, each renamed by its number.
	var refs [][3]int
	for len(refs) < listingTables {
		for ci, cp := range g.Plan.Catalogs {
			for si, sp := range cp.Schemas {
				for ti := range sp.Tables {
					refs = append(refs, [3]int{ci, si, ti})
				}
			}
		}
	}
	var pos string
	for from := 0; from < listingTables; from += batch {
		schema := fmt.Sprintf("s%d", from/perSchema)
		if from%perSchema == 0 {
			if _, err := c.do(ctx, http.MethodPost, base+"/catalogs/"+catalog+"/schemas", map[string]any{"name": schema}, nil); err != nil {
				return res, err
			}
		}
		items := make([]any, 0, batch)
		for i := from; i < min(from+batch, listingTables); i++ {
			t := g.Table(refs[i][0], refs[i][1], refs[i][2])
			item := t.Body().(map[string]any)
			item["name"] = fmt.Sprintf("%s_%d", t.Name, i)
			item["tags"] = append(slices.Clone(t.Tags), listingTag)
			items = append(items, item)
		}
		if pos, err = c.do(ctx, http.MethodPost, base+"/catalogs/"+catalog+"/schemas/"+schema+"/tables:batchCreate", map[string]any{"tables": items}, nil); err != nil {
			return res, err
		}
	}
	if err := c.WaitSearchable(ctx, m, pos, 10*time.Minute); err != nil {
		return res, err
	}
	res.LoadSeconds = time.Since(t0).Seconds()

	sm := newSampler(g, rand.New(rand.NewPCG(seed, 26)))
	measure := func() ([]time.Duration, int) {
		var ds []time.Duration
		errs := 0
		for range n {
			t0 := time.Now()
			if _, err := c.Search(ctx, m, SearchParams{Query: sm.word(), Limit: 20}); err != nil {
				errs++
				continue
			}
			ds = append(ds, time.Since(t0))
		}
		return ds, errs
	}
	idle, errs := measure()
	if errs > 0 {
		return res, fmt.Errorf("listing load: %d of %d searches failed before any load", errs, n)
	}
	res.Idle = summarize(idle)

	path := base + "/tags/" + listingTag + "/objects"
	// rows counts a listing's objects by their "fullName" keys: the
	// listing callers only read their answers, as a caller elsewhere
	// would, so that decoding 600 KB of JSON in this process — beside
	// the searches it times — is not what the searches measure. The
	// first answer is decoded whole, to check that the count is right.
	rows := func(body []byte) int { return bytes.Count(body, []byte(`"fullName":`)) }
	var alone []time.Duration
	for i := range listingAlone {
		// Alone: after the rest the server gives a listing slot after
		// each listing (at most a second), or this would time that rest.
		select {
		case <-ctx.Done():
			return res, ctx.Err()
		case <-time.After(time.Second):
		}
		t0 := time.Now()
		body, _, err := c.fetch(ctx, http.MethodGet, path, nil)
		if err != nil {
			return res, fmt.Errorf("listing load: the listing alone: %w", err)
		}
		alone = append(alone, time.Since(t0))
		if n := rows(body); n != listingTables {
			return res, fmt.Errorf("listing load: the listing alone answered %d objects, want %d", n, listingTables)
		}
		if i == 0 {
			var out struct {
				Objects []json.RawMessage `json:"metadataObjects"`
			}
			if err := json.Unmarshal(body, &out); err != nil || len(out.Objects) != listingTables {
				return res, fmt.Errorf("listing load: the listing decodes to %d objects (%v), want %d", len(out.Objects), err, listingTables)
			}
		}
	}
	res.Alone = summarize(alone)

	var profiled func() error
	if profile > 0 {
		if err := os.MkdirAll(filepath.Dir(profilePath), 0o755); err != nil {
			return res, err
		}
		profiled = s.profileCPU(ctx, profile, profilePath)
	}
	load, stop := context.WithCancel(ctx)
	var wg sync.WaitGroup
	var mu sync.Mutex
	var listed []time.Duration
	for range listingLoops {
		wg.Go(func() {
			for load.Err() == nil {
				t0 := time.Now()
				body, _, err := c.fetch(load, http.MethodGet, path, nil)
				d := time.Since(t0)
				if load.Err() != nil {
					return
				}
				mu.Lock()
				if err != nil {
					res.ListingErrors++
				} else {
					listed = append(listed, d)
					res.Rows = rows(body)
				}
				mu.Unlock()
			}
		})
	}
	// Let the listings start.
	select {
	case <-ctx.Done():
	case <-time.After(time.Second):
	}
	loaded, errs := measure()
	stop()
	wg.Wait()
	res.Loaded, res.Errors = summarize(loaded), errs
	res.Listing, res.Listings = summarize(listed), len(listed)
	if profiled != nil {
		if err := profiled(); err != nil {
			logf("  warning: the listing's profile: %v", err)
		}
	}
	if res.Idle.P99 > 0 {
		res.Ratio = res.Loaded.P99 / res.Idle.P99
	}
	return res, ctx.Err()
}
