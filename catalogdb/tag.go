package catalogdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

func tagFromRow(r *namedRow) *semcat.Tag {
	return &semcat.Tag{ID: r.ID, Name: r.Name, Comment: r.Comment, Properties: r.Properties, AllowedValues: r.AllowedValues, Audit: r.Audit}
}

func noSuchTag(metalake, name string) error {
	return semcat.NotFound(semcat.KindTag, "tag '%s.%s' does not exist", metalake, name)
}

// CreateTag creates a tag in a metalake.
func (s *Store) CreateTag(ctx context.Context, metalake string, req semcat.TagCreate) (*semcat.Tag, semcat.Position, error) {
	if err := req.Validate(); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.Tag
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		r := &namedRow{Name: req.Name, Comment: req.Comment, Properties: props(cloneProps(req.Properties)), Audit: semcat.NewAudit(actor(ctx), s.Now()),
			AllowedValues: req.AllowedValues}
		if err := tags.insert(ctx, tx, r, map[string]int64{"metalake_id": mid}, "tag"); err != nil {
			return err
		}
		out = tagFromRow(r)
		return tx.emit(ctx, semcat.KindTag, r.ID, opUpsert)
	})
	return out, pos, err
}

// GetTag loads a tag.
func (s *Store) GetTag(ctx context.Context, metalake, name string) (*semcat.Tag, error) {
	var out *semcat.Tag
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		r, err := tags.get(ctx, tx, mid, name, noLock, noSuchTag(metalake, name))
		if err != nil {
			return err
		}
		out = tagFromRow(r)
		return nil
	})
	return out, err
}

// ListTags lists the names of a metalake's tags in byte order.
func (s *Store) ListTags(ctx context.Context, metalake string) ([]string, error) {
	var out []string
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		out, err = tags.names(ctx, tx, mid)
		return err
	})
	return out, err
}

// ListTagInfos lists a metalake's tags in byte order of their names.
func (s *Store) ListTagInfos(ctx context.Context, metalake string) ([]*semcat.Tag, error) {
	var out []*semcat.Tag
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		rows, err := tags.list(ctx, tx, mid)
		if err != nil {
			return err
		}
		out = make([]*semcat.Tag, len(rows))
		for i, r := range rows {
			out[i] = tagFromRow(r)
		}
		return nil
	})
	return out, err
}

// AlterTag applies updates to a tag, all or nothing. A rename carries the
// tag's associations (they point at its id); every tagged object gets an
// outbox row so that the index shows the new name.
func (s *Store) AlterTag(ctx context.Context, metalake, name string, updates []semcat.Update) (*semcat.Tag, semcat.Position, error) {
	if err := semcat.ValidateUpdates(updates, semcat.CommonUpdates...); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.Tag
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		r, err := tags.get(ctx, tx, mid, name, updateLock, noSuchTag(metalake, name))
		if err != nil {
			return err
		}
		if err := s.alterNamed(ctx, tx, tags, r, updates, "tag"); err != nil {
			return err
		}
		if r.Name != name {
			if err := emitTaggedObjects(ctx, tx, r.ID); err != nil {
				return err
			}
		}
		out = tagFromRow(r)
		return nil
	})
	return out, pos, err
}

// TagObjects lists the live objects a tag is attached to, by type (catalog,
// schema, table, semantic model) and then full name.
func (s *Store) TagObjects(ctx context.Context, metalake, name string) ([]semcat.TaggedObject, error) {
	var out []semcat.TaggedObject
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		r, err := tags.get(ctx, tx, mid, name, noLock, noSuchTag(metalake, name))
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, tagObjectsSQL, r.ID)
		if err != nil {
			return err
		}
		defer rows.Close()
		out = []semcat.TaggedObject{}
		for rows.Next() {
			var o semcat.TaggedObject
			if err := rows.Scan(&o.Type, &o.FullName); err != nil {
				return err
			}
			out = append(out, o)
		}
		return rows.Err()
	})
	return out, err
}

