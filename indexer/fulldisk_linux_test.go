package indexer_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/blevesearch/bleve/v2"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/indexer"
)

var fullDiskRounds = flag.Int("full-disk-rounds", 20, "how many times TestFullDiskUnderMerges fills the index's disk")

// TestFullDiskUnderMerges fills the index's filesystem (a small tmpfs)
// to the last byte again and again while writers keep Bleve's batches,
// persister and merger busy and searches run: Bleve's own goroutines then
// meet ENOSPC in merges and persists (a batch's persist failed in 11 of 20
// rounds in one run). The process must never crash (a
// panic in Bleve's merger used to kill it), searches answer or say the
// index is unavailable, Ready says not ready while the disk is full, and
// once space is back the index catches up to equal PostgreSQL.
func TestFullDiskUnderMerges(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if out, err := exec.Command("mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", dir).CombinedOutput(); err != nil {
		t.Skipf("cannot mount a small filesystem for the index here: %v %s", err, out)
	}
	t.Cleanup(func() { _ = exec.Command("umount", "-l", dir).Run() })
	indexDir := filepath.Join(dir, "index")
	s, x := seededIndexerWith(t, indexer.Options{Dir: indexDir, PollInterval: 5 * time.Millisecond,
		BatchDelay: 5 * time.Millisecond, BatchSize: 50, CacheSweep: -1, ResidentIndex: -1})
	runCtx, cancel := context.WithCancel(context.Background())
	ran := make(chan error, 1)
	go func() { ran <- x.Run(runCtx) }()
	t.Cleanup(func() { cancel(); <-ran })

	// Writers: tables with many distinct words, so segments are large
	// and merges frequent; some are updated and dropped again.
	var n atomic.Int64
	stop := make(chan struct{})
	var writers sync.WaitGroup
	for w := range 3 {
		writers.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				name := fmt.Sprintf("w%dt%d", w, i)
				var b strings.Builder
				for j := range 60 {
					fmt.Fprintf(&b, "%sx%d ", name, j)
				}
				tc := table(name, "id", "v")
				comment := b.String()
				tc.Comment = &comment
				if _, _, err := s.CreateTable(ctx, ns, tc); err != nil {
					t.Error(err)
					return
				}
				n.Add(1)
				if i >= 20 && i%2 == 0 {
					// Keep the live catalog small: the disk must have room
					// for it once the filler is gone.
					_, _, _ = s.DropTable(ctx, ns, fmt.Sprintf("w%dt%d", w, i-20))
					_, _, _ = s.DropTable(ctx, ns, fmt.Sprintf("w%dt%d", w, i-19))
				}
			}
		})
	}
	// Searches, reading every segment.
	var searches sync.WaitGroup
	searches.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			err := x.Read(func(idx bleve.Index) error {
				req := bleve.NewSearchRequest(bleve.NewQueryStringQuery("x1 x7 id"))
				_, err := idx.Search(req)
				return err
			})
			var e *semcat.Error
			if err != nil && !(errors.As(err, &e) && e.Code == semcat.EUNAVAILABLE) {
				t.Errorf("a search failed otherwise than as unavailable: %v", err)
			}
		}
	})
	defer func() {
		select {
		case <-stop:
		default:
			close(stop)
		}
		writers.Wait()
		searches.Wait()
	}()

	filler := filepath.Join(dir, "filler")
	for round := range *fullDiskRounds {
		time.Sleep(time.Duration(50+round*7%100) * time.Millisecond) // let batches and merges get going
		f, err := os.Create(filler)
		if err != nil {
			t.Fatal(err)
		}
		// First leave a little more than the reserve the tail loop keeps
		// (an eighth of the filesystem, roomReserve) free, so that the
		// next batches, persists and merges themselves meet the full
		// disk, and then fill what is left.
		var st syscall.Statfs_t
		if err := syscall.Statfs(dir, &st); err != nil {
			t.Fatal(err)
		}
		size, free := int64(st.Blocks)*st.Bsize, int64(st.Bavail)*st.Bsize
		chunk := make([]byte, 64<<10)
		for written := int64(0); written < free-size/8-256<<10; written += int64(len(chunk)) {
			if _, err := f.Write(chunk); err != nil {
				break
			}
		}
		time.Sleep(time.Duration(20+round*13%80) * time.Millisecond)
		for {
			if _, err := f.Write(chunk); err != nil {
				break // the disk is full
			}
		}
		f.Close()
		// Full: the tail loop stops, and Ready says so.
		for deadline := time.Now().Add(10 * time.Second); x.Ready() == nil; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: Ready still says ready 10 s after the index's disk filled", round)
			}
		}
		time.Sleep(100 * time.Millisecond) // Bleve's merger and persister retry against the full disk
		if err := os.Remove(filler); err != nil {
			t.Fatal(err)
		}
		// And once space is back, the loop runs again.
		for deadline := time.Now().Add(30 * time.Second); x.Ready() != nil; time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("round %d: not ready 30 s after space was freed: %v (%+v)", round, x.Ready(), x.Health())
			}
		}
	}
	close(stop)
	writers.Wait()
	searches.Wait()
	// The index catches up to equal PostgreSQL.
	var err error
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if err = x.CatchUp(ctx); err == nil && x.Index() != nil {
			break
		}
		if time.Now().After(deadline) {
			du, _ := exec.Command("du", "-a", dir).CombinedOutput()
			t.Fatalf("no catch-up a minute after the last round: %v\n%s", err, du)
		}
	}
	assertMatchesDB(t, x, s)
	t.Logf("%d tables written over %d rounds of a full disk; %d failed polls", n.Load(), *fullDiskRounds, x.Health().PollErrors)
}
