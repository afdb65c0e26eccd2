package catalogdb

import (
	"context"
	"errors"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// resolveColumn finds a top-level column of a live table: the path down to
// the table, the table's id (its row locked as lock says) and the
// column's id, which is 0 for a column never tagged unless create gives
// it one.
func (s *Store) resolveColumn(ctx context.Context, q querier, metalake string, obj semcat.ObjectRef, lock string, create bool) (p path, tableID, columnID int64, err error) {
	tableRef, column := obj.ColumnOf()
	if p, tableID, err = s.resolveObjectPath(ctx, q, metalake, tableRef, lock); err != nil {
		return p, 0, 0, err
	}
	var exists bool
	if err = q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM table_meta, jsonb_array_elements(columns) c
		WHERE table_id = $1 AND c->>'name' = $2)`, tableID, column).Scan(&exists); err != nil {
		return p, 0, 0, err
	}
	if !exists {
		return p, 0, 0, semcat.NotFound(semcat.KindColumn, "column '%s' of table '%s.%s' does not exist", column, metalake, tableRef.FullName)
	}
	err = q.QueryRow(ctx, `SELECT column_id FROM column_meta WHERE table_id = $1 AND column_name = $2`, tableID, column).Scan(&columnID)
	if errors.Is(err, pgx.ErrNoRows) {
		if !create {
			return p, tableID, 0, nil
		}
		err = q.QueryRow(ctx, `INSERT INTO column_meta (table_id, column_name) VALUES ($1, $2) RETURNING column_id`, tableID, column).Scan(&columnID)
	}
	return p, tableID, columnID, err
}

// columnIDsAfter carries a table's column ids through an alter, the
// table's row locked: a renamed top-level column keeps its id, and one
// that is gone loses it with its tags. It costs one query for a table
// whose columns were never tagged.
func columnIDsAfter(ctx context.Context, tx querier, tableID int64, updates []semcat.Update, cols []semcat.Column) error {
	rows, err := tx.Query(ctx, `SELECT column_id, column_name FROM column_meta WHERE table_id = $1`, tableID)
	if err != nil {
		return err
	}
	names := map[int64]string{}
	var (
		id   int64
		name string
	)
	if _, err := pgx.ForEachRow(rows, []any{&id, &name}, func() error {
		names[id] = name
		return nil
	}); err != nil || len(names) == 0 {
		return err
	}
	all := slices.Collect(maps.Keys(names))
	for _, u := range updates {
		switch {
		case u.Type == semcat.UpdateRenameColumn && len(u.OldFieldName) == 1:
			for id, n := range names {
				if n == u.OldFieldName[0] {
					names[id] = *u.NewFieldName
				}
			}
		case u.Type == semcat.UpdateDeleteColumn && len(u.FieldName) == 1:
			for id, n := range names {
				if n == u.FieldName[0] {
					delete(names, id)
				}
			}
		}
	}
	var gone, kept []int64
	var keptNames []string
	for id, n := range names {
		if slices.ContainsFunc(cols, func(c semcat.Column) bool { return c.Name == n }) {
			kept, keptNames = append(kept, id), append(keptNames, n)
		}
	}
	for _, id := range all {
		if !slices.Contains(kept, id) {
			gone = append(gone, id)
		}
	}
	if len(gone) > 0 {
		if _, err := tx.Exec(ctx, `DELETE FROM tag_relation WHERE object_type = 'column' AND object_id = ANY($1)`, gone); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM column_meta WHERE column_id = ANY($1)`, gone); err != nil {
			return err
		}
	}
	_, err = tx.Exec(ctx, `UPDATE column_meta c SET column_name = u.name FROM unnest($1::bigint[], $2::text[]) AS u(id, name)
		WHERE c.column_id = u.id AND c.column_name <> u.name`, kept, keptNames)
	return err
}
