package postgres

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/robfig/cron/v3"

	"github.com/semcat/semcat/catalogdb"
)

// rescan is how often the scheduler reads the catalogs' schedules again
// when nothing pokes it (catalogs created or altered by another semcat
// process on the same database).
const rescan = 30 * time.Second

// scheduled is a catalog's cron entry.
type scheduled struct {
	spec string
	id   cron.EntryID
}

// Run refreshes every PostgreSQL catalog on its schedule (property
// semcat.refresh-interval, default @every 5m) until ctx ends. A refresh
// still running when its next turn comes skips that turn.
func (c *Connector) Run(ctx context.Context) {
	cr := cron.New()
	cr.Start()
	defer func() { <-cr.Stop().Done() }()
	entries := map[int64]scheduled{}
	t := time.NewTicker(rescan)
	defer t.Stop()
	for {
		c.reschedule(ctx, cr, entries)
		select {
		case <-ctx.Done():
			return
		case <-c.wake:
		case <-t.C:
		}
	}
}

// reschedule brings the cron entries in line with the catalogs.
func (c *Connector) reschedule(ctx context.Context, cr *cron.Cron, entries map[int64]scheduled) {
	cats, err := c.store.SourceCatalogs(ctx)
	if err != nil {
		if ctx.Err() == nil {
			c.logger.Warn("postgres catalogs: reading the schedules failed", "error", err)
		}
		return
	}
	seen := map[int64]bool{}
	for _, sc := range cats {
		seen[sc.ID] = true
		spec := sc.Properties[PropertyRefreshInterval]
		if spec == "" {
			spec = DefaultRefreshInterval
		}
		if e, ok := entries[sc.ID]; ok && e.spec == spec {
			continue
		} else if ok {
			cr.Remove(e.id)
			delete(entries, sc.ID)
		}
		schedule, err := cron.ParseStandard(spec)
		if err != nil {
			c.logger.Warn("postgres catalog: bad refresh interval", "metalake", sc.Metalake, "catalog", sc.Name, "interval", spec, "error", err)
			continue
		}
		id := sc.ID
		entries[id] = scheduled{spec: spec, id: cr.Schedule(schedule, cron.FuncJob(func() { c.scheduledRefresh(ctx, id) }))}
	}
	for id, e := range entries {
		if !seen[id] {
			cr.Remove(e.id)
			delete(entries, id)
		}
	}
}

// scheduledRefresh refreshes a catalog unless a refresh of it is running.
func (c *Connector) scheduledRefresh(ctx context.Context, catalogID int64) {
	if ctx.Err() != nil {
		return
	}
	m := c.lock(catalogID)
	if !m.TryLock() {
		return
	}
	m.Unlock()
	cats, err := c.store.SourceCatalogs(ctx)
	if err != nil {
		return
	}
	for _, sc := range cats {
		if sc.ID == catalogID && sc.InUse {
			c.refresh(ctx, sc) // its outcome is recorded with the catalog
		}
	}
}

// Collector returns the refresh state of every PostgreSQL catalog for
// /metrics: seconds since its last refresh that succeeded or not
// (semcat_source_refresh_age_seconds) and its failed refreshes
// (semcat_source_refresh_errors_total), labelled by metalake and catalog.
func (c *Connector) Collector() prometheus.Collector { return collector{c} }

type collector struct{ c *Connector }

var (
	refreshAgeDesc = prometheus.NewDesc("semcat_source_refresh_age_seconds",
		"Seconds since the last refresh of a catalog mirrored from its source (-1: never refreshed).", []string{"metalake", "catalog"}, nil)
	refreshErrorsDesc = prometheus.NewDesc("semcat_source_refresh_errors_total",
		"Refreshes of a catalog mirrored from its source that failed.", []string{"metalake", "catalog"}, nil)
	refreshFailingDesc = prometheus.NewDesc("semcat_source_refresh_failing",
		"1 while the last refresh of a catalog mirrored from its source failed.", []string{"metalake", "catalog"}, nil)
)

func (x collector) Describe(ch chan<- *prometheus.Desc) {
	ch <- refreshAgeDesc
	ch <- refreshErrorsDesc
	ch <- refreshFailingDesc
}

func (x collector) Collect(ch chan<- prometheus.Metric) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	cats, err := x.c.store.SourceCatalogs(ctx)
	if err != nil {
		return
	}
	now := time.Now()
	for _, sc := range cats {
		ch <- prometheus.MustNewConstMetric(refreshAgeDesc, prometheus.GaugeValue, age(sc, now), sc.Metalake, sc.Name)
		ch <- prometheus.MustNewConstMetric(refreshErrorsDesc, prometheus.CounterValue, float64(sc.RefreshErrors), sc.Metalake, sc.Name)
		failing := 0.0
		if sc.LastError != "" {
			failing = 1
		}
		ch <- prometheus.MustNewConstMetric(refreshFailingDesc, prometheus.GaugeValue, failing, sc.Metalake, sc.Name)
	}
}

func age(sc *catalogdb.SourceCatalog, now time.Time) float64 {
	if sc.LastRefresh == 0 {
		return -1
	}
	return now.Sub(time.UnixMilli(sc.LastRefresh)).Seconds()
}
