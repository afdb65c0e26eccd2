package semcat

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Privilege names an action a role may be allowed or denied (SPEC §6).
// Privileges are read in any letter case and written in lower case, as
// Gravitino writes them ("use_catalog"); the constants hold the canonical
// upper-case form.
type Privilege string

// The privileges semcat enforces.
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

// UnmarshalJSON reads a privilege name in any letter case, and Gravitino's
// old names of two model privileges as their new ones.
func (p *Privilege) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*p = CanonicalPrivilege(v)
	return nil
}

// MarshalJSON writes the privilege in lower case.
func (p Privilege) MarshalJSON() ([]byte, error) {
	return json.Marshal(strings.ToLower(string(p)))
}

// CanonicalPrivilege is the canonical (upper-case) form of a privilege name
// given in any letter case.
func CanonicalPrivilege(name string) Privilege {
	p := Privilege(strings.ToUpper(name))
	if alias, ok := privilegeAliases[p]; ok {
		return alias
	}
	return p
}

// privilegeAliases are Gravitino's old names of privileges.
var privilegeAliases = map[Privilege]Privilege{
	"CREATE_MODEL":         "REGISTER_MODEL",
	"CREATE_MODEL_VERSION": "LINK_MODEL_VERSION",
}

// metalakeOnly, containers and tableLevels are the object kinds privileges
// may be bound on: the kind a privilege is about and every ancestor of it.
var (
	metalakeOnly = []EntityKind{KindMetalake}
	containers   = []EntityKind{KindMetalake, KindCatalog, KindSchema}
)

// privilegeLevels lists, for each privilege, the object kinds it may be
// bound on. Besides semcat's own, it holds every privilege of Gravitino
// (as of the commit SPEC §2.10 names), with the kinds of its binding table
// that semcat serves, so that a role written by a Gravitino client is
// accepted and read back as written; semcat enforces only its own.
var privilegeLevels = map[Privilege][]EntityKind{
	UseCatalog:          {KindMetalake, KindCatalog},
	UseSchema:           containers,
	CreateCatalog:       metalakeOnly,
	CreateSchema:        {KindMetalake, KindCatalog},
	CreateTable:         containers,
	SelectTable:         {KindMetalake, KindCatalog, KindSchema, KindTable},
	ModifyTable:         {KindMetalake, KindCatalog, KindSchema, KindTable},
	CreateSemanticModel: containers,
	SelectSemanticModel: {KindMetalake, KindCatalog, KindSchema, KindSemanticModel},
	ModifySemanticModel: {KindMetalake, KindCatalog, KindSchema, KindSemanticModel},
	ManageGrants:        metalakeOnly,

	"MANAGE_USERS": metalakeOnly, "MANAGE_GROUPS": metalakeOnly, "CREATE_ROLE": metalakeOnly,
	"CREATE_TAG": metalakeOnly, "APPLY_TAG": metalakeOnly, "CREATE_POLICY": metalakeOnly,
	"APPLY_POLICY": metalakeOnly, "REGISTER_JOB_TEMPLATE": metalakeOnly, "USE_JOB_TEMPLATE": metalakeOnly,
	"RUN_JOB":        metalakeOnly,
	"CREATE_FILESET": containers, "READ_FILESET": containers, "WRITE_FILESET": containers,
	"CREATE_TOPIC": containers, "PRODUCE_TOPIC": containers, "CONSUME_TOPIC": containers,
	"REGISTER_MODEL": containers, "LINK_MODEL_VERSION": containers, "USE_MODEL": containers,
	"CREATE_VIEW": containers, "SELECT_VIEW": containers,
	"REGISTER_FUNCTION": containers, "EXECUTE_FUNCTION": containers, "MODIFY_FUNCTION": containers,
}

// privilegeCatalogTypes: a privilege about the contents of one type of
// catalog, bound on a catalog or a schema, needs a catalog of that type
// (Gravitino refuses to bind READ_FILESET on a relational catalog).
var privilegeCatalogTypes = map[Privilege]CatalogType{
	CreateTable: CatalogRelational, SelectTable: CatalogRelational, ModifyTable: CatalogRelational,
	CreateSemanticModel: CatalogRelational, SelectSemanticModel: CatalogRelational, ModifySemanticModel: CatalogRelational,
	"CREATE_VIEW": CatalogRelational, "SELECT_VIEW": CatalogRelational,
	"CREATE_FILESET": CatalogFileset, "READ_FILESET": CatalogFileset, "WRITE_FILESET": CatalogFileset,
	"CREATE_TOPIC": CatalogMessaging, "PRODUCE_TOPIC": CatalogMessaging, "CONSUME_TOPIC": CatalogMessaging,
	"REGISTER_MODEL": CatalogModel, "LINK_MODEL_VERSION": CatalogModel, "USE_MODEL": CatalogModel,
}

// CheckPrivilegeCatalogType fails when privilege p, bound on a catalog or
// schema of a catalog of type t, is about another type of catalog.
func CheckPrivilegeCatalogType(path string, p Privilege, catalog string, t CatalogType) error {
	want, ok := privilegeCatalogTypes[p]
	if !ok || want == t {
		return nil
	}
	return illegalPrivilege("%s.name: %s applies to %s catalogs; catalog '%s' is %s", path, strings.ToLower(string(p)), want, catalog, t)
}

