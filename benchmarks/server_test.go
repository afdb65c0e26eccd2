package main

import "testing"

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
