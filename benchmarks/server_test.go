package main

import (
	"os/exec"
	"testing"
	"time"
)

// TestStatCPUSeconds reads utime and stime (fields 14 and 15) of a
// /proc/<pid>/stat line, and with children cutime and cstime (16 and 17)
// too, past a command name holding spaces and parentheses.
func TestStatCPUSeconds(t *testing.T) {
	line := "4242 (postgres: a (b) c) S 1 4242 4242 0 -1 4194560 900 0 3 0 150 25 1000 75 20 0 1 0 99 1000 50"
	f := statFields(line)
	if got := statCPUSeconds(f, false); got != 1.75 {
		t.Errorf("own CPU %v s, want 1.75", got)
	}
	if got := statCPUSeconds(f, true); got != 12.5 {
		t.Errorf("CPU with reaped children %v s, want 12.5", got)
	}
	if got := statCPUSeconds(statFields("1 (short) S 1"), true); got != 0 {
		t.Errorf("a short line gives %v s", got)
	}
}

// TestServerCPUOutlivesTheServer: once the server's process has exited,
// its /proc entry is gone, and the last reading of its CPU time stands
// instead of 0 (which would charge its last phase negative time).
func TestServerCPUOutlivesTheServer(t *testing.T) {
	cmd := exec.Command("sh", "-c", `i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done`)
	if err := cmd.Start(); err != nil {
		t.Skip("no sh:", err)
	}
	s := &Server{cmd: cmd, exited: make(chan struct{})}
	go func() {
		s.err = cmd.Wait()
		close(s.exited)
	}()
	c := serverCPU{s: s}
	var last float64
	for s.Alive() {
		if v := c.read(); v > 0 {
			last = v
		}
		time.Sleep(5 * time.Millisecond)
	}
	if last == 0 {
		t.Skip("the process used under one clock tick of CPU")
	}
	if got := c.read(); got < last {
		t.Errorf("after the exit, CPU %.2f s; the last reading was %.2f s", got, last)
	}
	if s.cpuSeconds() != 0 {
		t.Errorf("a reaped process still has a CPU time")
	}
}
