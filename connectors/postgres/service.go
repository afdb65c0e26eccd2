package postgres

import (
	"context"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/internal/authz"
	"github.com/semcat/semcat/internal/sources"
)

// Service is the store's services with PostgreSQL catalogs connected: a
// catalog of provider jdbc-postgresql is created only once its source
// answers, its password kept apart; writes to its schemas and tables go to
// the source first and answer once the mirror has them; reads answer from
// the mirror (the store) like any other catalog's. It sits between the
// authorization rules and the store.
type Service struct {
	authz.Inner
	c *Connector
}

var _ authz.Inner = (*Service)(nil)

// Services wraps inner (the store's services) with the connector.
func (c *Connector) Services(inner authz.Inner) *Service {
	return &Service{Inner: inner, c: c}
}

// later is the later of two write positions.
func later(a, b semcat.Position) semcat.Position {
	if b.TxID > a.TxID {
		return b
	}
	return a
}

// CreateCatalog creates a jdbc-postgresql catalog once its source answers
// (ECONNFAILED with the source's reason otherwise, nothing stored), and
// mirrors it; other catalogs as the store does.
func (s *Service) CreateCatalog(ctx context.Context, metalake string, req semcat.CatalogCreate) (*semcat.Catalog, semcat.Position, error) {
	if req.ProviderOrDefault() != sources.ProviderPostgreSQL {
		return s.Inner.CreateCatalog(ctx, metalake, req)
	}
	if err := req.Validate(); err != nil {
		return nil, semcat.Position{}, err
	}
	if req.Type != semcat.CatalogRelational {
		return nil, semcat.Position{}, semcat.Errorf(semcat.EINVALID, "type: a %s catalog is relational", sources.ProviderPostgreSQL)
	}
	if spec, ok := req.Properties[PropertyRefreshInterval]; ok {
		if err := ValidateSchedule("properties."+PropertyRefreshInterval, spec); err != nil {
			return nil, semcat.Position{}, err
		}
	}
	for _, k := range []string{PropertyLastRefresh, PropertyLastError} {
		if _, ok := req.Properties[k]; ok {
			return nil, semcat.Position{}, semcat.Errorf(semcat.EINVALID, "properties.%s: the property is reserved: it shows the state of the catalog's refreshes", k)
		}
	}
	// The metalake and the name are checked before the source is tried,
	// as a creation would find them.
	if _, err := s.Inner.GetCatalog(ctx, metalake, req.Name); err == nil {
		return nil, semcat.Position{}, semcat.AlreadyExists(semcat.KindCatalog, "catalog '%s.%s' already exists", metalake, req.Name)
	} else if semcat.ErrorCode(err) != semcat.ENOTFOUND {
		return nil, semcat.Position{}, err
	}
	if err := sources.Test(ctx, sources.ProviderPostgreSQL, req.Properties); err != nil {
		return nil, semcat.Position{}, err
	}
	stored := req
	stored.Properties = make(map[string]string, len(req.Properties))
	for k, v := range req.Properties {
		if k != sources.PropertyJDBCPassword {
			stored.Properties[k] = v
		}
	}
	_, pos, err := s.c.store.CreateSourceCatalog(ctx, metalake, stored, req.Properties[sources.PropertyJDBCPassword])
	if err != nil {
		return nil, pos, err
	}
	s.c.poke()
	sc, err := s.c.store.SourceCatalogOf(ctx, metalake, req.Name)
	if err != nil {
		return nil, pos, err
	}
	// The catalog exists now: a first mirror that fails leaves it, with
	// the failure in semcat.last-error, for the next refresh.
	rpos, _ := s.c.refresh(ctx, sc)
	cat, err := s.GetCatalog(ctx, metalake, req.Name)
	return cat, later(pos, rpos), err
}

// GetCatalog adds a source catalog's refresh state to its properties.
func (s *Service) GetCatalog(ctx context.Context, metalake, name string) (*semcat.Catalog, error) {
	cat, err := s.Inner.GetCatalog(ctx, metalake, name)
	if err != nil || cat.Provider != sources.ProviderPostgreSQL {
		return cat, err
	}
	sc, err := s.c.store.SourceCatalogOf(ctx, metalake, name)
	if err != nil {
		return nil, err
	}
	if sc != nil {
		addRefreshState(cat, sc)
	}
	return cat, nil
}

