package api

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/semcat/semcat"
)

// accessControlRoutes lists the routes of users, roles, grants and owners
// (SPEC §2.7).
func (h *handler) accessControlRoutes() []route {
	const metalake = "/api/metalakes/{metalake}"
	get, post, put, del := http.MethodGet, http.MethodPost, http.MethodPut, http.MethodDelete
	return []route{
		{"createUser", post, metalake + "/users", h.createUser},
		{"listUsers", get, metalake + "/users", h.listUsers},
		{"loadUser", get, metalake + "/users/{user}", h.loadUser},
		{"removeUser", del, metalake + "/users/{user}", h.removeUser},
		{"createGroup", post, metalake + "/groups", h.createGroup},
		{"listGroups", get, metalake + "/groups", h.listGroups},
		{"loadGroup", get, metalake + "/groups/{group}", h.loadGroup},
		{"removeGroup", del, metalake + "/groups/{group}", h.removeGroup},
		{"createRole", post, metalake + "/roles", h.createRole},
		{"listRoles", get, metalake + "/roles", h.listRoles},
		{"loadRole", get, metalake + "/roles/{role}", h.loadRole},
		{"deleteRole", del, metalake + "/roles/{role}", h.deleteRole},
		{"grantRoles", put, metalake + "/permissions/users/{user}/grant", h.grantRoles},
		{"revokeRoles", put, metalake + "/permissions/users/{user}/revoke", h.revokeRoles},
		{"grantRolesToGroup", put, metalake + "/permissions/groups/{group}/grant", h.grantRolesToGroup},
		{"revokeRolesFromGroup", put, metalake + "/permissions/groups/{group}/revoke", h.revokeRolesFromGroup},
		{"grantPrivileges", put, metalake + "/permissions/roles/{role}/{type}/{fullName}/grant", h.grantPrivileges},
		{"revokePrivileges", put, metalake + "/permissions/roles/{role}/{type}/{fullName}/revoke", h.revokePrivileges},
		{"listObjectRoles", get, metalake + "/objects/{type}/{fullName}/roles", h.listObjectRoles},
		{"setOwner", put, metalake + "/owners/{type}/{fullName}", h.setOwner},
		{"getOwner", get, metalake + "/owners/{type}/{fullName}", h.getOwner},
	}
}

func (h *handler) createUser(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	var req semcat.UserCreate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	u, pos, err := h.svc.Access.CreateUser(r.Context(), metalake, req)
	if err != nil {
		return err
	}
	return written(w, pos, "user", u)
}

func (h *handler) loadUser(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "user")
	if err != nil {
		return err
	}
	u, err := h.svc.Access.GetUser(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	return ok(w, "user", u)
}

func (h *handler) createRole(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	var req semcat.RoleCreate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	role, pos, err := h.svc.Access.CreateRole(r.Context(), metalake, req)
	if err != nil {
		return err
	}
	return written(w, pos, "role", role)
}

func (h *handler) loadRole(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "role")
	if err != nil {
		return err
	}
	role, err := h.svc.Access.GetRole(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	return ok(w, "role", role)
}

func (h *handler) grantRoles(w http.ResponseWriter, r *http.Request) error {
	return h.changeRoles(w, r, h.svc.Access.GrantRoles)
}

func (h *handler) revokeRoles(w http.ResponseWriter, r *http.Request) error {
	return h.changeRoles(w, r, h.svc.Access.RevokeRoles)
}

// changeRoles serves a grant or a revoke: {roleNames} → {user}.
func (h *handler) changeRoles(w http.ResponseWriter, r *http.Request, change func(ctx context.Context, metalake, user string, roles []string) (*semcat.User, semcat.Position, error)) error {
	n, err := pathNames(r, "metalake", "user")
	if err != nil {
		return err
	}
	roles, err := h.decodeRoleNames(w, r)
	if err != nil {
		return err
	}
	u, pos, err := change(r.Context(), n[0], n[1], roles)
	if err != nil {
		return err
	}
	return written(w, pos, "user", u)
}

func (h *handler) setOwner(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := ownerTarget(r)
	if err != nil {
		return err
	}
	var req semcat.Owner
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	req.Type = strings.ToUpper(req.Type) // enums in any letter case
	if req.Type != semcat.OwnerUser && req.Type != semcat.OwnerGroup {
		return semcat.Errorf(semcat.EINVALID, "type: owner type must be user or group, got '%s'", strings.ToLower(req.Type))
	}
	if err := semcat.ValidateName("name", req.Name); err != nil {
		return err
	}
	pos, err := h.svc.Access.SetOwner(r.Context(), metalake, obj, req)
	if err != nil {
		return err
	}
	return written(w, pos, "set", true)
}

