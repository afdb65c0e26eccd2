package catalogdb

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"

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
		return tx.emitCreated(ctx, mid, semcat.KindTag, r.ID, actor(ctx))
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
// schema, table, column, semantic model) and then full name; a value other
// than "" keeps those with an assignment of that value. Asked again of a
// database that has not changed, it answers from the listing cache.
func (s *Store) TagObjects(ctx context.Context, metalake, name, value string) ([]semcat.TaggedObject, error) {
	var out []semcat.TaggedObject
	err := s.read(ctx, func(tx pgx.Tx) error {
		e, err := s.cached(ctx, tx, listingKey{metalake: metalake, tag: name, value: value}, func() (*listingEntry, error) {
			objs, _, _, err := s.tagObjects(ctx, tx, metalake, name, value)
			return &listingEntry{objs: objs}, err
		})
		if err == nil {
			out = e.objs
		}
		return err
	})
	return slices.Clone(out), err
}

// tagObjects is TagObjects in a transaction, with where each object sits
// (a column: its table) and the metalake's id.
func (s *Store) tagObjects(ctx context.Context, tx pgx.Tx, metalake, name, value string) ([]semcat.TaggedObject, []objectPath, int64, error) {
	mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
	if err != nil {
		return nil, nil, 0, err
	}
	r, err := tags.get(ctx, tx, mid, name, noLock, noSuchTag(metalake, name))
	if err != nil {
		return nil, nil, 0, err
	}
	rows, err := tx.Query(ctx, tagObjectsSQL, r.ID, value)
	if err != nil {
		return nil, nil, 0, err
	}
	out, paths := []semcat.TaggedObject{}, []objectPath{}
	var (
		o semcat.TaggedObject
		p objectPath
	)
	_, err = pgx.ForEachRow(rows, []any{kindColumn{&o.Type}, &o.FullName, &p.catalogID, &p.schemaID, &p.ownID}, func() error {
		p.kind = o.Type
		if o.Type == semcat.KindColumn {
			p.kind = semcat.KindTable
		}
		if len(out) == cap(out) {
			// Doubling: append's growth of large slices (a quarter at a
			// time) allocates five times a 10,000-row listing.
			out, paths = slices.Grow(out, len(out)+16), slices.Grow(paths, len(out)+16)
		}
		out, paths = append(out, o), append(paths, p)
		return nil
	})
	return out, paths, mid, err
}

// emitTaggedObjects writes an outbox row for every object a tag is attached
// to: their indexed tags change when the tag is renamed or dropped.
func emitTaggedObjects(ctx context.Context, tx *writeTx, tagID int64) error {
	for _, kind := range []semcat.EntityKind{semcat.KindCatalog, semcat.KindSchema, semcat.KindTable, semcat.KindSemanticModel} {
		if err := tx.emitQuery(ctx, kind, opUpsert, `SELECT DISTINCT object_id AS id FROM tag_relation WHERE tag_id = $1 AND object_type = $2`, tagID, string(kind)); err != nil {
			return err
		}
	}
	return nil
}

// tagObjectsSQL lists the live objects of tag $1 with their dotted names
// and the ids of their catalog, schema (0 for a catalog) and self (a
// column's table); $2, unless empty, keeps those with an assignment of that
// value. Each object is looked up by its id, whatever the planner knows of
// the tables' sizes.
const tagObjectsSQL = `
SELECT r.object_type, o.full_name, o.catalog_id, o.schema_id, o.own_id
FROM (SELECT DISTINCT object_type, object_id FROM tag_relation
  WHERE tag_id = $1 AND ($2 = '' OR assignment_value = $2)) r
CROSS JOIN LATERAL (
  SELECT c.catalog_name AS full_name, c.catalog_id, 0::bigint AS schema_id, c.catalog_id AS own_id FROM catalog_meta c
    WHERE r.object_type = 'catalog' AND c.catalog_id = r.object_id AND c.deleted_at = 0
  UNION ALL
  SELECT c.catalog_name || '.' || s.schema_name, c.catalog_id, s.schema_id, s.schema_id FROM schema_meta s
    JOIN catalog_meta c ON c.catalog_id = s.catalog_id AND c.deleted_at = 0
    WHERE r.object_type = 'schema' AND s.schema_id = r.object_id AND s.deleted_at = 0
  UNION ALL
  SELECT c.catalog_name || '.' || s.schema_name || '.' || t.table_name, c.catalog_id, s.schema_id, t.table_id FROM table_meta t
    JOIN schema_meta s ON s.schema_id = t.schema_id AND s.deleted_at = 0
    JOIN catalog_meta c ON c.catalog_id = t.catalog_id AND c.deleted_at = 0
    WHERE r.object_type = 'table' AND t.table_id = r.object_id AND t.deleted_at = 0
  UNION ALL
  SELECT c.catalog_name || '.' || s.schema_name || '.' || t.table_name || '.' || cm.column_name, c.catalog_id, s.schema_id, t.table_id FROM column_meta cm
    JOIN table_meta t ON t.table_id = cm.table_id AND t.deleted_at = 0
    JOIN schema_meta s ON s.schema_id = t.schema_id AND s.deleted_at = 0
    JOIN catalog_meta c ON c.catalog_id = t.catalog_id AND c.deleted_at = 0
    WHERE r.object_type = 'column' AND cm.column_id = r.object_id
  UNION ALL
  SELECT c.catalog_name || '.' || s.schema_name || '.' || sm.semantic_model_name, c.catalog_id, s.schema_id, sm.semantic_model_id FROM semantic_model_meta sm
    JOIN schema_meta s ON s.schema_id = sm.schema_id AND s.deleted_at = 0
    JOIN catalog_meta c ON c.catalog_id = sm.catalog_id AND c.deleted_at = 0
    WHERE r.object_type = 'semantic_model' AND sm.semantic_model_id = r.object_id AND sm.deleted_at = 0
) o
ORDER BY array_position(ARRAY['catalog', 'schema', 'table', 'column', 'semantic_model'], r.object_type), o.full_name COLLATE "C"`

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

