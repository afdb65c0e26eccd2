package catalogdb

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

func catalogFromRow(r *namedRow) *semcat.Catalog {
	return &semcat.Catalog{ID: r.ID, Name: r.Name, Type: semcat.CatalogType(r.Extra), Provider: r.Provider, Comment: r.Comment,
		Properties: semcat.WithInUse(r.Properties, r.InUse), Audit: r.Audit, InUse: r.InUse}
}

func noSuchCatalog(metalake, name string) error {
	return semcat.NoSuchCatalog(metalake, name)
}

// CreateCatalog creates a catalog in a metalake.
func (s *Store) CreateCatalog(ctx context.Context, metalake string, req semcat.CatalogCreate) (*semcat.Catalog, semcat.Position, error) {
	if err := req.Validate(); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.Catalog
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		r := &namedRow{Name: req.Name, Comment: req.Comment, Properties: props(cloneProps(req.Properties)),
			Audit: semcat.NewAudit(actor(ctx), s.Now()), Extra: string(req.Type), Provider: req.ProviderOrDefault(), InUse: true}
		if err := catalogs.insert(ctx, tx, r, map[string]int64{"metalake_id": mid}, "catalog"); err != nil {
			return err
		}
		out = catalogFromRow(r)
		return tx.emitCreated(ctx, mid, semcat.KindCatalog, r.ID, actor(ctx))
	})
	return out, pos, err
}

// GetCatalog loads a catalog.
func (s *Store) GetCatalog(ctx context.Context, metalake, name string) (*semcat.Catalog, error) {
	var out *semcat.Catalog
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		r, err := catalogs.get(ctx, tx, mid, name, noLock, noSuchCatalog(metalake, name))
		if err != nil {
			return err
		}
		out = catalogFromRow(r)
		return nil
	})
	return out, err
}

// ListCatalogs lists the live catalogs of a metalake, sorted by name.
func (s *Store) ListCatalogs(ctx context.Context, metalake string) ([]*semcat.Catalog, error) {
	var out []*semcat.Catalog
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		rows, err := catalogs.list(ctx, tx, mid)
		if err != nil {
			return err
		}
		out = make([]*semcat.Catalog, len(rows))
		for i, r := range rows {
			out[i] = catalogFromRow(r)
		}
		return nil
	})
	return out, err
}

// AlterCatalog applies updates to an enabled catalog, all or nothing.
func (s *Store) AlterCatalog(ctx context.Context, metalake, name string, updates []semcat.Update) (*semcat.Catalog, semcat.Position, error) {
	if err := semcat.ValidateToggledUpdates(updates); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.Catalog
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		r, err := catalogs.get(ctx, tx, mid, name, updateLock, noSuchCatalog(metalake, name))
		if err != nil {
			return err
		}
		if !r.InUse {
			return semcat.CatalogNotInUse(metalake, name)
		}
		if err := s.alterNamed(ctx, tx, catalogs, r, updates, "catalog"); err != nil {
			return err
		}
		out = catalogFromRow(r)
		return nil
	})
	return out, pos, err
}

// SetCatalogInUse enables or disables a catalog of an enabled metalake.
func (s *Store) SetCatalogInUse(ctx context.Context, metalake, name string, inUse bool) (semcat.Position, error) {
	return s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		r, err := catalogs.get(ctx, tx, mid, name, updateLock, noSuchCatalog(metalake, name))
		if err != nil || r.InUse == inUse {
			return err
		}
		return s.setInUse(ctx, tx, catalogs, r, inUse)
	})
}

// setInUse writes the in-use flag of a metalake or catalog and touches its
// audit.
func (s *Store) setInUse(ctx context.Context, tx *writeTx, n named, r *namedRow, inUse bool) error {
	r.Audit.Touch(actor(ctx), s.Now())
	if _, err := tx.Exec(ctx, fmt.Sprintf("UPDATE %s SET in_use = $2, audit_info = $3 WHERE %s = $1", n.table, n.id), r.ID, inUse, r.Audit); err != nil {
		return err
	}
	return tx.emit(ctx, n.kind, r.ID, opUpsert)
}

// DropCatalog drops a catalog: a disabled one, or with force an enabled one
// too; with force, everything in it goes in the same transaction. Without
// force, an enabled catalog is EINUSE and one with schemas ENOTEMPTY, as in
// Gravitino.
func (s *Store) DropCatalog(ctx context.Context, metalake, name string, force bool) (bool, semcat.Position, error) {
	dropped := false
	pos, err := s.write(ctx, func(tx *writeTx) error {
		dropped = false
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			if semcat.ErrorCode(err) == semcat.ENOTFOUND {
				return nil
			}
			return err
		}
		r, err := catalogs.get(ctx, tx, mid, name, updateLock, pgx.ErrNoRows)
		if err == pgx.ErrNoRows {
			return nil
		} else if err != nil {
			return err
		}
		if r.InUse && !force {
			return &semcat.Error{Code: semcat.EINUSE, Entity: semcat.KindCatalog,
				Message: fmt.Sprintf("catalog '%s.%s' is in use; disable it first or use force=true", metalake, name)}
		}
		if !force {
			if err := requireEmpty(ctx, tx, "schema_meta", "catalog_id", r.ID, "catalog '%s.%s' has schemas; drop them first or use force=true", metalake, name); err != nil {
				return err
			}
		}
		now := s.nowMillis()
		for _, table := range []string{"schema_meta", "table_meta", "semantic_model_meta",
			"semantic_model_version_info", "semantic_model_metric_meta"} {
			if err := softDelete(ctx, tx, table, "catalog_id", r.ID, now); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE catalog_meta SET deleted_at = $2 WHERE catalog_id = $1`, r.ID, now); err != nil {
			return err
		}
		dropped = true
		return tx.emit(ctx, semcat.KindCatalog, r.ID, opDelete)
	})
	return dropped, pos, err
}
