package catalogdb

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// EntityRef names one searchable entity.
type EntityRef struct {
	Kind semcat.EntityKind
	ID   int64
}

func searchable(k semcat.EntityKind) bool {
	switch k {
	case semcat.KindCatalog, semcat.KindSchema, semcat.KindTable, semcat.KindSemanticModel, semcat.KindMetric:
		return true
	}
	return false
}

// expand adds every entity below a container, live or not: a rename changes
// their identifiers, a drop removes them.
func expand(ctx context.Context, q querier, c EntityRef, refs map[EntityRef]bool) error {
	col := map[semcat.EntityKind]string{semcat.KindMetalake: "metalake_id", semcat.KindCatalog: "catalog_id",
		semcat.KindSchema: "schema_id", semcat.KindSemanticModel: "semantic_model_id"}[c.Kind]
	below := []struct {
		kind      semcat.EntityKind
		table, id string
		from      []semcat.EntityKind // container kinds this table is below
	}{
		{semcat.KindCatalog, "catalog_meta", "catalog_id", []semcat.EntityKind{semcat.KindMetalake}},
		{semcat.KindSchema, "schema_meta", "schema_id", []semcat.EntityKind{semcat.KindMetalake, semcat.KindCatalog}},
		{semcat.KindTable, "table_meta", "table_id", []semcat.EntityKind{semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema}},
		{semcat.KindSemanticModel, "semantic_model_meta", "semantic_model_id", []semcat.EntityKind{semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema}},
		{semcat.KindMetric, "semantic_model_metric_meta", "metric_id", []semcat.EntityKind{semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema, semcat.KindSemanticModel}},
	}
	for _, b := range below {
		applies := false
		for _, f := range b.from {
			applies = applies || f == c.Kind
		}
		if !applies {
			continue
		}
		rows, err := q.Query(ctx, fmt.Sprintf(`SELECT %s FROM %s WHERE %s = $1`, b.id, b.table, col), c.ID)
		if err != nil {
			return err
		}
		ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		for _, id := range ids {
			refs[EntityRef{b.kind, id}] = true
		}
	}
	return nil
}

// loadRecords reads the live entities among refs; the others are deleted.
func loadRecords(ctx context.Context, q querier, refs map[EntityRef]bool) ([]*semcat.EntityRecord, []EntityRef, error) {
	byKind := map[semcat.EntityKind][]int64{}
	for r := range refs {
		byKind[r.Kind] = append(byKind[r.Kind], r.ID)
	}
	var out []*semcat.EntityRecord
	for _, kind := range []semcat.EntityKind{semcat.KindCatalog, semcat.KindSchema, semcat.KindTable, semcat.KindSemanticModel, semcat.KindMetric} {
		ids := byKind[kind]
		if len(ids) == 0 {
			continue
		}
		recs, err := loadKind(ctx, q, kind, ids)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, recs...)
	}
	live := map[EntityRef]bool{}
	for _, r := range out {
		live[EntityRef{r.Kind, r.ID}] = true
	}
	var deletes []EntityRef
	for r := range refs {
		if !live[r] {
			deletes = append(deletes, r)
		}
	}
	return out, deletes, nil
}