// ListCatalogs adds the source catalogs' refresh state to their
// properties.
func (s *Service) ListCatalogs(ctx context.Context, metalake string) ([]*semcat.Catalog, error) {
	cats, err := s.Inner.ListCatalogs(ctx, metalake)
	if err != nil {
		return nil, err
	}
	var srcs map[string]*catalogdb.SourceCatalog
	for _, cat := range cats {
		if cat.Provider != sources.ProviderPostgreSQL {
			continue
		}
		if srcs == nil {
			all, err := s.c.store.SourceCatalogs(ctx)
			if err != nil {
				return nil, err
			}
			srcs = map[string]*catalogdb.SourceCatalog{}
			for _, sc := range all {
				if sc.Metalake == metalake {
					srcs[sc.Name] = sc
				}
			}
		}
		if sc := srcs[cat.Name]; sc != nil {
			addRefreshState(cat, sc)
		}
	}
	return cats, nil
}

// AlterCatalog checks a source catalog's schedule and keeps its password
// out of its properties: setting jdbc-password replaces the secret the
// connector uses (removing it clears it).
func (s *Service) AlterCatalog(ctx context.Context, metalake, name string, updates []semcat.Update) (*semcat.Catalog, semcat.Position, error) {
	sc, err := s.c.store.SourceCatalogOf(ctx, metalake, name)
	if err != nil || sc == nil {
		return s.Inner.AlterCatalog(ctx, metalake, name, updates)
	}
	if err := semcat.ValidateToggledUpdates(updates); err != nil {
		return nil, semcat.Position{}, err
	}
	var rest []semcat.Update
	secret, newSecret := sc.Secret, false
	for i, u := range updates {
		if u.Property == nil {
			rest = append(rest, u)
			continue
		}
		switch *u.Property {
		case sources.PropertyJDBCPassword:
			secret, newSecret = "", true
			if u.Type == semcat.UpdateSetProperty && u.Value != nil {
				secret = *u.Value
			}
			continue
		case PropertyLastRefresh, PropertyLastError:
			return nil, semcat.Position{}, semcat.Errorf(semcat.EINVALID, "updates[%d].property: '%s' shows the state of the catalog's refreshes; it cannot be set or removed", i, *u.Property)
		case PropertyRefreshInterval:
			if u.Type == semcat.UpdateSetProperty && u.Value != nil {
				if err := ValidateSchedule("updates["+itoa(i)+"].value", *u.Value); err != nil {
					return nil, semcat.Position{}, err
				}
			}
		}
		rest = append(rest, u)
	}
	var (
		cat *semcat.Catalog
		pos semcat.Position
	)
	if len(rest) > 0 {
		if cat, pos, err = s.Inner.AlterCatalog(ctx, metalake, name, rest); err != nil {
			return nil, pos, err
		}
	} else if cat, err = s.Inner.GetCatalog(ctx, metalake, name); err != nil {
		return nil, pos, err
	}
	if newSecret {
		if err := s.c.store.SetSourceSecret(ctx, sc.ID, secret); err != nil {
			return nil, pos, err
		}
	}
	s.c.poke()
	if sc, err := s.c.store.SourceCatalogOf(ctx, metalake, cat.Name); err == nil && sc != nil {
		addRefreshState(cat, sc)
	}
	return cat, pos, nil
}

func itoa(i int) string {
	b := []byte{}
	for {
		b = append([]byte{byte('0' + i%10)}, b...)
		if i /= 10; i == 0 {
			return string(b)
		}
	}
}

// source is the source catalog of ns, in use, or nil for a catalog
// without one.
func (s *Service) source(ctx context.Context, ns semcat.Namespace) (*catalogdb.SourceCatalog, error) {
	sc, err := s.c.store.SourceCatalogOf(ctx, ns.Metalake, ns.Catalog)
	if err != nil {
		if semcat.ErrorCode(err) == semcat.ENOTFOUND {
			return nil, nil // the store answers as for any catalog
		}
		return nil, err
	}
	if sc == nil {
		return nil, nil
	}
	if !sc.InUse {
		return nil, semcat.CatalogNotInUse(ns.Metalake, ns.Catalog)
	}
	// A disabled metalake refuses the write before the source sees it.
	if _, err := s.Inner.GetCatalog(ctx, ns.Metalake, ns.Catalog); err != nil {
		return nil, err
	}
	return sc, nil
}

// pushDown runs DDL in the source and refreshes the mirror, so that the
// write answers once both have it.
func (s *Service) pushDown(ctx context.Context, sc *catalogdb.SourceCatalog, stmts []string) (semcat.Position, error) {
	if err := execDDL(ctx, sc, stmts); err != nil {
		return semcat.Position{}, err
	}
	return s.c.refresh(ctx, sc)
}

