package catalogdb

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// OutboxCursor is a position in the outbox's (txid, seq) order.
type OutboxCursor struct {
	TxID uint64
	Seq  int64
}

// String prints the cursor for logs.
func (c OutboxCursor) String() string { return fmt.Sprintf("%d/%d", c.TxID, c.Seq) }

// Less orders cursors.
func (c OutboxCursor) Less(o OutboxCursor) bool {
	return c.TxID < o.TxID || (c.TxID == o.TxID && c.Seq < o.Seq)
}

// EntityRef names one searchable entity.
type EntityRef struct {
	Kind semcat.EntityKind
	ID   int64
}

// OutboxBatch says what one poll of the outbox found: how many rows after
// the cursor below the xmin horizon, and where they end.
type OutboxBatch struct {
	Rows int
	// Next is the cursor after this batch.
	Next OutboxCursor
	// Horizon: once this batch is applied, every transaction with a txid
	// below it is reflected.
	Horizon uint64
	// Next transaction id of the poll's snapshot (its xmax): while
	// Horizon stays below it, a transaction still open holds the index
	// back.
	NextTxID uint64
	// ServerStarted is when the PostgreSQL server started: a change
	// means it restarted, and its crash recovery may have handed out
	// transaction ids again.
	ServerStarted time.Time
}

// OutboxChunk is the current state of part of the entities a poll names:
// the live ones to (re)index and the ones that no longer exist. Last marks
// the final chunk of the poll.
type OutboxChunk struct {
	Poll    *OutboxBatch // the rows, cursor and horizon of the poll
	Upserts []*semcat.EntityRecord
	Deletes []EntityRef
	Last    bool
}

// PrunedPastError says the outbox was pruned past a consumer's cursor: rows
// after the cursor that the consumer never applied may be gone, so what it
// built from them must be rebuilt. Reading on would skip them silently.
type PrunedPastError struct {
	Cursor, Watermark OutboxCursor
}

func (e *PrunedPastError) Error() string {
	return fmt.Sprintf("the outbox was pruned to %s, past cursor %s", e.Watermark, e.Cursor)
}