// The queries that read live entities with their ancestors' names and ids.
// Each takes an array of ids; a dropped entity or one below a dropped parent
// is not returned (a cascade drop marks the whole subtree).
//
// Each starts from the ids and looks up each one's row of the large tables
// by key, in a LATERAL subquery that OFFSET 0 keeps from being flattened
// into a join. During a bulk load the planner's statistics still describe
// those tables as nearly empty, and plans it chose for "= ANY($1)", or for
// a plain join with the ids, read every table of the metalake (through
// (metalake_id, deleted_at), or into a hash) for each chunk of 500 ids:
// 200-900 ms a chunk at 100k entities instead of about 1 ms
// (TestRecordLoadsReadByKeyWithStaleStatistics).
var recordQueries = map[semcat.EntityKind]string{
	semcat.KindCatalog: `SELECT c.catalog_id, m.metalake_id, 0::bigint, 0::bigint, 0::bigint, m.metalake_name, c.catalog_name, '', '',
			c.catalog_name, c.comment, c.properties, c.audit_info, c.type, NULL::jsonb, NULL::json, NULL::json, NULL::json, NULL::json, NULL::json
		FROM unnest($1::bigint[]) AS ids(id)
		JOIN catalog_meta c ON c.catalog_id = ids.id AND c.deleted_at = 0
		JOIN metalake_meta m ON m.metalake_id = c.metalake_id AND m.deleted_at = 0`,
	semcat.KindSchema: `SELECT s.schema_id, m.metalake_id, c.catalog_id, s.schema_id, 0::bigint, m.metalake_name, c.catalog_name, s.schema_name, '',
			s.schema_name, s.comment, s.properties, s.audit_info, c.type, NULL::jsonb, NULL::json, NULL::json, NULL::json, NULL::json, NULL::json
		FROM unnest($1::bigint[]) AS ids(id)
		JOIN schema_meta s ON s.schema_id = ids.id AND s.deleted_at = 0
		JOIN catalog_meta c ON c.catalog_id = s.catalog_id AND c.deleted_at = 0
		JOIN metalake_meta m ON m.metalake_id = s.metalake_id AND m.deleted_at = 0`,
	semcat.KindTable: `SELECT t.table_id, m.metalake_id, c.catalog_id, s.schema_id, 0::bigint, m.metalake_name, c.catalog_name, s.schema_name, '',
			t.table_name, t.comment, t.properties, t.audit_info, c.type, t.columns, NULL::json, NULL::json, NULL::json, NULL::json, NULL::json
		FROM unnest($1::bigint[]) AS ids(id)
		CROSS JOIN LATERAL (SELECT * FROM table_meta WHERE table_id = ids.id AND deleted_at = 0 OFFSET 0) t
		JOIN schema_meta s ON s.schema_id = t.schema_id AND s.deleted_at = 0
		JOIN catalog_meta c ON c.catalog_id = t.catalog_id AND c.deleted_at = 0
		JOIN metalake_meta m ON m.metalake_id = t.metalake_id AND m.deleted_at = 0`,
	semcat.KindSemanticModel: `SELECT sm.semantic_model_id, m.metalake_id, c.catalog_id, s.schema_id, sm.semantic_model_id, m.metalake_name, c.catalog_name, s.schema_name, sm.semantic_model_name,
			sm.semantic_model_name, v.semantic_model_comment, v.properties, sm.audit_info, c.type, NULL::jsonb,
			v.datasets, v.relationships, v.metrics, v.ai_context, v.custom_extensions
		FROM unnest($1::bigint[]) AS ids(id)
		CROSS JOIN LATERAL (SELECT * FROM semantic_model_meta WHERE semantic_model_id = ids.id AND deleted_at = 0 OFFSET 0) sm
		CROSS JOIN LATERAL (SELECT * FROM semantic_model_version_info
			WHERE semantic_model_id = sm.semantic_model_id AND version = sm.current_version OFFSET 0) v
		JOIN schema_meta s ON s.schema_id = sm.schema_id AND s.deleted_at = 0
		JOIN catalog_meta c ON c.catalog_id = sm.catalog_id AND c.deleted_at = 0
		JOIN metalake_meta m ON m.metalake_id = sm.metalake_id AND m.deleted_at = 0`,
	semcat.KindMetric: `SELECT mm.metric_id, m.metalake_id, c.catalog_id, s.schema_id, sm.semantic_model_id, m.metalake_name, c.catalog_name, s.schema_name, sm.semantic_model_name,
			mm.metric_name, NULL::text, '{}'::jsonb, sm.audit_info, c.type, NULL::jsonb,
			NULL::json, NULL::json,
			(SELECT e.value FROM json_array_elements(v.metrics) e WHERE e.value->>'name' = mm.metric_name LIMIT 1),
			NULL::json, NULL::json
		FROM unnest($1::bigint[]) AS ids(id)
		CROSS JOIN LATERAL (SELECT * FROM semantic_model_metric_meta WHERE metric_id = ids.id AND deleted_at = 0 OFFSET 0) mm
		CROSS JOIN LATERAL (SELECT * FROM semantic_model_meta
			WHERE semantic_model_id = mm.semantic_model_id AND deleted_at = 0 OFFSET 0) sm
		CROSS JOIN LATERAL (SELECT * FROM semantic_model_version_info
			WHERE semantic_model_id = sm.semantic_model_id AND version = sm.current_version OFFSET 0) v
		JOIN schema_meta s ON s.schema_id = sm.schema_id AND s.deleted_at = 0
		JOIN catalog_meta c ON c.catalog_id = sm.catalog_id AND c.deleted_at = 0
		JOIN metalake_meta m ON m.metalake_id = sm.metalake_id AND m.deleted_at = 0`,
}