// objectTags lists the names of an object's own tags in byte order.
func objectTags(ctx context.Context, q querier, obj semcat.ObjectRef, id int64) ([]string, error) {
	return listNames(ctx, q, `SELECT t.tag_name FROM tag_relation r JOIN tag_meta t ON t.tag_id = r.tag_id AND t.deleted_at = 0
		WHERE r.object_type = $1 AND r.object_id = $2 GROUP BY t.tag_name ORDER BY t.tag_name COLLATE "C"`, string(obj.Type), id)
}

// lineage is an object followed by its ancestors that carry tags, nearest
// first: a table's or model's schema and catalog, a schema's catalog (as
// in Gravitino, the metalake passes none on).
func lineage(obj semcat.ObjectRef, p path, id int64) (types []string, ids []int64) {
	types, ids = []string{string(obj.Type)}, []int64{id}
	switch obj.Type {
	case semcat.KindTable, semcat.KindSemanticModel:
		types, ids = append(types, string(semcat.KindSchema), string(semcat.KindCatalog)), append(ids, p.schemaID, p.catalogID)
	case semcat.KindSchema:
		types, ids = append(types, string(semcat.KindCatalog)), append(ids, p.catalogID)
	}
	return types, ids
}

// objectTagsSQL lists the assignments of the objects $1/$2 (types and
// ids), in that order, then by tag name and value.
const objectTagsSQL = `SELECT o.depth, r.tag_id, r.assignment_value
	FROM unnest($1::text[], $2::bigint[]) WITH ORDINALITY AS o(object_type, object_id, depth)
	JOIN tag_relation r ON r.object_type = o.object_type AND r.object_id = o.object_id
	JOIN tag_meta t ON t.tag_id = r.tag_id AND t.deleted_at = 0
	ORDER BY o.depth, t.tag_name COLLATE "C", r.assignment_value COLLATE "C"`

// ObjectTagInfos lists an object's tags, its own first, then those of its
// schema and catalog, each name once, as Gravitino's object tag listing.
func (s *Store) ObjectTagInfos(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]*semcat.ObjectTag, error) {
	var out []*semcat.ObjectTag
	err := s.read(ctx, func(tx pgx.Tx) error {
		var types []string
		var ids []int64
		if obj.Type == semcat.KindColumn {
			p, tableID, columnID, err := s.resolveColumn(ctx, tx, metalake, obj, noLock, false)
			if err != nil {
				return err
			}
			types, ids = lineage(semcat.ObjectRef{Type: semcat.KindTable}, p, tableID)
			types, ids = append([]string{string(semcat.KindColumn)}, types...), append([]int64{columnID}, ids...)
		} else {
			p, id, err := s.resolveObjectPath(ctx, tx, metalake, obj, noLock)
			if err != nil {
				return err
			}
			types, ids = lineage(obj, p, id)
		}
		rows, err := tx.Query(ctx, objectTagsSQL, types, ids)
		if err != nil {
			return err
		}
		var (
			depth, tagID int64
			value        string
		)
		byID := map[int64]*semcat.ObjectTag{}
		held := map[int64]int64{} // tag id -> the depth its assignment is read from
		out = []*semcat.ObjectTag{}
		_, err = pgx.ForEachRow(rows, []any{&depth, &tagID, &value}, func() error {
			if d, ok := held[tagID]; ok && d != depth {
				return nil // a nearer object carries it
			}
			t, ok := byID[tagID]
			if !ok {
				held[tagID] = depth
				t = &semcat.ObjectTag{Tag: &semcat.Tag{ID: tagID}, Inherited: depth > 1, AssignmentValues: []string{}}
				byID[tagID] = t
				out = append(out, t)
			}
			if value != "" {
				t.AssignmentValues = append(t.AssignmentValues, value)
			}
			return nil
		})
		if err != nil || len(out) == 0 {
			return err
		}
		found, err := tags.byIDs(ctx, tx, slices.Collect(maps.Keys(byID)))
		if err != nil {
			return err
		}
		for _, r := range found {
			byID[r.ID].Tag = tagFromRow(r)
		}
		return nil
	})
	return out, err
}