// getOwner answers just {"code": 0} for an object without an owner, as
// Gravitino does.
func (h *handler) getOwner(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := ownerTarget(r)
	if err != nil {
		return err
	}
	o, err := h.svc.Access.GetOwner(r.Context(), metalake, obj)
	if err != nil {
		return err
	}
	if o == nil {
		return writtenNothing(w, semcat.Position{})
	}
	return ok(w, "owner", o)
}

// ownerTarget returns the metalake and the object of an
// /owners/{type}/{fullName} path: the metalake itself (named by its name),
// or a catalog, schema, table or semantic model of it.
func ownerTarget(r *http.Request) (string, semcat.ObjectRef, error) {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return "", semcat.ObjectRef{}, err
	}
	typ, err := pathVar(r, "type")
	if err != nil {
		return "", semcat.ObjectRef{}, err
	}
	fullName, err := pathVar(r, "fullName")
	if err != nil {
		return "", semcat.ObjectRef{}, err
	}
	switch semcat.EntityKind(typ) {
	case semcat.KindMetalake:
		if fullName != metalake {
			return "", semcat.ObjectRef{}, semcat.Errorf(semcat.EINVALID, "fullName: a metalake object is named by the metalake itself ('%s'), got '%s'", metalake, fullName)
		}
		return metalake, semcat.ObjectRef{Type: semcat.KindMetalake, FullName: fullName}, nil
	case semcat.KindCatalog, semcat.KindSchema, semcat.KindTable, semcat.KindSemanticModel:
		obj, _, _, err := semcat.ParseObjectRef(metalake, typ, fullName)
		return metalake, obj, err
	case semcat.KindTag, semcat.KindRole:
		// Named by their own name, as Gravitino's TAG and ROLE objects.
		if err := semcat.ValidateName("fullName", fullName); err != nil {
			return "", semcat.ObjectRef{}, err
		}
		return metalake, semcat.ObjectRef{Type: semcat.EntityKind(typ), FullName: fullName}, nil
	}
	return "", semcat.ObjectRef{}, semcat.Errorf(semcat.EINVALID, "type: unsupported object type '%s' (want metalake, catalog, schema, table, semantic_model, tag or role)", typ)
}

// listUsers answers the user names, or the users with details=true.
func (h *handler) listUsers(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	details, err := boolParam(r, "details")
	if err != nil {
		return err
	}
	us, err := h.svc.Access.ListUsers(r.Context(), metalake)
	if err != nil {
		return err
	}
	RecordCount(r, len(us))
	if details {
		return ok(w, "users", nonNil(us))
	}
	names := make([]string, len(us))
	for i, u := range us {
		names[i] = u.Name
	}
	return ok(w, "names", names)
}

// removeUser answers {"removed": bool}, Gravitino's key.
func (h *handler) removeUser(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "user")
	if err != nil {
		return err
	}
	removed, pos, err := h.svc.Access.DeleteUser(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	return written(w, pos, "removed", removed)
}

func (h *handler) createGroup(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	var req semcat.GroupCreate
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if err := req.Validate(); err != nil {
		return err
	}
	g, pos, err := h.svc.Access.CreateGroup(r.Context(), metalake, req)
	if err != nil {
		return err
	}
	return written(w, pos, "group", g)
}

// listGroups answers the group names, or the groups with details=true.
func (h *handler) listGroups(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	details, err := boolParam(r, "details")
	if err != nil {
		return err
	}
	gs, err := h.svc.Access.ListGroups(r.Context(), metalake)
	if err != nil {
		return err
	}
	RecordCount(r, len(gs))
	if details {
		return ok(w, "groups", nonNil(gs))
	}
	names := make([]string, len(gs))
	for i, g := range gs {
		names[i] = g.Name
	}
	return ok(w, "names", names)
}

func (h *handler) loadGroup(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "group")
	if err != nil {
		return err
	}
	g, err := h.svc.Access.GetGroup(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	return ok(w, "group", g)
}

func (h *handler) removeGroup(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "group")
	if err != nil {
		return err
	}
	removed, pos, err := h.svc.Access.DeleteGroup(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	return written(w, pos, "removed", removed)
}