func loadKind(ctx context.Context, q querier, kind semcat.EntityKind, ids []int64) ([]*semcat.EntityRecord, error) {
	rows, err := q.Query(ctx, recordQueries[kind], ids)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*semcat.EntityRecord
	for rows.Next() {
		r := &semcat.EntityRecord{Kind: kind}
		var catalogType string
		var columns, datasets, relationships, metrics, aiContext, extensions []byte
		if err := rows.Scan(&r.ID, &r.MetalakeID, &r.CatalogID, &r.SchemaID, &r.ModelID, &r.Metalake, &r.Catalog, &r.Schema, &r.Model,
			&r.Name, &r.Comment, &r.Properties, &r.Audit, &catalogType, &columns,
			&datasets, &relationships, &metrics, &aiContext, &extensions); err != nil {
			return nil, err
		}
		r.CatalogType = semcat.CatalogType(catalogType)
		switch kind {
		case semcat.KindCatalog:
			r.CatalogID = r.ID
		case semcat.KindTable:
			if err := json.Unmarshal(columns, &r.Columns); err != nil {
				return nil, fmt.Errorf("table %d: decode columns: %w", r.ID, err)
			}
		case semcat.KindSemanticModel:
			d := &semcat.Definition{}
			for _, part := range []struct {
				raw []byte
				dst any
			}{{datasets, &d.Datasets}, {relationships, &d.Relationships}, {metrics, &d.Metrics}, {extensions, &d.CustomExtensions}} {
				if part.raw != nil {
					if err := json.Unmarshal(part.raw, part.dst); err != nil {
						return nil, fmt.Errorf("semantic model %d: decode definition: %w", r.ID, err)
					}
				}
			}
			if aiContext != nil {
				d.AIContext = json.RawMessage(aiContext)
			}
			r.Definition = d
		case semcat.KindMetric:
			if metrics == nil {
				continue // the identity is live but its model's definition lost the name: gone
			}
			r.Metric = &semcat.Metric{}
			if err := json.Unmarshal(metrics, r.Metric); err != nil {
				return nil, fmt.Errorf("metric %d: decode: %w", r.ID, err)
			}
		}
		out = append(out, r)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if err := attachOwners(ctx, q, kind, out); err != nil {
		return nil, err
	}
	if err := attachTags(ctx, q, kind, out); err != nil {
		return nil, err
	}
	return out, attachPolicies(ctx, q, kind, out)
}

// recordOwnersSQL reads the owners of the objects of type $1 and ids $2.
const recordOwnersSQL = `SELECT o.object_id, o.owner_name FROM unnest($2::bigint[]) AS ids(id)
	CROSS JOIN LATERAL (SELECT * FROM owner_meta WHERE object_type = $1 AND object_id = ids.id OFFSET 0) o`

// attachOwners fills in the owners of records of one kind (SetOwner and
// every create write owner_meta and emit the object, so its document
// follows). A metric has its model's owner.
func attachOwners(ctx context.Context, q querier, kind semcat.EntityKind, recs []*semcat.EntityRecord) error {
	if len(recs) == 0 {
		return nil
	}
	objType, idOf := kind, func(r *semcat.EntityRecord) int64 { return r.ID }
	if kind == semcat.KindMetric {
		objType, idOf = semcat.KindSemanticModel, func(r *semcat.EntityRecord) int64 { return r.ModelID }
	}
	byID := make(map[int64][]*semcat.EntityRecord, len(recs))
	ids := make([]int64, 0, len(recs))
	for _, r := range recs {
		id := idOf(r)
		if _, ok := byID[id]; !ok {
			ids = append(ids, id)
		}
		byID[id] = append(byID[id], r)
	}
	rows, err := q.Query(ctx, recordOwnersSQL, string(objType), ids)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return err
		}
		for _, r := range byID[id] {
			r.Owner = name
		}
	}
	return rows.Err()
}

