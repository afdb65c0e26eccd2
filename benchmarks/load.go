package main

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"time"
)

// LoadStats describe the bulk ingest of the generated catalog over HTTP.
type LoadStats struct {
	Entities    int     `json:"entities"`
	Requests    int64   `json:"requests"`
	Concurrency int     `json:"concurrency"`
	TableBatch  int     `json:"tableBatch"`        // tables per batch create; 0: one create (and one tag association) per table
	HTTPSeconds float64 `json:"httpSeconds"`       // until the last write was answered
	Seconds     float64 `json:"searchableSeconds"` // until search covered the last write
	HTTPRate    float64 `json:"httpEntitiesPerSec"`
	Rate        float64 `json:"entitiesPerSec"` // end to end: written and searchable
}

// loader posts the catalog with a pool of workers.
type loader struct {
	c        *Client
	g        *Generator
	workers  int
	requests atomic.Int64
	logf     func(string, ...any)
}

// load creates the metalake, the tags, then catalogs, schemas, tables and
// models (each level in parallel once its parents exist, each entity's tags
// associated right after it is created; tables tableBatch at a time with
// their tags in one batch create, or one by one if it is 0), then makes one last write and
// waits until search covers it (minPosition = its X-Semcat-Position). Every
// earlier write had committed before that write began, so covering it
// covers them all.
func load(ctx context.Context, c *Client, g *Generator, workers, tableBatch int, logf func(string, ...any)) (LoadStats, error) {
	l := &loader{c: c, g: g, workers: workers, logf: logf}
	m := g.Plan.Metalake
	base := "/api/metalakes/" + url.PathEscape(m)
	start := time.Now()

	if err := l.post(ctx, "/api/metalakes", map[string]any{"name": m, "comment": "benchmark catalog"}); err != nil {
		return LoadStats{}, err
	}
	phases := []struct {
		name string
		feed func(send func(func(context.Context) error) bool)
	}{
		{"tags", func(send func(func(context.Context) error) bool) {
			for _, t := range g.Tags {
				if !send(func(ctx context.Context) error { return l.post(ctx, base+"/tags", map[string]any{"name": t}) }) {
					return
				}
			}
		}},
		{"catalogs", func(send func(func(context.Context) error) bool) {
			for ci := range g.Plan.Catalogs {
				if !send(func(ctx context.Context) error {
					e := g.Catalog(ci)
					return l.create(ctx, base+"/catalogs", map[string]any{"name": e.Name, "type": "relational", "properties": e.Properties}, e)
				}) {
					return
				}
			}
		}},
		{"schemas", func(send func(func(context.Context) error) bool) {
			for ci, cp := range g.Plan.Catalogs {
				for si := range cp.Schemas {
					if !send(func(ctx context.Context) error {
						e := g.Schema(ci, si)
						return l.create(ctx, base+"/catalogs/"+e.Catalog+"/schemas", map[string]any{"name": e.Name, "properties": e.Properties}, e)
					}) {
						return
					}
				}
			}
		}},
		{"tables", func(send func(func(context.Context) error) bool) {
			for ci, cp := range g.Plan.Catalogs {
				for si, sp := range cp.Schemas {
					if tableBatch > 0 {
						for from := 0; from < sp.Tables; from += tableBatch {
							if !send(func(ctx context.Context) error {
								return l.createTables(ctx, base+"/catalogs/"+cp.Name+"/schemas/"+cp.Schemas[si].Name, ci, si, from, min(from+tableBatch, sp.Tables))
							}) {
								return
							}
						}
						continue
					}
					for ti := range sp.Tables {
						if !send(func(ctx context.Context) error {
							t := g.Table(ci, si, ti)
							return l.create(ctx, base+"/catalogs/"+t.Catalog+"/schemas/"+t.Schema+"/tables", t.Body(), &t.Entity)
						}) {
							return
						}
					}
				}
			}
		}},
		{"semantic models", func(send func(func(context.Context) error) bool) {
			for ci, cp := range g.Plan.Catalogs {
				for si, sp := range cp.Schemas {
					for mi := range sp.Metrics {
						if !send(func(ctx context.Context) error {
							md := g.Model(ci, si, mi)
							return l.create(ctx, base+"/catalogs/"+md.Catalog+"/schemas/"+md.Schema+"/semantic-models", md.Body(), &md.Entity)
						}) {
							return
						}
					}
				}
			}
		}},
	}
	for _, p := range phases {
		t0 := time.Now()
		if err := l.parallel(ctx, p.feed); err != nil {
			return LoadStats{}, fmt.Errorf("loading %s: %w", p.name, err)
		}
		logf("  loaded %s in %s (%d requests so far)", p.name, time.Since(t0).Round(time.Millisecond), l.requests.Load())
	}
	// The last write is a tag, which names no search document. Altering the
	// metalake instead would make the indexer re-index every entity below
	// it in one Bleve batch (13 s and 1.7 GB of heap at 10k entities):
	// a cost of that write, not of the ingest.
	pos, err := c.do(ctx, http.MethodPost, base+"/tags", map[string]any{"name": "bench_loaded"}, nil)
	if err != nil {
		return LoadStats{}, err
	}
	l.requests.Add(1)
	httpDone := time.Since(start)
	logf("  all writes answered after %s; waiting for search to cover position %s", httpDone.Round(time.Millisecond), pos)
	if err := c.WaitSearchable(ctx, m, pos, 30*time.Minute); err != nil {
		return LoadStats{}, err
	}
	total := time.Since(start)
	n := g.Plan.Counts.Entities()
	return LoadStats{
		Entities: n, Requests: l.requests.Load(), Concurrency: workers, TableBatch: tableBatch,
		HTTPSeconds: httpDone.Seconds(), Seconds: total.Seconds(),
		HTTPRate: float64(n) / httpDone.Seconds(), Rate: float64(n) / total.Seconds(),
	}, nil
}

