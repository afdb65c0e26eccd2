package catalogdb

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

var _ semcat.AccessControlService = (*Store)(nil)

// Users, roles, grants and owners (SPEC §2.7). Privilege rows and owner rows
// point at object ids, which are never reused, so a dropped and recreated
// object starts with no bindings and no owner. object_type holds the
// lower-case entity kind, as in tag_relation.

// ownerTypeUser is the only owner type: owners are users of the metalake.
const ownerTypeUser = "USER"

func noSuchUser(metalake, name string) error {
	return semcat.NotFound(semcat.KindUser, "user '%s.%s' does not exist", metalake, name)
}

func noSuchRole(metalake, name string) error {
	return semcat.NotFound(semcat.KindRole, "role '%s.%s' does not exist", metalake, name)
}

// getUser loads a live user with its role names in byte order.
func getUser(ctx context.Context, q querier, metalakeID int64, metalake, name, lock string) (*semcat.User, error) {
	u := &semcat.User{}
	err := q.QueryRow(ctx, `SELECT user_id, user_name, audit_info FROM user_meta
		WHERE metalake_id = $1 AND user_name = $2 AND deleted_at = 0`+lock, metalakeID, name).Scan(&u.ID, &u.Name, &u.Audit)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, noSuchUser(metalake, name)
	} else if err != nil {
		return nil, err
	}
	u.Roles, err = listNames(ctx, q, `SELECT r.role_name FROM user_role ur
		JOIN role_meta r ON r.role_id = ur.role_id AND r.deleted_at = 0
		WHERE ur.user_id = $1 ORDER BY r.role_name COLLATE "C"`, u.ID)
	return u, err
}

// roleIDs resolves role names to ids; any missing role is ENOTFOUND.
func roleIDs(ctx context.Context, q querier, metalakeID int64, metalake string, names []string, lock string) ([]int64, error) {
	ids := make([]int64, len(names))
	for i, name := range names {
		err := q.QueryRow(ctx, `SELECT role_id FROM role_meta
			WHERE metalake_id = $1 AND role_name = $2 AND deleted_at = 0`+lock, metalakeID, name).Scan(&ids[i])
		if errors.Is(err, pgx.ErrNoRows) {
			return nil, noSuchRole(metalake, name)
		} else if err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// validateRoleNames checks the role names of a grant or revoke.
func validateRoleNames(names []string) error {
	if len(names) == 0 {
		return semcat.Errorf(semcat.EINVALID, "roleNames: at least one role name is required")
	}
	for i, n := range names {
		if err := semcat.ValidateName(fmt.Sprintf("roleNames[%d]", i), n); err != nil {
			return err
		}
	}
	return nil
}

// CreateUser adds a user to a metalake.
func (s *Store) CreateUser(ctx context.Context, metalake string, req semcat.UserCreate) (*semcat.User, semcat.Position, error) {
	if err := semcat.ValidateName("name", req.Name); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.User
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		u := &semcat.User{Name: req.Name, Roles: []string{}, Audit: semcat.NewAudit(actor(ctx), s.Now())}
		err = tx.QueryRow(ctx, `INSERT INTO user_meta (user_name, metalake_id, audit_info) VALUES ($1, $2, $3) RETURNING user_id`,
			u.Name, mid, u.Audit).Scan(&u.ID)
		if uniqueViolation(err) {
			return semcat.AlreadyExists(semcat.KindUser, "user '%s.%s' already exists", metalake, u.Name)
		} else if err != nil {
			return err
		}
		out = u
		return tx.emit(ctx, semcat.KindUser, u.ID, opUpsert)
	})
	return out, pos, err
}

// GetUser loads a user with the names of its roles in byte order.
func (s *Store) GetUser(ctx context.Context, metalake, name string) (*semcat.User, error) {
	var out *semcat.User
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		out, err = getUser(ctx, tx, mid, metalake, name, noLock)
		return err
	})
	return out, err
}

// GrantRoles grants roles to a user; granting a role twice is fine. The user
// must exist, and so must every role.
func (s *Store) GrantRoles(ctx context.Context, metalake, user string, roles []string) (*semcat.User, semcat.Position, error) {
	return s.changeRoles(ctx, metalake, user, roles, `INSERT INTO user_role (user_id, role_id)
		SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING`)
}

