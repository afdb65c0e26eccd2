package authz

import (
	"context"

	"github.com/semcat/semcat"
)

var (
	metalakeLevel = []semcat.EntityKind{semcat.KindMetalake}
	catalogLevels = []semcat.EntityKind{semcat.KindMetalake, semcat.KindCatalog}
	schemaLevels  = []semcat.EntityKind{semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema}
)

func isMember(a *semcat.Access) (bool, error) { return a.IsMember(), nil }

// check loads the facts at ns and applies rule.
func (s *Service) check(ctx context.Context, ns semcat.Namespace, rule func(*semcat.Access) (bool, error), what string) error {
	a, err := s.at(ctx, ns)
	if err != nil {
		return err
	}
	ok, err := rule(a)
	return s.decide(ctx, ok, err, what)
}

// checkObject loads the facts about one child of ns and applies rule.
func (s *Service) checkObject(ctx context.Context, ns semcat.Namespace, kind semcat.EntityKind, name string, rule func(*semcat.Access) (bool, error), what string) error {
	parent, children, err := s.access(ctx, ns, kind, []string{name})
	if err != nil {
		return err
	}
	a, ok := children[name]
	if !ok {
		a = parent // so owners above it still decide, and the operation can answer not-found
	}
	ok, err = rule(a)
	return s.decide(ctx, ok, err, what)
}

// CreateMetalake: service admins only.
func (s *Service) CreateMetalake(ctx context.Context, req semcat.MetalakeCreate) (*semcat.Metalake, semcat.Position, error) {
	if !s.admins[user(ctx)] {
		return nil, semcat.Position{}, forbidden(ctx, "create metalakes (service admins only)")
	}
	return s.inner.CreateMetalake(ctx, req)
}

// GetMetalake: members of the metalake and service admins.
func (s *Service) GetMetalake(ctx context.Context, name string) (*semcat.Metalake, error) {
	if !s.admins[user(ctx)] {
		if err := s.check(ctx, semcat.Namespace{Metalake: name}, isMember, "see metalake '"+name+"'"); err != nil {
			return nil, err
		}
	}
	return s.inner.GetMetalake(ctx, name)
}

// ListMetalakes lists the metalakes the user is a member of (all for
// service admins).
func (s *Service) ListMetalakes(ctx context.Context) ([]*semcat.Metalake, error) {
	all, err := s.inner.ListMetalakes(ctx)
	if err != nil || s.admins[user(ctx)] {
		return all, err
	}
	member, err := s.src.MemberOf(ctx, user(ctx))
	if err != nil {
		return nil, err
	}
	out := []*semcat.Metalake{}
	for _, m := range all {
		if member[m.Name] {
			out = append(out, m)
		}
	}
	return out, nil
}

