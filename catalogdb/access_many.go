package catalogdb

import (
	"context"
	"maps"
	"slices"

	"github.com/RoaringBitmap/roaring/v2/roaring64"

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
	owned    map[semcat.EntityKind]*roaring64.Bitmap // by kind, the ids
	member   bool
}

// loadUserFacts reads every binding and ownership of user in metalake mid:
// whole, rather than joined to the objects at hand, so that their number
// cannot lead the planner astray, and each a scan of the user's own rows.
func loadUserFacts(ctx context.Context, q querier, mid int64, user string) (*userFacts, error) {
	f := &userFacts{bindings: map[objectKey][]semcat.Binding{}, owned: map[semcat.EntityKind]*roaring64.Bitmap{}}
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
		k          objectKey
		priv, cond string
	)
	if _, err := pgx.ForEachRow(rows, []any{kindColumn{&k.kind}, &k.id, &priv, &cond}, func() error {
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
	_, err = pgx.ForEachRow(rows, []any{kindColumn{&k.kind}, &k.id}, func() error {
		ids := f.owned[k.kind]
		if ids == nil {
			ids = roaring64.New()
			f.owned[k.kind] = ids
		}
		ids.Add(uint64(k.id))
		return nil
	})
	return f, err
}

// owns reports whether the user owns object k.
func (f *userFacts) owns(k objectKey) bool {
	ids := f.owned[k.kind]
	return ids != nil && k.id >= 0 && ids.Contains(uint64(k.id))
}

// accessAt builds what Access answers for each object of metalake mid at
// paths: parents[i] for the namespace that holds it, own[i] for it as a
// child of that namespace (nil where the path is not whole: the object is
// gone).
func (f *userFacts) accessAt(mid int64, paths []objectPath) (parents, own []*semcat.Access) {
	parents, own = make([]*semcat.Access, len(paths)), make([]*semcat.Access, len(paths))
	// ownedBelow shares the Access of every owned object without bindings
	// of its own under one parent: a user listing the 10,000 tables it
	// created gets one, not 10,000 copies of its parent's.
	type ownedKey struct {
		parent *semcat.Access
		kind   semcat.EntityKind
	}
	ownedBelow := map[ownedKey]*semcat.Access{}
	// under is the Access of object k below the Access a of its parent:
	// a itself when k adds nothing (no caller changes an Access).
	under := func(a *semcat.Access, k objectKey) *semcat.Access {
		bound, owned := f.bindings[k], f.owns(k)
		if len(bound) == 0 && !owned {
			return a
		}
		if len(bound) == 0 {
			if c, ok := ownedBelow[ownedKey{a, k.kind}]; ok {
				return c
			}
		}
		c := &semcat.Access{Member: f.member, Owns: maps.Clone(a.Owns), Bindings: append(slices.Clip(a.Bindings), bound...)}
		if owned {
			c.Owns[k.kind] = true
			if len(bound) == 0 {
				ownedBelow[ownedKey{a, k.kind}] = c
			}
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
// statements however many objects there are (SPEC §2.11); asked again of
// a database that has not changed, it answers from the listing cache. The
// slices are shared: callers must not change them.
func (s *Store) TagObjectsAccess(ctx context.Context, user, metalake, name, value string) (objs []semcat.TaggedObject, parents, own []*semcat.Access, err error) {
	err = s.read(ctx, func(tx pgx.Tx) error {
		key := listingKey{access: true, user: user, metalake: metalake, tag: name, value: value}
		e, err := s.cached(ctx, tx, key, func() (*listingEntry, error) {
			objs, paths, mid, err := s.tagObjects(ctx, tx, metalake, name, value)
			if err != nil {
				return nil, err
			}
			f, err := loadUserFacts(ctx, tx, mid, user)
			if err != nil {
				return nil, err
			}
			parents, own := f.accessAt(mid, paths)
			return &listingEntry{objs: objs, parents: parents, owns: own}, nil
		})
		if err == nil {
			objs, parents, own = e.objs, e.parents, e.owns
		}
		return err
	})
	return objs, parents, own, err
}

// kindColumn scans an object_type column into an EntityKind, sharing the
// constant's string for the kinds there are: a listing of 10,000 objects
// otherwise allocates 10,000 copies of "table".
type kindColumn struct{ k *semcat.EntityKind }

var kindsByName = func() map[string]semcat.EntityKind {
	m := map[string]semcat.EntityKind{}
	for _, k := range []semcat.EntityKind{semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema, semcat.KindTable,
		semcat.KindSemanticModel, semcat.KindMetric, semcat.KindTag, semcat.KindUser, semcat.KindRole, semcat.KindGroup, semcat.KindColumn} {
		m[string(k)] = k
	}
	return m
}()

// ScanBytes implements pgtype.BytesScanner.
func (c kindColumn) ScanBytes(v []byte) error {
	if k, ok := kindsByName[string(v)]; ok { // no allocation: a lookup by a converted key
		*c.k = k
	} else {
		*c.k = semcat.EntityKind(v)
	}
	return nil
}
