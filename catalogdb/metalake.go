package catalogdb

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

func metalakeFromRow(r *namedRow) *semcat.Metalake {
	return &semcat.Metalake{ID: r.ID, Name: r.Name, Comment: r.Comment, Properties: semcat.WithInUse(r.Properties, r.InUse), Audit: r.Audit, InUse: r.InUse}
}

func noSuchMetalake(name string) error {
	return semcat.NoSuchMetalake(name)
}

// CreateMetalake creates a metalake.
func (s *Store) CreateMetalake(ctx context.Context, req semcat.MetalakeCreate) (*semcat.Metalake, semcat.Position, error) {
	if err := req.Validate(); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.Metalake
	pos, err := s.write(ctx, func(tx *writeTx) error {
		r := &namedRow{Name: req.Name, Comment: req.Comment, Properties: props(cloneProps(req.Properties)), Audit: semcat.NewAudit(actor(ctx), s.Now()), InUse: true}
		if err := metalakes.insert(ctx, tx, r, nil, "metalake"); err != nil {
			return err
		}
		out = metalakeFromRow(r)
		return tx.emitCreated(ctx, r.ID, semcat.KindMetalake, r.ID, actor(ctx))
	})
	return out, pos, err
}

// GetMetalake loads a metalake by name.
func (s *Store) GetMetalake(ctx context.Context, name string) (*semcat.Metalake, error) {
	r, err := metalakes.get(ctx, s.pool, 0, name, noLock, noSuchMetalake(name))
	if err != nil {
		return nil, translate(err)
	}
	return metalakeFromRow(r), nil
}

// ListMetalakes lists every live metalake, sorted by name.
func (s *Store) ListMetalakes(ctx context.Context) ([]*semcat.Metalake, error) {
	rows, err := metalakes.list(ctx, s.pool, 0)
	if err != nil {
		return nil, translate(err)
	}
	out := make([]*semcat.Metalake, len(rows))
	for i, r := range rows {
		out[i] = metalakeFromRow(r)
	}
	return out, nil
}

// AlterMetalake applies updates to an enabled metalake, all or nothing.
func (s *Store) AlterMetalake(ctx context.Context, name string, updates []semcat.Update) (*semcat.Metalake, semcat.Position, error) {
	if err := semcat.ValidateToggledUpdates(updates); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.Metalake
	pos, err := s.write(ctx, func(tx *writeTx) error {
		r, err := metalakes.get(ctx, tx, 0, name, updateLock, noSuchMetalake(name))
		if err != nil {
			return err
		}
		if !r.InUse {
			return semcat.MetalakeNotInUse(name)
		}
		if err := s.alterNamed(ctx, tx, metalakes, r, updates, "metalake"); err != nil {
			return err
		}
		out = metalakeFromRow(r)
		return nil
	})
	return out, pos, err
}

// SetMetalakeInUse enables or disables a metalake.
func (s *Store) SetMetalakeInUse(ctx context.Context, name string, inUse bool) (semcat.Position, error) {
	return s.write(ctx, func(tx *writeTx) error {
		r, err := metalakes.get(ctx, tx, 0, name, updateLock, noSuchMetalake(name))
		if err != nil || r.InUse == inUse {
			return err
		}
		return s.setInUse(ctx, tx, metalakes, r, inUse)
	})
}

// DropMetalake drops a metalake: a disabled one, or with force an enabled
// one too; with force, everything in it goes in the same transaction.
// Without force, an enabled metalake is EINUSE and one with catalogs
// ENOTEMPTY, as in Gravitino. A missing metalake is not an error: dropped
// is false.
func (s *Store) DropMetalake(ctx context.Context, name string, force bool) (bool, semcat.Position, error) {
	dropped := false
	pos, err := s.write(ctx, func(tx *writeTx) error {
		dropped = false
		r, err := metalakes.get(ctx, tx, 0, name, updateLock, pgx.ErrNoRows)
		if err == pgx.ErrNoRows {
			return nil
		} else if err != nil {
			return err
		}
		if r.InUse && !force {
			return &semcat.Error{Code: semcat.EINUSE, Entity: semcat.KindMetalake,
				Message: fmt.Sprintf("metalake '%s' is in use; disable it first or use force=true", name)}
		}
		if !force {
			if err := requireEmpty(ctx, tx, "catalog_meta", "metalake_id", r.ID, "metalake '%s' has catalogs; drop them first or use force=true", name); err != nil {
				return err
			}
		}
		now := s.nowMillis()
		for _, table := range []string{"catalog_meta", "schema_meta", "table_meta", "semantic_model_meta",
			"semantic_model_version_info", "semantic_model_metric_meta", "tag_meta", "user_meta", "group_meta", "role_meta", "policy_meta"} {
			if err := softDelete(ctx, tx, table, "metalake_id", r.ID, now); err != nil {
				return err
			}
		}
		if _, err := tx.Exec(ctx, `UPDATE metalake_meta SET deleted_at = $2 WHERE metalake_id = $1`, r.ID, now); err != nil {
			return err
		}
		dropped = true
		return tx.emit(ctx, semcat.KindMetalake, r.ID, opDelete)
	})
	return dropped, pos, err
}

// requireEmpty fails with ENOTEMPTY if table has a live row whose col is id.
func requireEmpty(ctx context.Context, q querier, table, col string, id int64, format string, args ...any) error {
	var exists bool
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM `+table+` WHERE `+col+` = $1 AND deleted_at = 0)`, id).Scan(&exists); err != nil {
		return err
	}
	if exists {
		return semcat.Errorf(semcat.ENOTEMPTY, format, args...)
	}
	return nil
}

// softDelete marks every live row of table whose col is id as dropped at now.
func softDelete(ctx context.Context, q querier, table, col string, id, now int64) error {
	_, err := q.Exec(ctx, `UPDATE `+table+` SET deleted_at = $2 WHERE `+col+` = $1 AND deleted_at = 0`, id, now)
	return err
}
