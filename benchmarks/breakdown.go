package main

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/indexer"
)

// ---- Where the index's bytes and CPU go -----------------------------------

// BreakdownResult is the index breakdown of a catalog (-breakdown N): a
// sample of N of its entities, every k-th as PostgreSQL lists them, indexed
// whole and without each field group (indexer.MeasureBreakdown), beside
// the size of the server's own index of the whole catalog.
type BreakdownResult struct {
	Size       string             `json:"size"`
	Seed       uint64             `json:"seed"`
	Started    time.Time          `json:"started"`
	Machine    Machine            `json:"machine"`
	Entities   int                `json:"entities"`
	IndexBytes int64              `json:"indexBytes"` // the server's index after the load
	Breakdown  *indexer.Breakdown `json:"breakdown"`
	Seconds    float64            `json:"seconds"`
}

// breakdown loads the catalog of n entities into a server, as bench does,
// and measures the index breakdown of a sample of o.breakdown of them.
func breakdown(ctx context.Context, o options, n int, root, tmp string, srv **Server, clusterDir *string) (*BreakdownResult, error) {
	res := &BreakdownResult{Size: o.size, Seed: o.seed, Started: time.Now(), Machine: machine()}
	res.Machine.ReferenceMs = referenceMs()
	g := NewGenerator(o.seed, n)
	res.Entities = g.Plan.Counts.Entities()
	bin, err := buildSemcat(ctx, root, tmp)
	if err != nil {
		return nil, err
	}
	s, err := startServer(ctx, bin, tmp, false)
	*srv = s
	if err != nil {
		return nil, err
	}
	if *clusterDir, err = s.ClusterDir(); err != nil {
		return nil, err
	}
	logf("bulk ingest of the %s catalog (%d entities)", o.size, res.Entities)
	if _, err := load(ctx, newClient(s.URL), g, o.concurrency, o.tableBatch, logf); err != nil {
		return nil, err
	}
	res.IndexBytes = dirSize(filepath.Join(s.DataDir, "index"))
	if res.Breakdown, err = runBreakdown(ctx, s, tmp, res.Entities, o.breakdown); err != nil {
		return nil, err
	}
	res.Seconds = time.Since(res.Started).Seconds()
	return res, nil
}

// runBreakdown reads a sample of sample entities from the server's
// database and measures where an index of them puts its bytes and CPU.
func runBreakdown(ctx context.Context, s *Server, tmp string, entities, sample int) (*indexer.Breakdown, error) {
	url, err := s.PostgresURL("semcat")
	if err != nil {
		return nil, err
	}
	store, err := catalogdb.Open(ctx, url, slog.New(slog.DiscardHandler))
	if err != nil {
		return nil, fmt.Errorf("opening semcat's database: %w", err)
	}
	defer store.Close()
	every := max(1, entities/sample)
	var records []*semcat.EntityRecord
	seen := 0
	if _, _, err := store.ScanEntities(ctx, 1000, func(batch []*semcat.EntityRecord) error {
		for _, r := range batch {
			if seen%every == 0 && len(records) < sample {
				records = append(records, r)
			}
			seen++
		}
		return nil
	}); err != nil {
		return nil, fmt.Errorf("reading the entities: %w", err)
	}
	logf("  indexing %d of %d entities whole and without each of %d field groups", len(records), seen, len(indexer.BreakdownGroups))
	return indexer.MeasureBreakdown(ctx, records, filepath.Join(tmp, "breakdown"))
}

// write writes index-breakdown-<size>.{md,json} into dir.
func (r *BreakdownResult) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	base := filepath.Join(dir, "index-breakdown-"+r.Size)
	if err := os.WriteFile(base+".json", append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(base+".md", []byte(r.Markdown()), 0o644)
}

// Markdown is the breakdown as a report: per group, its bytes per entity
// and share of the index, and its share of the build CPU.
func (r *BreakdownResult) Markdown() string {
	var w strings.Builder
	b := r.Breakdown
	fmt.Fprintf(&w, "# Where the index's bytes and CPU go: %s catalog\n\n", r.Size)
	fmt.Fprintf(&w, "Run %s, seed %d, on %d CPUs (%s; reference work %.0f ms, see reference.go). The server's index of all %d entities after the bulk load: %s (%.0f bytes per entity).\n\n",
		r.Started.UTC().Format("2006-01-02 15:04 UTC"), r.Seed, r.Machine.NProc, r.Machine.CPU, r.Machine.ReferenceMs, r.Entities, fmtBytes(r.IndexBytes), float64(r.IndexBytes)/float64(max(r.Entities, 1)))
	fmt.Fprintf(&w, "A sample of %d entities (every %d-th as PostgreSQL lists them) indexed whole, merged to %d segment(s): %s on disk (%.0f bytes per entity), %.1f s of CPU to build and merge (the faster of two builds, first and last: %s s). "+
		"Then indexed again without each group of fields: a group's cost is the difference (leaving a field out also saves what it shares with others, so the groups need not sum to the whole; CPU shares are within the two whole builds' difference of noise).\n\n",
		b.Docs, max(1, r.Entities/max(b.Docs, 1)), b.Whole.Segments, fmtBytes(b.Whole.Bytes), float64(b.Whole.Bytes)/float64(max(b.Docs, 1)), b.Whole.CPU, joinSeconds(b.WholeCPUs))
	fmt.Fprintf(&w, "| field group | fields | bytes per entity | share of the index | CPU share |\n|---|---|---:|---:|---:|\n")
	for _, g := range b.Groups {
		fmt.Fprintf(&w, "| %s | %s | %.0f | %.1f%% | %.1f%% |\n", g.Group.Name, "`"+strings.Join(g.Group.Fields, "` `")+"`",
			float64(g.Bytes)/float64(max(b.Docs, 1)), 100*float64(g.Bytes)/float64(max(b.Whole.Bytes, 1)), 100*g.CPU/max(b.Whole.CPU, 1e-9))
	}
	fmt.Fprintf(&w, "\nThe whole run took %.0f s.\n", r.Seconds)
	return w.String()
}

// joinSeconds prints CPU seconds as "12.3 and 11.9".
func joinSeconds(secs []float64) string {
	parts := make([]string, len(secs))
	for i, v := range secs {
		parts[i] = fmt.Sprintf("%.1f", v)
	}
	return strings.Join(parts, " and ")
}
