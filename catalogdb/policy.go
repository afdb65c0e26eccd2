package catalogdb

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// Policies (SPEC §2.10, Gravitino 1.0) are stored as tags are: policy_meta
// rows of a metalake, soft-deleted, and policy_relation rows pointing at
// object ids, which are never reused.

const policyColumns = `policy_id, policy_name, comment, policy_type, enabled, content, audit_info`

func scanPolicy(row pgx.Row) (*semcat.Policy, error) {
	p := &semcat.Policy{}
	if err := row.Scan(&p.ID, &p.Name, &p.Comment, &p.PolicyType, &p.Enabled, &p.Content, &p.Audit); err != nil {
		return nil, err
	}
	if p.Content.SupportedObjectTypes == nil {
		p.Content.SupportedObjectTypes = []string{}
	}
	return p, nil
}

func queryPolicies(ctx context.Context, q querier, sql string, args ...any) ([]*semcat.Policy, error) {
	rows, err := q.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*semcat.Policy{}
	for rows.Next() {
		p, err := scanPolicy(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// getPolicy loads a live policy of metalake mid; notFound is returned when
// there is none.
func getPolicy(ctx context.Context, q querier, mid int64, name, lock string, notFound error) (*semcat.Policy, error) {
	p, err := scanPolicy(q.QueryRow(ctx, `SELECT `+policyColumns+` FROM policy_meta
		WHERE metalake_id = $1 AND policy_name = $2 AND deleted_at = 0`+lock, mid, name))
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, notFound
	}
	return p, err
}

func policyExists(name string) error {
	return semcat.AlreadyExists(semcat.KindPolicy, "policy '%s' already exists", name)
}

// CreatePolicy creates a policy in a metalake.
func (s *Store) CreatePolicy(ctx context.Context, metalake string, req semcat.PolicyCreate) (*semcat.Policy, semcat.Position, error) {
	if err := req.Validate(); err != nil {
		return nil, semcat.Position{}, err
	}
	enabled := req.Enabled == nil || *req.Enabled
	var out *semcat.Policy
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		p := &semcat.Policy{Name: req.Name, Comment: req.Comment, PolicyType: req.PolicyType, Enabled: enabled,
			Content: *req.Content, Audit: semcat.NewAudit(actor(ctx), s.Now())}
		err = tx.QueryRow(ctx, `INSERT INTO policy_meta (policy_name, metalake_id, comment, policy_type, enabled, content, audit_info)
			VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING policy_id, content`,
			p.Name, mid, p.Comment, p.PolicyType, p.Enabled, p.Content, p.Audit).Scan(&p.ID, &p.Content)
		if uniqueViolation(err) {
			return policyExists(p.Name)
		} else if err != nil {
			return err
		}
		out = p
		return tx.emitCreated(ctx, mid, semcat.KindPolicy, p.ID, actor(ctx))
	})
	return out, pos, err
}

// GetPolicy loads a policy.
func (s *Store) GetPolicy(ctx context.Context, metalake, name string) (*semcat.Policy, error) {
	var out *semcat.Policy
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		out, err = getPolicy(ctx, tx, mid, name, noLock, semcat.NoSuchPolicy(metalake, name))
		return err
	})
	return out, err
}

// ListPolicyInfos lists a metalake's policies in byte order of their names.
func (s *Store) ListPolicyInfos(ctx context.Context, metalake string) ([]*semcat.Policy, error) {
	var out []*semcat.Policy
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		out, err = queryPolicies(ctx, tx, `SELECT `+policyColumns+` FROM policy_meta
			WHERE metalake_id = $1 AND deleted_at = 0 ORDER BY policy_name COLLATE "C"`, mid)
		return err
	})
	return out, err
}

// ListPolicies lists the names of a metalake's policies in byte order.
func (s *Store) ListPolicies(ctx context.Context, metalake string) ([]string, error) {
	var out []string
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		out, err = listNames(ctx, tx, `SELECT policy_name FROM policy_meta
			WHERE metalake_id = $1 AND deleted_at = 0 ORDER BY policy_name COLLATE "C"`, mid)
		return err
	})
	return out, err
}