// illegalPrivilege is Gravitino's IllegalPrivilegeException: a privilege
// that cannot be bound where it is, or is given twice.
func illegalPrivilege(format string, args ...any) error {
	return &Error{Code: EINVALID, Type: "IllegalPrivilegeException", Message: fmt.Sprintf(format, args...)}
}

// Condition says whether a bound privilege allows or denies. It is read in
// any letter case and written in lower case ("allow").
type Condition string

// Conditions.
const (
	Allow Condition = "ALLOW"
	Deny  Condition = "DENY"
)

// UnmarshalJSON reads a condition in any letter case.
func (c *Condition) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*c = Condition(strings.ToUpper(v))
	return nil
}

// MarshalJSON writes the condition in lower case.
func (c Condition) MarshalJSON() ([]byte, error) {
	return json.Marshal(strings.ToLower(string(c)))
}

// ObjectType is the type of a securable object in a role: METALAKE,
// CATALOG, SCHEMA, TABLE or SEMANTIC_MODEL. It is read in any letter case
// and written in lower case, as Gravitino writes it.
type ObjectType string

// UnmarshalJSON reads an object type in any letter case.
func (t *ObjectType) UnmarshalJSON(b []byte) error {
	var v string
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	*t = ObjectType(strings.ToUpper(v))
	return nil
}

// MarshalJSON writes the object type in lower case.
func (t ObjectType) MarshalJSON() ([]byte, error) {
	return json.Marshal(strings.ToLower(string(t)))
}

