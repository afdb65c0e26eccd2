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

// ownerTypeUser is the owner type of the creator, who owns what it creates.
const ownerTypeUser = semcat.OwnerUser

func noSuchRole(metalake, name string) error {
	return semcat.NotFound(semcat.KindRole, "role '%s.%s' does not exist", metalake, name)
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
	var e *semcat.Error
	if !errors.As(err, &e) || e.Code != semcat.EINVALID || strings.HasPrefix(e.Message, prefix) {
		return err
	}
	return &semcat.Error{Code: semcat.EINVALID, Type: e.Type, Message: prefix + "." + e.Message}
}

// CreateRole creates a role and binds its privileges. Every object must
// exist when the role is created (ENOTFOUND of the object's kind
// otherwise); a privilege listed twice for one object is EINVALID. The role
// is returned as GetRole returns it.
func (s *Store) CreateRole(ctx context.Context, metalake string, req semcat.RoleCreate) (*semcat.Role, semcat.Position, error) {
	if err := req.Validate(); err != nil {
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
			at := fmt.Sprintf("securableObjects[%d]", i)
			id, err := s.resolveBindable(ctx, tx, metalake, mid, semcat.ObjectRef{Type: kind, FullName: o.FullName}, at, o.Privileges)
			if semcat.ErrorCode(err) == semcat.ENOTFOUND {
				// Gravitino: IllegalMetadataObjectException, a 400.
				return &semcat.Error{Code: semcat.EINVALID, Type: "IllegalMetadataObjectException", Entity: semcat.ErrorEntity(err), Message: at + ": " + semcat.ErrorMessage(err)}
			} else if err != nil {
				return atPath(at, err)
			}
			for _, g := range o.Privileges {
				types = append(types, string(kind))
				ids = append(ids, id)
				privileges = append(privileges, string(g.Name))
				conditions = append(conditions, string(g.Condition))
			}
		}
		r := &semcat.Role{Name: req.Name, Properties: props(cloneProps(req.Properties)), Audit: semcat.NewAudit(actor(ctx), s.Now())}
		err = tx.QueryRow(ctx, `INSERT INTO role_meta (role_name, metalake_id, audit_info, properties) VALUES ($1, $2, $3, $4) RETURNING role_id`,
			r.Name, mid, r.Audit, r.Properties).Scan(&r.ID)
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
		return tx.emitCreated(ctx, mid, semcat.KindRole, r.ID, actor(ctx))
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
		out, err = getRole(ctx, tx, mid, metalake, name, noLock)
		return err
	})
	return out, err
}

// getRole loads a live role with its securable objects.
func getRole(ctx context.Context, q querier, metalakeID int64, metalake, name, lock string) (*semcat.Role, error) {
	r := &semcat.Role{}
	err := q.QueryRow(ctx, `SELECT role_id, role_name, audit_info, properties FROM role_meta
		WHERE metalake_id = $1 AND role_name = $2 AND deleted_at = 0`+lock, metalakeID, name).Scan(&r.ID, &r.Name, &r.Audit, &r.Properties)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, noSuchRole(metalake, name)
	} else if err != nil {
		return nil, err
	}
	r.Properties = props(r.Properties)
	r.SecurableObjects, err = roleObjects(ctx, q, r.ID)
	return r, err
}

// ListRoles lists the role names of a metalake in byte order.
func (s *Store) ListRoles(ctx context.Context, metalake string) ([]string, error) {
	var out []string
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		out, err = listNames(ctx, tx, `SELECT role_name FROM role_meta WHERE metalake_id = $1 AND deleted_at = 0
			ORDER BY role_name COLLATE "C"`, mid)
		return err
	})
	return out, err
}

// DeleteRole drops a role: no user or group holds it any more and its
// bindings go with it. False if there was no such role.
func (s *Store) DeleteRole(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	if err := semcat.ValidateName("role", name); err != nil {
		return false, semcat.Position{}, err
	}
	deleted := false
	pos, err := s.write(ctx, func(tx *writeTx) error {
		deleted = false
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		var id int64
		err = tx.QueryRow(ctx, `UPDATE role_meta SET deleted_at = $3 WHERE metalake_id = $1 AND role_name = $2 AND deleted_at = 0
			RETURNING role_id`, mid, name, s.nowMillis()).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
			return nil
		} else if err != nil {
			return err
		}
		for _, q := range []string{`DELETE FROM user_role WHERE role_id = $1`, `DELETE FROM group_role WHERE role_id = $1`,
			`DELETE FROM role_privilege WHERE role_id = $1`} {
			if _, err := tx.Exec(ctx, q, id); err != nil {
				return err
			}
		}
		deleted = true
		return tx.emit(ctx, semcat.KindRole, id, opDelete)
	})
	return deleted, pos, err
}