// AlterPolicy applies updates to a policy, all or nothing. A rename keeps
// the policy's associations (they point at its id), and every object it is
// attached to gets an outbox row so that the index shows the new name.
func (s *Store) AlterPolicy(ctx context.Context, metalake, name string, updates []semcat.PolicyUpdate) (*semcat.Policy, semcat.Position, error) {
	if err := semcat.ValidatePolicyUpdates(updates); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.Policy
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		p, err := getPolicy(ctx, tx, mid, name, updateLock, semcat.NoSuchPolicy(metalake, name))
		if err != nil {
			return err
		}
		if err := semcat.ApplyPolicyUpdates(p, updates); err != nil {
			return err
		}
		p.Audit.Touch(actor(ctx), s.Now())
		// The content comes back as every read shows it (jsonb's form).
		err = tx.QueryRow(ctx, `UPDATE policy_meta SET policy_name = $2, comment = $3, content = $4, audit_info = $5 WHERE policy_id = $1
			RETURNING content`, p.ID, p.Name, p.Comment, p.Content, p.Audit).Scan(&p.Content)
		if uniqueViolation(err) {
			return policyExists(p.Name)
		} else if err != nil {
			return err
		}
		if p.Name != name {
			if err := emitPolicyObjects(ctx, tx, p.ID); err != nil {
				return err
			}
		}
		out = p
		return tx.emit(ctx, semcat.KindPolicy, p.ID, opUpsert)
	})
	return out, pos, err
}

// SetPolicyEnabled enables or disables a policy; setting the state it has
// changes nothing, as in Gravitino.
func (s *Store) SetPolicyEnabled(ctx context.Context, metalake, name string, enable bool) (semcat.Position, error) {
	return s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		p, err := getPolicy(ctx, tx, mid, name, updateLock, semcat.NoSuchPolicy(metalake, name))
		if err != nil {
			return err
		}
		if p.Enabled != enable {
			p.Audit.Touch(actor(ctx), s.Now())
			if _, err := tx.Exec(ctx, `UPDATE policy_meta SET enabled = $2, audit_info = $3 WHERE policy_id = $1`, p.ID, enable, p.Audit); err != nil {
				return err
			}
		}
		return tx.emit(ctx, semcat.KindPolicy, p.ID, opUpsert)
	})
}

// DropPolicy drops a policy and detaches it from every object; each of
// those objects gets an outbox row because its policies changed. A missing
// metalake or policy is not an error: dropped is false.
func (s *Store) DropPolicy(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	dropped := false
	pos, err := s.write(ctx, func(tx *writeTx) error {
		dropped = false
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			if semcat.ErrorCode(err) == semcat.ENOTFOUND {
				return nil
			}
			return err
		}
		p, err := getPolicy(ctx, tx, mid, name, updateLock, pgx.ErrNoRows)
		if err == pgx.ErrNoRows {
			return nil
		} else if err != nil {
			return err
		}
		if err := emitPolicyObjects(ctx, tx, p.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM policy_relation WHERE policy_id = $1`, p.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE policy_meta SET deleted_at = $2 WHERE policy_id = $1`, p.ID, s.nowMillis()); err != nil {
			return err
		}
		dropped = true
		return tx.emit(ctx, semcat.KindPolicy, p.ID, opDelete)
	})
	return dropped, pos, err
}

// emitPolicyObjects writes an outbox row for every object a policy is
// attached to: their indexed policies change when it is renamed or dropped.
func emitPolicyObjects(ctx context.Context, tx *writeTx, policyID int64) error {
	for _, kind := range []semcat.EntityKind{semcat.KindCatalog, semcat.KindSchema, semcat.KindTable, semcat.KindSemanticModel} {
		if err := tx.emitQuery(ctx, kind, opUpsert, `SELECT object_id AS id FROM policy_relation WHERE policy_id = $1 AND object_type = $2`, policyID, string(kind)); err != nil {
			return err
		}
	}
	return nil
}

// policyObjectsSQL lists the live objects of policy $1 with their dotted
// names, by type and then name.
const policyObjectsSQL = `
SELECT object_type, full_name FROM (
  SELECT r.object_type, CASE r.object_type
    WHEN 'catalog' THEN (SELECT c.catalog_name FROM catalog_meta c WHERE c.catalog_id = r.object_id AND c.deleted_at = 0)
    WHEN 'schema' THEN (SELECT c.catalog_name || '.' || s.schema_name FROM schema_meta s
      JOIN catalog_meta c ON c.catalog_id = s.catalog_id AND c.deleted_at = 0
      WHERE s.schema_id = r.object_id AND s.deleted_at = 0)
    WHEN 'table' THEN (SELECT c.catalog_name || '.' || s.schema_name || '.' || t.table_name FROM table_meta t
      JOIN schema_meta s ON s.schema_id = t.schema_id AND s.deleted_at = 0
      JOIN catalog_meta c ON c.catalog_id = t.catalog_id AND c.deleted_at = 0
      WHERE t.table_id = r.object_id AND t.deleted_at = 0)
    WHEN 'semantic_model' THEN (SELECT c.catalog_name || '.' || s.schema_name || '.' || sm.semantic_model_name FROM semantic_model_meta sm
      JOIN schema_meta s ON s.schema_id = sm.schema_id AND s.deleted_at = 0
      JOIN catalog_meta c ON c.catalog_id = sm.catalog_id AND c.deleted_at = 0
      WHERE sm.semantic_model_id = r.object_id AND sm.deleted_at = 0)
    END AS full_name
  FROM policy_relation r WHERE r.policy_id = $1
) o
WHERE full_name IS NOT NULL
ORDER BY array_position(ARRAY['catalog', 'schema', 'table', 'semantic_model'], object_type), full_name COLLATE "C"`

