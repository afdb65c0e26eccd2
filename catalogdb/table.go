package catalogdb

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

const tableColumns = `table_id, table_name, comment, columns, properties, audit_info`

func scanTable(row pgx.Row) (*semcat.Table, error) {
	t := &semcat.Table{}
	if err := row.Scan(&t.ID, &t.Name, &t.Comment, &t.Columns, &t.Properties, &t.Audit); err != nil {
		return nil, err
	}
	if t.Properties == nil {
		t.Properties = map[string]string{}
	}
	return t, nil
}

func noSuchTable(ns semcat.Namespace, name string) error {
	return semcat.NotFound(semcat.KindTable, "table '%s.%s.%s.%s' does not exist", ns.Metalake, ns.Catalog, ns.Schema, name)
}

func getTable(ctx context.Context, q querier, schemaID int64, name, lock string) (*semcat.Table, error) {
	return scanTable(q.QueryRow(ctx, `SELECT `+tableColumns+` FROM table_meta
		WHERE schema_id = $1 AND table_name = $2 AND deleted_at = 0`+lock, schemaID, name))
}

// CreateTable creates a table in a schema of a relational catalog.
func (s *Store) CreateTable(ctx context.Context, ns semcat.Namespace, req semcat.TableCreate) (*semcat.Table, semcat.Position, error) {
	var out *semcat.Table
	pos, err := s.write(ctx, func(tx *writeTx) error {
		p, err := s.resolveSchema(ctx, tx, ns, shareLock, "tables")
		if err != nil {
			return err
		}
		if err := req.Validate(); err != nil {
			return err
		}
		t := &semcat.Table{Name: req.Name, Comment: req.Comment, Columns: req.Columns,
			Properties: props(cloneProps(req.Properties)), Audit: semcat.NewAudit(actor(ctx), s.Now())}
		err = tx.QueryRow(ctx, `INSERT INTO table_meta (table_name, metalake_id, catalog_id, schema_id, comment, columns, properties, audit_info)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING table_id`,
			t.Name, p.metalakeID, p.catalogID, p.schemaID, t.Comment, t.Columns, t.Properties, t.Audit).Scan(&t.ID)
		if uniqueViolation(err) {
			return semcat.AlreadyExists(semcat.KindTable, "table '%s.%s.%s.%s' already exists", ns.Metalake, ns.Catalog, ns.Schema, t.Name)
		} else if err != nil {
			return err
		}
		out = t
		return tx.emitCreated(ctx, p.metalakeID, semcat.KindTable, t.ID, actor(ctx))
	})
	return out, pos, err
}

// GetTable loads a table.
func (s *Store) GetTable(ctx context.Context, ns semcat.Namespace, name string) (*semcat.Table, error) {
	var out *semcat.Table
	err := s.read(ctx, func(tx pgx.Tx) error {
		p, err := s.resolveSchema(ctx, tx, ns, noLock, "tables")
		if err != nil {
			return err
		}
		out, err = getTable(ctx, tx, p.schemaID, name, noLock)
		if errors.Is(err, pgx.ErrNoRows) {
			return noSuchTable(ns, name)
		}
		return err
	})
	return out, err
}

// ListTables lists the names of a schema's live tables in byte order.
func (s *Store) ListTables(ctx context.Context, ns semcat.Namespace) ([]string, error) {
	var out []string
	err := s.read(ctx, func(tx pgx.Tx) error {
		p, err := s.resolveSchema(ctx, tx, ns, noLock, "tables")
		if err != nil {
			return err
		}
		out, err = listNames(ctx, tx, `SELECT table_name FROM table_meta WHERE schema_id = $1 AND deleted_at = 0 ORDER BY table_name COLLATE "C"`, p.schemaID)
		return err
	})
	return out, err
}

// AlterTable applies updates to a table, all or nothing.
func (s *Store) AlterTable(ctx context.Context, ns semcat.Namespace, name string, updates []semcat.Update) (*semcat.Table, semcat.Position, error) {
	var out *semcat.Table
	pos, err := s.write(ctx, func(tx *writeTx) error {
		p, err := s.resolveSchema(ctx, tx, ns, shareLock, "tables")
		if err != nil {
			return err
		}
		if err := semcat.ValidateTableUpdates(updates); err != nil {
			return err
		}
		t, err := getTable(ctx, tx, p.schemaID, name, updateLock)
		if errors.Is(err, pgx.ErrNoRows) {
			return noSuchTable(ns, name)
		} else if err != nil {
			return err
		}
		for _, u := range updates {
			if !semcat.ApplyCommon(u, &t.Name, &t.Comment, &t.Properties) && u.Type == semcat.UpdateReplaceColumns {
				t.Columns = u.Columns
			}
		}
		t.Audit.Touch(actor(ctx), s.Now())
		_, err = tx.Exec(ctx, `UPDATE table_meta SET table_name = $2, comment = $3, columns = $4, properties = $5, audit_info = $6
			WHERE table_id = $1`, t.ID, t.Name, t.Comment, t.Columns, t.Properties, t.Audit)
		if uniqueViolation(err) {
			return semcat.AlreadyExists(semcat.KindTable, "table '%s.%s.%s.%s' already exists", ns.Metalake, ns.Catalog, ns.Schema, t.Name)
		} else if err != nil {
			return err
		}
		out = t
		return tx.emit(ctx, semcat.KindTable, t.ID, opUpsert)
	})
	return out, pos, err
}

// DropTable drops a table. A missing table is not an error: dropped is false.
func (s *Store) DropTable(ctx context.Context, ns semcat.Namespace, name string) (bool, semcat.Position, error) {
	dropped := false
	pos, err := s.write(ctx, func(tx *writeTx) error {
		dropped = false
		p, err := s.resolveSchema(ctx, tx, ns, shareLock, "tables")
		if err != nil {
			if semcat.ErrorCode(err) == semcat.ENOTFOUND {
				return nil
			}
			return err
		}
		var id int64
		err = tx.QueryRow(ctx, `UPDATE table_meta SET deleted_at = $3 WHERE schema_id = $1 AND table_name = $2 AND deleted_at = 0
			RETURNING table_id`, p.schemaID, name, s.nowMillis()).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		dropped = true
		return tx.emit(ctx, semcat.KindTable, id, opDelete)
	})
	return dropped, pos, err
}

// listNames runs a query returning one text column.
func listNames(ctx context.Context, q querier, sql string, args ...any) ([]string, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if names == nil {
		names = []string{}
	}
	return names, err
}
