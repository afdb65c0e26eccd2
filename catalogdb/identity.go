package catalogdb

import (
	"context"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// liveMetrics loads a model's live metric identities.
func liveMetrics(ctx context.Context, q querier, modelID int64) ([]semcat.MetricIdentity, error) {
	rows, err := q.Query(ctx, `SELECT metric_id, metric_name FROM semantic_model_metric_meta
		WHERE semantic_model_id = $1 AND deleted_at = 0`, modelID)
	if err != nil {
		return nil, err
	}
	return pgx.CollectRows(rows, func(row pgx.CollectableRow) (semcat.MetricIdentity, error) {
		var id semcat.MetricIdentity
		err := row.Scan(&id.ID, &id.Name)
		return id, err
	})
}

// reconcileMetrics brings a model's metric identities in line with the
// metric names of its new definition (SPEC §3): kept names keep their ids,
// new names get new ids, removed names are retired at now. Every touched
// metric gets an outbox row so its search document follows.
func reconcileMetrics(ctx context.Context, tx *writeTx, p path, modelID int64, names []string, now int64) error {
	live, err := liveMetrics(ctx, tx, modelID)
	if err != nil {
		return err
	}
	r := semcat.ReconcileMetrics(live, names)
	if len(r.Retire) > 0 {
		ids := make([]int64, len(r.Retire))
		for i, id := range r.Retire {
			ids[i] = id.ID
		}
		if _, err := tx.Exec(ctx, `UPDATE semantic_model_metric_meta SET deleted_at = $2 WHERE metric_id = ANY($1)`, ids, now); err != nil {
			return err
		}
		if err := tx.emitQuery(ctx, semcat.KindMetric, opDelete, `SELECT unnest($1::bigint[]) AS id`, ids); err != nil {
			return err
		}
	}
	if len(r.Add) > 0 {
		if err := tx.emitQuery(ctx, semcat.KindMetric, opUpsert, `INSERT INTO semantic_model_metric_meta (metalake_id, catalog_id, schema_id, semantic_model_id, metric_name)
			SELECT $1, $2, $3, $4, name FROM unnest($5::text[]) WITH ORDINALITY AS n(name, ord) ORDER BY ord
			RETURNING metric_id AS id`, p.metalakeID, p.catalogID, p.schemaID, modelID, r.Add); err != nil {
			return err
		}
	}
	if len(r.Keep) > 0 {
		ids := make([]int64, len(r.Keep))
		for i, id := range r.Keep {
			ids[i] = id.ID
		}
		if err := tx.emitQuery(ctx, semcat.KindMetric, opUpsert, `SELECT unnest($1::bigint[]) AS id`, ids); err != nil {
			return err
		}
	}
	return nil
}
