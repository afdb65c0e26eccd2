package authz

import (
	"context"

	"github.com/semcat/semcat"
)

func (s *Service) manageGrants(ctx context.Context, metalake string) error {
	return s.check(ctx, mlNS(metalake), (*semcat.Access).CanManageGrants, "manage users, roles and grants in '"+metalake+"'")
}

// CreateUser: the metalake's owner or MANAGE_GRANTS.
func (s *Service) CreateUser(ctx context.Context, metalake string, req semcat.UserCreate) (*semcat.User, semcat.Position, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.CreateUser(ctx, metalake, req)
}

// GetUser: the user itself, or who may manage grants. To a caller that is
// not a member (nor a service admin) its own user is in a metalake that
// does not exist (SPEC §6: a non-member gets, on every route under a
// metalake, the answer for a missing one), whether the metalake exists or
// not, with the same lookups.
func (s *Service) GetUser(ctx context.Context, metalake, name string) (*semcat.User, error) {
	if user(ctx) != name {
		if err := s.manageGrants(ctx, metalake); err != nil {
			return nil, err
		}
	} else if err := s.member(ctx, metalake); err != nil {
		return nil, err
	}
	return s.inner.GetUser(ctx, metalake, name)
}

// CreateRole: who may manage grants.
func (s *Service) CreateRole(ctx context.Context, metalake string, req semcat.RoleCreate) (*semcat.Role, semcat.Position, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.CreateRole(ctx, metalake, req)
}

// GetRole: who may manage grants.
func (s *Service) GetRole(ctx context.Context, metalake, name string) (*semcat.Role, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, err
	}
	return s.inner.GetRole(ctx, metalake, name)
}

// GrantRoles: who may manage grants.
func (s *Service) GrantRoles(ctx context.Context, metalake, name string, roles []string) (*semcat.User, semcat.Position, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.GrantRoles(ctx, metalake, name, roles)
}

// RevokeRoles: who may manage grants.
func (s *Service) RevokeRoles(ctx context.Context, metalake, name string, roles []string) (*semcat.User, semcat.Position, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.RevokeRoles(ctx, metalake, name, roles)
}

// SetOwner: who may manage grants, or an owner of the object or above it.
func (s *Service) SetOwner(ctx context.Context, metalake string, obj semcat.ObjectRef, owner semcat.Owner) (semcat.Position, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		if exists, serr := s.checkSee(ctx, metalake, obj); serr != nil {
			return semcat.Position{}, semcat.NoSuchMetadataObject(serr) // as the store answers a missing one
		} else if !exists {
			return s.inner.SetOwner(ctx, metalake, obj, owner) // which answers that it is missing
		}
		a, _, _, aerr := s.objectAccess(ctx, metalake, obj)
		if aerr != nil {
			return semcat.Position{}, aerr
		}
		if !a.OwnsAny(semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema, semcat.KindTable, semcat.KindSemanticModel) {
			return semcat.Position{}, err
		}
	}
	return s.inner.SetOwner(ctx, metalake, obj, owner)
}

// GetOwner: whoever may see the object. One it may not see is missing, in
// the store's words for a missing object of an owner (Gravitino's
// NoSuchMetadataObjectException).
func (s *Service) GetOwner(ctx context.Context, metalake string, obj semcat.ObjectRef) (*semcat.Owner, error) {
	if _, err := s.checkSee(ctx, metalake, obj); err != nil {
		return nil, semcat.NoSuchMetadataObject(err)
	}
	return s.inner.GetOwner(ctx, metalake, obj)
}

// ListUsers: who may manage grants.
func (s *Service) ListUsers(ctx context.Context, metalake string) ([]*semcat.User, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, err
	}
	return s.inner.ListUsers(ctx, metalake)
}

// DeleteUser: who may manage grants.
func (s *Service) DeleteUser(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return false, semcat.Position{}, err
	}
	return s.inner.DeleteUser(ctx, metalake, name)
}

// CreateGroup: who may manage grants.
func (s *Service) CreateGroup(ctx context.Context, metalake string, req semcat.GroupCreate) (*semcat.Group, semcat.Position, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.CreateGroup(ctx, metalake, req)
}

// GetGroup: who may manage grants.
func (s *Service) GetGroup(ctx context.Context, metalake, name string) (*semcat.Group, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, err
	}
	return s.inner.GetGroup(ctx, metalake, name)
}

// ListGroups: who may manage grants.
func (s *Service) ListGroups(ctx context.Context, metalake string) ([]*semcat.Group, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, err
	}
	return s.inner.ListGroups(ctx, metalake)
}

// DeleteGroup: who may manage grants.
func (s *Service) DeleteGroup(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return false, semcat.Position{}, err
	}
	return s.inner.DeleteGroup(ctx, metalake, name)
}

// ListRoles: who may manage grants.
func (s *Service) ListRoles(ctx context.Context, metalake string) ([]string, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, err
	}
	return s.inner.ListRoles(ctx, metalake)
}

// DeleteRole: who may manage grants.
func (s *Service) DeleteRole(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return false, semcat.Position{}, err
	}
	return s.inner.DeleteRole(ctx, metalake, name)
}

// GrantRolesToGroup: who may manage grants.
func (s *Service) GrantRolesToGroup(ctx context.Context, metalake, group string, roles []string) (*semcat.Group, semcat.Position, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.GrantRolesToGroup(ctx, metalake, group, roles)
}

// RevokeRolesFromGroup: who may manage grants.
func (s *Service) RevokeRolesFromGroup(ctx context.Context, metalake, group string, roles []string) (*semcat.Group, semcat.Position, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.RevokeRolesFromGroup(ctx, metalake, group, roles)
}

// GrantPrivileges: who may manage grants.
func (s *Service) GrantPrivileges(ctx context.Context, metalake, role string, obj semcat.ObjectRef, privileges []semcat.PrivilegeGrant) (*semcat.Role, semcat.Position, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.GrantPrivileges(ctx, metalake, role, obj, privileges)
}

// RevokePrivileges: who may manage grants.
func (s *Service) RevokePrivileges(ctx context.Context, metalake, role string, obj semcat.ObjectRef, privileges []semcat.PrivilegeGrant) (*semcat.Role, semcat.Position, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.RevokePrivileges(ctx, metalake, role, obj, privileges)
}

// ObjectRoles: who may manage grants.
func (s *Service) ObjectRoles(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]string, error) {
	if err := s.manageGrants(ctx, metalake); err != nil {
		return nil, err
	}
	return s.inner.ObjectRoles(ctx, metalake, obj)
}
