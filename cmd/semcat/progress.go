package main

import (
	"fmt"
	"io"
	"strings"
	"time"
)

// spinnerFrames are drawn in turn, one per tick.
var spinnerFrames = []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

// progressBarWidth is the bar's width in characters.
const progressBarWidth = 30

// startProgress shows that a long operation is running: on a terminal, a
// line redrawn until the returned stop erases it, with a spinner, label,
// the elapsed time and, when poll reports a total, a bar with the share
// done. poll (nil for none) runs in the drawing goroutine every few ticks;
// ok false means nothing known yet. Anywhere but a terminal it draws
// nothing, so scripts and tests see clean output.
func startProgress(w io.Writer, label string, poll func() (done, total int64, ok bool)) (stop func()) {
	if !isTerminal(w) {
		return func() {}
	}
	stopped, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		start := time.Now()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		var done, total int64
		for i := 0; ; i++ {
			if poll != nil && i%3 == 0 {
				if d, t, ok := poll(); ok {
					done, total = d, t
				}
			}
			fmt.Fprint(w, "\r\033[K"+progressLine(spinnerFrames[i%len(spinnerFrames)], label, done, total, time.Since(start)))
			select {
			case <-stopped:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(stopped)
		<-exited
	}
}

// progressLine renders one state of the progress line: without a total,
// spinner, label and elapsed time; with one, also a bar, the percentage and
// done/total (done past total, which the total's estimate allows, shows as
// full).
func progressLine(frame rune, label string, done, total int64, elapsed time.Duration) string {
	elapsed = elapsed.Truncate(time.Second)
	if total <= 0 {
		return fmt.Sprintf("%c %s %s", frame, label, elapsed)
	}
	share := min(float64(done)/float64(total), 1)
	filled := int(share * progressBarWidth)
	bar := strings.Repeat("█", filled) + strings.Repeat("░", progressBarWidth-filled)
	return fmt.Sprintf("%c %s [%s] %3.0f%% %d/%d %s", frame, label, bar, 100*share, done, total, elapsed)
}
