package catalogdb

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// tableID finds the id of a live table of ns; the table and its schema
// are locked as lock says.
func (s *Store) tableID(ctx context.Context, q querier, ns semcat.Namespace, name, lock string) (int64, error) {
	p, err := s.resolveSchema(ctx, q, ns, lock, "tables")
	if err != nil {
		return 0, err
	}
	var id int64
	err = q.QueryRow(ctx, `SELECT table_id FROM table_meta WHERE schema_id = $1 AND table_name = $2 AND deleted_at = 0`+lock, p.schemaID, name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, noSuchTable(ns, name)
	}
	return id, err
}

// ListTableStatistics lists a table's statistics in byte order of their
// names; each is a custom one (not reserved, modifiable).
func (s *Store) ListTableStatistics(ctx context.Context, ns semcat.Namespace, name string) ([]*semcat.Statistic, error) {
	var out []*semcat.Statistic
	err := s.read(ctx, func(tx pgx.Tx) error {
		id, err := s.tableID(ctx, tx, ns, name, noLock)
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, `SELECT statistic_name, value, audit_info FROM table_statistic
			WHERE table_id = $1 ORDER BY statistic_name COLLATE "C"`, id)
		if err != nil {
			return err
		}
		out = []*semcat.Statistic{}
		var st semcat.Statistic
		_, err = pgx.ForEachRow(rows, []any{&st.Name, &st.Value, &st.Audit}, func() error {
			c := st
			c.Value = slices.Clone(st.Value)
			c.Modifiable = true
			out = append(out, &c)
			return nil
		})
		return err
	})
	return out, err
}

// UpdateTableStatistics sets statistics of a table in one statement: new
// ones are created, existing ones take the new value (their audit keeps
// its creator). An update that would leave the table more than
// semcat.MaxStatisticsPerTable statistics is refused whole; the table's
// row is locked against other updates of its statistics (FOR NO KEY
// UPDATE) so that two updates cannot each stay under the bound and
// together pass it.
func (s *Store) UpdateTableStatistics(ctx context.Context, ns semcat.Namespace, name string, req semcat.StatisticsUpdate) (semcat.Position, error) {
	if err := req.Validate(); err != nil {
		return semcat.Position{}, err
	}
	return s.write(ctx, func(tx *writeTx) error {
		p, err := s.resolveSchema(ctx, tx, ns, shareLock, "tables")
		if err != nil {
			return err
		}
		var id int64
		err = tx.QueryRow(ctx, `SELECT table_id FROM table_meta WHERE schema_id = $1 AND table_name = $2 AND deleted_at = 0 FOR NO KEY UPDATE`,
			p.schemaID, name).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return noSuchTable(ns, name)
		} else if err != nil {
			return err
		}
		names := slices.Sorted(maps.Keys(req.Updates))
		values := make([]string, len(names))
		for i, n := range names {
			values[i] = string(req.Updates[n])
		}
		audit, err := json.Marshal(semcat.NewAudit(actor(ctx), s.Now()))
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO table_statistic (table_id, statistic_name, value, audit_info)
			SELECT $1, n, v::jsonb, $4::jsonb FROM unnest($2::text[], $3::text[]) AS u(n, v)
			ON CONFLICT (table_id, statistic_name) DO UPDATE SET value = EXCLUDED.value,
				audit_info = table_statistic.audit_info || jsonb_build_object(
					'lastModifier', EXCLUDED.audit_info->'creator', 'lastModifiedTime', EXCLUDED.audit_info->'createTime')`,
			id, names, values, audit); err != nil {
			return err
		}
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM table_statistic WHERE table_id = $1`, id).Scan(&n); err != nil {
			return err
		}
		if n > semcat.MaxStatisticsPerTable {
			return semcat.TooManyStatistics(n)
		}
		// The table's outbox row gives the write its position.
		return tx.emit(ctx, semcat.KindTable, id, opUpsert)
	})
}

// DropTableStatistics drops the named statistics of a table; dropped
// reports whether any existed.
func (s *Store) DropTableStatistics(ctx context.Context, ns semcat.Namespace, name string, req semcat.StatisticsDrop) (bool, semcat.Position, error) {
	if err := req.Validate(); err != nil {
		return false, semcat.Position{}, err
	}
	dropped := false
	pos, err := s.write(ctx, func(tx *writeTx) error {
		id, err := s.tableID(ctx, tx, ns, name, shareLock)
		if err != nil {
			return err
		}
		tag, err := tx.Exec(ctx, `DELETE FROM table_statistic WHERE table_id = $1 AND statistic_name = ANY($2)`, id, req.Names)
		if err != nil {
			return err
		}
		dropped = tag.RowsAffected() > 0
		return tx.emit(ctx, semcat.KindTable, id, opUpsert)
	})
	return dropped, pos, err
}
