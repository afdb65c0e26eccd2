package authz

import (
	"context"

	"github.com/semcat/semcat"
)

// MayCreateCatalog refuses unless the user may create catalogs in
// metalake: the rule of testing the connection of a catalog not yet
// created (semcat.Connections.MayCreateCatalog), as Gravitino authorizes
// testConnection (METALAKE::CREATE_CATALOG || METALAKE::OWNER).
func (s *Service) MayCreateCatalog(ctx context.Context, metalake string) error {
	return s.check(ctx, semcat.Namespace{Metalake: metalake}, (*semcat.Access).CanCreateCatalog, "test connections of catalogs in '"+metalake+"'")
}
