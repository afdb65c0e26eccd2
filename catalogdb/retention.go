package catalogdb

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// RetentionPolicy says how long dropped rows and old model versions are
// kept. A zero field takes its default.
type RetentionPolicy struct {
	// DeletedAfter is how long a dropped or retired row is kept before it is
	// hard-deleted (default 7 days).
	DeletedAfter time.Duration
	// KeepVersions is how many of a live model's newest version snapshots
	// are kept, the current one included (default 1: only the current).
	// Older snapshots are deleted whatever their age; the current version
	// is never deleted.
	KeepVersions int
	// BatchSize bounds the rows deleted per statement and transaction, so a
	// large purge never holds one long transaction (default 10 000).
	BatchSize int
}

// Retention defaults.
const (
	DefaultDeletedAfter = 7 * 24 * time.Hour
	DefaultKeepVersions = 1
	DefaultBatchSize    = 10_000
)

// withDefaults fills in zero fields and rejects negative ones.
func (p RetentionPolicy) withDefaults() (RetentionPolicy, error) {
	if p.DeletedAfter < 0 || p.KeepVersions < 0 || p.BatchSize < 0 {
		return p, semcat.Errorf(semcat.EINVALID, "retention policy: negative value in %+v", p)
	}
	if p.DeletedAfter == 0 {
		p.DeletedAfter = DefaultDeletedAfter
	}
	if p.KeepVersions == 0 {
		p.KeepVersions = DefaultKeepVersions
	}
	if p.BatchSize == 0 {
		p.BatchSize = DefaultBatchSize
	}
	return p, nil
}

// PurgeStats counts the rows a purge deleted, by kind.
type PurgeStats struct {
	MetricIdentities int64
	ModelVersions    int64
	Models           int64
	Tables           int64
	Schemas          int64
	Catalogs         int64
	Metalakes        int64
	Tags             int64
	Users            int64
	Groups           int64
	Roles            int64
	Policies         int64
}

// purgeStep hard-deletes one kind of row, a batch at a time.
type purgeStep struct {
	table, id string
	// candidates selects the ids of up to $2 rows to delete, locking them;
	// $1 is arg.
	candidates string
	arg        int64
	// dependents delete rows that refer to the batch ($1, the ids) and have
	// no life of their own: tag associations, grants, ownership, role
	// memberships.
	dependents []string
	count      *int64
}

// expired selects, for a purgeStep, rows of table dropped before $1 (epoch
// milliseconds) that no row of the children tables refers to any more.
// Children normally go first, in the same purge, because a drop cascades
// with one timestamp; the check keeps a parent whose child outlives it from
// failing the whole purge on a foreign key. Locked rows are skipped, so
// purges in several processes share the work instead of queueing.
func expired(table, id string, children ...string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "SELECT t.%s FROM %s t WHERE t.deleted_at > 0 AND t.deleted_at < $1", id, table)
	for _, c := range children {
		fmt.Fprintf(&b, " AND NOT EXISTS (SELECT 1 FROM %s c WHERE c.%s = t.%s)", c, id, id)
	}
	b.WriteString(" LIMIT $2 FOR UPDATE OF t SKIP LOCKED")
	return b.String()
}

// detach deletes the rows that attach tags, grants and an owner to purged
// objects of one kind ($1, their ids): object_type is the entity kind, and
// object ids are never reused, so these rows could never match again.
func detach(kind semcat.EntityKind) []string {
	out := make([]string, 0, 3)
	for _, table := range []string{"tag_relation", "role_privilege", "owner_meta", "policy_relation"} {
		out = append(out, fmt.Sprintf("DELETE FROM %s WHERE object_type = '%s' AND object_id = ANY($1)", table, kind))
	}
	return out
}