// RevokeRoles revokes roles from a user; revoking a role the user does not
// have is fine. The user must exist, and so must every role.
func (s *Store) RevokeRoles(ctx context.Context, metalake, user string, roles []string) (*semcat.User, semcat.Position, error) {
	return s.changeRoles(ctx, metalake, user, roles, `DELETE FROM user_role WHERE user_id = $1 AND role_id = ANY($2::bigint[])`)
}

// changeRoles resolves the user and the roles, runs change with the user id
// and the role ids, and returns the user afterwards.
func (s *Store) changeRoles(ctx context.Context, metalake, user string, roles []string, change string) (*semcat.User, semcat.Position, error) {
	if err := validateRoleNames(roles); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.User
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		u, err := getUser(ctx, tx, mid, metalake, user, updateLock)
		if err != nil {
			return err
		}
		ids, err := roleIDs(ctx, tx, mid, metalake, roles, shareLock)
		if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, change, u.ID, ids); err != nil {
			return err
		}
		if out, err = getUser(ctx, tx, mid, metalake, user, noLock); err != nil {
			return err
		}
		return tx.emit(ctx, semcat.KindUser, u.ID, opUpsert)
	})
	return out, pos, err
}

// resolveSecurable finds the id of a live object a role or an owner can
// refer to: the metalake itself (named by its own name) or a catalog,
// schema, table or semantic model of it.
func (s *Store) resolveSecurable(ctx context.Context, q querier, metalake string, metalakeID int64, obj semcat.ObjectRef, lock string) (int64, error) {
	switch obj.Type {
	case semcat.KindMetalake:
		if obj.FullName != metalake {
			return 0, semcat.Errorf(semcat.EINVALID, "fullName: a metalake object is named by the metalake itself ('%s'), got '%s'", metalake, obj.FullName)
		}
		return metalakeID, nil
	case semcat.KindCatalog, semcat.KindSchema, semcat.KindTable, semcat.KindSemanticModel:
		return s.resolveObject(ctx, q, metalake, obj, lock)
	}
	return 0, semcat.Errorf(semcat.EINVALID, "type: unsupported object type '%s' (want metalake, catalog, schema, table or semantic_model)", obj.Type)
}

// atPath prefixes the JSON path of a validation error with the path of the
// value it is about; other errors pass through.
func atPath(prefix string, err error) error {
	if semcat.ErrorCode(err) != semcat.EINVALID {
		return err
	}
	return semcat.Errorf(semcat.EINVALID, "%s.%s", prefix, semcat.ErrorMessage(err))
}

// checkRepeatedPrivileges rejects a privilege listed twice for the same
// object, even with the same condition: which of two conflicting conditions
// was meant cannot be guessed, so neither wins.
func checkRepeatedPrivileges(objects []semcat.SecurableObject) error {
	type key struct {
		typ       semcat.ObjectType
		fullName  string
		privilege semcat.Privilege
	}
	seen := map[key]string{}
	for i, o := range objects {
		for j, g := range o.Privileges {
			p := fmt.Sprintf("securableObjects[%d].privileges[%d]", i, j)
			k := key{o.Type, o.FullName, g.Name}
			if first, ok := seen[k]; ok {
				return semcat.Errorf(semcat.EINVALID, "%s.name: %s on %s '%s' is already listed at %s", p, g.Name, o.Type, o.FullName, first)
			}
			seen[k] = p
		}
	}
	return nil
}

