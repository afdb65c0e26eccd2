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

// childTables says where the children of each kind live and which column
// points at their parent.
var childTables = map[semcat.EntityKind]struct{ table, id, name, parent string }{
	semcat.KindCatalog:       {"catalog_meta", "catalog_id", "catalog_name", "metalake_id"},
	semcat.KindSchema:        {"schema_meta", "schema_id", "schema_name", "catalog_id"},
	semcat.KindTable:         {"table_meta", "table_id", "table_name", "schema_id"},
	semcat.KindSemanticModel: {"semantic_model_meta", "semantic_model_id", "semantic_model_name", "schema_id"},
}

// Access loads what authorization needs to decide what user may do at ns
// (a metalake, catalog or schema; missing levels simply contribute nothing)
// and, when kind is set, to each live child of that kind under ns — only
// those named in names, or all of them when names is nil. The ancestors'
// facts are in the returned Access; each child's Access adds its own.
// Everything is read in one snapshot.
func (s *Store) Access(ctx context.Context, user string, ns semcat.Namespace, kind semcat.EntityKind, names []string) (*semcat.Access, map[string]*semcat.Access, error) {
	var parent *semcat.Access
	children := map[string]*semcat.Access{}
	err := s.read(ctx, func(tx pgx.Tx) error {
		var metalakeID, catalogID, schemaID int64
		err := tx.QueryRow(ctx, `SELECT metalake_id FROM metalake_meta WHERE metalake_name = $1 AND deleted_at = 0`, ns.Metalake).Scan(&metalakeID)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if ns.Catalog != "" && metalakeID != 0 {
			err = tx.QueryRow(ctx, `SELECT catalog_id FROM catalog_meta WHERE metalake_id = $1 AND catalog_name = $2 AND deleted_at = 0`, metalakeID, ns.Catalog).Scan(&catalogID)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		if ns.Schema != "" && catalogID != 0 {
			err = tx.QueryRow(ctx, `SELECT schema_id FROM schema_meta WHERE catalog_id = $1 AND schema_name = $2 AND deleted_at = 0`, catalogID, ns.Schema).Scan(&schemaID)
			if err != nil && !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
		}
		types := []string{string(semcat.KindMetalake), string(semcat.KindCatalog), string(semcat.KindSchema)}
		ids := []int64{metalakeID, catalogID, schemaID}
		childName := map[int64]string{}
		if kind != "" {
			t, ok := childTables[kind]
			if !ok {
				return fmt.Errorf("access: no children of kind %q", kind)
			}
			parentID := map[string]int64{"metalake_id": metalakeID, "catalog_id": catalogID, "schema_id": schemaID}[t.parent]
			q := fmt.Sprintf(`SELECT %s, %s FROM %s WHERE %s = $1 AND deleted_at = 0 AND ($2::text[] IS NULL OR %s = ANY($2))`, t.id, t.name, t.table, t.parent, t.name)
			rows, err := tx.Query(ctx, q, parentID, names)
			if err != nil {
				return err
			}
			for rows.Next() {
				var id int64
				var name string
				if err := rows.Scan(&id, &name); err != nil {
					rows.Close()
					return err
				}
				childName[id] = name
				types = append(types, string(kind))
				ids = append(ids, id)
			}
			if err := rows.Err(); err != nil {
				return err
			}
		}
		parent = &semcat.Access{Owns: map[semcat.EntityKind]bool{}}
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM user_meta WHERE metalake_id = $1 AND user_name = $2 AND deleted_at = 0)`,
			metalakeID, user).Scan(&parent.Member); err != nil {
			return err
		}
		for _, name := range childName {
			children[name] = &semcat.Access{Owns: map[semcat.EntityKind]bool{}, Member: parent.Member}
		}
		// add records a fact about object (typ, id) in the Access it belongs
		// to. An object of the child kind is always a child: ns stops above
		// that level, so no ancestor of that kind was resolved.
		add := func(typ string, id int64, fn func(a *semcat.Access, level semcat.EntityKind)) {
			if kind != "" && typ == string(kind) {
				if name, ok := childName[id]; ok {
					fn(children[name], kind)
				}
				return
			}
			fn(parent, semcat.EntityKind(typ))
		}
		rows, err := tx.Query(ctx, `SELECT rp.object_type, rp.object_id, rp.privilege, rp.condition
			FROM user_meta u
			JOIN user_role ur ON ur.user_id = u.user_id
			JOIN role_meta r ON r.role_id = ur.role_id AND r.deleted_at = 0
			JOIN role_privilege rp ON rp.role_id = r.role_id
			JOIN unnest($3::text[], $4::bigint[]) AS o(typ, id) ON o.typ = rp.object_type AND o.id = rp.object_id
			WHERE u.metalake_id = $1 AND u.user_name = $2 AND u.deleted_at = 0 AND o.id <> 0`, metalakeID, user, types, ids)
		if err != nil {
			return err
		}
		for rows.Next() {
			var typ, priv, cond string
			var id int64
			if err := rows.Scan(&typ, &id, &priv, &cond); err != nil {
				rows.Close()
				return err
			}
			b := semcat.Binding{Privilege: semcat.Privilege(priv), Condition: semcat.Condition(cond)}
			add(typ, id, func(a *semcat.Access, level semcat.EntityKind) {
				b.Level = level
				a.Bindings = append(a.Bindings, b)
			})
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT o.typ, o.id FROM owner_meta ow
			JOIN unnest($3::text[], $4::bigint[]) AS o(typ, id) ON o.typ = ow.object_type AND o.id = ow.object_id
			WHERE ow.metalake_id = $1 AND ow.owner_type = 'USER' AND ow.owner_name = $2 AND o.id <> 0`, metalakeID, user, types, ids)
		if err != nil {
			return err
		}
		for rows.Next() {
			var typ string
			var id int64
			if err := rows.Scan(&typ, &id); err != nil {
				rows.Close()
				return err
			}
			add(typ, id, func(a *semcat.Access, level semcat.EntityKind) { a.Owns[level] = true })
		}
		return rows.Err()
	})
	if err != nil {
		return nil, nil, err
	}
	// Each child inherits everything known about its ancestors.
	for _, c := range children {
		c.Bindings = append(c.Bindings, parent.Bindings...)
		for level, owned := range parent.Owns {
			c.Owns[level] = c.Owns[level] || owned
		}
	}
	return parent, children, nil
}

