package indexer_test

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/semcat/semcat/indexer"
)

// TestSweepAdvisesRandomReads: a sweep that finds the index larger than
// the memory free for it advises random reads (no read-ahead) on every
// segment mapped, and one that finds room again takes the advice back.
func TestSweepAdvisesRandomReads(t *testing.T) {
	t.Parallel()
	x := indexerOfTables(t, 20)
	// A merge replaces segments and unmaps the old ones: let them settle,
	// so that the segments listed are the ones mapped.
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		done, _, err := indexer.MergesSettled(x)
		if err != nil {
			t.Fatal(err)
		}
		if done {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the merges did not settle in a minute")
		}
	}
	// Each segment file's mappings (a part advised apart from the rest is
	// a mapping of its own) and whether each is advised random (VmFlags
	// "rr").
	advised := func() map[string][]bool {
		t.Helper()
		real := segmentFilesMapped(t, x)
		smaps, err := os.ReadFile("/proc/self/smaps")
		if err != nil {
			t.Fatal(err)
		}
		out := map[string][]bool{}
		current := ""
		for line := range strings.Lines(string(smaps)) {
			fields := strings.Fields(line)
			switch {
			case len(fields) >= 6 && strings.Contains(fields[0], "-") && real[strings.Join(fields[5:], " ")]:
				current = strings.Join(fields[5:], " ")
			case len(fields) >= 5 && strings.Contains(fields[0], "-"):
				current = "" // another mapping (anonymous ones name no file)
			case current != "" && len(fields) > 0 && fields[0] == "VmFlags:":
				out[current] = append(out[current], slices.Contains(fields[1:], "rr"))
			}
		}
		if len(out) == 0 {
			t.Fatalf("no mapping of the index's segments %v", real)
		}
		return out
	}
	for file, rr := range advised() {
		if slices.Contains(rr, true) {
			t.Errorf("%s advised random before any sweep: %v", file, rr)
		}
	}
	_, _, size, err := indexer.SweepCache(x)
	if err != nil || size == 0 {
		t.Fatalf("sweep: %d bytes, %v", size, err)
	}
	if x.LargerThanMemory() {
		t.Error("LargerThanMemory after a sweep that found room")
	}
	indexer.SetFreeMemory(x, size/2)
	if _, _, _, err := indexer.SweepCache(x); err != nil {
		t.Fatal(err)
	}
	if !x.LargerThanMemory() {
		t.Error("not LargerThanMemory after a sweep with memory for half the index")
	}
	for file, rr := range advised() {
		if slices.Contains(rr, false) {
			t.Errorf("%s not advised random throughout with memory for half the index: %v", file, rr)
		}
	}
	indexer.SetFreeMemory(x, 4*size)
	if _, _, _, err := indexer.SweepCache(x); err != nil {
		t.Fatal(err)
	}
	if x.LargerThanMemory() {
		t.Error("still LargerThanMemory after a sweep that found room again")
	}
	for file, rr := range advised() {
		if slices.Contains(rr, true) {
			t.Errorf("%s still advised random with memory for the index: %v", file, rr)
		}
	}
}
