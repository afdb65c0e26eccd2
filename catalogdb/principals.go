package catalogdb

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/semcat/semcat"
)

// principal describes a table of users or of groups: both are names of a
// metalake holding roles, stored alike (SPEC §2.7, §2.10).
type principal struct {
	kind     semcat.EntityKind
	table    string // user_meta, group_meta
	id       string // user_id, group_id
	name     string // user_name, group_name
	roles    string // user_role, group_role: (id, role_id)
	ownerTyp string // its owner type: USER, GROUP
}

var (
	userPrincipals  = principal{semcat.KindUser, "user_meta", "user_id", "user_name", "user_role", semcat.OwnerUser}
	groupPrincipals = principal{semcat.KindGroup, "group_meta", "group_id", "group_name", "group_role", semcat.OwnerGroup}
)

// member is a user or group with its role names in byte order.
type member struct {
	ID    int64
	Name  string
	Roles []string
	Audit semcat.Audit
}

func (p principal) noSuch(metalake, name string) error {
	return semcat.NotFound(p.kind, "%s '%s.%s' does not exist", p.kind, metalake, name)
}

// get loads a live user or group with its roles.
func (p principal) get(ctx context.Context, q querier, metalakeID int64, metalake, name, lock string) (*member, error) {
	m := &member{}
	err := q.QueryRow(ctx, fmt.Sprintf(`SELECT %s, %s, audit_info FROM %s
		WHERE metalake_id = $1 AND %s = $2 AND deleted_at = 0`, p.id, p.name, p.table, p.name)+lock,
		metalakeID, name).Scan(&m.ID, &m.Name, &m.Audit)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, p.noSuch(metalake, name)
	} else if err != nil {
		return nil, err
	}
	m.Roles, err = listNames(ctx, q, fmt.Sprintf(`SELECT r.role_name FROM %s x
		JOIN role_meta r ON r.role_id = x.role_id AND r.deleted_at = 0
		WHERE x.%s = $1 ORDER BY r.role_name COLLATE "C"`, p.roles, p.id), m.ID)
	return m, err
}

// list loads every live user or group of a metalake with its roles, by
// name in byte order, in one statement.
func (p principal) list(ctx context.Context, q querier, metalakeID int64) ([]*member, error) {
	rows, err := q.Query(ctx, fmt.Sprintf(`SELECT u.%[1]s, u.%[2]s, u.audit_info,
			COALESCE((SELECT array_agg(r.role_name ORDER BY r.role_name COLLATE "C") FROM %[3]s x
				JOIN role_meta r ON r.role_id = x.role_id AND r.deleted_at = 0 WHERE x.%[1]s = u.%[1]s), '{}')
		FROM %[4]s u WHERE u.metalake_id = $1 AND u.deleted_at = 0 ORDER BY u.%[2]s COLLATE "C"`,
		p.id, p.name, p.roles, p.table), metalakeID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := []*member{}
	for rows.Next() {
		m := &member{}
		if err := rows.Scan(&m.ID, &m.Name, &m.Audit, &m.Roles); err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, rows.Err()
}

// create adds a user or group to a metalake.
func (s *Store) createPrincipal(ctx context.Context, p principal, metalake, name string) (*member, semcat.Position, error) {
	if err := semcat.ValidateName("name", name); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *member
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		m := &member{Name: name, Roles: []string{}, Audit: semcat.NewAudit(actor(ctx), s.Now())}
		err = tx.QueryRow(ctx, fmt.Sprintf(`INSERT INTO %s (%s, metalake_id, audit_info) VALUES ($1, $2, $3) RETURNING %s`, p.table, p.name, p.id),
			m.Name, mid, m.Audit).Scan(&m.ID)
		if uniqueViolation(err) {
			return semcat.AlreadyExists(p.kind, "%s '%s.%s' already exists", p.kind, metalake, m.Name)
		} else if err != nil {
			return err
		}
		out = m
		return tx.emit(ctx, p.kind, m.ID, opUpsert)
	})
	return out, pos, err
}

func (s *Store) getPrincipal(ctx context.Context, p principal, metalake, name string) (*member, error) {
	var out *member
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		out, err = p.get(ctx, tx, mid, metalake, name, noLock)
		return err
	})
	return out, err
}