// Purge hard-deletes what retention no longer keeps: rows dropped or
// retired longer ago than p.DeletedAfter (before s.Now() − DeletedAfter),
// and the version snapshots of each live model older than its newest
// p.KeepVersions. Live rows are never deleted, and neither is a model's
// current version. Children go before their parents (identities and
// versions, then models, tables, schemas, catalogs, tags, users, roles,
// metalakes), in batches of p.BatchSize rows, each batch its own short
// transaction. On error Purge returns what it deleted so far; a later run
// carries on, and a run with nothing to do deletes nothing.
//
// Purge writes no outbox rows: the drops did, and an older version of a live
// model is invisible outside the store.
//
// Tag associations, grants and ownership of purged objects go with them.
func (s *Store) Purge(ctx context.Context, p RetentionPolicy) (PurgeStats, error) {
	var st PurgeStats
	p, err := p.withDefaults()
	if err != nil {
		return st, err
	}
	cutoff := s.Now().Add(-p.DeletedAfter).UnixMilli()
	steps := []purgeStep{
		{table: "semantic_model_metric_meta", id: "metric_id", arg: cutoff, count: &st.MetricIdentities,
			candidates: expired("semantic_model_metric_meta", "metric_id")},
		{table: "semantic_model_version_info", id: "id", arg: cutoff, count: &st.ModelVersions,
			candidates: expired("semantic_model_version_info", "id")},
		{table: "semantic_model_version_info", id: "id", arg: int64(p.KeepVersions), count: &st.ModelVersions,
			candidates: `SELECT v.id FROM semantic_model_meta m
				JOIN semantic_model_version_info v ON v.semantic_model_id = m.semantic_model_id
				WHERE m.deleted_at = 0 AND v.version <= m.current_version - $1
				LIMIT $2 FOR UPDATE OF v SKIP LOCKED`},
		{table: "semantic_model_meta", id: "semantic_model_id", arg: cutoff, count: &st.Models,
			candidates: expired("semantic_model_meta", "semantic_model_id", "semantic_model_version_info", "semantic_model_metric_meta"),
			dependents: detach(semcat.KindSemanticModel)},
		{table: "table_meta", id: "table_id", arg: cutoff, count: &st.Tables,
			candidates: expired("table_meta", "table_id"),
			dependents: append(detach(semcat.KindTable), `DELETE FROM table_statistic WHERE table_id = ANY($1)`,
				`DELETE FROM tag_relation WHERE object_type = 'column' AND object_id IN (SELECT column_id FROM column_meta WHERE table_id = ANY($1))`,
				`DELETE FROM column_meta WHERE table_id = ANY($1)`)},
		{table: "schema_meta", id: "schema_id", arg: cutoff, count: &st.Schemas,
			candidates: expired("schema_meta", "schema_id", "table_meta", "semantic_model_meta"),
			dependents: detach(semcat.KindSchema)},
		{table: "catalog_meta", id: "catalog_id", arg: cutoff, count: &st.Catalogs,
			candidates: expired("catalog_meta", "catalog_id", "schema_meta", "table_meta", "semantic_model_meta"),
			dependents: detach(semcat.KindCatalog)},
		{table: "tag_meta", id: "tag_id", arg: cutoff, count: &st.Tags,
			candidates: expired("tag_meta", "tag_id"),
			dependents: append(detach(semcat.KindTag), `DELETE FROM tag_relation WHERE tag_id = ANY($1)`)},
		{table: "policy_meta", id: "policy_id", arg: cutoff, count: &st.Policies,
			candidates: expired("policy_meta", "policy_id"),
			dependents: append(detach(semcat.KindPolicy), `DELETE FROM policy_relation WHERE policy_id = ANY($1)`)},
		{table: "user_meta", id: "user_id", arg: cutoff, count: &st.Users,
			candidates: expired("user_meta", "user_id"),
			dependents: append(detach(semcat.KindUser), `DELETE FROM user_role WHERE user_id = ANY($1)`)},
		{table: "group_meta", id: "group_id", arg: cutoff, count: &st.Groups,
			candidates: expired("group_meta", "group_id"),
			dependents: append(detach(semcat.KindGroup), `DELETE FROM group_role WHERE group_id = ANY($1)`)},
		{table: "role_meta", id: "role_id", arg: cutoff, count: &st.Roles,
			candidates: expired("role_meta", "role_id"),
			dependents: append(detach(semcat.KindRole), `DELETE FROM user_role WHERE role_id = ANY($1)`,
				`DELETE FROM group_role WHERE role_id = ANY($1)`, `DELETE FROM role_privilege WHERE role_id = ANY($1)`)},
		{table: "metalake_meta", id: "metalake_id", arg: cutoff, count: &st.Metalakes,
			candidates: expired("metalake_meta", "metalake_id", "catalog_meta", "schema_meta", "table_meta",
				"semantic_model_meta", "tag_meta", "user_meta", "group_meta", "role_meta", "policy_meta"),
			// Owners of everything in the metalake, the metalake's own included.
			dependents: append(detach(semcat.KindMetalake), `DELETE FROM owner_meta WHERE metalake_id = ANY($1)`)},
	}
	for _, step := range steps {
		if err := s.purgeBatches(ctx, step, p.BatchSize); err != nil {
			return st, err
		}
	}
	return st, nil
}

// purgeBatches runs step a batch at a time until a batch comes back short.
func (s *Store) purgeBatches(ctx context.Context, step purgeStep, batch int) error {
	for {
		var ids []int64
		var deleted int64
		_, err := s.write(ctx, func(tx *writeTx) error {
			rows, err := tx.Query(ctx, step.candidates, step.arg, batch)
			if err != nil {
				return err
			}
			if ids, err = pgx.CollectRows(rows, pgx.RowTo[int64]); err != nil || len(ids) == 0 {
				return err
			}
			for _, d := range step.dependents {
				if _, err := tx.Exec(ctx, d, ids); err != nil {
					return err
				}
			}
			tag, err := tx.Exec(ctx, fmt.Sprintf("DELETE FROM %s WHERE %s = ANY($1)", step.table, step.id), ids)
			deleted = tag.RowsAffected()
			return err
		})
		if err != nil {
			return fmt.Errorf("purge %s: %w", step.table, err)
		}
		*step.count += deleted
		if len(ids) < batch {
			return nil
		}
	}
}
