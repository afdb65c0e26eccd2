package events_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/internal/events"
)

func TestAuditLogLines(t *testing.T) {
	var buf bytes.Buffer
	a := events.NewAuditLog(&buf)
	at := time.Date(2025, 3, 1, 12, 0, 0, 0, time.FixedZone("CET", 3600))
	two := 2
	for _, e := range []semcat.Event{
		{Operation: "listTables", Phase: semcat.EventPre, User: "ann", Metalake: "m", Identifier: []string{"m", "c", "s"}, Time: at},
		{Operation: "listTables", Phase: semcat.EventSuccess, User: "ann", Metalake: "m", Identifier: []string{"m", "c", "s"}, Time: at,
			Duration: 1500 * time.Microsecond, ResultCount: &two},
		{Operation: "loadTable", Phase: semcat.EventFailure, User: "ann", Metalake: "m", Identifier: []string{"m", "c", "s", "t\n\"x"}, Time: at,
			Error: "table 't' does not exist", ErrorCode: semcat.ENOTFOUND},
		{Operation: "listMetalakes", Phase: semcat.EventPre, User: "ann", Time: at},
		{Operation: "search", Phase: semcat.EventPre, User: "ann", Metalake: "m", Identifier: []string{"m"}, Time: at, Interface: semcat.InterfaceMCP},
	} {
		if err := a.OnEvent(context.Background(), e); err != nil {
			t.Fatal(err)
		}
	}
	want := []string{
		`{"time":"2025-03-01T11:00:00Z","operation":"listTables","phase":"pre","user":"ann","metalake":"m","identifier":["m","c","s"],"interface":"rest"}`,
		`{"time":"2025-03-01T11:00:00Z","operation":"listTables","phase":"success","user":"ann","metalake":"m","identifier":["m","c","s"],"durationMs":1.5,"resultCount":2,"interface":"rest"}`,
		`{"time":"2025-03-01T11:00:00Z","operation":"loadTable","phase":"failure","user":"ann","metalake":"m","identifier":["m","c","s","t\n\"x"],"durationMs":0,"error":"table 't' does not exist","errorCode":"not_found","interface":"rest"}`,
		`{"time":"2025-03-01T11:00:00Z","operation":"listMetalakes","phase":"pre","user":"ann","identifier":[],"interface":"rest"}`,
		`{"time":"2025-03-01T11:00:00Z","operation":"search","phase":"pre","user":"ann","metalake":"m","identifier":["m"],"interface":"mcp"}`,
	}
	if diff := cmp.Diff(want, jsonLines(t, buf.Bytes())); diff != "" {
		t.Errorf("audit log (-want +got):\n%s", diff)
	}
}

// jsonLines splits b into lines, checking that each is one JSON object.
func jsonLines(tb testing.TB, b []byte) []string {
	tb.Helper()
	if len(b) > 0 && b[len(b)-1] != '\n' {
		tb.Errorf("log does not end with a newline")
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		var obj map[string]any
		if err := json.Unmarshal(sc.Bytes(), &obj); err != nil {
			tb.Errorf("line %d is not a JSON object: %v\n%s", len(lines)+1, err, sc.Bytes())
		}
		lines = append(lines, sc.Text())
	}
	return lines
}

// TestAuditLogFileConcurrent: through a bus, from many publishers, into a
// file opened in append mode; every line is whole, and reopening appends.
func TestAuditLogFileConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	const publishers, each = 8, 50
	for round := 1; round <= 2; round++ {
		a, err := events.NewAuditLogFile(path)
		if err != nil {
			t.Fatal(err)
		}
		b := events.NewBus(quietLogger(), nil, publishers*each)
		b.Register("audit", a)
		b.Register("audit2", a) // two goroutines writing to one log
		b.Start()
		var wg sync.WaitGroup
		for p := range publishers {
			wg.Go(func() {
				for i := range each {
					b.Publish(semcat.Event{Operation: "op", Phase: semcat.EventPre, User: strings.Repeat("u", p*100+i)})
				}
			})
		}
		wg.Wait()
		closeBus(t, b)
		if err := a.Close(); err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := len(jsonLines(t, data)), round*2*publishers*each; got != want {
			t.Errorf("round %d: %d lines, want %d", round, got, want)
		}
	}
}
