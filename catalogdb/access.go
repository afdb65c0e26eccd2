package catalogdb

import (
	"context"
	"errors"
	"fmt"

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
		var metalakeInUse, catalogInUse bool
		var catalogType semcat.CatalogType
		err := tx.QueryRow(ctx, `SELECT metalake_id, in_use FROM metalake_meta WHERE metalake_name = $1 AND deleted_at = 0`, ns.Metalake).Scan(&metalakeID, &metalakeInUse)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return err
		}
		if ns.Catalog != "" && metalakeID != 0 {
			err = tx.QueryRow(ctx, `SELECT catalog_id, in_use, type FROM catalog_meta WHERE metalake_id = $1 AND catalog_name = $2 AND deleted_at = 0`, metalakeID, ns.Catalog).Scan(&catalogID, &catalogInUse, &catalogType)
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
		pathErr := pathError(ns, kind, metalakeID != 0, metalakeInUse, catalogID != 0, catalogInUse, catalogType, schemaID != 0)
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
		parent = &semcat.Access{Owns: map[semcat.EntityKind]bool{}, PathErr: pathErr}
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

// pathError is the error resolving ns meets, in the order the store's
// lookups (resolveMetalake, resolveCatalog, resolveSchema) meet them,
// before a child of kind: a level missing or disabled, or tables or models
// under a catalog that holds none; nil when ns resolves.
func pathError(ns semcat.Namespace, kind semcat.EntityKind, metalake, metalakeInUse, catalog, catalogInUse bool, catalogType semcat.CatalogType, schema bool) error {
	switch {
	case !metalake:
		return semcat.NoSuchMetalake(ns.Metalake)
	case !metalakeInUse:
		return semcat.MetalakeNotInUse(ns.Metalake)
	case ns.Catalog == "":
		return nil
	case !catalog:
		return semcat.NoSuchCatalog(ns.Metalake, ns.Catalog)
	case !catalogInUse:
		return semcat.CatalogNotInUse(ns.Metalake, ns.Catalog)
	case ns.Schema == "":
		return nil
	}
	what := map[semcat.EntityKind]string{semcat.KindTable: "tables", semcat.KindSemanticModel: modelWhat}[kind]
	if what != "" {
		if err := semcat.RequireRelational(ns.Catalog, catalogType, what); err != nil {
			return err
		}
	}
	if !schema {
		return semcat.NoSuchSchema(semcat.Namespace{Metalake: ns.Metalake, Catalog: ns.Catalog}, ns.Schema)
	}
	return nil
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