func (h *handler) listRoles(w http.ResponseWriter, r *http.Request) error {
	metalake, err := pathName(r, "metalake")
	if err != nil {
		return err
	}
	names, err := h.svc.Access.ListRoles(r.Context(), metalake)
	if err != nil {
		return err
	}
	RecordCount(r, len(names))
	return ok(w, "names", nonNil(names))
}

// deleteRole answers both "dropped" (which the official client reads) and
// "deleted", as Gravitino's server does.
func (h *handler) deleteRole(w http.ResponseWriter, r *http.Request) error {
	n, err := pathNames(r, "metalake", "role")
	if err != nil {
		return err
	}
	dropped, pos, err := h.svc.Access.DeleteRole(r.Context(), n[0], n[1])
	if err != nil {
		return err
	}
	if !pos.IsZero() {
		w.Header().Set(PositionHeader, pos.String())
	}
	writeBody(w, http.StatusOK, []byte(fmt.Sprintf(`{"code":0,"dropped":%t,"deleted":%t}`, dropped, dropped)))
	return nil
}

func (h *handler) grantRolesToGroup(w http.ResponseWriter, r *http.Request) error {
	return h.changeGroupRoles(w, r, h.svc.Access.GrantRolesToGroup)
}

func (h *handler) revokeRolesFromGroup(w http.ResponseWriter, r *http.Request) error {
	return h.changeGroupRoles(w, r, h.svc.Access.RevokeRolesFromGroup)
}

// changeGroupRoles serves a grant or a revoke: {roleNames} → {group}.
func (h *handler) changeGroupRoles(w http.ResponseWriter, r *http.Request, change func(ctx context.Context, metalake, group string, roles []string) (*semcat.Group, semcat.Position, error)) error {
	n, err := pathNames(r, "metalake", "group")
	if err != nil {
		return err
	}
	roles, err := h.decodeRoleNames(w, r)
	if err != nil {
		return err
	}
	g, pos, err := change(r.Context(), n[0], n[1], roles)
	if err != nil {
		return err
	}
	return written(w, pos, "group", g)
}

func (h *handler) grantPrivileges(w http.ResponseWriter, r *http.Request) error {
	return h.changePrivileges(w, r, h.svc.Access.GrantPrivileges)
}

func (h *handler) revokePrivileges(w http.ResponseWriter, r *http.Request) error {
	return h.changePrivileges(w, r, h.svc.Access.RevokePrivileges)
}

// changePrivileges serves PUT .../permissions/roles/{role}/{type}/{fullName}/grant
// (or revoke): {privileges} → {role}.
func (h *handler) changePrivileges(w http.ResponseWriter, r *http.Request, change func(ctx context.Context, metalake, role string, obj semcat.ObjectRef, privileges []semcat.PrivilegeGrant) (*semcat.Role, semcat.Position, error)) error {
	metalake, obj, err := ownerTarget(r)
	if err != nil {
		return err
	}
	role, err := pathName(r, "role")
	if err != nil {
		return err
	}
	var req semcat.PrivilegesRequest
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if len(req.Privileges) == 0 {
		return semcat.Errorf(semcat.EINVALID, "privileges: at least one privilege is required")
	}
	role2, pos, err := change(r.Context(), metalake, role, obj, req.Privileges)
	if err != nil {
		return err
	}
	return written(w, pos, "role", role2)
}

func (h *handler) listObjectRoles(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := ownerTarget(r)
	if err != nil {
		return err
	}
	names, err := h.svc.Access.ObjectRoles(r.Context(), metalake, obj)
	if err != nil {
		return err
	}
	RecordCount(r, len(names))
	return ok(w, "names", nonNil(names))
}

// decodeRoleNames reads the body of a grant or revoke of roles.
func (h *handler) decodeRoleNames(w http.ResponseWriter, r *http.Request) ([]string, error) {
	var req semcat.RoleNames
	if err := h.decode(w, r, &req); err != nil {
		return nil, err
	}
	if len(req.RoleNames) == 0 {
		return nil, semcat.Errorf(semcat.EINVALID, "roleNames: at least one role name is required")
	}
	for i, name := range req.RoleNames {
		if err := semcat.ValidateName(fmt.Sprintf("roleNames[%d]", i), name); err != nil {
			return nil, err
		}
	}
	return req.RoleNames, nil
}