// ListObjectTags lists the names of an object's tags, its own and
// inherited, in the order of ObjectTagInfos.
func (s *Store) ListObjectTags(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]string, error) {
	infos, err := s.ObjectTagInfos(ctx, metalake, obj)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(infos))
	for i, t := range infos {
		names[i] = t.Name
	}
	return names, nil
}

// lockedTag is a tag an association names: its id and allowed values.
type lockedTag struct {
	id      int64
	allowed []string // nil: any value or none
}

// admits checks an assignment against the tag's allowed values, as
// Gravitino does: [] takes no value, a list only its values (and one of
// them is required), nil anything.
func (t lockedTag) admits(v semcat.TagValue) error {
	switch {
	case t.allowed == nil:
		return nil
	case v.Value == nil && len(t.allowed) > 0:
		return semcat.Errorf(semcat.EINVALID, "tag '%s' requires a value, one of %v", v.Name, t.allowed)
	case v.Value != nil && len(t.allowed) == 0:
		return semcat.Errorf(semcat.EINVALID, "tag '%s' does not take values", v.Name)
	case v.Value != nil && !slices.Contains(t.allowed, *v.Value):
		return semcat.Errorf(semcat.EINVALID, "tag '%s': value '%s' is not one of its allowed values %v", v.Name, *v.Value, t.allowed)
	}
	return nil
}

// lockTags finds the live tags of metalake mid among names, locked against
// a concurrent drop in id order, and maps each name found to it.
func lockTags(ctx context.Context, tx querier, mid int64, names []string) (map[string]lockedTag, error) {
	rows, err := tx.Query(ctx, `SELECT tag_id, tag_name, allowed_values FROM tag_meta
		WHERE metalake_id = $1 AND tag_name = ANY($2) AND deleted_at = 0
		ORDER BY tag_id FOR SHARE`, mid, names)
	if err != nil {
		return nil, err
	}
	found := make(map[string]lockedTag, len(names))
	var (
		t    lockedTag
		name string
	)
	_, err = pgx.ForEachRow(rows, []any{&t.id, &name, &t.allowed}, func() error {
		found[name] = t
		return nil
	})
	return found, err
}

// assignment is one row of tag_relation for an object: a tag and a value
// ("" for none).
type assignment struct {
	tagID int64
	value string
}

// AssociateTags assigns and unassigns tags of an object in one transaction,
// with Gravitino's semantics (see semcat.TagAssignments), and returns the
// names of the object's own tags afterwards. Tags that do not exist are
// ignored; the object is locked so that concurrent changes of its tags
// take turns.
func (s *Store) AssociateTags(ctx context.Context, metalake string, obj semcat.ObjectRef, req semcat.TagAssignments) ([]string, semcat.Position, error) {
	var out []string
	pos, err := s.write(ctx, func(tx *writeTx) error {
		// A column's tags are written under its table's lock, and the
		// table's outbox row gives the write its position.
		var (
			p          path
			id, emitID int64
			err        error
		)
		emitKind := obj.Type
		if obj.Type == semcat.KindColumn {
			emitKind = semcat.KindTable
			p, emitID, id, err = s.resolveColumn(ctx, tx, metalake, obj, updateLock, true)
		} else {
			p, id, err = s.resolveObjectPath(ctx, tx, metalake, obj, updateLock)
			emitID = id
		}
		if err != nil {
			return err
		}
		var names []string
		for _, v := range append(slices.Clone(req.Add), req.Remove...) {
			names = append(names, v.Name)
		}
		found, err := lockTags(ctx, tx, p.metalakeID, names)
		if err != nil {
			return err
		}
		held, err := assignments(ctx, tx, obj, id)
		if err != nil {
			return err
		}
		del, ins, err := assignmentChanges(obj, req, found, held)
		if err != nil {
			return err
		}
		if err := writeAssignments(ctx, tx, obj, id, del, ins); err != nil {
			return err
		}
		if out, err = objectTags(ctx, tx, obj, id); err != nil {
			return err
		}
		return tx.emit(ctx, emitKind, emitID, opUpsert)
	})
	return out, pos, err
}

