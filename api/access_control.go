package api

import (
	"context"
	"fmt"
	"net/http"

	"github.com/semcat/semcat"
)

// accessControlRoutes lists the routes of users, roles, grants and owners
// (SPEC §2.7).
func (h *handler) accessControlRoutes() []route {
	const metalake = "/api/metalakes/{metalake}"
	get, post, put := http.MethodGet, http.MethodPost, http.MethodPut
	return []route{
		{"createUser", post, metalake + "/users", h.createUser},
		{"loadUser", get, metalake + "/users/{user}", h.loadUser},
		{"createRole", post, metalake + "/roles", h.createRole},
		{"loadRole", get, metalake + "/roles/{role}", h.loadRole},
		{"grantRoles", put, metalake + "/permissions/users/{user}/grant", h.grantRoles},
		{"revokeRoles", put, metalake + "/permissions/users/{user}/revoke", h.revokeRoles},
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
	if err := semcat.ValidateName("name", req.Name); err != nil {
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
	var req semcat.RoleNames
	if err := h.decode(w, r, &req); err != nil {
		return err
	}
	if len(req.RoleNames) == 0 {
		return semcat.Errorf(semcat.EINVALID, "roleNames: at least one role name is required")
	}
	for i, name := range req.RoleNames {
		if err := semcat.ValidateName(fmt.Sprintf("roleNames[%d]", i), name); err != nil {
			return err
		}
	}
	u, pos, err := change(r.Context(), n[0], n[1], req.RoleNames)
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
	if req.Type != "USER" {
		return semcat.Errorf(semcat.EINVALID, "type: owner type must be USER, got '%s'", req.Type)
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

// getOwner answers {"owner": null} for an object without an owner.
func (h *handler) getOwner(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := ownerTarget(r)
	if err != nil {
		return err
	}
	o, err := h.svc.Access.GetOwner(r.Context(), metalake, obj)
	if err != nil {
		return err
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
	}
	return "", semcat.ObjectRef{}, semcat.Errorf(semcat.EINVALID, "type: unsupported object type '%s' (want metalake, catalog, schema, table or semantic_model)", typ)
}