// Kind returns the entity kind of an object type.
func (t ObjectType) Kind() (EntityKind, bool) {
	switch ObjectType(strings.ToUpper(string(t))) {
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
	Properties       map[string]string `json:"properties"`
	SecurableObjects []SecurableObject `json:"securableObjects"`
	Audit            Audit             `json:"audit"`
}

// RoleCreate is the body of a role creation request.
type RoleCreate struct {
	Name             string            `json:"name"`
	Properties       map[string]string `json:"properties"`
	SecurableObjects []SecurableObject `json:"securableObjects"`
}

// Validate checks names, object types, privileges and conditions, and that
// each privilege may be bound on its object's type.
func (c *RoleCreate) Validate() error {
	if err := ValidateName("name", c.Name); err != nil {
		return err
	}
	if err := ValidateProperties("properties", c.Properties); err != nil {
		return err
	}
	// An object may be listed more than once; a privilege may not be
	// bound twice on one object, even with the same condition.
	type binding struct {
		typ       ObjectType
		fullName  string
		privilege Privilege
	}
	seen := map[binding]string{}
	for i, o := range c.SecurableObjects {
		p := fmt.Sprintf("securableObjects[%d]", i)
		if err := ValidateSecurable(p, o.Type, o.FullName, o.Privileges); err != nil {
			return err
		}
		for j, g := range o.Privileges {
			at := fmt.Sprintf("%s.privileges[%d]", p, j)
			k := binding{o.Type, o.FullName, g.Name}
			if first, dup := seen[k]; dup {
				return illegalPrivilege("%s.name: %s on %s '%s' is already listed at %s", at, strings.ToLower(string(g.Name)), strings.ToLower(string(o.Type)), o.FullName, first)
			}
			seen[k] = at
		}
	}
	return nil
}

// ValidateSecurable checks one securable object of a role, or the object
// and privileges of a privilege grant: a known object type, a full name, at
// least one privilege, each known, with a condition, bindable on the type
// and listed once.
func ValidateSecurable(path string, typ ObjectType, fullName string, privileges []PrivilegeGrant) error {
	kind, ok := typ.Kind()
	if !ok {
		return Errorf(EINVALID, "%s.type: unsupported object type '%s' (want metalake, catalog, schema, table or semantic_model)", path, strings.ToLower(string(typ)))
	}
	if fullName == "" {
		return Errorf(EINVALID, "%s.fullName: required", path)
	}
	if len(privileges) == 0 {
		return Errorf(EINVALID, "%s.privileges: at least one privilege is required", path)
	}
	seen := map[Privilege]int{}
	for j, g := range privileges {
		gp := fmt.Sprintf("%s.privileges[%d]", path, j)
		levels, known := privilegeLevels[g.Name]
		if !known {
			return Errorf(EINVALID, "%s.name: unknown privilege '%s'", gp, strings.ToLower(string(g.Name)))
		}
		if g.Condition != Allow && g.Condition != Deny {
			return Errorf(EINVALID, "%s.condition: must be allow or deny, got '%s'", gp, strings.ToLower(string(g.Condition)))
		}
		if !slices.Contains(levels, kind) {
			return illegalPrivilege("%s.name: %s cannot be bound on a %s", gp, strings.ToLower(string(g.Name)), kind)
		}
		// A privilege listed twice, even with the same condition: which of
		// two conflicting conditions was meant cannot be guessed.
		if first, dup := seen[g.Name]; dup {
			return illegalPrivilege("%s.name: %s is already listed at %s.privileges[%d]", gp, strings.ToLower(string(g.Name)), path, first)
		}
		seen[g.Name] = j
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

// UserCreate is the body of a user creation request. ExternalID and
// Enabled are the other fields of Gravitino's UserAddRequest, which its
// Java client always sends (null when unset); semcat accepts them but does
// not keep them (every user is enabled).
type UserCreate struct {
	Name       string  `json:"name"`
	ExternalID *string `json:"externalId,omitempty"`
	Enabled    *bool   `json:"enabled,omitempty"`
}

// Validate checks the name, and an external id when one is given (not
// blank, as Gravitino checks it).
func (c *UserCreate) Validate() error {
	if err := ValidateName("name", c.Name); err != nil {
		return err
	}
	return validateExternalID(c.ExternalID)
}

func validateExternalID(id *string) error {
	if id != nil && strings.TrimSpace(*id) == "" {
		return Errorf(EINVALID, "externalId: must not be blank when given")
	}
	return nil
}

// Group is a group of a metalake and the roles granted to it.
type Group struct {
	ID    int64    `json:"-"`
	Name  string   `json:"name"`
	Roles []string `json:"roles"`
	Audit Audit    `json:"audit"`
}

// GroupCreate is the body of a group creation request. ExternalID is the
// other field of Gravitino's GroupAddRequest, accepted and not kept.
type GroupCreate struct {
	Name       string  `json:"name"`
	ExternalID *string `json:"externalId,omitempty"`
}

// Validate checks the name and the external id.
func (c *GroupCreate) Validate() error {
	if err := ValidateName("name", c.Name); err != nil {
		return err
	}
	return validateExternalID(c.ExternalID)
}

// RoleNames is the body of a grant or revoke of roles.
type RoleNames struct {
	RoleNames []string `json:"roleNames"`
}

// PrivilegesRequest is the body of a grant or revoke of privileges on one
// object to a role.
type PrivilegesRequest struct {
	Privileges []PrivilegeGrant `json:"privileges"`
}

// Owner types.
const (
	OwnerUser  = "USER"
	OwnerGroup = "GROUP"
)

// Owner is the owner of an object: a user or a group of the metalake. Type
// is read in any letter case and written in lower case ("user").
type Owner struct {
	Name string `json:"name"`
	Type string `json:"type"`
}

// MarshalJSON writes the owner type in lower case, as Gravitino does.
func (o Owner) MarshalJSON() ([]byte, error) {
	type plain Owner
	p := plain(o)
	p.Type = strings.ToLower(p.Type)
	return json.Marshal(p)
}

// AccessControlService manages users, roles, grants and owners.
type AccessControlService interface {
	CreateUser(ctx context.Context, metalake string, req UserCreate) (*User, Position, error)
	GetUser(ctx context.Context, metalake, name string) (*User, error)
	// ListUsers lists the users of a metalake with their roles, by name.
	ListUsers(ctx context.Context, metalake string) ([]*User, error)
	// DeleteUser removes a user, its grants and what it owns' ownership;
	// false if there was no such user.
	DeleteUser(ctx context.Context, metalake, name string) (bool, Position, error)
	CreateGroup(ctx context.Context, metalake string, req GroupCreate) (*Group, Position, error)
	GetGroup(ctx context.Context, metalake, name string) (*Group, error)
	ListGroups(ctx context.Context, metalake string) ([]*Group, error)
	DeleteGroup(ctx context.Context, metalake, name string) (bool, Position, error)
	CreateRole(ctx context.Context, metalake string, req RoleCreate) (*Role, Position, error)
	GetRole(ctx context.Context, metalake, name string) (*Role, error)
	// ListRoles lists the role names of a metalake in byte order.
	ListRoles(ctx context.Context, metalake string) ([]string, error)
	DeleteRole(ctx context.Context, metalake, name string) (bool, Position, error)
	GrantRoles(ctx context.Context, metalake, user string, roles []string) (*User, Position, error)
	RevokeRoles(ctx context.Context, metalake, user string, roles []string) (*User, Position, error)
	GrantRolesToGroup(ctx context.Context, metalake, group string, roles []string) (*Group, Position, error)
	RevokeRolesFromGroup(ctx context.Context, metalake, group string, roles []string) (*Group, Position, error)
	// GrantPrivileges binds privileges on one object to a role; RevokePrivileges
	// unbinds them. Either returns the role afterwards.
	GrantPrivileges(ctx context.Context, metalake, role string, obj ObjectRef, privileges []PrivilegeGrant) (*Role, Position, error)
	RevokePrivileges(ctx context.Context, metalake, role string, obj ObjectRef, privileges []PrivilegeGrant) (*Role, Position, error)
	// ObjectRoles lists the names of the roles that bind privileges on
	// exactly this object.
	ObjectRoles(ctx context.Context, metalake string, obj ObjectRef) ([]string, error)
	SetOwner(ctx context.Context, metalake string, obj ObjectRef, owner Owner) (Position, error)
	GetOwner(ctx context.Context, metalake string, obj ObjectRef) (*Owner, error)
}
