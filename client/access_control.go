package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strings"

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
	rep, err := c.do(ctx, request{method: http.MethodGet, path: p})
	if err != nil {
		return nil, err
	}
	// No owner: the answer is just {"code": 0}.
	var body map[string]json.RawMessage
	if err := json.Unmarshal(rep.body, &body); err != nil {
		return nil, fmt.Errorf("client: the answer is not a JSON object: %w", err)
	}
	if _, ok := body["owner"]; !ok {
		return nil, nil
	}
	o, err := member[*semcat.Owner](rep, "owner")
	if o != nil {
		o.Type = strings.ToUpper(o.Type) // written in lower case
	}
	return o, err
}

// metalakeChild is the path of name in a collection of a metalake.
func metalakeChild(metalake, collection, name string) (string, error) {
	p, err := metalakePath(metalake)
	if err != nil {
		return "", err
	}
	return child(p+"/"+collection, name)
}

// ListUsers lists the users of a metalake with their roles.
func (c *Client) ListUsers(ctx context.Context, metalake string) ([]*semcat.User, error) {
	p, err := metalakePath(metalake)
	if err != nil {
		return nil, err
	}
	return get[[]*semcat.User](ctx, c, request{method: http.MethodGet, path: p + "/users", query: trueParam("details", true)}, "users")
}

// DeleteUser removes a user; false if there was none.
func (c *Client) DeleteUser(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	p, err := metalakeChild(metalake, "users", name)
	if err != nil {
		return false, semcat.Position{}, err
	}
	return write[bool](ctx, c, request{method: http.MethodDelete, path: p}, "removed")
}

// CreateGroup adds a group to a metalake.
func (c *Client) CreateGroup(ctx context.Context, metalake string, req semcat.GroupCreate) (*semcat.Group, semcat.Position, error) {
	p, err := metalakePath(metalake)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Group](ctx, c, request{method: http.MethodPost, path: p + "/groups", body: req}, "group")
}

// GetGroup loads a group with the roles granted to it.
func (c *Client) GetGroup(ctx context.Context, metalake, name string) (*semcat.Group, error) {
	p, err := metalakeChild(metalake, "groups", name)
	if err != nil {
		return nil, err
	}
	return get[*semcat.Group](ctx, c, request{method: http.MethodGet, path: p}, "group")
}

// ListGroups lists the groups of a metalake with their roles.
func (c *Client) ListGroups(ctx context.Context, metalake string) ([]*semcat.Group, error) {
	p, err := metalakePath(metalake)
	if err != nil {
		return nil, err
	}
	return get[[]*semcat.Group](ctx, c, request{method: http.MethodGet, path: p + "/groups", query: trueParam("details", true)}, "groups")
}

// DeleteGroup removes a group; false if there was none.
func (c *Client) DeleteGroup(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	p, err := metalakeChild(metalake, "groups", name)
	if err != nil {
		return false, semcat.Position{}, err
	}
	return write[bool](ctx, c, request{method: http.MethodDelete, path: p}, "removed")
}

// ListRoles lists the role names of a metalake.
func (c *Client) ListRoles(ctx context.Context, metalake string) ([]string, error) {
	p, err := metalakePath(metalake)
	if err != nil {
		return nil, err
	}
	return get[[]string](ctx, c, request{method: http.MethodGet, path: p + "/roles"}, "names")
}

// DeleteRole drops a role; false if there was none.
func (c *Client) DeleteRole(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	p, err := metalakeChild(metalake, "roles", name)
	if err != nil {
		return false, semcat.Position{}, err
	}
	return write[bool](ctx, c, request{method: http.MethodDelete, path: p}, "dropped")
}

// GrantRolesToGroup grants roles to a group.
func (c *Client) GrantRolesToGroup(ctx context.Context, metalake, group string, roles []string) (*semcat.Group, semcat.Position, error) {
	return c.changeGroupRoles(ctx, metalake, group, "grant", roles)
}

// RevokeRolesFromGroup revokes roles from a group.
func (c *Client) RevokeRolesFromGroup(ctx context.Context, metalake, group string, roles []string) (*semcat.Group, semcat.Position, error) {
	return c.changeGroupRoles(ctx, metalake, group, "revoke", roles)
}

func (c *Client) changeGroupRoles(ctx context.Context, metalake, group, change string, roles []string) (*semcat.Group, semcat.Position, error) {
	p, err := metalakeChild(metalake, "permissions/groups", group)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Group](ctx, c, request{method: http.MethodPut, path: p + "/" + change, body: semcat.RoleNames{RoleNames: roles}}, "group")
}

// GrantPrivileges binds privileges on one object to a role.
func (c *Client) GrantPrivileges(ctx context.Context, metalake, role string, obj semcat.ObjectRef, privileges []semcat.PrivilegeGrant) (*semcat.Role, semcat.Position, error) {
	return c.changePrivileges(ctx, metalake, role, obj, "grant", privileges)
}

// RevokePrivileges unbinds privileges on one object from a role.
func (c *Client) RevokePrivileges(ctx context.Context, metalake, role string, obj semcat.ObjectRef, privileges []semcat.PrivilegeGrant) (*semcat.Role, semcat.Position, error) {
	return c.changePrivileges(ctx, metalake, role, obj, "revoke", privileges)
}

func (c *Client) changePrivileges(ctx context.Context, metalake, role string, obj semcat.ObjectRef, change string, privileges []semcat.PrivilegeGrant) (*semcat.Role, semcat.Position, error) {
	if role == "" {
		return nil, semcat.Position{}, semcat.Errorf(semcat.EINVALID, "role: a name is required")
	}
	p, err := objectPath(metalake, "permissions/roles/"+url.PathEscape(role), obj)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	return write[*semcat.Role](ctx, c, request{method: http.MethodPut, path: p + "/" + change, body: semcat.PrivilegesRequest{Privileges: privileges}}, "role")
}

// ObjectRoles lists the roles that bind privileges on exactly an object.
func (c *Client) ObjectRoles(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]string, error) {
	p, err := objectPath(metalake, "objects", obj)
	if err != nil {
		return nil, err
	}
	return get[[]string](ctx, c, request{method: http.MethodGet, path: p + "/roles"}, "names")
}

// ObjectAccess is what the caller may do with an object (ObjectPrivileges).
type ObjectAccess struct {
	// User is the caller the answer is for.
	User string `json:"user"`
	// Privileges are the privileges in effect for the caller on the
	// object, by a grant or by ownership, among those that apply to its
	// type, in canonical (upper-case) form.
	Privileges []semcat.Privilege `json:"privileges"`
	// Alter: may alter the object and its tags; Drop: may drop it;
	// SetOwner: may change its owner.
	Alter    bool `json:"alter"`
	Drop     bool `json:"drop"`
	SetOwner bool `json:"setOwner"`
}

// Has reports whether p is among the privileges in effect.
func (a *ObjectAccess) Has(p semcat.Privilege) bool {
	for _, q := range a.Privileges {
		if q == p {
			return true
		}
	}
	return false
}

// ObjectPrivileges answers what the caller may do with a catalog, schema,
// table or semantic model (GET …/objects/{type}/{fullName}/privileges, a
// semcat route). An object the caller may not see is not found, as one
// that does not exist.
func (c *Client) ObjectPrivileges(ctx context.Context, metalake string, obj semcat.ObjectRef) (*ObjectAccess, error) {
	p, err := objectPath(metalake, "objects", obj)
	if err != nil {
		return nil, err
	}
	return get[*ObjectAccess](ctx, c, request{method: http.MethodGet, path: p + "/privileges"}, "access")
}
