package catalogdb

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

var _ semcat.MetricDiscoveryService = (*Store)(nil)

// metricIdentifiersSQL lists a schema's metrics from the identity table
// joined with the live models: it never reads a model definition.
const metricIdentifiersSQL = `SELECT m.semantic_model_id, m.semantic_model_name, mm.metric_name
	FROM semantic_model_metric_meta mm
	JOIN semantic_model_meta m ON m.semantic_model_id = mm.semantic_model_id AND m.deleted_at = 0
	WHERE mm.schema_id = $1 AND mm.deleted_at = 0
	ORDER BY m.semantic_model_name COLLATE "C", mm.metric_name COLLATE "C"`

// metricDetailsSQL reads only the metrics column of each live model's
// current version and splits it into one row per metric, keeping each
// metric's JSON text as stored.
const metricDetailsSQL = `SELECT m.semantic_model_id, m.semantic_model_name, e.value->>'name' AS metric_name, e.value::text
	FROM semantic_model_meta m
	JOIN semantic_model_version_info v ON v.semantic_model_id = m.semantic_model_id AND v.version = m.current_version
	CROSS JOIN LATERAL json_array_elements(v.metrics) AS e
	WHERE m.schema_id = $1 AND m.deleted_at = 0
	ORDER BY m.semantic_model_name COLLATE "C", e.value->>'name' COLLATE "C"`

// ListSchemaMetrics lists every metric of every live semantic model of a
// schema in one statement (one snapshot). Identifiers come from the
// identity table; details come from the metrics column of each current
// version, and a metric that does not decode fails the whole listing.
func (s *Store) ListSchemaMetrics(ctx context.Context, ns semcat.Namespace, details bool) ([]semcat.SchemaMetric, error) {
	out := []semcat.SchemaMetric{}
	err := s.read(ctx, func(tx pgx.Tx) error {
		p, err := s.resolveSchema(ctx, tx, ns, noLock, modelWhat)
		if err != nil {
			return err
		}
		sql := metricIdentifiersSQL
		if details {
			sql = metricDetailsSQL
		}
		rows, err := tx.Query(ctx, sql, p.schemaID)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var m semcat.SchemaMetric
			var name *string
			var raw []byte
			dest := []any{&m.ModelID, &m.Model, &name}
			if details {
				dest = append(dest, &raw)
			}
			if err := rows.Scan(dest...); err != nil {
				return err
			}
			if details {
				if err := checkMetric(raw); err != nil {
					return fmt.Errorf("semantic model %q: stored metric does not decode: %w", m.Model, err)
				}
				m.Definition = json.RawMessage(raw)
			}
			if name == nil {
				return fmt.Errorf("semantic model %q: stored metric has no name", m.Model)
			}
			m.Name = *name
			out = append(out, m)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkMetric decodes a stored metric strictly, so that a corrupt
// definition is reported rather than served.
func checkMetric(raw []byte) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var m semcat.Metric
	if err := dec.Decode(&m); err != nil {
		return err
	}
	if m.Name == "" {
		return fmt.Errorf("metric without a name")
	}
	return nil
}