// PollOutbox reads up to limit outbox rows after cursor whose transactions
// are below the snapshot's xmin horizon — every such transaction is
// committed or aborted, so no row can later appear behind the cursor
// (DESIGN §3) — and re-reads the current state of the entities they name in
// the same repeatable-read snapshot, handing it to fn in chunks of at most
// chunk entities. A container row (a renamed or dropped metalake, catalog,
// schema or model) names its whole subtree, so chunking keeps memory bounded
// whatever the subtree's size. fn is not called when the rows name nothing
// searchable.
func (s *Store) PollOutbox(ctx context.Context, after OutboxCursor, limit, chunk int, fn func(OutboxChunk) error) (*OutboxBatch, error) {
	b := &OutboxBatch{Next: after}
	err := s.read(ctx, func(tx pgx.Tx) error {
		// Pruning deletes rows and raises the watermark in one
		// transaction, so in this snapshot a cursor below the watermark
		// means rows after it may be gone.
		var xmin uint64
		var watermark OutboxCursor
		if err := tx.QueryRow(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint, pg_snapshot_xmax(pg_current_snapshot())::text::bigint,
			txid::text::bigint, seq, pg_postmaster_start_time() FROM outbox_watermark`).Scan(&xmin, &b.NextTxID, &watermark.TxID, &watermark.Seq, &b.ServerStarted); err != nil {
			return err
		}
		if after.Less(watermark) {
			return &PrunedPastError{Cursor: after, Watermark: watermark}
		}
		rows, err := tx.Query(ctx, pollOutboxSQL,
			strconv.FormatUint(after.TxID, 10), after.Seq, strconv.FormatUint(xmin, 10), limit)
		if err != nil {
			return err
		}
		refs := map[EntityRef]bool{}
		var containers []EntityRef
		for rows.Next() {
			var ref EntityRef
			var kind string
			if err := rows.Scan(&b.Next.TxID, &b.Next.Seq, &kind, &ref.ID); err != nil {
				rows.Close()
				return err
			}
			b.Rows++
			ref.Kind = semcat.EntityKind(kind)
			if ref.Kind == KindSynonyms || ref.Kind == semcat.KindMetalake {
				s.synonymsChanged() // another server's write, or a metalake made or dropped
			}
			switch ref.Kind {
			case semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema, semcat.KindSemanticModel:
				containers = append(containers, ref)
			}
			if ref.Kind != semcat.KindMetalake && searchable(ref.Kind) {
				refs[ref] = true
			}
		}
		if err := rows.Err(); err != nil {
			return err
		}
		b.Horizon = xmin
		if b.Rows == limit {
			// More rows may follow in this transaction: only the ones
			// before it are known to be complete.
			b.Horizon = b.Next.TxID
		}
		for _, c := range containers {
			if err := expand(ctx, tx, c, refs); err != nil {
				return err
			}
		}
		all := make([]EntityRef, 0, len(refs))
		for r := range refs {
			all = append(all, r)
		}
		sort.Slice(all, func(i, j int) bool {
			return all[i].Kind < all[j].Kind || all[i].Kind == all[j].Kind && all[i].ID < all[j].ID
		})
		for start := 0; start < len(all); start += chunk {
			part := all[start:min(start+chunk, len(all))]
			set := make(map[EntityRef]bool, len(part))
			for _, r := range part {
				set[r] = true
			}
			upserts, deletes, err := loadRecords(ctx, tx, set)
			if err != nil {
				return err
			}
			if err := fn(OutboxChunk{Poll: b, Upserts: upserts, Deletes: deletes, Last: start+chunk >= len(all)}); err != nil {
				return err
			}
		}
		return nil
	})
	return b, err
}

// pollOutboxSQL reads the next outbox rows after a cursor ($1, $2) and
// below a horizon ($3), at most $4 of them. Its ORDER BY names the table's
// columns: an unqualified "txid" would be the output column (the bigint it
// is cast to), which the primary key cannot deliver in order, so PostgreSQL
// would read and sort every row after the cursor on each poll. With a
// backlog of 100,000 rows that took 32 ms a poll instead of 0.6 ms, and
// during a bulk load, whose backlog grows while the tail polls, it was most
// of PostgreSQL's work (TestPollReadsTheOutboxInKeyOrder).
const pollOutboxSQL = `SELECT o.txid::text::bigint, o.seq, o.entity_kind, o.entity_id FROM outbox o
	WHERE (o.txid, o.seq) > ($1::text::xid8, $2) AND o.txid < $3::text::xid8
	ORDER BY o.txid, o.seq LIMIT $4`

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
	if err := attachTags(ctx, q, kind, out); err != nil {
		return nil, err
	}
	return out, attachPolicies(ctx, q, kind, out)
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
	var start OutboxCursor
	var horizon uint64
	err := s.read(ctx, func(tx pgx.Tx) error {
		if err := tx.QueryRow(ctx, `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint`).Scan(&horizon); err != nil {
			return err
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
	return start, horizon, err
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

// PendingRefs lists the entities that outbox rows after the cursor name:
// changes a consumer at that cursor has yet to apply.
func (s *Store) PendingRefs(ctx context.Context, after OutboxCursor) (map[EntityRef]bool, error) {
	pending := map[EntityRef]bool{}
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT DISTINCT entity_kind, entity_id FROM outbox WHERE (txid, seq) > ($1::text::xid8, $2)`,
			strconv.FormatUint(after.TxID, 10), after.Seq)
		if err != nil {
			return err
		}
		var r EntityRef
		_, err = pgx.ForEachRow(rows, []any{&r.Kind, &r.ID}, func() error {
			pending[r] = true
			return nil
		})
		return err
	})
	return pending, err
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
