// Package postgres connects semcat to live PostgreSQL databases: catalogs
// of Gravitino's jdbc-postgresql provider (SPEC §2.12, DESIGN §8.2). It
// mirrors each source's schemas and tables into semcat's store, through the
// store's transactions and outbox like every other write, at creation, on
// the catalog's schedule and on request; and pushes the writes made
// through semcat down to the source as DDL before mirroring their result.
package postgres

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/robfig/cron/v3"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/internal/sources"
)

// Catalog properties of a PostgreSQL catalog that are semcat's own.
const (
	// PropertyRefreshInterval is the schedule of the catalog's refreshes,
	// robfig/cron syntax ("@every 5m", "*/10 * * * *").
	PropertyRefreshInterval = "semcat.refresh-interval"
	// PropertyLastRefresh (RFC 3339) and PropertyLastError show the
	// outcome of the last refresh; they are not stored as properties.
	PropertyLastRefresh = "semcat.last-refresh"
	PropertyLastError   = "semcat.last-error"
)

// DefaultRefreshInterval is the schedule of a catalog that names none.
const DefaultRefreshInterval = "@every 5m"

// Connector mirrors PostgreSQL catalogs into the store.
type Connector struct {
	store  *catalogdb.Store
	logger *slog.Logger

	mu    sync.Mutex
	locks map[int64]*sync.Mutex // one refresh of a catalog at a time

	// wake asks the scheduler to read the catalogs' schedules again.
	wake chan struct{}
	// slots bounds the refreshes running at once (each holds a
	// connection of the store's pool for its lock, and uses another).
	slots chan struct{}
}

// maxRefreshes is how many refreshes run at once.
const maxRefreshes = 2

// New returns a connector writing to store.
func New(store *catalogdb.Store, logger *slog.Logger) *Connector {
	if logger == nil {
		logger = slog.Default()
	}
	return &Connector{store: store, logger: logger, locks: map[int64]*sync.Mutex{}, wake: make(chan struct{}, 1),
		slots: make(chan struct{}, maxRefreshes)}
}

func (c *Connector) lock(catalogID int64) *sync.Mutex {
	c.mu.Lock()
	defer c.mu.Unlock()
	m := c.locks[catalogID]
	if m == nil {
		m = &sync.Mutex{}
		c.locks[catalogID] = m
	}
	return m
}

// poke tells the scheduler that schedules may have changed.
func (c *Connector) poke() {
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// ValidateSchedule checks a catalog's refresh interval.
func ValidateSchedule(field, spec string) error {
	if _, err := cron.ParseStandard(spec); err != nil {
		return semcat.Errorf(semcat.EINVALID, "%s: '%s' is not a schedule (robfig/cron syntax, such as '@every 5m'): %v", field, spec, err)
	}
	return nil
}

// withSecret is the catalog's connection properties with its password.
func withSecret(sc *catalogdb.SourceCatalog) map[string]string {
	p := make(map[string]string, len(sc.Properties)+1)
	for k, v := range sc.Properties {
		p[k] = v
	}
	if sc.Secret != "" {
		p[sources.PropertyJDBCPassword] = sc.Secret
	}
	return p
}

// connect opens a connection to the catalog's source; its failure is
// ECONNFAILED with the source's reason, without the password.
func connect(ctx context.Context, sc *catalogdb.SourceCatalog) (*pgx.Conn, error) {
	cfg, err := sources.PostgreSQLConfig(withSecret(sc))
	if err != nil {
		return nil, err
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return nil, semcat.ConnectionFailed("failed to connect to PostgreSQL database '%s' at %s:%d: %s", cfg.Database, cfg.Host, cfg.Port, redact(err, sc.Secret))
	}
	return conn, nil
}

// redact is err's message, the source's own account where it gives one,
// without the password.
func redact(err error, password string) string {
	msg := err.Error()
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		msg = pgErr.Message + " (SQLSTATE " + pgErr.Code + ")"
	}
	if password != "" {
		msg = strings.ReplaceAll(msg, password, "******")
	}
	return msg
}

