package catalogdb

import (
	"context"
	"maps"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// objectKey names an object of some kind by its id.
type objectKey struct {
	kind semcat.EntityKind
	id   int64
}

// objectPath is where an object sits: its catalog's and schema's ids (0
// above its level) and its own id, of kind (a column's is its table's).
type objectPath struct {
	kind                       semcat.EntityKind
	catalogID, schemaID, ownID int64
}

// userFacts are a user's bindings (by the object they are bound on) and
// ownerships in one metalake, and whether the user is one of its users.
type userFacts struct {
	bindings map[objectKey][]semcat.Binding
	owned    map[objectKey]bool
	member   bool
}

// loadUserFacts reads every binding and ownership of user in metalake mid:
// whole, rather than joined to the objects at hand, so that their number
// cannot lead the planner astray, and each a scan of the user's own rows.
func loadUserFacts(ctx context.Context, q querier, mid int64, user string) (*userFacts, error) {
	f := &userFacts{bindings: map[objectKey][]semcat.Binding{}, owned: map[objectKey]bool{}}
	if err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM user_meta WHERE metalake_id = $1 AND user_name = $2 AND deleted_at = 0)`,
		mid, user).Scan(&f.member); err != nil {
		return nil, err
	}
	rows, err := q.Query(ctx, `SELECT rp.object_type, rp.object_id, rp.privilege, rp.condition
		FROM user_meta u
		JOIN user_role ur ON ur.user_id = u.user_id
		JOIN role_meta r ON r.role_id = ur.role_id AND r.deleted_at = 0
		JOIN role_privilege rp ON rp.role_id = r.role_id
		WHERE u.metalake_id = $1 AND u.user_name = $2 AND u.deleted_at = 0`, mid, user)
	if err != nil {
		return nil, err
	}
	var (
		k               objectKey
		typ, priv, cond string
	)
	if _, err := pgx.ForEachRow(rows, []any{&typ, &k.id, &priv, &cond}, func() error {
		k.kind = semcat.EntityKind(typ)
		f.bindings[k] = append(f.bindings[k], semcat.Binding{Level: k.kind, Privilege: semcat.Privilege(priv), Condition: semcat.Condition(cond)})
		return nil
	}); err != nil {
		return nil, err
	}
	rows, err = q.Query(ctx, `SELECT object_type, object_id FROM owner_meta
		WHERE metalake_id = $1 AND owner_type = 'USER' AND owner_name = $2`, mid, user)
	if err != nil {
		return nil, err
	}
	_, err = pgx.ForEachRow(rows, []any{&typ, &k.id}, func() error {
		k.kind = semcat.EntityKind(typ)
		f.owned[k] = true
		return nil
	})
	return f, err
}

// accessAt builds what Access answers for each object of metalake mid at
// paths: parents[i] for the namespace that holds it, own[i] for it as a
// child of that namespace (nil where the path is not whole: the object is
// gone).
func (f *userFacts) accessAt(mid int64, paths []objectPath) (parents, own []*semcat.Access) {
	parents, own = make([]*semcat.Access, len(paths)), make([]*semcat.Access, len(paths))
	// under is the Access of object k below the Access a of its parent:
	// a itself when k adds nothing (no caller changes an Access).
	under := func(a *semcat.Access, k objectKey) *semcat.Access {
		if len(f.bindings[k]) == 0 && !f.owned[k] {
			return a
		}
		c := &semcat.Access{Member: f.member, Owns: maps.Clone(a.Owns), Bindings: append(slices.Clip(a.Bindings), f.bindings[k]...)}
		if f.owned[k] {
			c.Owns[k.kind] = true
		}
		return c
	}
	top := under(&semcat.Access{Owns: map[semcat.EntityKind]bool{}, Member: f.member}, objectKey{semcat.KindMetalake, mid})
	// One namespace's Access serves every object below it.
	shared := map[objectKey]*semcat.Access{}
	level := func(a *semcat.Access, k objectKey) *semcat.Access {
		c, ok := shared[k]
		if !ok {
			c = under(a, k)
			shared[k] = c
		}
		return c
	}
	for i, p := range paths {
		if p.catalogID == 0 || p.ownID == 0 || p.kind != semcat.KindCatalog && p.schemaID == 0 {
			continue
		}
		catalog := level(top, objectKey{semcat.KindCatalog, p.catalogID})
		switch p.kind {
		case semcat.KindCatalog:
			parents[i], own[i] = top, catalog
		case semcat.KindSchema:
			parents[i], own[i] = catalog, level(catalog, objectKey{semcat.KindSchema, p.schemaID})
		default:
			schema := level(catalog, objectKey{semcat.KindSchema, p.schemaID})
			parents[i], own[i] = schema, under(schema, objectKey{p.kind, p.ownID})
		}
	}
	return parents, own
}

// TagObjectsAccess is TagObjects with, for each object, what Access
// answers about user for it (a column: for its table): parents[i] for the
// namespace that holds objs[i] and own[i] for the object itself. It reads
// the objects and the facts in one snapshot and a fixed number of
// statements however many objects there are (SPEC §2.11).
func (s *Store) TagObjectsAccess(ctx context.Context, user, metalake, name, value string) (objs []semcat.TaggedObject, parents, own []*semcat.Access, err error) {
	err = s.read(ctx, func(tx pgx.Tx) error {
		var paths []objectPath
		var mid int64
		if objs, paths, mid, err = s.tagObjects(ctx, tx, metalake, name, value); err != nil {
			return err
		}
		f, err := loadUserFacts(ctx, tx, mid, user)
		if err != nil {
			return err
		}
		parents, own = f.accessAt(mid, paths)
		return nil
	})
	return objs, parents, own, err
}