func (s *Store) listPrincipals(ctx context.Context, p principal, metalake string) ([]*member, error) {
	var out []*member
	err := s.read(ctx, func(tx pgx.Tx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, noLock)
		if err != nil {
			return err
		}
		out, err = p.list(ctx, tx, mid)
		return err
	})
	return out, err
}

// deletePrincipal removes a user or group with its grants and the
// ownerships it held, as Gravitino does; the owner of the metalake itself
// cannot be removed (EINVALID). A missing one is not an error: false.
func (s *Store) deletePrincipal(ctx context.Context, p principal, metalake, name string) (bool, semcat.Position, error) {
	if err := semcat.ValidateName(string(p.kind), name); err != nil {
		return false, semcat.Position{}, err
	}
	deleted := false
	pos, err := s.write(ctx, func(tx *writeTx) error {
		deleted = false
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		m, err := p.get(ctx, tx, mid, metalake, name, updateLock)
		if semcat.ErrorCode(err) == semcat.ENOTFOUND {
			return nil
		} else if err != nil {
			return err
		}
		var ownsMetalake bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM owner_meta WHERE object_type = 'metalake' AND object_id = $1
			AND owner_type = $2 AND owner_name = $3)`, mid, p.ownerTyp, name).Scan(&ownsMetalake); err != nil {
			return err
		}
		if ownsMetalake {
			return semcat.Errorf(semcat.EINVALID, "%s '%s' owns metalake '%s' and cannot be removed; make someone else its owner first", p.kind, name, metalake)
		}
		if _, err := tx.Exec(ctx, fmt.Sprintf(`UPDATE %s SET deleted_at = $2 WHERE %s = $1`, p.table, p.id), m.ID, s.nowMillis()); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, fmt.Sprintf(`DELETE FROM %s WHERE %s = $1`, p.roles, p.id), m.ID); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM owner_meta WHERE metalake_id = $1 AND owner_type = $2 AND owner_name = $3`, mid, p.ownerTyp, name); err != nil {
			return err
		}
		deleted = true
		return tx.emit(ctx, p.kind, m.ID, opDelete)
	})
	return deleted, pos, err
}

// changePrincipalRoles grants (or revokes) roles to a user or group. As in
// Gravitino, every role is looked up first (a missing one is
// IllegalRoleException, 400), then the user or group; granting a role held
// already, or revoking one not held, changes nothing and succeeds.
func (s *Store) changePrincipalRoles(ctx context.Context, p principal, metalake, name string, roles []string, grant bool) (*member, semcat.Position, error) {
	if err := validateRoleNames(roles); err != nil {
		return nil, semcat.Position{}, err
	}
	var out *member
	pos, err := s.write(ctx, func(tx *writeTx) error {
		mid, err := s.resolveMetalake(ctx, tx, metalake, shareLock)
		if err != nil {
			return err
		}
		ids, err := roleIDs(ctx, tx, mid, metalake, roles, shareLock)
		if err != nil {
			if semcat.ErrorCode(err) == semcat.ENOTFOUND {
				return &semcat.Error{Code: semcat.EINVALID, Type: "IllegalRoleException", Entity: semcat.KindRole, Message: semcat.ErrorMessage(err)}
			}
			return err
		}
		m, err := p.get(ctx, tx, mid, metalake, name, updateLock)
		if err != nil {
			return err
		}
		change := fmt.Sprintf(`INSERT INTO %s (%s, role_id) SELECT $1, unnest($2::bigint[]) ON CONFLICT DO NOTHING`, p.roles, p.id)
		if !grant {
			change = fmt.Sprintf(`DELETE FROM %s WHERE %s = $1 AND role_id = ANY($2::bigint[])`, p.roles, p.id)
		}
		if _, err := tx.Exec(ctx, change, m.ID, ids); err != nil {
			return err
		}
		m.Audit.Touch(actor(ctx), s.Now())
		if _, err := tx.Exec(ctx, fmt.Sprintf(`UPDATE %s SET audit_info = $2 WHERE %s = $1`, p.table, p.id), m.ID, m.Audit); err != nil {
			return err
		}
		if out, err = p.get(ctx, tx, mid, metalake, name, noLock); err != nil {
			return err
		}
		return tx.emit(ctx, p.kind, m.ID, opUpsert)
	})
	return out, pos, err
}