// recordTagsSQL reads the user tags of the objects of kind $1 and ids $2,
// starting from the ids for the reason recordQueries do.
const recordTagsSQL = `SELECT r.object_id, t.tag_name FROM unnest($2::bigint[]) AS ids(id)
	CROSS JOIN LATERAL (SELECT * FROM tag_relation WHERE object_type = $1 AND object_id = ids.id OFFSET 0) r
	JOIN tag_meta t ON t.tag_id = r.tag_id AND t.deleted_at = 0
	ORDER BY t.tag_name COLLATE "C"`

// attachTags fills in the user tags of records of one kind.
func attachTags(ctx context.Context, q querier, kind semcat.EntityKind, recs []*semcat.EntityRecord) error {
	if kind == semcat.KindMetric || len(recs) == 0 {
		return nil
	}
	byID := make(map[int64]*semcat.EntityRecord, len(recs))
	ids := make([]int64, len(recs))
	for i, r := range recs {
		byID[r.ID] = r
		ids[i] = r.ID
		r.Tags = []string{}
	}
	rows, err := q.Query(ctx, recordTagsSQL, string(kind), ids)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return err
		}
		// A tag with several values has a row for each; they come together.
		if t := byID[id].Tags; len(t) == 0 || t[len(t)-1] != name {
			byID[id].Tags = append(t, name)
		}
	}
	return rows.Err()
}

// ScanEntities reads every live searchable entity in one repeatable-read
// snapshot, calling fn with records in batches of up to batch, and returns
// the outbox cursor a fresh index built from them should tail from: just
// below the snapshot's xmin, so every transaction the snapshot may not show
// is replayed (replays are harmless: the indexer re-reads current state).
func (s *Store) ScanEntities(ctx context.Context, batch int, fn func([]*semcat.EntityRecord) error) (OutboxCursor, uint64, error) {
	start, horizon, _, err := s.ScanEntitiesFenced(ctx, batch, nil, fn)
	return start, horizon, err
}