// emitTaggedObjects writes an outbox row for every object a tag is attached
// to: their indexed tags change when the tag is renamed or dropped.
func emitTaggedObjects(ctx context.Context, tx *writeTx, tagID int64) error {
	for _, kind := range []semcat.EntityKind{semcat.KindCatalog, semcat.KindSchema, semcat.KindTable, semcat.KindSemanticModel} {
		if err := tx.emitQuery(ctx, kind, opUpsert, `SELECT object_id AS id FROM tag_relation WHERE tag_id = $1 AND object_type = $2`, tagID, string(kind)); err != nil {
			return err
		}
	}
	return nil
}

// tagObjectsSQL lists the live objects of tag $1 with their dotted names.
const tagObjectsSQL = `
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
  FROM tag_relation r WHERE r.tag_id = $1
) o
WHERE full_name IS NOT NULL
ORDER BY array_position(ARRAY['catalog', 'schema', 'table', 'semantic_model'], object_type), full_name COLLATE "C"`

// DropTag drops a tag and removes it from every object; each of those
// objects gets an outbox row because its tags changed.
func (s *Store) DropTag(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
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
		r, err := tags.get(ctx, tx, mid, name, updateLock, pgx.ErrNoRows)
		if err == pgx.ErrNoRows {
			return nil
		} else if err != nil {
			return err
		}
		if err := emitTaggedObjects(ctx, tx, r.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM tag_relation WHERE tag_id = $1`, r.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE tag_meta SET deleted_at = $2 WHERE tag_id = $1`, r.ID, s.nowMillis()); err != nil {
			return err
		}
		dropped = true
		return tx.emit(ctx, semcat.KindTag, r.ID, opDelete)
	})
	return dropped, pos, err
}

// resolveObject finds the id of a live taggable object.
func (s *Store) resolveObject(ctx context.Context, q querier, metalake string, obj semcat.ObjectRef, lock string) (int64, error) {
	_, id, err := s.resolveObjectPath(ctx, q, metalake, obj, lock)
	return id, err
}

// resolveObjectPath finds a live taggable object: its id and the path of
// ids down to it. A metalake that does not exist is reported before an
// object name that does not parse.
func (s *Store) resolveObjectPath(ctx context.Context, q querier, metalake string, obj semcat.ObjectRef, lock string) (path, int64, error) {
	_, ns, name, err := semcat.ParseObjectRef(metalake, string(obj.Type), obj.FullName)
	if err != nil {
		if _, merr := s.resolveMetalake(ctx, q, metalake, noLock); merr != nil {
			return path{}, 0, merr
		}
		return path{}, 0, err
	}
	switch obj.Type {
	case semcat.KindCatalog:
		p, err := s.resolveCatalog(ctx, q, semcat.Namespace{Metalake: metalake, Catalog: name}, lock)
		return p, p.catalogID, err
	case semcat.KindSchema:
		p, err := s.resolveSchema(ctx, q, semcat.Namespace{Metalake: metalake, Catalog: ns.Catalog, Schema: name}, lock, "")
		return p, p.schemaID, err
	}
	what := "tables"
	table, idCol, nameCol := "table_meta", "table_id", "table_name"
	notFound := noSuchTable(ns, name)
	if obj.Type == semcat.KindSemanticModel {
		what, table, idCol, nameCol = modelWhat, "semantic_model_meta", "semantic_model_id", "semantic_model_name"
		notFound = noSuchModel(ns, name)
	}
	p, err := s.resolveSchema(ctx, q, ns, noLock, what)
	if err != nil {
		return p, 0, err
	}
	var id int64
	err = q.QueryRow(ctx, fmt.Sprintf(`SELECT %s FROM %s WHERE schema_id = $1 AND %s = $2 AND deleted_at = 0`, idCol, table, nameCol)+lock, p.schemaID, name).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return p, 0, notFound
	}
	return p, id, err
}