// AlterMetalake: the metalake's owner.
func (s *Service) AlterMetalake(ctx context.Context, name string, updates []semcat.Update) (*semcat.Metalake, semcat.Position, error) {
	if err := s.check(ctx, semcat.Namespace{Metalake: name}, owns(metalakeLevel...), "alter metalake '"+name+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.AlterMetalake(ctx, name, updates)
}

// DropMetalake: the metalake's owner.
func (s *Service) DropMetalake(ctx context.Context, name string, force bool) (bool, semcat.Position, error) {
	if err := s.check(ctx, semcat.Namespace{Metalake: name}, owns(metalakeLevel...), "drop metalake '"+name+"'"); err != nil {
		return false, semcat.Position{}, err
	}
	return s.inner.DropMetalake(ctx, name, force)
}

// SetMetalakeInUse: the metalake's owner.
func (s *Service) SetMetalakeInUse(ctx context.Context, name string, inUse bool) (semcat.Position, error) {
	if err := s.check(ctx, semcat.Namespace{Metalake: name}, owns(metalakeLevel...), inUseVerb(inUse)+" metalake '"+name+"'"); err != nil {
		return semcat.Position{}, err
	}
	return s.inner.SetMetalakeInUse(ctx, name, inUse)
}

// inUseVerb names what setting in-use does, for a refusal's message.
func inUseVerb(inUse bool) string {
	if inUse {
		return "enable"
	}
	return "disable"
}

func catalogNS(metalake, name string) semcat.Namespace {
	return semcat.Namespace{Metalake: metalake, Catalog: name}
}

// CreateCatalog: owner of the metalake, or CREATE_CATALOG.
func (s *Service) CreateCatalog(ctx context.Context, metalake string, req semcat.CatalogCreate) (*semcat.Catalog, semcat.Position, error) {
	if err := s.check(ctx, semcat.Namespace{Metalake: metalake}, (*semcat.Access).CanCreateCatalog, "create catalogs in '"+metalake+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.CreateCatalog(ctx, metalake, req)
}

// GetCatalog: owners above it, or USE_CATALOG.
func (s *Service) GetCatalog(ctx context.Context, metalake, name string) (*semcat.Catalog, error) {
	if _, err := s.seeCatalog(ctx, metalake, name); err != nil {
		return nil, err
	}
	return s.inner.GetCatalog(ctx, metalake, name)
}

// member fails, as for a metalake that does not exist, unless the user is
// a member of metalake or a service admin (SPEC §6: a non-member gets the
// answer for a missing metalake on every route under it).
func (s *Service) member(ctx context.Context, metalake string) error {
	if s.admins[user(ctx)] {
		return nil
	}
	a, err := s.at(ctx, mlNS(metalake))
	if err != nil {
		return err
	}
	return s.memberBy(ctx, metalake, a)
}

// memberBy is member with the facts at the metalake already loaded.
func (s *Service) memberBy(ctx context.Context, metalake string, a *semcat.Access) error {
	if !s.admins[user(ctx)] && !a.IsMember() {
		return semcat.NoSuchMetalake(metalake)
	}
	return nil
}

// ListCatalogs lists the catalogs the user may use; to a non-member, the
// metalake does not exist (member).
func (s *Service) ListCatalogs(ctx context.Context, metalake string) ([]*semcat.Catalog, error) {
	parent, children, err := s.access(ctx, semcat.Namespace{Metalake: metalake}, semcat.KindCatalog, nil)
	if err != nil {
		return nil, err
	}
	if err := s.memberBy(ctx, metalake, parent); err != nil {
		return nil, err
	}
	all, err := s.inner.ListCatalogs(ctx, metalake)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(all))
	for i, c := range all {
		names[i] = c.Name
	}
	keep := map[string]bool{}
	for _, n := range s.filter(ctx, names, children, (*semcat.Access).CanUseCatalog) {
		keep[n] = true
	}
	out := []*semcat.Catalog{}
	for _, c := range all {
		if keep[c.Name] {
			out = append(out, c)
		}
	}
	return out, nil
}

// AlterCatalog: owners of the metalake or catalog.
func (s *Service) AlterCatalog(ctx context.Context, metalake, name string, updates []semcat.Update) (*semcat.Catalog, semcat.Position, error) {
	if err := s.check(ctx, catalogNS(metalake, name), owns(catalogLevels...), "alter catalog '"+name+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.AlterCatalog(ctx, metalake, name, updates)
}

// DropCatalog: owners of the metalake or catalog.
func (s *Service) DropCatalog(ctx context.Context, metalake, name string, force bool) (bool, semcat.Position, error) {
	if err := s.check(ctx, catalogNS(metalake, name), owns(catalogLevels...), "drop catalog '"+name+"'"); err != nil {
		return false, semcat.Position{}, err
	}
	return s.inner.DropCatalog(ctx, metalake, name, force)
}

// SetCatalogInUse: owners of the metalake or catalog.
func (s *Service) SetCatalogInUse(ctx context.Context, metalake, name string, inUse bool) (semcat.Position, error) {
	if err := s.check(ctx, catalogNS(metalake, name), owns(catalogLevels...), inUseVerb(inUse)+" catalog '"+name+"'"); err != nil {
		return semcat.Position{}, err
	}
	return s.inner.SetCatalogInUse(ctx, metalake, name, inUse)
}

func schemaNS(ns semcat.Namespace, name string) semcat.Namespace {
	ns.Schema = name
	return ns
}

// CreateSchema: owner of the metalake or catalog, or CREATE_SCHEMA with
// USE_CATALOG.
func (s *Service) CreateSchema(ctx context.Context, ns semcat.Namespace, req semcat.SchemaCreate) (*semcat.Schema, semcat.Position, error) {
	if err := s.check(ctx, ns, (*semcat.Access).CanCreateSchema, "create schemas in '"+ns.Catalog+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.CreateSchema(ctx, ns, req)
}

// GetSchema: schema access.
func (s *Service) GetSchema(ctx context.Context, ns semcat.Namespace, name string) (*semcat.Schema, error) {
	if _, err := s.seeSchema(ctx, ns, name); err != nil {
		return nil, err
	}
	return s.inner.GetSchema(ctx, ns, name)
}

// ListSchemas: needs use of the catalog; lists the schemas the user may use.
func (s *Service) ListSchemas(ctx context.Context, ns semcat.Namespace) ([]string, error) {
	return s.list(ctx, ns, semcat.KindSchema, (*semcat.Access).CanUseCatalog, "use catalog '"+ns.Catalog+"'",
		(*semcat.Access).CanUseSchema, s.inner.ListSchemas)
}

// list checks the parent rule (403 when denied), lists, and keeps the
// children that pass the child rule.
func (s *Service) list(ctx context.Context, ns semcat.Namespace, kind semcat.EntityKind,
	parentRule func(*semcat.Access) (bool, error), what string,
	childRule func(*semcat.Access) (bool, error),
	inner func(context.Context, semcat.Namespace) ([]string, error)) ([]string, error) {
	parent, children, err := s.access(ctx, ns, kind, nil)
	if err != nil {
		return nil, err
	}
	ok, err := parentRule(parent)
	if err := s.decide(ctx, ok, err, what); err != nil {
		return nil, err
	}
	names, err := inner(ctx, ns)
	if err != nil {
		return nil, err
	}
	return s.filter(ctx, names, children, childRule), nil
}

// AlterSchema: owners of the metalake, catalog or schema.
func (s *Service) AlterSchema(ctx context.Context, ns semcat.Namespace, name string, updates []semcat.Update) (*semcat.Schema, semcat.Position, error) {
	if err := s.check(ctx, schemaNS(ns, name), owns(schemaLevels...), "alter schema '"+name+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.AlterSchema(ctx, ns, name, updates)
}

// DropSchema: owners of the metalake, catalog or schema.
func (s *Service) DropSchema(ctx context.Context, ns semcat.Namespace, name string, cascade bool) (bool, semcat.Position, error) {
	if err := s.check(ctx, schemaNS(ns, name), owns(schemaLevels...), "drop schema '"+name+"'"); err != nil {
		return false, semcat.Position{}, err
	}
	return s.inner.DropSchema(ctx, ns, name, cascade)
}

// seeCatalog is seeObject for a catalog: membership of the metalake, then
// the catalog's use.
func (s *Service) seeCatalog(ctx context.Context, metalake, name string) (bool, error) {
	return s.seeObject(ctx, mlNS(metalake), semcat.KindCatalog, name, isMember, "see metalake '"+metalake+"'",
		(*semcat.Access).CanUseCatalog, func() error { return semcat.NoSuchCatalog(metalake, name) })
}

// seeSchema is seeObject for a schema of catalog ns: use of the catalog,
// then schema access.
func (s *Service) seeSchema(ctx context.Context, ns semcat.Namespace, name string) (bool, error) {
	return s.seeObject(ctx, ns, semcat.KindSchema, name, (*semcat.Access).CanUseCatalog, "use catalog '"+ns.Catalog+"'",
		(*semcat.Access).CanUseSchema, func() error { return semcat.NoSuchSchema(ns, name) })
}