// CreateSchema creates the schema in the source, then in the mirror; its
// properties are semcat's.
func (s *Service) CreateSchema(ctx context.Context, ns semcat.Namespace, req semcat.SchemaCreate) (*semcat.Schema, semcat.Position, error) {
	sc, err := s.source(ctx, ns)
	if err != nil || sc == nil {
		if err != nil {
			return nil, semcat.Position{}, err
		}
		return s.Inner.CreateSchema(ctx, ns, req)
	}
	if err := req.Validate(); err != nil {
		return nil, semcat.Position{}, err
	}
	stmts := []string{"CREATE SCHEMA " + quoteIdent(req.Name)}
	if req.Comment != nil {
		stmts = append(stmts, "COMMENT ON SCHEMA "+quoteIdent(req.Name)+" IS "+commentSQL(req.Comment))
	}
	pos, err := s.pushDown(ctx, sc, stmts)
	if err != nil {
		return nil, pos, err
	}
	if len(req.Properties) > 0 {
		var ups []semcat.Update
		for k, v := range req.Properties {
			ups = append(ups, semcat.Update{Type: semcat.UpdateSetProperty, Property: &k, Value: &v})
		}
		_, p, err := s.Inner.AlterSchema(ctx, ns, req.Name, ups)
		if err != nil {
			return nil, pos, err
		}
		pos = later(pos, p)
	}
	out, err := s.Inner.GetSchema(ctx, ns, req.Name)
	return out, pos, err
}

// AlterSchema sets the comment in the source; properties are semcat's.
func (s *Service) AlterSchema(ctx context.Context, ns semcat.Namespace, name string, updates []semcat.Update) (*semcat.Schema, semcat.Position, error) {
	sc, err := s.source(ctx, ns)
	if err != nil || sc == nil {
		if err != nil {
			return nil, semcat.Position{}, err
		}
		return s.Inner.AlterSchema(ctx, ns, name, updates)
	}
	if err := semcat.ValidateUpdates(updates, semcat.CommonUpdates...); err != nil {
		return nil, semcat.Position{}, err
	}
	if _, err := s.Inner.GetSchema(ctx, ns, name); err != nil {
		return nil, semcat.Position{}, err
	}
	var stmts []string
	var local []semcat.Update
	for i, u := range updates {
		switch u.Type {
		case semcat.UpdateComment:
			stmts = append(stmts, "COMMENT ON SCHEMA "+quoteIdent(name)+" IS "+commentSQL(u.NewComment.Value))
		case semcat.UpdateRename:
			return nil, semcat.Position{}, semcat.Errorf(semcat.EUNSUPPORTED, "updates[%d]: a schema of a PostgreSQL catalog cannot be renamed through semcat", i)
		default:
			local = append(local, u)
		}
	}
	pos, err := s.pushDown(ctx, sc, stmts)
	if err != nil {
		return nil, pos, err
	}
	if len(local) > 0 {
		_, p, err := s.Inner.AlterSchema(ctx, ns, name, local)
		if err != nil {
			return nil, pos, err
		}
		pos = later(pos, p)
	}
	out, err := s.Inner.GetSchema(ctx, ns, name)
	return out, pos, err
}

// DropSchema drops the schema in the source (CASCADE with cascade), then
// in the mirror.
func (s *Service) DropSchema(ctx context.Context, ns semcat.Namespace, name string, cascade bool) (bool, semcat.Position, error) {
	sc, err := s.source(ctx, ns)
	if err != nil || sc == nil {
		if err != nil {
			return false, semcat.Position{}, err
		}
		return s.Inner.DropSchema(ctx, ns, name, cascade)
	}
	if _, err := s.Inner.GetSchema(ctx, ns, name); semcat.ErrorCode(err) == semcat.ENOTFOUND {
		return false, semcat.Position{}, nil
	} else if err != nil {
		return false, semcat.Position{}, err
	}
	stmt := "DROP SCHEMA IF EXISTS " + quoteIdent(name)
	if cascade {
		stmt += " CASCADE"
	}
	pos, err := s.pushDown(ctx, sc, []string{stmt})
	return err == nil, pos, err
}