func objectTags(ctx context.Context, q querier, obj semcat.ObjectRef, id int64) ([]string, error) {
	return listNames(ctx, q, `SELECT t.tag_name FROM tag_relation r JOIN tag_meta t ON t.tag_id = r.tag_id AND t.deleted_at = 0
		WHERE r.object_type = $1 AND r.object_id = $2 ORDER BY t.tag_name COLLATE "C"`, string(obj.Type), id)
}

// ListObjectTags lists the tags of an object in byte order.
func (s *Store) ListObjectTags(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]string, error) {
	var out []string
	err := s.read(ctx, func(tx pgx.Tx) error {
		id, err := s.resolveObject(ctx, tx, metalake, obj, noLock)
		if err != nil {
			return err
		}
		out, err = objectTags(ctx, tx, obj, id)
		return err
	})
	return out, err
}

// addTags associates the named tags of a metalake with an object in two
// statements however many they are (bulk loads tag nearly every entity):
// one finds the tags and locks them against a concurrent drop, in id order,
// and one inserts the relations. A name that is no live tag is ENOTFOUND,
// the first such in the request's order.
func addTags(ctx context.Context, tx querier, metalake string, mid int64, obj semcat.ObjectRef, id int64, names []string) error {
	found, err := lockTags(ctx, tx, mid, names)
	if err != nil {
		return err
	}
	ids := make([]int64, len(names))
	for i, n := range names {
		var ok bool
		if ids[i], ok = found[n]; !ok {
			return noSuchTag(metalake, n)
		}
	}
	_, err = tx.Exec(ctx, `INSERT INTO tag_relation (tag_id, object_type, object_id)
		SELECT unnest($1::bigint[]), $2, $3
		ON CONFLICT DO NOTHING`, ids, string(obj.Type), id)
	return err
}

// lockTags finds the live tags of metalake mid among names, locked against
// a concurrent drop in id order, and maps each name found to its id.
func lockTags(ctx context.Context, tx querier, mid int64, names []string) (map[string]int64, error) {
	rows, err := tx.Query(ctx, `SELECT tag_id, tag_name FROM tag_meta
		WHERE metalake_id = $1 AND tag_name = ANY($2) AND deleted_at = 0
		ORDER BY tag_id FOR SHARE`, mid, names)
	if err != nil {
		return nil, err
	}
	found := make(map[string]int64, len(names))
	var (
		tagID int64
		name  string
	)
	_, err = pgx.ForEachRow(rows, []any{&tagID, &name}, func() error {
		found[name] = tagID
		return nil
	})
	return found, err
}

// AssociateTags adds and removes tags of an object in one transaction and
// returns its tags afterwards. Adding a tag that does not exist is
// ENOTFOUND; adding a tag twice or removing one that is not there is fine,
// and a tag in both lists is left as it was.
func (s *Store) AssociateTags(ctx context.Context, metalake string, obj semcat.ObjectRef, req semcat.TagAssociation) ([]string, semcat.Position, error) {
	if err := req.Validate(); err != nil {
		return nil, semcat.Position{}, err
	}
	req = req.Effective()
	var out []string
	pos, err := s.write(ctx, func(tx *writeTx) error {
		p, id, err := s.resolveObjectPath(ctx, tx, metalake, obj, shareLock)
		if err != nil {
			return err
		}
		mid := p.metalakeID
		if len(req.TagsToAdd) > 0 {
			if err := addTags(ctx, tx, metalake, mid, obj, id, req.TagsToAdd); err != nil {
				return err
			}
		}
		if len(req.TagsToRemove) > 0 {
			if _, err := tx.Exec(ctx, `DELETE FROM tag_relation r USING tag_meta t
				WHERE r.tag_id = t.tag_id AND t.metalake_id = $1 AND t.tag_name = ANY($2) AND r.object_type = $3 AND r.object_id = $4`,
				mid, req.TagsToRemove, string(obj.Type), id); err != nil {
				return err
			}
		}
		if out, err = objectTags(ctx, tx, obj, id); err != nil {
			return err
		}
		return tx.emit(ctx, obj.Type, id, opUpsert)
	})
	return out, pos, err
}
