package client

import (
	"context"
	"net/http"

	"github.com/semcat/semcat"
)

var _ semcat.AccessControlService = (*Client)(nil)

// CreateUser adds a user to a metalake.
func (c *Client) CreateUser(ctx context.Context, metalake string, req semcat.UserCreate) (*semcat.User, semcat.Position, error) {
	p, err := metalakePath(metalake)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.User](ctx, c, request{method: http.MethodPost, path: p + "/users", body: req}, "user")
}

// GetUser loads a user of a metalake with the roles granted to it.
func (c *Client) GetUser(ctx context.Context, metalake, name string) (*semcat.User, error) {
	p, err := metalakePath(metalake)
	if err != nil {
		return nil, err
	}
	if p, err = child(p+"/users", name); err != nil {
		return nil, err
	}
	return get[*semcat.User](ctx, c, request{method: http.MethodGet, path: p}, "user")
}

// CreateRole creates a role: privileges, each allowed or denied, bound on
// objects of the metalake.
func (c *Client) CreateRole(ctx context.Context, metalake string, req semcat.RoleCreate) (*semcat.Role, semcat.Position, error) {
	p, err := metalakePath(metalake)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Role](ctx, c, request{method: http.MethodPost, path: p + "/roles", body: req}, "role")
}

// GetRole loads a role.
func (c *Client) GetRole(ctx context.Context, metalake, name string) (*semcat.Role, error) {
	p, err := metalakePath(metalake)
	if err != nil {
		return nil, err
	}
	if p, err = child(p+"/roles", name); err != nil {
		return nil, err
	}
	return get[*semcat.Role](ctx, c, request{method: http.MethodGet, path: p}, "role")
}

// GrantRoles grants roles to a user and returns the user after the grant.
func (c *Client) GrantRoles(ctx context.Context, metalake, user string, roles []string) (*semcat.User, semcat.Position, error) {
	return c.changeRoles(ctx, metalake, user, "grant", roles)
}

// RevokeRoles revokes roles from a user and returns the user after the
// revocation.
func (c *Client) RevokeRoles(ctx context.Context, metalake, user string, roles []string) (*semcat.User, semcat.Position, error) {
	return c.changeRoles(ctx, metalake, user, "revoke", roles)
}

func (c *Client) changeRoles(ctx context.Context, metalake, user, change string, roles []string) (*semcat.User, semcat.Position, error) {
	p, err := metalakePath(metalake)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	if p, err = child(p+"/permissions/users", user); err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.User](ctx, c, request{method: http.MethodPut, path: p + "/" + change, body: semcat.RoleNames{RoleNames: roles}}, "user")
}

// SetOwner makes a user the owner of an object: the metalake itself
// (ObjectRef{Type: semcat.KindMetalake, FullName: metalake}) or a catalog,
// schema, table or semantic model of it.
func (c *Client) SetOwner(ctx context.Context, metalake string, obj semcat.ObjectRef, owner semcat.Owner) (semcat.Position, error) {
	p, err := objectPath(metalake, "owners", obj)
	if err != nil {
		return semcat.Position{}, err
	}
	_, pos, err := write[bool](ctx, c, request{method: http.MethodPut, path: p, body: owner}, "set")
	return pos, err
}

// GetOwner returns the owner of an object, nil if it has none.
func (c *Client) GetOwner(ctx context.Context, metalake string, obj semcat.ObjectRef) (*semcat.Owner, error) {
	p, err := objectPath(metalake, "owners", obj)
	if err != nil {
		return nil, err
	}
	return get[*semcat.Owner](ctx, c, request{method: http.MethodGet, path: p}, "owner")
}
