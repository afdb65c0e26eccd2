package catalogdb

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/semcat/semcat"
)

// querier is what helpers need from a transaction.
type querier interface {
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}

// Row locks taken while resolving a path. A write below an entity holds a
// share lock on its parent, so a concurrent drop of the parent (which
// updates it) waits for the write, and a write that waited for a drop sees
// the parent gone.
const (
	noLock     = ""
	shareLock  = " FOR SHARE"
	updateLock = " FOR UPDATE"
)

// path holds the ids of a resolved namespace.
type path struct {
	metalakeID  int64
	catalogID   int64
	catalogType semcat.CatalogType
	schemaID    int64
}

// resolveMetalake finds a live, enabled metalake: everything below a
// metalake is resolved through here, so a disabled one refuses it all
// (ENOTINUSE, SPEC §2.10).
func (s *Store) resolveMetalake(ctx context.Context, q querier, name, lock string) (int64, error) {
	var id int64
	var inUse bool
	err := q.QueryRow(ctx, `SELECT metalake_id, in_use FROM metalake_meta WHERE metalake_name = $1 AND deleted_at = 0`+lock, name).Scan(&id, &inUse)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, semcat.NoSuchMetalake(name)
	case err == nil && !inUse:
		return 0, semcat.MetalakeNotInUse(name)
	}
	return id, err
}

// resolveCatalog finds a live, enabled catalog of an enabled metalake; lock
// applies to the catalog row.
func (s *Store) resolveCatalog(ctx context.Context, q querier, ns semcat.Namespace, lock string) (path, error) {
	var p path
	var err error
	if p.metalakeID, err = s.resolveMetalake(ctx, q, ns.Metalake, noLock); err != nil {
		return p, err
	}
	var inUse bool
	err = q.QueryRow(ctx, `SELECT catalog_id, type, in_use FROM catalog_meta
		WHERE metalake_id = $1 AND catalog_name = $2 AND deleted_at = 0`+lock, p.metalakeID, ns.Catalog).Scan(&p.catalogID, &p.catalogType, &inUse)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return p, semcat.NoSuchCatalog(ns.Metalake, ns.Catalog)
	case err == nil && !inUse:
		return p, semcat.CatalogNotInUse(ns.Metalake, ns.Catalog)
	}
	return p, err
}

// resolveSchema finds a live schema; lock applies to the schema row. When
// relationalFor is not empty, a non-relational catalog fails with
// EUNSUPPORTED, whether or not the schema exists.
//
// A live schema is found in one statement that joins the path down from
// the metalake, locking only the schema row (a write below a schema makes
// this lookup before anything else: one round trip, not three). When that
// finds nothing, the path is resolved level by level to report which part
// is missing or disabled, or that the catalog is not relational.
func (s *Store) resolveSchema(ctx context.Context, q querier, ns semcat.Namespace, lock, relationalFor string) (path, error) {
	var p path
	lockOf := ""
	if lock != noLock {
		lockOf = lock + " OF s"
	}
	err := q.QueryRow(ctx, `SELECT m.metalake_id, c.catalog_id, c.type, s.schema_id
		FROM metalake_meta m
		JOIN catalog_meta c ON c.metalake_id = m.metalake_id AND c.catalog_name = $2 AND c.deleted_at = 0 AND c.in_use
		JOIN schema_meta s ON s.catalog_id = c.catalog_id AND s.schema_name = $3 AND s.deleted_at = 0
		WHERE m.metalake_name = $1 AND m.deleted_at = 0 AND m.in_use`+lockOf,
		ns.Metalake, ns.Catalog, ns.Schema).Scan(&p.metalakeID, &p.catalogID, &p.catalogType, &p.schemaID)
	switch {
	case err == nil:
		if relationalFor != "" {
			if err := semcat.RequireRelational(ns.Catalog, p.catalogType, relationalFor); err != nil {
				return p, err
			}
		}
		return p, nil
	case !errors.Is(err, pgx.ErrNoRows):
		return p, err
	}
	return s.resolveSchemaByLevel(ctx, q, ns, lock, relationalFor)
}

// resolveSchemaByLevel is resolveSchema one level at a time, which tells
// what is missing.
func (s *Store) resolveSchemaByLevel(ctx context.Context, q querier, ns semcat.Namespace, lock, relationalFor string) (path, error) {
	p, err := s.resolveCatalog(ctx, q, ns, noLock)
	if err != nil {
		return p, err
	}
	if relationalFor != "" {
		if err := semcat.RequireRelational(ns.Catalog, p.catalogType, relationalFor); err != nil {
			return p, err
		}
	}
	err = q.QueryRow(ctx, `SELECT schema_id FROM schema_meta
		WHERE catalog_id = $1 AND schema_name = $2 AND deleted_at = 0`+lock, p.catalogID, ns.Schema).Scan(&p.schemaID)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, semcat.NoSuchSchema(ns, ns.Schema)
	}
	return p, err
}
