package catalogdb

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

func schemaFromRow(r *namedRow) *semcat.Schema {
	return &semcat.Schema{ID: r.ID, Name: r.Name, Comment: r.Comment, Properties: r.Properties, Audit: r.Audit}
}

func noSuchSchema(ns semcat.Namespace, name string) error {
	return semcat.NoSuchSchema(ns, name)
}

// CreateSchema creates a schema in a catalog.
func (s *Store) CreateSchema(ctx context.Context, ns semcat.Namespace, req semcat.SchemaCreate) (*semcat.Schema, semcat.Position, error) {
	if err := req.Validate(); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.Schema
	pos, err := s.write(ctx, func(tx *writeTx) error {
		p, err := s.resolveCatalog(ctx, tx, ns, shareLock)
		if err != nil {
			return err
		}
		r := &namedRow{Name: req.Name, Comment: req.Comment, Properties: props(cloneProps(req.Properties)), Audit: semcat.NewAudit(actor(ctx), s.Now())}
		if err := schemas.insert(ctx, tx, r, map[string]int64{"metalake_id": p.metalakeID, "catalog_id": p.catalogID}, "schema"); err != nil {
			return err
		}
		out = schemaFromRow(r)
		return tx.emitCreated(ctx, p.metalakeID, semcat.KindSchema, r.ID, actor(ctx))
	})
	return out, pos, err
}

// GetSchema loads a schema.
func (s *Store) GetSchema(ctx context.Context, ns semcat.Namespace, name string) (*semcat.Schema, error) {
	var out *semcat.Schema
	err := s.read(ctx, func(tx pgx.Tx) error {
		p, err := s.resolveCatalog(ctx, tx, ns, noLock)
		if err != nil {
			return err
		}
		r, err := schemas.get(ctx, tx, p.catalogID, name, noLock, noSuchSchema(ns, name))
		if err != nil {
			return err
		}
		out = schemaFromRow(r)
		return nil
	})
	return out, err
}

// ListSchemas lists the names of a catalog's live schemas in byte order.
func (s *Store) ListSchemas(ctx context.Context, ns semcat.Namespace) ([]string, error) {
	var out []string
	err := s.read(ctx, func(tx pgx.Tx) error {
		p, err := s.resolveCatalog(ctx, tx, ns, noLock)
		if err != nil {
			return err
		}
		out, err = schemas.names(ctx, tx, p.catalogID)
		return err
	})
	return out, err
}

// AlterSchema applies updates to a schema, all or nothing.
func (s *Store) AlterSchema(ctx context.Context, ns semcat.Namespace, name string, updates []semcat.Update) (*semcat.Schema, semcat.Position, error) {
	if err := semcat.ValidateUpdates(updates, semcat.CommonUpdates...); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.Schema
	pos, err := s.write(ctx, func(tx *writeTx) error {
		p, err := s.resolveCatalog(ctx, tx, ns, shareLock)
		if err != nil {
			return err
		}
		r, err := schemas.get(ctx, tx, p.catalogID, name, updateLock, noSuchSchema(ns, name))
		if err != nil {
			return err
		}
		if err := s.alterNamed(ctx, tx, schemas, r, updates, "schema"); err != nil {
			return err
		}
		out = schemaFromRow(r)
		return nil
	})
	return out, pos, err
}

// DropSchema drops a schema; with cascade, its tables and semantic models
// (and their metric identities) go in the same transaction.
func (s *Store) DropSchema(ctx context.Context, ns semcat.Namespace, name string, cascade bool) (bool, semcat.Position, error) {
	dropped := false
	pos, err := s.write(ctx, func(tx *writeTx) error {
		dropped = false
		p, err := s.resolveCatalog(ctx, tx, ns, shareLock)
		if err != nil {
			if semcat.ErrorCode(err) == semcat.ENOTFOUND {
				return nil
			}
			return err
		}
		r, err := schemas.get(ctx, tx, p.catalogID, name, updateLock, pgx.ErrNoRows)
		if err == pgx.ErrNoRows {
			return nil
		} else if err != nil {
			return err
		}
		if !cascade {
			for _, table := range []string{"table_meta", "semantic_model_meta"} {
				if err := requireEmpty(ctx, tx, table, "schema_id", r.ID, "schema '%s.%s.%s' is not empty; drop its tables and semantic models first or use cascade=true", ns.Metalake, ns.Catalog, name); err != nil {
					return err
				}
			}
		}
		now := s.nowMillis()
		for _, table := range []string{"table_meta", "semantic_model_meta", "semantic_model_version_info", "semantic_model_metric_meta"} {
			if err := softDelete(ctx, tx, table, "schema_id", r.ID, now); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE schema_meta SET deleted_at = $2 WHERE schema_id = $1`, r.ID, now); err != nil {
			return err
		}
		dropped = true
		return tx.emit(ctx, semcat.KindSchema, r.ID, opDelete)
	})
	return dropped, pos, err
}
