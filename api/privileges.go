package api

import (
	"context"
	"net/http"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/internal/authz"
)

// objectPrivileges is the part of the authorization layer (authz.Service)
// that answers what the caller may do with an object. Services.Access
// implements it when authorization is on.
type objectPrivileges interface {
	ObjectPrivileges(ctx context.Context, metalake string, obj semcat.ObjectRef) (*authz.ObjectAccess, error)
}

// getObjectPrivileges answers GET
// /api/metalakes/{metalake}/objects/{type}/{fullName}/privileges: the
// privileges in effect for the caller on a catalog, schema, table or
// semantic model, and whether it may alter (and tag), drop it and change
// its owner ({"access": {...}}). Gravitino has no such route; the page uses
// it to show edit controls to those who may use them, which reading roles
// (MANAGE_GRANTS only) cannot tell. An object the caller may not see
// answers as one that does not exist. Without authorization every
// operation is allowed, on an object that exists.
func (h *handler) getObjectPrivileges(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := objectTarget(r)
	if err != nil {
		return err
	}
	if p, guarded := h.svc.Access.(objectPrivileges); guarded {
		a, err := p.ObjectPrivileges(r.Context(), metalake, obj)
		if err != nil {
			return err
		}
		return ok(w, "access", a)
	}
	if _, err := h.svc.Access.GetOwner(r.Context(), metalake, obj); err != nil {
		return err
	}
	return ok(w, "access", authz.AllAccess(semcat.UserFromContext(r.Context()), obj.Type))
}