// post sends one write.
func (l *loader) post(ctx context.Context, path string, body any) error {
	_, err := l.c.do(ctx, http.MethodPost, path, body, nil)
	l.requests.Add(1)
	return err
}

// create posts an entity and associates its tags.
func (l *loader) create(ctx context.Context, path string, body any, e *Entity) error {
	if err := l.post(ctx, path, body); err != nil {
		return err
	}
	if len(e.Tags) == 0 {
		return nil
	}
	return l.post(ctx, "/api/metalakes/"+url.PathEscape(l.g.Plan.Metalake)+"/objects/"+e.Kind+"/"+e.Identifier()+"/tags",
		map[string]any{"tagsToAdd": e.Tags})
}

// createTables creates tables from…to-1 of schema si of catalog ci, with
// their tags, in one batch request.
func (l *loader) createTables(ctx context.Context, schemaPath string, ci, si, from, to int) error {
	items := make([]any, 0, to-from)
	for ti := from; ti < to; ti++ {
		t := l.g.Table(ci, si, ti)
		item := t.Body().(map[string]any)
		if len(t.Tags) > 0 {
			item["tags"] = t.Tags
		}
		items = append(items, item)
	}
	return l.post(ctx, schemaPath+"/tables:batchCreate", map[string]any{"tables": items})
}

// parallel runs the jobs feed sends on l.workers goroutines and returns the
// first error; after an error, the remaining jobs are not started.
func (l *loader) parallel(ctx context.Context, feed func(send func(func(context.Context) error) bool)) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	jobs := make(chan func(context.Context) error)
	var wg sync.WaitGroup
	for range l.workers {
		wg.Go(func() {
			for job := range jobs {
				if ctx.Err() != nil {
					continue
				}
				if err := job(ctx); err != nil {
					cancel(err)
				}
			}
		})
	}
	feed(func(job func(context.Context) error) bool {
		select {
		case jobs <- job:
			return true
		case <-ctx.Done():
			return false
		}
	})
	close(jobs)
	wg.Wait()
	return context.Cause(ctx)
}