// PolicyObjects lists the live objects a policy is attached to directly,
// by type (catalog, schema, table, semantic model) and then full name.
func (s *Store) PolicyObjects(ctx context.Context, metalake, name string) ([]semcat.TaggedObject, error) {
	var out []semcat.TaggedObject
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		p, err := getPolicy(ctx, tx, mid, name, noLock, semcat.NoSuchPolicy(metalake, name))
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, policyObjectsSQL, p.ID)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, func(row pgx.CollectableRow) (semcat.TaggedObject, error) {
			var o semcat.TaggedObject
			err := row.Scan(&o.Type, &o.FullName)
			return o, err
		})
		if out == nil {
			out = []semcat.TaggedObject{}
		}
		return err
	})
	return out, err
}

// objectPoliciesSQL lists the live policies of the objects $1/$2 (types
// and ids), nearest first, then by name; depth 1 is the object itself.
const objectPoliciesSQL = `SELECT o.depth, ` + policyColumnsP + `
	FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS o(object_type, object_id, depth)
	JOIN policy_relation r ON r.object_type = o.object_type AND r.object_id = o.object_id
	JOIN policy_meta p ON p.policy_id = r.policy_id AND p.deleted_at = 0
	ORDER BY o.depth, p.policy_name COLLATE "C"`

const policyColumnsP = `p.policy_id, p.policy_name, p.comment, p.policy_type, p.enabled, p.content, p.audit_info`

// ObjectPolicyInfos lists an object's policies: its own, then those of its
// schema and catalog (inherited), each name once, nearest first, as
// Gravitino's object policy listing.
func (s *Store) ObjectPolicyInfos(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]*semcat.Policy, error) {
	var out []*semcat.Policy
	err := s.read(ctx, func(tx pgx.Tx) error {
		p, id, err := s.resolveObjectPath(ctx, tx, metalake, obj, noLock)
		if err != nil {
			return err
		}
		types, ids := lineage(obj, p, id)
		rows, err := tx.Query(ctx, objectPoliciesSQL, types, ids)
		if err != nil {
			return err
		}
		defer rows.Close()
		out = []*semcat.Policy{}
		seen := map[int64]bool{}
		for rows.Next() {
			var depth int64
			pol := &semcat.Policy{}
			if err := rows.Scan(&depth, &pol.ID, &pol.Name, &pol.Comment, &pol.PolicyType, &pol.Enabled, &pol.Content, &pol.Audit); err != nil {
				return err
			}
			if seen[pol.ID] {
				continue // a nearer object carries it
			}
			seen[pol.ID] = true
			inherited := depth > 1
			pol.Inherited = &inherited
			if pol.Content.SupportedObjectTypes == nil {
				pol.Content.SupportedObjectTypes = []string{}
			}
			out = append(out, pol)
		}
		return rows.Err()
	})
	return out, err
}