func userOf(m *member) *semcat.User {
	if m == nil {
		return nil
	}
	return &semcat.User{ID: m.ID, Name: m.Name, Roles: m.Roles, Audit: m.Audit}
}

func groupOf(m *member) *semcat.Group {
	if m == nil {
		return nil
	}
	return &semcat.Group{ID: m.ID, Name: m.Name, Roles: m.Roles, Audit: m.Audit}
}

// CreateUser adds a user to a metalake.
func (s *Store) CreateUser(ctx context.Context, metalake string, req semcat.UserCreate) (*semcat.User, semcat.Position, error) {
	m, pos, err := s.createPrincipal(ctx, userPrincipals, metalake, req.Name)
	return userOf(m), pos, err
}

// GetUser loads a user with the names of its roles in byte order.
func (s *Store) GetUser(ctx context.Context, metalake, name string) (*semcat.User, error) {
	m, err := s.getPrincipal(ctx, userPrincipals, metalake, name)
	return userOf(m), err
}

// ListUsers lists the users of a metalake with their roles, by name.
func (s *Store) ListUsers(ctx context.Context, metalake string) ([]*semcat.User, error) {
	ms, err := s.listPrincipals(ctx, userPrincipals, metalake)
	out := make([]*semcat.User, len(ms))
	for i, m := range ms {
		out[i] = userOf(m)
	}
	return out, err
}

// DeleteUser removes a user; false if there was none.
func (s *Store) DeleteUser(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	return s.deletePrincipal(ctx, userPrincipals, metalake, name)
}

// GrantRoles grants roles to a user.
func (s *Store) GrantRoles(ctx context.Context, metalake, user string, roles []string) (*semcat.User, semcat.Position, error) {
	m, pos, err := s.changePrincipalRoles(ctx, userPrincipals, metalake, user, roles, true)
	return userOf(m), pos, err
}

// RevokeRoles revokes roles from a user.
func (s *Store) RevokeRoles(ctx context.Context, metalake, user string, roles []string) (*semcat.User, semcat.Position, error) {
	m, pos, err := s.changePrincipalRoles(ctx, userPrincipals, metalake, user, roles, false)
	return userOf(m), pos, err
}

// CreateGroup adds a group to a metalake.
func (s *Store) CreateGroup(ctx context.Context, metalake string, req semcat.GroupCreate) (*semcat.Group, semcat.Position, error) {
	m, pos, err := s.createPrincipal(ctx, groupPrincipals, metalake, req.Name)
	return groupOf(m), pos, err
}

// GetGroup loads a group with the names of its roles in byte order.
func (s *Store) GetGroup(ctx context.Context, metalake, name string) (*semcat.Group, error) {
	m, err := s.getPrincipal(ctx, groupPrincipals, metalake, name)
	return groupOf(m), err
}

// ListGroups lists the groups of a metalake with their roles, by name.
func (s *Store) ListGroups(ctx context.Context, metalake string) ([]*semcat.Group, error) {
	ms, err := s.listPrincipals(ctx, groupPrincipals, metalake)
	out := make([]*semcat.Group, len(ms))
	for i, m := range ms {
		out[i] = groupOf(m)
	}
	return out, err
}

// DeleteGroup removes a group; false if there was none.
func (s *Store) DeleteGroup(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	return s.deletePrincipal(ctx, groupPrincipals, metalake, name)
}

// GrantRolesToGroup grants roles to a group.
func (s *Store) GrantRolesToGroup(ctx context.Context, metalake, group string, roles []string) (*semcat.Group, semcat.Position, error) {
	m, pos, err := s.changePrincipalRoles(ctx, groupPrincipals, metalake, group, roles, true)
	return groupOf(m), pos, err
}

// RevokeRolesFromGroup revokes roles from a group.
func (s *Store) RevokeRolesFromGroup(ctx context.Context, metalake, group string, roles []string) (*semcat.Group, semcat.Position, error) {
	m, pos, err := s.changePrincipalRoles(ctx, groupPrincipals, metalake, group, roles, false)
	return groupOf(m), pos, err
}
