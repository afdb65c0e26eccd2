package main

import (
	"fmt"
	"io"
	"time"
)

// spinnerFrames are drawn in turn, one per tick.
var spinnerFrames = []rune("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")

// startProgress shows that a long operation is running: on a terminal, a
// spinner with label and the elapsed time, redrawn on one line of w until
// the returned stop erases it. It shows no percentage, because the server
// does not report how far the operation has got. Anywhere but a terminal it
// draws nothing, so scripts and tests see clean output.
func startProgress(w io.Writer, label string) (stop func()) {
	if !isTerminal(w) {
		return func() {}
	}
	done, exited := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(exited)
		start := time.Now()
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for i := 0; ; i++ {
			elapsed := time.Since(start).Truncate(time.Second)
			fmt.Fprintf(w, "\r\033[K%c %s %s", spinnerFrames[i%len(spinnerFrames)], label, elapsed)
			select {
			case <-done:
				fmt.Fprint(w, "\r\033[K")
				return
			case <-tick.C:
			}
		}
	}()
	return func() {
		close(done)
		<-exited
	}
}