// AssociatePolicies attaches and detaches policies of an object in one
// transaction, with Gravitino's semantics: a name in both lists is left
// alone, policies that do not exist are ignored, attaching a policy the
// object holds is PolicyAlreadyAssociatedException and applies nothing.
// It returns the names of the object's own policies afterwards, in byte
// order; the object is locked so that concurrent changes take turns.
func (s *Store) AssociatePolicies(ctx context.Context, metalake string, obj semcat.ObjectRef, req semcat.PolicyAssociation) ([]string, semcat.Position, error) {
	if err := req.Validate(); err != nil {
		return nil, semcat.Position{}, err
	}
	change := req.Effective()
	var out []string
	pos, err := s.write(ctx, func(tx *writeTx) error {
		p, id, err := s.resolveObjectPath(ctx, tx, metalake, obj, updateLock)
		if err != nil {
			return err
		}
		found, err := lockPolicies(ctx, tx, p.metalakeID, append(slices.Clone(change.PoliciesToAdd), change.PoliciesToRemove...))
		if err != nil {
			return err
		}
		var add, remove []int64
		for _, n := range change.PoliciesToRemove {
			if pid, ok := found[n]; ok {
				remove = append(remove, pid)
			}
		}
		for _, n := range change.PoliciesToAdd {
			if pid, ok := found[n]; ok {
				add = append(add, pid)
			}
		}
		if len(remove) > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM policy_relation WHERE object_type = $1 AND object_id = $2 AND policy_id = ANY($3)`,
				string(obj.Type), id, remove); err != nil {
				return err
			}
		}
		if len(add) > 0 {
			held, err := listNames(ctx, tx, `SELECT p.policy_name FROM policy_relation r JOIN policy_meta p ON p.policy_id = r.policy_id
				WHERE r.object_type = $1 AND r.object_id = $2 AND r.policy_id = ANY($3) ORDER BY p.policy_name COLLATE "C"`, string(obj.Type), id, add)
			if err != nil {
				return err
			}
			if len(held) > 0 {
				return &semcat.Error{Code: semcat.EEXISTS, Entity: semcat.KindPolicy, Type: "PolicyAlreadyAssociatedException",
					Message: fmt.Sprintf("policies [%s] are already associated with %s '%s'", strings.Join(held, ", "), obj.Type, obj.FullName)}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO policy_relation (object_type, object_id, policy_id)
				SELECT $1, $2, unnest($3::bigint[])`, string(obj.Type), id, add); err != nil {
				return err
			}
		}
		if out, err = objectPolicies(ctx, tx, obj, id); err != nil {
			return err
		}
		return tx.emit(ctx, obj.Type, id, opUpsert)
	})
	return out, pos, err
}

// lockPolicies finds the live policies of metalake mid among names, locked
// against a concurrent drop in id order, and maps each name found to its id.
func lockPolicies(ctx context.Context, tx querier, mid int64, names []string) (map[string]int64, error) {
	found := map[string]int64{}
	if len(names) == 0 {
		return found, nil
	}
	rows, err := tx.Query(ctx, `SELECT policy_id, policy_name FROM policy_meta
		WHERE metalake_id = $1 AND policy_name = ANY($2) AND deleted_at = 0
		ORDER BY policy_id FOR SHARE`, mid, names)
	if err != nil {
		return nil, err
	}
	var (
		id   int64
		name string
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &name}, func() error {
		found[name] = id
		return nil
	})
	return found, err
}

// objectPolicies lists the names of an object's own policies in byte order.
func objectPolicies(ctx context.Context, q querier, obj semcat.ObjectRef, id int64) ([]string, error) {
	return listNames(ctx, q, `SELECT p.policy_name FROM policy_relation r JOIN policy_meta p ON p.policy_id = r.policy_id AND p.deleted_at = 0
		WHERE r.object_type = $1 AND r.object_id = $2 ORDER BY p.policy_name COLLATE "C"`, string(obj.Type), id)
}

// recordPoliciesSQL reads the own policies of the objects of kind $1 and
// ids $2, as recordTagsSQL reads their tags.
const recordPoliciesSQL = `SELECT r.object_id, p.policy_name FROM unnest($2::bigint[]) AS ids(id)
	CROSS JOIN LATERAL (SELECT * FROM policy_relation WHERE object_type = $1 AND object_id = ids.id OFFSET 0) r
	JOIN policy_meta p ON p.policy_id = r.policy_id AND p.deleted_at = 0
	ORDER BY p.policy_name COLLATE "C"`

// attachPolicies fills in the own policies of records of one kind.
func attachPolicies(ctx context.Context, q querier, kind semcat.EntityKind, recs []*semcat.EntityRecord) error {
	if kind == semcat.KindMetric || len(recs) == 0 {
		return nil
	}
	byID := make(map[int64]*semcat.EntityRecord, len(recs))
	ids := make([]int64, len(recs))
	for i, r := range recs {
		byID[r.ID] = r
		ids[i] = r.ID
	}
	rows, err := q.Query(ctx, recordPoliciesSQL, string(kind), ids)
	if err != nil {
		return err
	}
	var (
		id   int64
		name string
	)
	_, err = pgx.ForEachRow(rows, []any{&id, &name}, func() error {
		byID[id].Policies = append(byID[id].Policies, name)
		return nil
	})
	return err
}
