package main

import (
	"bufio"
	"encoding/json"
	"os"
	"time"
)

// semcat's audit log (<data-dir>/audit.log) records every operation's
// server-side duration. Reading it back separates the time semcat spends
// on a request from what HTTP and JSON add on the client's side.

// window is the span of time in which one scenario ran its requests.
type window struct {
	from, to time.Time
}

// serverDurations returns, for each window, the durations of the successful
// operations named op that ended within it.
func serverDurations(path, op string, windows []window) ([][]time.Duration, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := make([][]time.Duration, len(windows))
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e struct {
			Time       time.Time `json:"time"`
			Operation  string    `json:"operation"`
			Phase      string    `json:"phase"`
			DurationMs float64   `json:"durationMs"`
		}
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Operation != op || e.Phase != "success" {
			continue
		}
		for i, w := range windows {
			if !e.Time.Before(w.from) && !e.Time.After(w.to) {
				out[i] = append(out[i], time.Duration(e.DurationMs*float64(time.Millisecond)))
			}
		}
	}
	return out, sc.Err()
}