// CreateRole creates a role and binds its privileges. Every object must
// exist when the role is created (ENOTFOUND of the object's kind
// otherwise); a privilege listed twice for one object is EINVALID. The role
// is returned as GetRole returns it.
func (s *Store) CreateRole(ctx context.Context, metalake string, req semcat.RoleCreate) (*semcat.Role, semcat.Position, error) {
	if err := req.Validate(); err != nil {
		return nil, semcat.Position{}, err
	}
	if err := checkRepeatedPrivileges(req.SecurableObjects); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.Role
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		// One element per (object, privilege), for a single INSERT.
		var types, privileges, conditions []string
		var ids []int64
		for i, o := range req.SecurableObjects {
			kind, _ := o.Type.Kind() // checked by Validate
			id, err := s.resolveSecurable(ctx, tx, metalake, mid, semcat.ObjectRef{Type: kind, FullName: o.FullName}, shareLock)
			if err != nil {
				return atPath(fmt.Sprintf("securableObjects[%d]", i), err)
			}
			for _, g := range o.Privileges {
				types = append(types, string(kind))
				ids = append(ids, id)
				privileges = append(privileges, string(g.Name))
				conditions = append(conditions, string(g.Condition))
			}
		}
		r := &semcat.Role{Name: req.Name, Audit: semcat.NewAudit(actor(ctx), s.Now())}
		err = tx.QueryRow(ctx, `INSERT INTO role_meta (role_name, metalake_id, audit_info) VALUES ($1, $2, $3) RETURNING role_id`,
			r.Name, mid, r.Audit).Scan(&r.ID)
		if uniqueViolation(err) {
			return semcat.AlreadyExists(semcat.KindRole, "role '%s.%s' already exists", metalake, r.Name)
		} else if err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO role_privilege (role_id, object_type, object_id, privilege, condition)
			SELECT $1, * FROM unnest($2::text[], $3::bigint[], $4::text[], $5::text[])`,
			r.ID, types, ids, privileges, conditions); err != nil {
			return err
		}
		if r.SecurableObjects, err = roleObjects(ctx, tx, r.ID); err != nil {
			return err
		}
		out = r
		return tx.emit(ctx, semcat.KindRole, r.ID, opUpsert)
	})
	return out, pos, err
}

// GetRole loads a role with its securable objects: named by their current
// names, ordered by level (metalake, catalog, schema, table, semantic
// model) and then by full name in byte order, each with its privileges in
// name order. Objects dropped since the role was created are left out.
func (s *Store) GetRole(ctx context.Context, metalake, name string) (*semcat.Role, error) {
	var out *semcat.Role
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		r := &semcat.Role{}
		err = tx.QueryRow(ctx, `SELECT role_id, role_name, audit_info FROM role_meta
			WHERE metalake_id = $1 AND role_name = $2 AND deleted_at = 0`, mid, name).Scan(&r.ID, &r.Name, &r.Audit)
		if errors.Is(err, pgx.ErrNoRows) {
			return noSuchRole(metalake, name)
		} else if err != nil {
			return err
		}
		if r.SecurableObjects, err = roleObjects(ctx, tx, r.ID); err != nil {
			return err
		}
		out = r
		return nil
	})
	return out, err
}

// roleObjectsSQL lists a role's privilege rows with the current dotted name
// of each object, leaving out objects that are no longer live. Two live
// objects of one kind never share a full name, so rows group into objects by
// (kind, full name).
const roleObjectsSQL = `
SELECT object_type, full_name, privilege, condition FROM (
  SELECT p.object_type, p.privilege, p.condition, CASE p.object_type
    WHEN 'metalake' THEN (SELECT m.metalake_name FROM metalake_meta m
      WHERE m.metalake_id = p.object_id AND m.deleted_at = 0)
    WHEN 'catalog' THEN (SELECT c.catalog_name FROM catalog_meta c
      WHERE c.catalog_id = p.object_id AND c.deleted_at = 0)
    WHEN 'schema' THEN (SELECT c.catalog_name || '.' || s.schema_name FROM schema_meta s
      JOIN catalog_meta c ON c.catalog_id = s.catalog_id AND c.deleted_at = 0
      WHERE s.schema_id = p.object_id AND s.deleted_at = 0)
    WHEN 'table' THEN (SELECT c.catalog_name || '.' || s.schema_name || '.' || t.table_name FROM table_meta t
      JOIN schema_meta s ON s.schema_id = t.schema_id AND s.deleted_at = 0
      JOIN catalog_meta c ON c.catalog_id = t.catalog_id AND c.deleted_at = 0
      WHERE t.table_id = p.object_id AND t.deleted_at = 0)
    WHEN 'semantic_model' THEN (SELECT c.catalog_name || '.' || s.schema_name || '.' || sm.semantic_model_name FROM semantic_model_meta sm
      JOIN schema_meta s ON s.schema_id = sm.schema_id AND s.deleted_at = 0
      JOIN catalog_meta c ON c.catalog_id = sm.catalog_id AND c.deleted_at = 0
      WHERE sm.semantic_model_id = p.object_id AND sm.deleted_at = 0)
    END AS full_name
  FROM role_privilege p WHERE p.role_id = $1
) b
WHERE full_name IS NOT NULL
ORDER BY array_position(ARRAY['metalake', 'catalog', 'schema', 'table', 'semantic_model'], object_type),
  full_name COLLATE "C", privilege COLLATE "C"`

// roleObjects rebuilds a role's securable objects from its privilege rows.
func roleObjects(ctx context.Context, q querier, roleID int64) ([]semcat.SecurableObject, error) {
	rows, err := q.Query(ctx, roleObjectsSQL, roleID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []semcat.SecurableObject{}
	for rows.Next() {
		var kind semcat.EntityKind
		var fullName string
		var g semcat.PrivilegeGrant
		if err := rows.Scan(&kind, &fullName, &g.Name, &g.Condition); err != nil {
			return nil, err
		}
		typ := semcat.ObjectType(strings.ToUpper(string(kind)))
		if n := len(out); n == 0 || out[n-1].Type != typ || out[n-1].FullName != fullName {
			out = append(out, semcat.SecurableObject{FullName: fullName, Type: typ})
		}
		last := &out[len(out)-1]
		last.Privileges = append(last.Privileges, g)
	}
	return out, rows.Err()
}

// validateOwner checks an owner: a valid user name and type USER.
func validateOwner(o semcat.Owner) error {
	if o.Type != ownerTypeUser {
		return semcat.Errorf(semcat.EINVALID, "type: owner type must be USER, got '%s'", o.Type)
	}
	return semcat.ValidateName("name", o.Name)
}

// setOwner makes user the owner of an object, replacing any previous owner.
// The create methods call it for the creator, who need not be a user of the
// metalake; SetOwner checks that first. It writes no outbox row: its
// callers emit one for the object.
func setOwner(ctx context.Context, tx *writeTx, metalakeID int64, kind semcat.EntityKind, id int64, user string) error {
	_, err := tx.Exec(ctx, setOwnerSQL, metalakeID, string(kind), id, ownerTypeUser, user)
	return err
}

// setOwnerSQL makes $5, a user ($4 = ownerTypeUser), the owner of the
// object of kind $2 and id $3 in metalake $1.
const setOwnerSQL = `INSERT INTO owner_meta (metalake_id, object_type, object_id, owner_type, owner_name)
		VALUES ($1, $2, $3, $4, $5) ` + ownerReplaces

// ownerReplaces ends an insert into owner_meta: an object has one owner,
// and a new one replaces it.
const ownerReplaces = `ON CONFLICT (object_type, object_id) DO UPDATE SET metalake_id = EXCLUDED.metalake_id,
			owner_type = EXCLUDED.owner_type, owner_name = EXCLUDED.owner_name`

// emitCreated ends every create: it makes user the owner of the new entity
// and writes the entity's outbox row, in one statement.
func (t *writeTx) emitCreated(ctx context.Context, metalakeID int64, kind semcat.EntityKind, id int64, user string) error {
	return t.learnTxID(func(txid *uint64) error {
		return t.QueryRow(ctx, `WITH owner AS (`+setOwnerSQL+`)
			INSERT INTO outbox (entity_kind, entity_id, operation) VALUES ($2, $3, $6)
			RETURNING txid::text::bigint`,
			metalakeID, string(kind), id, ownerTypeUser, user, opUpsert).Scan(txid)
	})
}

// SetOwner makes an existing user of the metalake the owner of the
// metalake itself or of one of its catalogs, schemas, tables or semantic
// models.
func (s *Store) SetOwner(ctx context.Context, metalake string, obj semcat.ObjectRef, owner semcat.Owner) (semcat.Position, error) {
	if err := validateOwner(owner); err != nil {
		return semcat.Position{}, err
	}
	return s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		id, err := s.resolveSecurable(ctx, tx, metalake, mid, obj, shareLock)
		if err != nil {
			return err
		}
		if _, err := getUser(ctx, tx, mid, metalake, owner.Name, shareLock); err != nil {
			return err
		}
		if err := setOwner(ctx, tx, mid, obj.Type, id, owner.Name); err != nil {
			return err
		}
		return tx.emit(ctx, obj.Type, id, opUpsert)
	})
}

// GetOwner returns the owner of an object, or nil if it has none.
func (s *Store) GetOwner(ctx context.Context, metalake string, obj semcat.ObjectRef) (*semcat.Owner, error) {
	var out *semcat.Owner
	err := s.read(ctx, func(tx pgx.Tx) error {
		out = nil
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		id, err := s.resolveSecurable(ctx, tx, metalake, mid, obj, noLock)
		if err != nil {
			return err
		}
		o := &semcat.Owner{}
		err = tx.QueryRow(ctx, `SELECT owner_name, owner_type FROM owner_meta WHERE object_type = $1 AND object_id = $2`,
			string(obj.Type), id).Scan(&o.Name, &o.Type)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		out = o
		return nil
	})
	return out, err
}
