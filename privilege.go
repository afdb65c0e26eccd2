package semcat

import (
	"context"
	"fmt"
	"strings"
)

// Privilege names an action a role may be allowed or denied (SPEC §6).
type Privilege string

// Privileges.
const (
	UseCatalog          Privilege = "USE_CATALOG"
	UseSchema           Privilege = "USE_SCHEMA"
	CreateCatalog       Privilege = "CREATE_CATALOG"
	CreateSchema        Privilege = "CREATE_SCHEMA"
	CreateTable         Privilege = "CREATE_TABLE"
	SelectTable         Privilege = "SELECT_TABLE"
	ModifyTable         Privilege = "MODIFY_TABLE"
	CreateSemanticModel Privilege = "CREATE_SEMANTIC_MODEL"
	SelectSemanticModel Privilege = "SELECT_SEMANTIC_MODEL"
	ModifySemanticModel Privilege = "MODIFY_SEMANTIC_MODEL"
	ManageGrants        Privilege = "MANAGE_GRANTS"
)

// privilegeLevels lists, for each privilege, the object kinds it may be
// bound on: the kind it is about and every ancestor of it.
var privilegeLevels = map[Privilege][]EntityKind{
	UseCatalog:          {KindMetalake, KindCatalog},
	UseSchema:           {KindMetalake, KindCatalog, KindSchema},
	CreateCatalog:       {KindMetalake},
	CreateSchema:        {KindMetalake, KindCatalog},
	CreateTable:         {KindMetalake, KindCatalog, KindSchema},
	SelectTable:         {KindMetalake, KindCatalog, KindSchema, KindTable},
	ModifyTable:         {KindMetalake, KindCatalog, KindSchema, KindTable},
	CreateSemanticModel: {KindMetalake, KindCatalog, KindSchema},
	SelectSemanticModel: {KindMetalake, KindCatalog, KindSchema, KindSemanticModel},
	ModifySemanticModel: {KindMetalake, KindCatalog, KindSchema, KindSemanticModel},
	ManageGrants:        {KindMetalake},
}

// Condition says whether a bound privilege allows or denies.
type Condition string

// Conditions.
const (
	Allow Condition = "ALLOW"
	Deny  Condition = "DENY"
)

// ObjectType is the upper-case object type used in request bodies
// (METALAKE, CATALOG, SCHEMA, TABLE, SEMANTIC_MODEL).
type ObjectType string

// Kind returns the entity kind of an upper-case object type.
func (t ObjectType) Kind() (EntityKind, bool) {
	switch t {
	case "METALAKE", "CATALOG", "SCHEMA", "TABLE", "SEMANTIC_MODEL":
		return EntityKind(strings.ToLower(string(t))), true
	}
	return "", false
}

// PrivilegeGrant is a privilege with its condition, as written in a role.
type PrivilegeGrant struct {
	Name      Privilege `json:"name"`
	Condition Condition `json:"condition"`
}

// SecurableObject binds privileges to one object of the metalake. FullName
// is the dotted name without the metalake (the metalake itself: its name).
type SecurableObject struct {
	FullName   string           `json:"fullName"`
	Type       ObjectType       `json:"type"`
	Privileges []PrivilegeGrant `json:"privileges"`
}

// Role is a named set of privileges on objects.
type Role struct {
	ID               int64             `json:"-"`
	Name             string            `json:"name"`
	SecurableObjects []SecurableObject `json:"securableObjects"`
	Audit            Audit             `json:"audit"`
}

// RoleCreate is the body of a role creation request.
type RoleCreate struct {
	Name             string            `json:"name"`
	SecurableObjects []SecurableObject `json:"securableObjects"`
}

// Validate checks names, object types, privileges and conditions, and that
// each privilege may be bound on its object's type.
func (c *RoleCreate) Validate() error {
	if err := ValidateName("name", c.Name); err != nil {
		return err
	}
	for i, o := range c.SecurableObjects {
		p := fmt.Sprintf("securableObjects[%d]", i)
		kind, ok := o.Type.Kind()
		if !ok {
			return Errorf(EINVALID, "%s.type: unknown object type '%s' (want METALAKE, CATALOG, SCHEMA, TABLE or SEMANTIC_MODEL)", p, o.Type)
		}
		if o.FullName == "" {
			return Errorf(EINVALID, "%s.fullName: required", p)
		}
		if len(o.Privileges) == 0 {
			return Errorf(EINVALID, "%s.privileges: at least one privilege is required", p)
		}
		for j, g := range o.Privileges {
			gp := fmt.Sprintf("%s.privileges[%d]", p, j)
			levels, known := privilegeLevels[g.Name]
			if !known {
				return Errorf(EINVALID, "%s.name: unknown privilege '%s'", gp, g.Name)
			}
			if g.Condition != Allow && g.Condition != Deny {
				return Errorf(EINVALID, "%s.condition: must be ALLOW or DENY, got '%s'", gp, g.Condition)
			}
			bindable := false
			for _, l := range levels {
				bindable = bindable || l == kind
			}
			if !bindable {
				return Errorf(EINVALID, "%s.name: %s cannot be bound on a %s", gp, g.Name, o.Type)
			}
		}
	}
	return nil
}

// User is a member of a metalake and the roles granted to it.
type User struct {
	ID    int64    `json:"-"`
	Name  string   `json:"name"`
	Roles []string `json:"roles"`
	Audit Audit    `json:"audit"`
}

// UserCreate is the body of a user creation request.
type UserCreate struct {
	Name string `json:"name"`
}

// RoleNames is the body of a grant or revoke request.
type RoleNames struct {
	RoleNames []string `json:"roleNames"`
}

// Owner is the owner of an object.
type Owner struct {
	Name string `json:"name"`
	Type string `json:"type"` // "USER"
}

// AccessControlService manages users, roles, grants and owners.
type AccessControlService interface {
	CreateUser(ctx context.Context, metalake string, req UserCreate) (*User, Position, error)
	GetUser(ctx context.Context, metalake, name string) (*User, error)
	CreateRole(ctx context.Context, metalake string, req RoleCreate) (*Role, Position, error)
	GetRole(ctx context.Context, metalake, name string) (*Role, error)
	GrantRoles(ctx context.Context, metalake, user string, roles []string) (*User, Position, error)
	RevokeRoles(ctx context.Context, metalake, user string, roles []string) (*User, Position, error)
	SetOwner(ctx context.Context, metalake string, obj ObjectRef, owner Owner) (Position, error)
	GetOwner(ctx context.Context, metalake string, obj ObjectRef) (*Owner, error)
}