// assignments reads the tag assignments an object holds, by tag id.
func assignments(ctx context.Context, q querier, obj semcat.ObjectRef, id int64) (map[int64][]string, error) {
	rows, err := q.Query(ctx, `SELECT tag_id, assignment_value FROM tag_relation WHERE object_type = $1 AND object_id = $2`, string(obj.Type), id)
	if err != nil {
		return nil, err
	}
	held := map[int64][]string{}
	var a assignment
	_, err = pgx.ForEachRow(rows, []any{&a.tagID, &a.value}, func() error {
		held[a.tagID] = append(held[a.tagID], a.value)
		return nil
	})
	return held, err
}

// assignmentChanges works out the rows an association deletes and inserts
// given what the object holds (updated in place), as Gravitino's store:
// removals first; a valued assignment replaces a valueless one; a valueless
// one cannot join valued ones; adding what is held is skipped, or, in a
// tag-names request, TagAlreadyAssociatedException and nothing applied.
func assignmentChanges(obj semcat.ObjectRef, req semcat.TagAssignments, found map[string]lockedTag, held map[int64][]string) (del, ins []assignment, err error) {
	valueOf := func(v semcat.TagValue) string {
		if v.Value == nil {
			return ""
		}
		return *v.Value
	}
	drop := func(t int64, value string) {
		if i := slices.Index(held[t], value); i >= 0 {
			held[t] = slices.Delete(held[t], i, i+1)
			del = append(del, assignment{t, value})
		}
	}
	for _, v := range req.Remove {
		t, ok := found[v.Name]
		switch {
		case !ok:
		case v.Value == nil && !req.Valued:
			for _, value := range slices.Clone(held[t.id]) {
				drop(t.id, value)
			}
		default:
			drop(t.id, valueOf(v))
		}
	}
	var seen []semcat.TagValue
	for _, v := range req.Add {
		t, ok := found[v.Name]
		if !ok || slices.ContainsFunc(seen, func(o semcat.TagValue) bool {
			return o.Name == v.Name && valueOf(o) == valueOf(v) && (o.Value == nil) == (v.Value == nil)
		}) {
			continue
		}
		seen = append(seen, v)
		if err := t.admits(v); err != nil {
			return nil, nil, err
		}
		value := valueOf(v)
		switch {
		case slices.Contains(held[t.id], value):
			if !req.Valued {
				return nil, nil, &semcat.Error{Code: semcat.EEXISTS, Entity: semcat.KindTag, Type: "TagAlreadyAssociatedException",
					Message: fmt.Sprintf("tag '%s' is already associated with %s '%s'", v.Name, obj.Type, obj.FullName)}
			}
			continue
		case v.Value != nil:
			drop(t.id, "")
		case len(held[t.id]) > 0:
			return nil, nil, semcat.Errorf(semcat.EINVALID, "tag '%s' cannot be added without a value: %s '%s' carries it with values %v",
				v.Name, obj.Type, obj.FullName, held[t.id])
		}
		held[t.id] = append(held[t.id], value)
		ins = append(ins, assignment{t.id, value})
	}
	return del, ins, nil
}

// writeAssignments deletes and inserts an object's assignment rows, one
// statement each.
func writeAssignments(ctx context.Context, tx querier, obj semcat.ObjectRef, id int64, del, ins []assignment) error {
	split := func(as []assignment) ([]int64, []string) {
		ids, values := make([]int64, len(as)), make([]string, len(as))
		for i, a := range as {
			ids[i], values[i] = a.tagID, a.value
		}
		return ids, values
	}
	if len(del) > 0 {
		ids, values := split(del)
		if _, err := tx.Exec(ctx, `DELETE FROM tag_relation WHERE object_type = $1 AND object_id = $2
			AND (tag_id, assignment_value) IN (SELECT * FROM unnest($3::bigint[], $4::text[]))`, string(obj.Type), id, ids, values); err != nil {
			return err
		}
	}
	if len(ins) > 0 {
		ids, values := split(ins)
		if _, err := tx.Exec(ctx, `INSERT INTO tag_relation (object_type, object_id, tag_id, assignment_value)
			SELECT $1, $2, * FROM unnest($3::bigint[], $4::text[]) ON CONFLICT DO NOTHING`, string(obj.Type), id, ids, values); err != nil {
			return err
		}
	}
	return nil
}
