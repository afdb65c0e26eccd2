package authz

import (
	"context"

	"github.com/semcat/semcat"
)

// Synonym sets (SPEC §2.6): a metalake's members read them; a service
// admin or the metalake's owner replaces them.

// GetSynonyms: service admins and members of the metalake.
func (s *Service) GetSynonyms(ctx context.Context, metalake string) ([][]string, error) {
	if !s.admins[user(ctx)] {
		if err := s.check(ctx, mlNS(metalake), isMember, "see the synonyms of '"+metalake+"'"); err != nil {
			return nil, err
		}
	}
	return s.inner.GetSynonyms(ctx, metalake)
}

// SetSynonyms: service admins and the metalake's owner.
func (s *Service) SetSynonyms(ctx context.Context, metalake string, sets [][]string) (semcat.Position, error) {
	if !s.admins[user(ctx)] {
		if err := s.check(ctx, mlNS(metalake), owns(metalakeLevel...), "change the synonyms of '"+metalake+"'"); err != nil {
			return semcat.Position{}, err
		}
	}
	return s.inner.SetSynonyms(ctx, metalake, sets)
}
