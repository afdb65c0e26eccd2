package indexer_test

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb/pgtest"
	"github.com/semcat/semcat/indexer"
)

// childEnv makes the test binary run as an indexer process (see runChild):
// the crash test kills it with SIGKILL.
const childEnv = "SEMCAT_TEST_INDEXER_CHILD"

var crashRounds = flag.Int("crash-rounds", 20, "how many times TestCrashSafety kills the indexer")

// runChild tails the outbox of SEMCAT_TEST_DB into SEMCAT_TEST_DIR until it
// is killed.
func runChild() int {
	ctx := context.Background()
	s, err := catalogOpen(ctx, os.Getenv("SEMCAT_TEST_DB"))
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	x, err := indexer.Open(ctx, indexer.Options{Dir: os.Getenv(childEnv), Store: s, Consumer: "crash-child", Logger: quiet,
		BatchSize: 7, PollInterval: 5 * time.Millisecond})
	if err != nil {
		fmt.Fprintln(os.Stderr, "child:", err)
		return 2
	}
	fmt.Println("ready")
	x.Run(ctx)
	return 0
}

// TestCrashSafety kills the indexer process with SIGKILL at random points
// while writes go on; after each restart the index opens from its
// checkpoint (no rebuild), and after the last catch-up it equals
// PostgreSQL: no lost and no extra documents.
func TestCrashSafety(t *testing.T) {
	t.Parallel()
	url := pgtest.NewDatabase(t)
	s := openStore(t, url)
	seed(t, s)
	dir := t.TempDir()
	// Build the index once in-process, so every child starts from a checkpoint.
	x := openIndexer(t, s, dir)
	x.Close(context.Background())
	gen := currentGeneration(t, dir)

	stop := make(chan struct{})
	var writer sync.WaitGroup
	writer.Add(1)
	go func() {
		defer writer.Done()
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			name := fmt.Sprintf("t%d", i%25)
			switch rand.IntN(4) {
			case 0, 1:
				s.CreateTable(ctx, ns, table(name, "a", fmt.Sprintf("c%d", i)))
			case 2:
				v := fmt.Sprint(i)
				s.AlterTable(ctx, ns, name, []semcat.Update{{Type: semcat.UpdateSetProperty, Property: &name, Value: &v}})
			case 3:
				s.DropTable(ctx, ns, name)
			}
			if i%10 == 0 {
				s.CreateSemanticModel(ctx, ns, model(fmt.Sprintf("m%d", i%5), name, "x", fmt.Sprintf("y%d", i%3)))
			}
		}
	}()

	for round := range *crashRounds {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), childEnv+"="+dir, "SEMCAT_TEST_DB="+url)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 6)
		if _, err := out.Read(buf); err != nil {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("round %d: the indexer did not start: %v", round, err)
		}
		time.Sleep(time.Duration(rand.IntN(150)) * time.Millisecond)
		cmd.Process.Kill() // SIGKILL
		cmd.Wait()
		// The killed index must open from its own checkpoint: the child of
		// the next round would otherwise have rebuilt it.
		if now := currentGeneration(t, dir); now != gen {
			t.Fatalf("round %d: the index was rebuilt (%s → %s) instead of resuming from its checkpoint", round, gen, now)
		}
	}
	close(stop)
	writer.Wait()

	// The index opens from its checkpoint and catches up to equal PostgreSQL.
	x = openIndexer(t, s, dir)
	defer x.Close(context.Background())
	if after := currentGeneration(t, dir); after != gen {
		t.Errorf("the index was rebuilt (%s → %s) instead of resuming from its checkpoint", gen, after)
	}
	catchUp(t, x)
	assertMatchesDB(t, x, s)
}