// Refresh refreshes the mirror of metalake.catalog now; a catalog without
// a source has nothing to refresh.
func (c *Connector) Refresh(ctx context.Context, metalake, catalog string) (semcat.Position, error) {
	sc, err := c.store.SourceCatalogOf(ctx, metalake, catalog)
	if err != nil {
		return semcat.Position{}, err
	}
	if sc == nil {
		return semcat.Position{}, nil
	}
	if !sc.InUse {
		return semcat.Position{}, semcat.CatalogNotInUse(metalake, catalog)
	}
	return c.refresh(ctx, sc)
}

// refreshTimeout bounds one refresh.
const refreshTimeout = 5 * time.Minute

// refresh reads the source's catalog once and writes what changed to the
// mirror, in one transaction; then records its outcome.
func (c *Connector) refresh(ctx context.Context, sc *catalogdb.SourceCatalog) (semcat.Position, error) {
	m := c.lock(sc.ID)
	m.Lock()
	defer m.Unlock()
	ctx, cancel := context.WithTimeout(ctx, refreshTimeout)
	defer cancel()
	select {
	case c.slots <- struct{}{}:
		defer func() { <-c.slots }()
	case <-ctx.Done():
		return semcat.Position{}, semcat.Errorf(semcat.EUNAVAILABLE, "too many catalog refreshes are running; try again")
	}
	unlock, err := c.store.LockSourceRefresh(ctx, sc.ID)
	if err != nil {
		return semcat.Position{}, err
	}
	pos, err := c.refreshLocked(ctx, sc)
	unlock()
	msg := ""
	if err != nil {
		msg = semcat.ErrorMessage(err)
		if msg == "" {
			msg = redact(err, sc.Secret)
		}
		c.logger.Warn("postgres catalog refresh failed", "metalake", sc.Metalake, "catalog", sc.Name, "error", msg)
	}
	if rerr := c.store.RecordRefresh(context.WithoutCancel(ctx), sc.ID, time.Now().UnixMilli(), msg); rerr != nil && err == nil {
		err = rerr
	}
	return pos, err
}