// objectKey names an object of some kind by its id.
type objectKey struct {
	kind semcat.EntityKind
	id   int64
}

// accessResolveSQL finds the live objects $2..$5 (kind, catalog, schema
// and name, "" where the kind has no such part) of metalake $1, with the
// ids of their catalog, schema and self (0 where missing), by position.
const accessResolveSQL = `SELECT o.i, c.catalog_id, COALESCE(s.schema_id, 0), COALESCE(t.table_id, sm.semantic_model_id, 0)
	FROM unnest($2::text[], $3::text[], $4::text[], $5::text[]) WITH ORDINALITY AS o(kind, cat, sch, name, i)
	JOIN catalog_meta c ON c.metalake_id = $1 AND c.catalog_name = o.cat AND c.deleted_at = 0
	LEFT JOIN schema_meta s ON o.sch <> '' AND s.catalog_id = c.catalog_id AND s.schema_name = o.sch AND s.deleted_at = 0
	LEFT JOIN table_meta t ON o.kind = 'table' AND t.schema_id = s.schema_id AND t.table_name = o.name AND t.deleted_at = 0
	LEFT JOIN semantic_model_meta sm ON o.kind = 'semantic_model' AND sm.schema_id = s.schema_id
		AND sm.semantic_model_name = o.name AND sm.deleted_at = 0`

