package authz

import (
	"context"

	"github.com/semcat/semcat"
)

// Policies are authorized as tags are (SPEC §2.10): the metalake's owner
// creates, alters, enables, disables and drops them; its members see
// them; an object's policies are for whoever may see the object, and
// attaching or detaching them for whoever may alter it.

// CreatePolicy: the metalake's owner.
func (s *Service) CreatePolicy(ctx context.Context, metalake string, req semcat.PolicyCreate) (*semcat.Policy, semcat.Position, error) {
	if err := s.check(ctx, mlNS(metalake), owns(metalakeLevel...), "create policies in '"+metalake+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.CreatePolicy(ctx, metalake, req)
}

// GetPolicy: members of the metalake.
func (s *Service) GetPolicy(ctx context.Context, metalake, name string) (*semcat.Policy, error) {
	if err := s.check(ctx, mlNS(metalake), isMember, "see policies of '"+metalake+"'"); err != nil {
		return nil, err
	}
	return s.inner.GetPolicy(ctx, metalake, name)
}

// ListPolicies: members of the metalake.
func (s *Service) ListPolicies(ctx context.Context, metalake string) ([]string, error) {
	if err := s.check(ctx, mlNS(metalake), isMember, "see policies of '"+metalake+"'"); err != nil {
		return nil, err
	}
	return s.inner.ListPolicies(ctx, metalake)
}

// ListPolicyInfos: members of the metalake.
func (s *Service) ListPolicyInfos(ctx context.Context, metalake string) ([]*semcat.Policy, error) {
	if err := s.check(ctx, mlNS(metalake), isMember, "see policies of '"+metalake+"'"); err != nil {
		return nil, err
	}
	return s.inner.ListPolicyInfos(ctx, metalake)
}

// AlterPolicy: the metalake's owner.
func (s *Service) AlterPolicy(ctx context.Context, metalake, name string, updates []semcat.PolicyUpdate) (*semcat.Policy, semcat.Position, error) {
	if err := s.check(ctx, mlNS(metalake), owns(metalakeLevel...), "alter policies in '"+metalake+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.AlterPolicy(ctx, metalake, name, updates)
}

// SetPolicyEnabled: the metalake's owner, as altering.
func (s *Service) SetPolicyEnabled(ctx context.Context, metalake, name string, enable bool) (semcat.Position, error) {
	if err := s.check(ctx, mlNS(metalake), owns(metalakeLevel...), "alter policies in '"+metalake+"'"); err != nil {
		return semcat.Position{}, err
	}
	return s.inner.SetPolicyEnabled(ctx, metalake, name, enable)
}

// DropPolicy: the metalake's owner.
func (s *Service) DropPolicy(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	if err := s.check(ctx, mlNS(metalake), owns(metalakeLevel...), "drop policies in '"+metalake+"'"); err != nil {
		return false, semcat.Position{}, err
	}
	return s.inner.DropPolicy(ctx, metalake, name)
}

// PolicyObjects: members of the metalake, who see only the objects they
// may see (SPEC §6: nothing invisible, ever).
func (s *Service) PolicyObjects(ctx context.Context, metalake, name string) ([]semcat.TaggedObject, error) {
	if err := s.check(ctx, mlNS(metalake), isMember, "see policies of '"+metalake+"'"); err != nil {
		return nil, err
	}
	all, err := s.inner.PolicyObjects(ctx, metalake, name)
	if err != nil {
		return nil, err
	}
	out := []semcat.TaggedObject{}
	for _, o := range all {
		exists, err := s.checkSee(ctx, metalake, semcat.ObjectRef(o))
		switch code := semcat.ErrorCode(err); {
		case err == nil && exists:
			out = append(out, o)
		case code == semcat.ENOTFOUND || code == semcat.EFORBIDDEN || err == nil:
		default:
			return nil, err
		}
	}
	return out, nil
}

// ObjectPolicyInfos: whoever may see the object.
func (s *Service) ObjectPolicyInfos(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]*semcat.Policy, error) {
	if _, err := s.checkSee(ctx, metalake, obj); err != nil {
		return nil, err
	}
	return s.inner.ObjectPolicyInfos(ctx, metalake, obj)
}

// AssociatePolicies: whoever may alter the object.
func (s *Service) AssociatePolicies(ctx context.Context, metalake string, obj semcat.ObjectRef, req semcat.PolicyAssociation) ([]string, semcat.Position, error) {
	exists, err := s.checkSee(ctx, metalake, obj)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	if !exists {
		return s.inner.AssociatePolicies(ctx, metalake, obj, req) // which answers that it is missing
	}
	a, _, alter, err := s.objectAccess(ctx, metalake, obj)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	ok, err := alter(a)
	if err := s.decide(ctx, ok, err, "change the policies of "+string(obj.Type)+" '"+obj.FullName+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.AssociatePolicies(ctx, metalake, obj, req)
}
