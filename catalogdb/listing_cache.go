package catalogdb

import (
	"context"
	"sync"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// listingCache keeps the last few unbounded listings (a tag's objects,
// 10,000 rows and more) with the database state they were read in, so that
// callers asking the same again of a database that has not changed since —
// a page polling a tag, a caller listing back to back — cost a statement,
// not the listing's CPU in PostgreSQL, which no priority keeps from the
// searches beside it (SPEC §2.11). The state is the read's snapshot
// (xmin, xmax and the transactions in progress: two reads with the same
// one see the same rows, any commit in between changes it) and the start
// of the server's postmaster, which a restore or a failover to another
// server always changes, as they can hand the same transaction ids out
// again. The entries are shared: no caller changes what they hold.
type listingCache struct {
	mu      sync.Mutex
	entries []*listingEntry // most recently used first
	rows    int             // the rows all entries hold
}

type listingKey struct {
	// access: the listing with what each user may do (TagObjectsAccess),
	// not the bare one (TagObjects).
	access                     bool
	user, metalake, tag, value string
}

type listingEntry struct {
	key   listingKey
	state string
	objs  []semcat.TaggedObject
	// parents and owns are TagObjectsAccess's, for a listing with access.
	parents, owns []*semcat.Access
}

// The cache holds at most maxCachedListings listings and maxCachedRows
// rows among them (about 90 bytes a row: 9 MB); a listing larger than
// that is not kept.
const (
	maxCachedListings = 8
	maxCachedRows     = 100_000
)

// readState is the database state tx reads, as listingCache compares it;
// tx must be a repeatable-read transaction that has not run a statement
// yet, so that its snapshot is the one this reads.
func readState(ctx context.Context, tx pgx.Tx) (string, error) {
	var state string
	err := tx.QueryRow(ctx, `SELECT pg_current_snapshot()::text || '@' || pg_postmaster_start_time()::text`).Scan(&state)
	return state, err
}

// cached reads the listing k in s's transaction tx: from the cache if it
// holds one read in the same state, else by read, whose entry (key and
// state set here) the cache then keeps.
func (s *Store) cached(ctx context.Context, tx pgx.Tx, k listingKey, read func() (*listingEntry, error)) (*listingEntry, error) {
	state, err := readState(ctx, tx)
	if err != nil {
		return nil, err
	}
	if e := s.listings.get(k, state); e != nil {
		return e, nil
	}
	e, err := read()
	if err != nil {
		return nil, err
	}
	e.key, e.state = k, state
	s.listings.put(e)
	return e, nil
}

// get returns the entry for k read in state, if there is one.
func (c *listingCache) get(k listingKey, state string) *listingEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, e := range c.entries {
		if e.key == k {
			if e.state != state {
				c.drop(i)
				return nil
			}
			copy(c.entries[1:i+1], c.entries[:i])
			c.entries[0] = e
			return e
		}
	}
	return nil
}

// put keeps e, dropping the least recently used entries beyond the bounds.
func (c *listingCache) put(e *listingEntry) {
	if len(e.objs) > maxCachedRows {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, old := range c.entries {
		if old.key == e.key {
			c.drop(i)
			break
		}
	}
	c.entries = append([]*listingEntry{e}, c.entries...)
	c.rows += len(e.objs)
	for len(c.entries) > maxCachedListings || c.rows > maxCachedRows {
		c.drop(len(c.entries) - 1)
	}
}

// drop removes entry i; c.mu is held.
func (c *listingCache) drop(i int) {
	c.rows -= len(c.entries[i].objs)
	c.entries = append(c.entries[:i], c.entries[i+1:]...)
}