// AccessObjects is Access for many objects of a metalake at once, named by
// type and full name (catalogs, schemas, tables, semantic models; a column
// stands for its table), in one snapshot and a fixed number of statements
// however many there are. For objs[i], parents[i] is what Access answers
// for the namespace that holds it and own[i] what it answers for the
// object as a child of that namespace; own[i] is nil when the object does
// not exist (or its name does not parse), and then parents[i] may be too.
func (s *Store) AccessObjects(ctx context.Context, user, metalake string, objs []semcat.ObjectRef) (parents, own []*semcat.Access, err error) {
	kinds, cats, schemas, names := make([]string, len(objs)), make([]string, len(objs)), make([]string, len(objs)), make([]string, len(objs))
	for i, o := range objs {
		if o.Type == semcat.KindColumn {
			o, _ = o.ColumnOf()
		}
		_, ns, name, perr := semcat.ParseObjectRef(metalake, string(o.Type), o.FullName)
		if perr != nil {
			continue // kind "" resolves to nothing
		}
		kinds[i], cats[i], schemas[i], names[i] = string(o.Type), ns.Catalog, ns.Schema, name
		switch o.Type {
		case semcat.KindCatalog:
			cats[i], names[i] = name, ""
		case semcat.KindSchema:
			schemas[i], names[i] = name, ""
		}
	}
	// paths[i] holds objs[i]'s catalog, schema and own id, 0 where none.
	paths := make([][3]int64, len(objs))
	var metalakeID int64
	member := false
	bindings := map[objectKey][]semcat.Binding{}
	owned := map[objectKey]bool{}
	err = s.read(ctx, func(tx pgx.Tx) error {
		err := tx.QueryRow(ctx, `SELECT m.metalake_id, EXISTS (SELECT 1 FROM user_meta u
				WHERE u.metalake_id = m.metalake_id AND u.user_name = $2 AND u.deleted_at = 0)
			FROM metalake_meta m WHERE m.metalake_name = $1 AND m.deleted_at = 0`, metalake, user).Scan(&metalakeID, &member)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil // nothing exists
		} else if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, accessResolveSQL, metalakeID, kinds, cats, schemas, names)
		if err != nil {
			return err
		}
		var (
			i    int64
			path [3]int64
		)
		if _, err := pgx.ForEachRow(rows, []any{&i, &path[0], &path[1], &path[2]}, func() error {
			paths[i-1] = path
			return nil
		}); err != nil {
			return err
		}
		// The objects whose facts count: the metalake and every level of
		// every object found.
		seen := map[objectKey]bool{{semcat.KindMetalake, metalakeID}: true}
		types, ids := []string{string(semcat.KindMetalake)}, []int64{metalakeID}
		for i, p := range paths {
			for _, k := range []objectKey{{semcat.KindCatalog, p[0]}, {semcat.KindSchema, p[1]}, {semcat.EntityKind(kinds[i]), p[2]}} {
				if k.id != 0 && !seen[k] {
					seen[k] = true
					types, ids = append(types, string(k.kind)), append(ids, k.id)
				}
			}
		}
		rows, err = tx.Query(ctx, `SELECT rp.object_type, rp.object_id, rp.privilege, rp.condition
			FROM user_meta u
			JOIN user_role ur ON ur.user_id = u.user_id
			JOIN role_meta r ON r.role_id = ur.role_id AND r.deleted_at = 0
			JOIN role_privilege rp ON rp.role_id = r.role_id
			JOIN unnest($3::text[], $4::bigint[]) AS o(typ, id) ON o.typ = rp.object_type AND o.id = rp.object_id
			WHERE u.metalake_id = $1 AND u.user_name = $2 AND u.deleted_at = 0`, metalakeID, user, types, ids)
		if err != nil {
			return err
		}
		var (
			k         objectKey
			typ, priv string
			cond      string
		)
		if _, err := pgx.ForEachRow(rows, []any{&typ, &k.id, &priv, &cond}, func() error {
			k.kind = semcat.EntityKind(typ)
			bindings[k] = append(bindings[k], semcat.Binding{Level: k.kind, Privilege: semcat.Privilege(priv), Condition: semcat.Condition(cond)})
			return nil
		}); err != nil {
			return err
		}
		rows, err = tx.Query(ctx, `SELECT o.typ, o.id FROM owner_meta ow
			JOIN unnest($3::text[], $4::bigint[]) AS o(typ, id) ON o.typ = ow.object_type AND o.id = ow.object_id
			WHERE ow.metalake_id = $1 AND ow.owner_type = 'USER' AND ow.owner_name = $2`, metalakeID, user, types, ids)
		if err != nil {
			return err
		}
		_, err = pgx.ForEachRow(rows, []any{&typ, &k.id}, func() error {
			k.kind = semcat.EntityKind(typ)
			owned[k] = true
			return nil
		})
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	// Each object's Access gathers the facts of its levels, top down; one
	// namespace's Access is shared by the objects under it.
	parents, own = make([]*semcat.Access, len(objs)), make([]*semcat.Access, len(objs))
	at := map[objectKey]*semcat.Access{}
	under := func(a *semcat.Access, k objectKey) *semcat.Access {
		c := &semcat.Access{Member: member, Owns: maps.Clone(a.Owns), Bindings: append(slices.Clip(a.Bindings), bindings[k]...)}
		if owned[k] {
			c.Owns[k.kind] = true
		}
		return c
	}
	top := under(&semcat.Access{Owns: map[semcat.EntityKind]bool{}}, objectKey{semcat.KindMetalake, metalakeID})
	level := func(a *semcat.Access, k objectKey) *semcat.Access {
		if c, ok := at[k]; ok {
			return c
		}
		c := under(a, k)
		at[k] = c
		return c
	}
	for i, p := range paths {
		kind := semcat.EntityKind(kinds[i])
		if p[0] == 0 || (kind != semcat.KindCatalog && p[1] == 0) || ((kind == semcat.KindTable || kind == semcat.KindSemanticModel) && p[2] == 0) {
			continue
		}
		catalog := level(top, objectKey{semcat.KindCatalog, p[0]})
		switch kind {
		case semcat.KindCatalog:
			parents[i], own[i] = top, catalog
		case semcat.KindSchema:
			parents[i], own[i] = catalog, level(catalog, objectKey{semcat.KindSchema, p[1]})
		default:
			schema := level(catalog, objectKey{semcat.KindSchema, p[1]})
			parents[i], own[i] = schema, under(schema, objectKey{kind, p[2]})
		}
	}
	return parents, own, nil
}

// MemberOf names the live metalakes user is a member of or owns (what
// semcat.Access.IsMember answers for each), in one statement.
func (s *Store) MemberOf(ctx context.Context, user string) (map[string]bool, error) {
	out := map[string]bool{}
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, `SELECT m.metalake_name FROM metalake_meta m WHERE m.deleted_at = 0 AND (
			EXISTS (SELECT 1 FROM user_meta u WHERE u.metalake_id = m.metalake_id AND u.user_name = $1 AND u.deleted_at = 0)
			OR EXISTS (SELECT 1 FROM owner_meta ow WHERE ow.object_type = 'metalake' AND ow.object_id = m.metalake_id
				AND ow.metalake_id = m.metalake_id AND ow.owner_type = 'USER' AND ow.owner_name = $1))`, user)
		if err != nil {
			return err
		}
		var name string
		_, err = pgx.ForEachRow(rows, []any{&name}, func() error {
			out[name] = true
			return nil
		})
		return err
	})
	return out, err
}
