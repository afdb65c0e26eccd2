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

// GetUser: the user itself, or who may manage grants.
func (s *Service) GetUser(ctx context.Context, metalake, name string) (*semcat.User, error) {
	if user(ctx) != name {
		if err := s.manageGrants(ctx, metalake); err != nil {
			return nil, err
		}
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
			return semcat.Position{}, serr
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

// GetOwner: whoever may see the object.
func (s *Service) GetOwner(ctx context.Context, metalake string, obj semcat.ObjectRef) (*semcat.Owner, error) {
	if _, err := s.checkSee(ctx, metalake, obj); err != nil {
		return nil, err
	}
	return s.inner.GetOwner(ctx, metalake, obj)
}