// resolveBindable resolves the object privileges are bound on and checks
// that each privilege about one type of catalog is bound in such a catalog.
func (s *Store) resolveBindable(ctx context.Context, q querier, metalake string, metalakeID int64, obj semcat.ObjectRef, at string, privileges []semcat.PrivilegeGrant) (int64, error) {
	if obj.Type != semcat.KindCatalog && obj.Type != semcat.KindSchema {
		return s.resolveSecurable(ctx, q, metalake, metalakeID, obj, shareLock)
	}
	p, id, err := s.resolveObjectPath(ctx, q, metalake, obj, shareLock)
	if err != nil {
		return 0, err
	}
	catalog, _, _ := strings.Cut(obj.FullName, ".")
	for j, g := range privileges {
		if err := semcat.CheckPrivilegeCatalogType(fmt.Sprintf("%s.privileges[%d]", at, j), g.Name, catalog, p.catalogType); err != nil {
			return 0, err
		}
	}
	return id, nil
}

// noSuchMetadataObject is Gravitino's error for an object of a grant or an
// owner that does not exist.
func noSuchMetadataObject(err error) error { return semcat.NoSuchMetadataObject(err) }

// GrantPrivileges binds privileges on one object to a role, in addition
// to what the role binds there; what it binds already is left as is. A
// privilege bound with the other condition is IllegalPrivilegeException.
func (s *Store) GrantPrivileges(ctx context.Context, metalake, role string, obj semcat.ObjectRef, privileges []semcat.PrivilegeGrant) (*semcat.Role, semcat.Position, error) {
	return s.changePrivileges(ctx, metalake, role, obj, privileges, true)
}

// RevokePrivileges unbinds privileges (name and condition) on one object
// from a role; unbinding what is not bound changes nothing.
func (s *Store) RevokePrivileges(ctx context.Context, metalake, role string, obj semcat.ObjectRef, privileges []semcat.PrivilegeGrant) (*semcat.Role, semcat.Position, error) {
	return s.changePrivileges(ctx, metalake, role, obj, privileges, false)
}

func (s *Store) changePrivileges(ctx context.Context, metalake, role string, obj semcat.ObjectRef, privileges []semcat.PrivilegeGrant, grant bool) (*semcat.Role, semcat.Position, error) {
	if err := semcat.ValidateSecurable("request", semcat.ObjectType(strings.ToUpper(string(obj.Type))), obj.FullName, privileges); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *semcat.Role
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		id, err := s.resolveBindable(ctx, tx, metalake, mid, obj, "request", privileges)
		if err != nil {
			return noSuchMetadataObject(err)
		}
		r, err := getRole(ctx, tx, mid, metalake, role, updateLock)
		if err != nil {
			return err
		}
		var names, conditions []string
		for _, g := range privileges {
			names = append(names, string(g.Name))
			conditions = append(conditions, string(g.Condition))
		}
		if grant {
			var conflict string
			err := tx.QueryRow(ctx, `SELECT privilege FROM role_privilege p JOIN unnest($4::text[], $5::text[]) AS g(name, cond)
				ON p.privilege = g.name AND p.condition <> g.cond
				WHERE p.role_id = $1 AND p.object_type = $2 AND p.object_id = $3 LIMIT 1`,
				r.ID, string(obj.Type), id, names, conditions).Scan(&conflict)
			if err == nil {
				return &semcat.Error{Code: semcat.EINVALID, Type: "IllegalPrivilegeException",
					Message: fmt.Sprintf("role '%s' binds %s on %s '%s' with the other condition; revoke it first", role, strings.ToLower(conflict), obj.Type, obj.FullName)}
			} else if !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			_, err = tx.Exec(ctx, `INSERT INTO role_privilege (role_id, object_type, object_id, privilege, condition)
				SELECT $1, $2, $3, * FROM unnest($4::text[], $5::text[]) ON CONFLICT DO NOTHING`,
				r.ID, string(obj.Type), id, names, conditions)
			if err != nil {
				return err
			}
		} else if _, err := tx.Exec(ctx, `DELETE FROM role_privilege p USING unnest($4::text[], $5::text[]) AS g(name, cond)
				WHERE p.role_id = $1 AND p.object_type = $2 AND p.object_id = $3 AND p.privilege = g.name AND p.condition = g.cond`,
			r.ID, string(obj.Type), id, names, conditions); err != nil {
			return err
		}
		r.Audit.Touch(actor(ctx), s.Now())
		if _, err := tx.Exec(ctx, `UPDATE role_meta SET audit_info = $2 WHERE role_id = $1`, r.ID, r.Audit); err != nil {
			return err
		}
		if out, err = getRole(ctx, tx, mid, metalake, role, noLock); err != nil {
			return err
		}
		return tx.emit(ctx, semcat.KindRole, r.ID, opUpsert)
	})
	return out, pos, err
}