// ScanEntitiesFenced is ScanEntities for a build: with a fence, it commits
// the fence's Next after taking its snapshot and before reading entities,
// and it returns the database's history.
func (s *Store) ScanEntitiesFenced(ctx context.Context, batch int, fence *Fence, fn func([]*semcat.EntityRecord) error) (OutboxCursor, uint64, History, error) {
	var start OutboxCursor
	var horizon uint64
	var history History
	err := s.read(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint`).Scan(&horizon); err != nil {
			return err
		}
		var err error
		if history, err = checkFence(ctx, tx, nil); err != nil {
			return err
		}
		if fence != nil {
			if err := s.writeFence(ctx, fence); err != nil {
				return err
			}
		}
		start = OutboxCursor{TxID: horizon - 1, Seq: 1<<63 - 1}
		for _, k := range []struct {
			kind      semcat.EntityKind
			table, id string
		}{
			{semcat.KindCatalog, "catalog_meta", "catalog_id"},
			{semcat.KindSchema, "schema_meta", "schema_id"},
			{semcat.KindTable, "table_meta", "table_id"},
			{semcat.KindSemanticModel, "semantic_model_meta", "semantic_model_id"},
			{semcat.KindMetric, "semantic_model_metric_meta", "metric_id"},
		} {
			var last int64
			for {
				rows, err := tx.Query(ctx, fmt.Sprintf(`SELECT %s FROM %s WHERE %s > $1 AND deleted_at = 0 ORDER BY %s LIMIT $2`, k.id, k.table, k.id, k.id), last, batch)
				if err != nil {
					return err
				}
				ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
				if err != nil {
					return err
				}
				if len(ids) == 0 {
					break
				}
				last = ids[len(ids)-1]
				recs, err := loadKind(ctx, tx, k.kind, ids)
				if err != nil {
					return err
				}
				if err := fn(recs); err != nil {
					return err
				}
			}
		}
		return nil
	})
	return start, horizon, history, err
}

// Record loads the current state of one object by reference, for the
// metadata endpoint; ENOTFOUND if it does not exist.
func (s *Store) Record(ctx context.Context, metalake string, obj semcat.ObjectRef) (*semcat.EntityRecord, error) {
	var out *semcat.EntityRecord
	err := s.read(ctx, func(tx pgx.Tx) error {
		id, err := s.resolveObject(ctx, tx, metalake, obj, noLock)
		if err != nil {
			return err
		}
		recs, err := loadKind(ctx, tx, obj.Type, []int64{id})
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return semcat.NotFound(obj.Type, "%s '%s' does not exist", obj.Type, obj.FullName)
		}
		out = recs[0]
		return nil
	})
	return out, err
}

// ObjectMetadata returns the current system and user metadata of an object.
func (s *Store) ObjectMetadata(ctx context.Context, metalake string, obj semcat.ObjectRef) (*semcat.Metadata, error) {
	r, err := s.Record(ctx, metalake, obj)
	if err != nil {
		return nil, err
	}
	md := r.Metadata()
	return &md, nil
}

// SampleEntities returns up to n live entities of each searchable kind,
// starting at a random id: a cheap sample for the index scrub.
func (s *Store) SampleEntities(ctx context.Context, n int) ([]*semcat.EntityRecord, error) {
	var out []*semcat.EntityRecord
	err := s.read(ctx, func(tx pgx.Tx) error {
		for _, k := range []struct {
			kind      semcat.EntityKind
			table, id string
		}{
			{semcat.KindCatalog, "catalog_meta", "catalog_id"},
			{semcat.KindSchema, "schema_meta", "schema_id"},
			{semcat.KindTable, "table_meta", "table_id"},
			{semcat.KindSemanticModel, "semantic_model_meta", "semantic_model_id"},
			{semcat.KindMetric, "semantic_model_metric_meta", "metric_id"},
		} {
			rows, err := tx.Query(ctx, fmt.Sprintf(`SELECT %[1]s FROM %[2]s
				WHERE deleted_at = 0 AND %[1]s >= (SELECT floor(random() * (max(%[1]s) + 1)) FROM %[2]s)
				ORDER BY %[1]s LIMIT $1`, k.id, k.table), n)
			if err != nil {
				return err
			}
			ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
			if err != nil {
				return err
			}
			recs, err := loadKind(ctx, tx, k.kind, ids)
			if err != nil {
				return err
			}
			out = append(out, recs...)
		}
		return nil
	})
	return out, err
}

// Records returns the current records of the live entities among refs.
func (s *Store) Records(ctx context.Context, refs []EntityRef) ([]*semcat.EntityRecord, error) {
	set := map[EntityRef]bool{}
	for _, r := range refs {
		set[r] = true
	}
	var recs []*semcat.EntityRecord
	err := s.read(ctx, func(tx pgx.Tx) error {
		var err error
		recs, _, err = loadRecords(ctx, tx, set)
		return err
	})
	return recs, err
}
