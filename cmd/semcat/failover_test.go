package main

import (
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/semcat/semcat/catalogdb/pgtest"
)

// TestAsyncFailoverEndToEnd: semcat on a primary with a streaming
// standby, through a multi-host URL. The standby stops receiving while
// semcat writes and indexes more; the primary dies and the standby is
// promoted, with the lost writes' transaction ids to hand out again. The
// searches waiting for each write answer with it or 503, and the index
// ends equal to the promoted database: none of the lost tables, all of the
// new ones.
func TestAsyncFailoverEndToEnd(t *testing.T) {
	t.Parallel()
	primary := pgtest.NewCluster(t, "semcat")
	standby := primary.Standby()
	cfg := testConfig(t)
	cfg.DatabaseURL = fmt.Sprintf("host=%s,%s port=5432,5432 user=postgres dbname=semcat target_session_attrs=read-write",
		primary.Socket, standby.Socket)
	var log syncBuffer
	m := startMainLogging(t, cfg, &log)
	defer func() {
		if t.Failed() {
			t.Logf("semcat's log:\n%s", log.String())
		}
	}()
	c := client{t: t, base: m.URL()}
	c.ok("POST", "/api/metalakes", `{"name":"m"}`)
	c.ok("POST", "/api/metalakes/m/catalogs", `{"name":"c","type":"relational"}`)
	c.ok("POST", "/api/metalakes/m/catalogs/c/schemas", `{"name":"s"}`)

	answered, unavailable := 0, 0
	// write creates a table (retrying through the failover) and runs the
	// search that waits for it.
	write := func(name string) {
		t.Helper()
		var pos string
		for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) {
			body := fmt.Sprintf(`{"name":%q,"columns":[{"name":"id","type":"integer"}]}`, name)
			status, hdr, _ := c.do("POST", "/api/metalakes/m/catalogs/c/schemas/s/tables", body)
			if status == 200 {
				pos = hdr.Get("X-Semcat-Position")
				break
			}
			if status == 409 {
				return // committed, its answer lost with the connection: no position to wait for
			}
			if time.Now().After(deadline) {
				t.Fatalf("creating %s: %d", name, status)
			}
		}
		status, _, out := c.do("GET", "/api/metalakes/m/search?"+url.Values{
			"query": {"*"}, "type": {"table"}, "limit": {"200"}, "minPosition": {pos}, "waitMs": {"3000"}}.Encode(), "")
		if status == 503 {
			unavailable++
			return
		}
		names := tableNames(out)
		if status != 200 || !slices.Contains(names, name) {
			t.Errorf("a search waiting for %s (position %s) answered %d without it", name, pos, status)
		}
		if strings.HasPrefix(name, "b") && slices.ContainsFunc(names, func(n string) bool { return strings.HasPrefix(n, "lost") }) {
			t.Errorf("a search waiting for %s answered with tables the promoted database lost: %v", name, names)
		}
		answered++
	}
	for i := range 5 {
		write(fmt.Sprintf("a%d", i))
	}
	primary.WaitReplayed(t, standby)
	standby.Stop("fast") // replication stops
	for i := range 10 {
		write(fmt.Sprintf("lost%d", i))
	}
	primary.Stop("immediate")
	standby.Start()
	standby.Promote()
	for i := range 10 {
		write(fmt.Sprintf("b%d", i))
	}

	var inDB, inIndex []string
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		_, out := c.ok("GET", "/api/metalakes/m/catalogs/c/schemas/s/tables", "")
		inDB = inDB[:0]
		for _, id := range out["identifiers"].([]any) {
			inDB = append(inDB, id.(map[string]any)["name"].(string))
		}
		status, _, res := c.do("GET", "/api/metalakes/m/search?query=*&type=table&limit=200", "")
		if status == 200 {
			inIndex = tableNames(res)
		}
		sort.Strings(inDB)
		sort.Strings(inIndex)
		if slices.Equal(inDB, inIndex) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a minute after the failover the index holds %v, the database %v", inIndex, inDB)
		}
	}
	if slices.ContainsFunc(inDB, func(n string) bool { return strings.HasPrefix(n, "lost") }) {
		t.Logf("the standby had some of the lost writes after all: %v", inDB)
	}
	t.Logf("%d tables; searches waiting for a write: %d answered with it, %d 503", len(inDB), answered, unavailable)
}

// tableNames returns the names of a search's results.
func tableNames(out map[string]any) []string {
	var names []string
	results, _ := out["results"].([]any)
	for _, r := range results {
		names = append(names, r.(map[string]any)["entity"].(map[string]any)["name"].(string))
	}
	return names
}