// CreateTable creates the table in the source, then in the mirror; its
// properties are semcat's.
func (s *Service) CreateTable(ctx context.Context, ns semcat.Namespace, req semcat.TableCreate) (*semcat.Table, semcat.Position, error) {
	sc, err := s.source(ctx, ns)
	if err != nil || sc == nil {
		if err != nil {
			return nil, semcat.Position{}, err
		}
		return s.Inner.CreateTable(ctx, ns, req)
	}
	if err := req.Validate(); err != nil {
		return nil, semcat.Position{}, err
	}
	if _, err := s.Inner.GetSchema(ctx, semcat.Namespace{Metalake: ns.Metalake, Catalog: ns.Catalog}, ns.Schema); err != nil {
		return nil, semcat.Position{}, err
	}
	if _, ok := req.Properties[PropertyTableType]; ok {
		return nil, semcat.Position{}, semcat.Errorf(semcat.EINVALID, "properties.%s: the source sets it", PropertyTableType)
	}
	stmts, err := createTableDDL(ns.Schema, req)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	pos, err := s.pushDown(ctx, sc, stmts)
	if err != nil {
		return nil, pos, err
	}
	if len(req.Properties) > 0 {
		var ups []semcat.Update
		for k, v := range req.Properties {
			ups = append(ups, semcat.Update{Type: semcat.UpdateSetProperty, Property: &k, Value: &v})
		}
		_, p, err := s.Inner.AlterTable(ctx, ns, req.Name, ups)
		if err != nil {
			return nil, pos, err
		}
		pos = later(pos, p)
	}
	out, err := s.Inner.GetTable(ctx, ns, req.Name)
	return out, pos, err
}

// CreateTables is not offered by PostgreSQL catalogs: create the tables in
// the source, or one by one.
func (s *Service) CreateTables(ctx context.Context, ns semcat.Namespace, req semcat.TableBatchCreate) ([]*semcat.Table, semcat.Position, error) {
	sc, err := s.source(ctx, ns)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	if sc == nil {
		return s.Inner.CreateTables(ctx, ns, req)
	}
	return nil, semcat.Position{}, semcat.Errorf(semcat.EUNSUPPORTED, "catalog '%s.%s' mirrors a PostgreSQL database: create its tables one at a time", ns.Metalake, ns.Catalog)
}

// AlterTable pushes Gravitino's table changes down as DDL, in one source
// transaction, then mirrors them; semcat's properties stay in semcat.
func (s *Service) AlterTable(ctx context.Context, ns semcat.Namespace, name string, updates []semcat.Update) (*semcat.Table, semcat.Position, error) {
	sc, err := s.source(ctx, ns)
	if err != nil || sc == nil {
		if err != nil {
			return nil, semcat.Position{}, err
		}
		return s.Inner.AlterTable(ctx, ns, name, updates)
	}
	if err := semcat.ValidateTableUpdates(updates); err != nil {
		return nil, semcat.Position{}, err
	}
	t, err := s.Inner.GetTable(ctx, ns, name)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	stmts, local, newSchema, newName, err := alterTableDDL(ns.Schema, name, t.Properties[PropertyTableType], updates)
	if err != nil {
		return nil, semcat.Position{}, err
	}
	pos, err := s.pushDown(ctx, sc, stmts)
	if err != nil {
		return nil, pos, err
	}
	into := ns
	into.Schema = newSchema
	if len(local) > 0 {
		_, p, err := s.Inner.AlterTable(ctx, into, newName, local)
		if err != nil {
			return nil, pos, err
		}
		pos = later(pos, p)
	}
	out, err := s.Inner.GetTable(ctx, into, newName)
	return out, pos, err
}

// DropTable drops the relation in the source, then in the mirror (a purge
// too: the source's data goes with it).
func (s *Service) DropTable(ctx context.Context, ns semcat.Namespace, name string) (bool, semcat.Position, error) {
	sc, err := s.source(ctx, ns)
	if err != nil || sc == nil {
		if err != nil {
			return false, semcat.Position{}, err
		}
		return s.Inner.DropTable(ctx, ns, name)
	}
	t, err := s.Inner.GetTable(ctx, ns, name)
	if semcat.ErrorCode(err) == semcat.ENOTFOUND {
		return false, semcat.Position{}, nil
	} else if err != nil {
		return false, semcat.Position{}, err
	}
	pos, err := s.pushDown(ctx, sc, []string{dropTableDDL(ns.Schema, name, t.Properties[PropertyTableType])})
	return err == nil, pos, err
}

// Connections tests a source catalog's connection with its password,
// which its properties do not show; others as conns does.
type Connections struct {
	*semcat.Connections
	c *Connector
}

// Connections wraps conns so that existing PostgreSQL catalogs are tested
// with their passwords.
func (c *Connector) Connections(conns *semcat.Connections) *Connections {
	return &Connections{Connections: conns, c: c}
}

// TestCatalogConnection tests an existing catalog the caller may see.
func (x *Connections) TestCatalogConnection(ctx context.Context, metalake, catalog string) error {
	if _, err := x.Catalogs.GetCatalog(ctx, metalake, catalog); err != nil {
		return err
	}
	sc, err := x.c.store.SourceCatalogOf(ctx, metalake, catalog)
	if err != nil {
		return err
	}
	if sc == nil {
		return x.Connections.TestCatalogConnection(ctx, metalake, catalog)
	}
	return sources.Test(ctx, sc.Provider, withSecret(sc))
}