// ObjectRoles lists the roles that bind privileges on exactly this object,
// by name.
func (s *Store) ObjectRoles(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]string, error) {
	var out []string
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		id, err := s.resolveSecurable(ctx, tx, metalake, mid, obj, noLock)
		if err != nil {
			return noSuchMetadataObject(err)
		}
		out, err = listNames(ctx, tx, `SELECT DISTINCT r.role_name COLLATE "C" FROM role_privilege p
			JOIN role_meta r ON r.role_id = p.role_id AND r.deleted_at = 0
			WHERE p.object_type = $1 AND p.object_id = $2 ORDER BY 1`, string(obj.Type), id)
		return err
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

// resolveOwnable finds the id of a live object an owner can own: a
// securable one (resolveSecurable), or a tag or role of the metalake.
func (s *Store) resolveOwnable(ctx context.Context, q querier, metalake string, metalakeID int64, obj semcat.ObjectRef, lock string) (int64, error) {
	switch obj.Type {
	case semcat.KindTag:
		r, err := tags.get(ctx, q, metalakeID, obj.FullName, lock, noSuchTag(metalake, obj.FullName))
		if err != nil {
			return 0, err
		}
		return r.ID, nil
	case semcat.KindRole:
		ids, err := roleIDs(ctx, q, metalakeID, metalake, []string{obj.FullName}, lock)
		if err != nil {
			return 0, err
		}
		return ids[0], nil
	}
	return s.resolveSecurable(ctx, q, metalake, metalakeID, obj, lock)
}

// validateOwner checks an owner: a valid name and type user or group.
func validateOwner(o semcat.Owner) error {
	if o.Type != semcat.OwnerUser && o.Type != semcat.OwnerGroup {
		return semcat.Errorf(semcat.EINVALID, "type: owner type must be user or group, got '%s'", strings.ToLower(o.Type))
	}
	return semcat.ValidateName("name", o.Name)
}

// setOwnerSQL makes $5, a user or group ($4 = its owner type), the owner
// of the object of kind $2 and id $3 in metalake $1, replacing any previous
// owner. It writes no outbox row: its callers emit one for the object.
const setOwnerSQL = `INSERT INTO owner_meta (metalake_id, object_type, object_id, owner_type, owner_name)
		VALUES ($1, $2, $3, $4, $5) ` + ownerReplaces

// ownerReplaces ends an insert into owner_meta: an object has one owner,
// and a new one replaces it.
const ownerReplaces = `ON CONFLICT (object_type, object_id) DO UPDATE SET metalake_id = EXCLUDED.metalake_id,
			owner_type = EXCLUDED.owner_type, owner_name = EXCLUDED.owner_name`

// SetOwner makes an existing user or group of the metalake the owner of the
// metalake itself or of one of its catalogs, schemas, tables, semantic
// models, tags or roles.
func (s *Store) SetOwner(ctx context.Context, metalake string, obj semcat.ObjectRef, owner semcat.Owner) (semcat.Position, error) {
	if err := validateOwner(owner); err != nil {
		return semcat.Position{}, err
	}
	return s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		id, err := s.resolveOwnable(ctx, tx, metalake, mid, obj, shareLock)
		if err != nil {
			return noSuchMetadataObject(err)
		}
		p := userPrincipals
		if owner.Type == semcat.OwnerGroup {
			p = groupPrincipals
		}
		if _, err := p.get(ctx, tx, mid, metalake, owner.Name, shareLock); err != nil {
			if semcat.ErrorCode(err) == semcat.ENOTFOUND {
				// Gravitino names this one NotFoundException.
				return &semcat.Error{Code: semcat.ENOTFOUND, Type: "NotFoundException", Entity: semcat.ErrorEntity(err), Message: semcat.ErrorMessage(err)}
			}
			return err
		}
		if _, err := tx.Exec(ctx, setOwnerSQL, mid, string(obj.Type), id, owner.Type, owner.Name); err != nil {
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
		id, err := s.resolveOwnable(ctx, tx, metalake, mid, obj, noLock)
		if err != nil {
			return noSuchMetadataObject(err)
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
