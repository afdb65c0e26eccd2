package search

import (
	"context"

	"github.com/semcat/semcat"
)

// CheckSearch fails as a search of metalake by the caller fails before it
// reads the index: a metalake that does not exist, or one the caller is
// not a member of (nor a service admin), is not found (SPEC §6). A wait
// for a position (minPosition) runs only after it (SPEC §2.11), so that a
// search that cannot answer answers at once instead of after the wait. It
// reads the caller's membership only, not its grants: a member's metalake
// exists.
func (s *Service) CheckSearch(ctx context.Context, metalake string) error {
	if s.Authorization {
		user := semcat.UserFromContext(ctx)
		if s.Admin == nil || !s.Admin(user) {
			a, _, err := s.Store.Access(ctx, user, semcat.Namespace{Metalake: metalake}, "", nil)
			if err != nil {
				return err
			}
			if !a.IsMember() {
				return semcat.NoSuchMetalake(metalake)
			}
			return nil
		}
	}
	return s.exists(ctx, metalake)
}