func (c *Connector) refreshLocked(ctx context.Context, sc *catalogdb.SourceCatalog) (semcat.Position, error) {
	start := time.Now()
	conn, err := connect(ctx, sc)
	if err != nil {
		return semcat.Position{}, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	connected := time.Now()
	state, err := c.store.MirrorState(ctx, sc.ID)
	if err != nil {
		return semcat.Position{}, err
	}
	stated := time.Now()
	known := make(map[int64]string, len(state.Tables))
	for oid, t := range state.Tables {
		known[oid] = t.Stamp
	}
	snap, err := Read(ctx, conn, known)
	if err != nil {
		return semcat.Position{}, semcat.ConnectionFailed("failed to read the catalog of PostgreSQL database '%s': %s", conn.Config().Database, redact(err, sc.Secret))
	}
	read := time.Now()
	d := Diff(snap, state)
	defer func() {
		c.logger.Debug("refreshed postgres catalog", "metalake", sc.Metalake, "catalog", sc.Name,
			"tables", len(snap.Stamps), "read", len(snap.Tables), "written", len(d.Tables)+len(d.DropTables),
			"connect_ms", connected.Sub(start).Milliseconds(), "mirror_state_ms", stated.Sub(connected).Milliseconds(),
			"source_ms", read.Sub(stated).Milliseconds(), "total_ms", time.Since(start).Milliseconds())
	}()
	if d.Empty() {
		return semcat.Position{}, nil
	}
	if semcat.UserFromContext(ctx) == "" && sc.Creator != "" {
		ctx = semcat.NewContextWithUser(ctx, sc.Creator)
	}
	pos, err := c.store.ApplyMirror(ctx, sc.ID, d)
	if err != nil {
		return pos, err
	}
	moved := map[[2]string][2]string{}
	for _, t := range d.Tables {
		if old, ok := state.Tables[t.OID]; ok && (old.Schema != t.Schema || old.Name != t.Name) {
			moved[[2]string{old.Schema, old.Name}] = [2]string{t.Schema, t.Name}
		}
	}
	if len(moved) == 0 {
		return pos, nil
	}
	p, err := c.followRenames(ctx, sc, moved)
	return later(pos, p), err
}

// followRenames points the dataset sources of the catalog's semantic
// models at the new names of tables renamed or moved in the source, as a
// new version of each model that named one.
func (c *Connector) followRenames(ctx context.Context, sc *catalogdb.SourceCatalog, moved map[[2]string][2]string) (semcat.Position, error) {
	var pos semcat.Position
	cat := semcat.Namespace{Metalake: sc.Metalake, Catalog: sc.Name}
	schemas, err := c.store.ListSchemas(ctx, cat)
	if err != nil {
		return pos, err
	}
	for _, schema := range schemas {
		ns := cat
		ns.Schema = schema
		models, err := c.store.ListSemanticModels(ctx, ns)
		if err != nil {
			return pos, err
		}
		for _, name := range models {
			m, err := c.store.GetSemanticModel(ctx, ns, name)
			if err != nil {
				return pos, err
			}
			def, changed := m.Definition, false
			def.Datasets = append([]semcat.Dataset(nil), def.Datasets...)
			for i, ds := range def.Datasets {
				if ds.Source == nil || len(ds.Source.Namespace) != 2 || ds.Source.Namespace[0] != sc.Name {
					continue
				}
				if to, ok := moved[[2]string{ds.Source.Namespace[1], ds.Source.Name}]; ok {
					def.Datasets[i].Source = &semcat.Source{Namespace: []string{sc.Name, to[0]}, Name: to[1]}
					changed = true
				}
			}
			if !changed {
				continue
			}
			_, p, err := c.store.AlterSemanticModel(ctx, ns, name, []semcat.Update{{Type: semcat.UpdateReplaceDefinition, Definition: &def}}, m.Version)
			if err != nil {
				return pos, err
			}
			pos = later(pos, p)
		}
	}
	return pos, nil
}

// Diff is what the mirror must write to hold snap: schemas created,
// commented and dropped; tables new, changed (by fingerprint; renamed or
// moved ones keep their identity, followed by the source's object id) and
// dropped; and the new stamps of tables read again that had not changed.
// A table snap has a stamp of but did not read is unchanged.
func Diff(snap *Snapshot, state *catalogdb.MirrorState) catalogdb.MirrorDiff {
	var d catalogdb.MirrorDiff
	for name, s := range snap.Schemas {
		old, ok := state.Schemas[name]
		switch {
		case !ok:
			d.CreateSchemas = append(d.CreateSchemas, catalogdb.MirrorSchema{Name: name, Comment: s.Comment})
		case !sameString(old.Comment, s.Comment):
			d.UpdateSchemas = append(d.UpdateSchemas, catalogdb.MirrorSchema{Name: name, Comment: s.Comment})
		}
	}
	for name := range state.Schemas {
		if _, ok := snap.Schemas[name]; !ok {
			d.DropSchemas = append(d.DropSchemas, name)
		}
	}
	for oid, t := range snap.Tables {
		fp, stamp := t.Fingerprint(), snap.Stamps[oid]
		old, ok := state.Tables[oid]
		if ok && old.Fingerprint == fp {
			if old.Stamp != stamp {
				if d.Stamps == nil {
					d.Stamps = map[int64]string{}
				}
				d.Stamps[old.TableID] = stamp
			}
			continue
		}
		mt := catalogdb.MirrorTable{OID: oid, Schema: t.Schema, Name: t.Name, Comment: t.Comment, Columns: t.Columns,
			SourceProperties: map[string]string{PropertyTableType: t.Type}, Indexes: t.Indexes, Fingerprint: fp, Stamp: stamp, ColumnNums: t.ColumnNums}
		if ok {
			mt.TableID = old.TableID
		}
		d.Tables = append(d.Tables, mt)
	}
	for oid, old := range state.Tables {
		if _, ok := snap.Stamps[oid]; !ok {
			d.DropTables = append(d.DropTables, old.TableID)
		}
	}
	return d
}

func sameString(a, b *string) bool {
	if a == nil || b == nil {
		return a == b
	}
	return *a == *b
}

// addRefreshState adds the refresh state of a source catalog to the catalog's
// properties as the API shows them.
func addRefreshState(cat *semcat.Catalog, sc *catalogdb.SourceCatalog) {
	if cat.Properties == nil {
		cat.Properties = map[string]string{}
	}
	delete(cat.Properties, sources.PropertyJDBCPassword)
	if sc.LastRefresh > 0 {
		cat.Properties[PropertyLastRefresh] = time.UnixMilli(sc.LastRefresh).UTC().Format(time.RFC3339Nano)
	}
	cat.Properties[PropertyLastError] = sc.LastError
}
