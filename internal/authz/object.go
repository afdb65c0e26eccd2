package authz

import (
	"context"
	"fmt"

	"github.com/semcat/semcat"
)

// CreateTable: see semcat.Access.CanCreateTable.
func (s *Service) CreateTable(ctx context.Context, ns semcat.Namespace, req semcat.TableCreate) (*semcat.Table, semcat.Position, error) {
	if err := s.check(ctx, ns, (*semcat.Access).CanCreateTable, "create tables in '"+ns.Schema+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.CreateTable(ctx, ns, req)
}

// CreateTables: as CreateTable. The caller owns the new tables, and owners
// may tag them, so their tags need no other check.
func (s *Service) CreateTables(ctx context.Context, ns semcat.Namespace, req semcat.TableBatchCreate) ([]*semcat.Table, semcat.Position, error) {
	if err := s.check(ctx, ns, (*semcat.Access).CanCreateTable, "create tables in '"+ns.Schema+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	return s.inner.CreateTables(ctx, ns, req)
}

// GetTable: see semcat.Access.CanSeeTable.
func (s *Service) GetTable(ctx context.Context, ns semcat.Namespace, name string) (*semcat.Table, error) {
	if _, err := s.seeTable(ctx, ns, name); err != nil {
		return nil, err
	}
	return s.inner.GetTable(ctx, ns, name)
}

// ListTables: needs schema access; lists the tables the user may see.
func (s *Service) ListTables(ctx context.Context, ns semcat.Namespace) ([]string, error) {
	return s.list(ctx, ns, semcat.KindTable, (*semcat.Access).CanUseSchema, "use schema '"+ns.Schema+"'",
		(*semcat.Access).CanSeeTable, s.inner.ListTables)
}

// AlterTable: see semcat.Access.CanAlterTable; a move to another schema
// needs CanCreateTable there too.
func (s *Service) AlterTable(ctx context.Context, ns semcat.Namespace, name string, updates []semcat.Update) (*semcat.Table, semcat.Position, error) {
	if exists, err := s.seeTable(ctx, ns, name); err != nil {
		return nil, semcat.Position{}, err
	} else if exists {
		if err := s.checkObject(ctx, ns, semcat.KindTable, name, (*semcat.Access).CanAlterTable, "alter table '"+name+"'"); err != nil {
			return nil, semcat.Position{}, err
		}
		// Moving it to another schema creates a table there.
		if into := semcat.TargetSchema(updates, ns.Schema); into != ns.Schema {
			target := ns
			target.Schema = into
			if err := s.check(ctx, target, (*semcat.Access).CanCreateTable, "create tables in '"+into+"'"); err != nil {
				return nil, semcat.Position{}, err
			}
		}
	}
	return s.inner.AlterTable(ctx, ns, name, updates)
}

// DropTable: owners only.
func (s *Service) DropTable(ctx context.Context, ns semcat.Namespace, name string) (bool, semcat.Position, error) {
	if exists, err := s.seeTable(ctx, ns, name); semcat.ErrorCode(err) == semcat.ENOTFOUND {
		return false, semcat.Position{}, nil // as the drop of a missing table answers
	} else if err != nil {
		return false, semcat.Position{}, err
	} else if exists {
		if err := s.checkObject(ctx, ns, semcat.KindTable, name, owns(semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema, semcat.KindTable), "drop table '"+name+"'"); err != nil {
			return false, semcat.Position{}, err
		}
	}
	return s.inner.DropTable(ctx, ns, name)
}

// ListTableStatistics: whoever may see the table.
func (s *Service) ListTableStatistics(ctx context.Context, ns semcat.Namespace, name string) ([]*semcat.Statistic, error) {
	if _, err := s.seeTable(ctx, ns, name); err != nil {
		return nil, err
	}
	return s.inner.ListTableStatistics(ctx, ns, name)
}

// UpdateTableStatistics: whoever may alter the table.
func (s *Service) UpdateTableStatistics(ctx context.Context, ns semcat.Namespace, name string, req semcat.StatisticsUpdate) (semcat.Position, error) {
	if err := s.alterTable(ctx, ns, name); err != nil {
		return semcat.Position{}, err
	}
	return s.inner.UpdateTableStatistics(ctx, ns, name, req)
}

// DropTableStatistics: whoever may alter the table.
func (s *Service) DropTableStatistics(ctx context.Context, ns semcat.Namespace, name string, req semcat.StatisticsDrop) (bool, semcat.Position, error) {
	if err := s.alterTable(ctx, ns, name); err != nil {
		return false, semcat.Position{}, err
	}
	return s.inner.DropTableStatistics(ctx, ns, name, req)
}

// alterTable fails unless the user may alter the table, which it sees (a
// table it may not see is one that does not exist).
func (s *Service) alterTable(ctx context.Context, ns semcat.Namespace, name string) error {
	if exists, err := s.seeTable(ctx, ns, name); err != nil || !exists {
		return err
	}
	return s.checkObject(ctx, ns, semcat.KindTable, name, (*semcat.Access).CanAlterTable, "alter table '"+name+"'")
}

// CreateSemanticModel: see semcat.Access.CanCreateSemanticModel.
func (s *Service) CreateSemanticModel(ctx context.Context, ns semcat.Namespace, req semcat.SemanticModelCreate) (*semcat.SemanticModel, semcat.Position, error) {
	if err := s.check(ctx, ns, (*semcat.Access).CanCreateSemanticModel, "create semantic models in '"+ns.Schema+"'"); err != nil {
		return nil, semcat.Position{}, err
	}
	// A definition the store refuses anyway is refused for that first, as
	// the store would, whatever its sources are.
	if err := req.Validate(); err == nil {
		if err := s.checkSources(ctx, ns.Metalake, req.Definition, ""); err != nil {
			return nil, semcat.Position{}, err
		}
	}
	return s.inner.CreateSemanticModel(ctx, ns, req)
}

// GetSemanticModel: see semcat.Access.CanSeeSemanticModel.
func (s *Service) GetSemanticModel(ctx context.Context, ns semcat.Namespace, name string) (*semcat.SemanticModel, error) {
	if _, err := s.seeModel(ctx, ns, name); err != nil {
		return nil, err
	}
	return s.inner.GetSemanticModel(ctx, ns, name)
}

// ListSemanticModels: needs schema access; lists the models the user may see.
func (s *Service) ListSemanticModels(ctx context.Context, ns semcat.Namespace) ([]string, error) {
	return s.list(ctx, ns, semcat.KindSemanticModel, (*semcat.Access).CanUseSchema, "use schema '"+ns.Schema+"'",
		(*semcat.Access).CanSeeSemanticModel, s.inner.ListSemanticModels)
}

// AlterSemanticModel: see semcat.Access.CanAlterSemanticModel.
func (s *Service) AlterSemanticModel(ctx context.Context, ns semcat.Namespace, name string, updates []semcat.Update, ifMatch int64) (*semcat.SemanticModel, semcat.Position, error) {
	if exists, err := s.seeModel(ctx, ns, name); err != nil {
		return nil, semcat.Position{}, err
	} else if exists {
		if err := s.checkObject(ctx, ns, semcat.KindSemanticModel, name, (*semcat.Access).CanAlterSemanticModel, "alter semantic model '"+name+"'"); err != nil {
			return nil, semcat.Position{}, err
		}
	}
	defined := -1 // the last replaceDefinition, whose sources the store checks
	for i, u := range updates {
		if u.Type == semcat.UpdateReplaceDefinition && u.Definition != nil {
			defined = i
		}
	}
	if defined >= 0 && semcat.ValidateModelUpdates(updates) == nil {
		if err := s.checkSources(ctx, ns.Metalake, updates[defined].Definition, fmt.Sprintf("updates[%d].definition", defined)); err != nil {
			return nil, semcat.Position{}, err
		}
	}
	return s.inner.AlterSemanticModel(ctx, ns, name, updates, ifMatch)
}

// DropSemanticModel: owners only.
func (s *Service) DropSemanticModel(ctx context.Context, ns semcat.Namespace, name string, ifMatch int64) (bool, semcat.Position, error) {
	if exists, err := s.seeModel(ctx, ns, name); semcat.ErrorCode(err) == semcat.ENOTFOUND && semcat.ErrorEntity(err) != semcat.KindMetalake && semcat.ErrorEntity(err) != semcat.KindCatalog {
		return false, semcat.Position{}, nil // as the drop of a missing model or schema answers
	} else if err != nil {
		return false, semcat.Position{}, err
	} else if exists {
		if err := s.checkObject(ctx, ns, semcat.KindSemanticModel, name, owns(semcat.KindMetalake, semcat.KindCatalog, semcat.KindSchema, semcat.KindSemanticModel), "drop semantic model '"+name+"'"); err != nil {
			return false, semcat.Position{}, err
		}
	}
	return s.inner.DropSemanticModel(ctx, ns, name, ifMatch)
}

// ListSchemaMetrics: a schema-access denial fails the request; then each
// model is kept or dropped, with all its metrics, by the model list rule. A
// model whose visibility cannot be evaluated is left out and logged.
func (s *Service) ListSchemaMetrics(ctx context.Context, ns semcat.Namespace, details bool) ([]semcat.SchemaMetric, error) {
	parent, children, err := s.access(ctx, ns, semcat.KindSemanticModel, nil)
	if err != nil {
		return nil, err
	}
	ok, err := parent.CanUseSchema()
	if err := s.decide(ctx, ok, err, "use schema '"+ns.Schema+"'"); err != nil {
		return nil, err
	}
	metrics, err := s.inner.ListSchemaMetrics(ctx, ns, details)
	if err != nil {
		return nil, err
	}
	visible := map[string]bool{}
	var models []string
	for _, m := range metrics {
		if len(models) == 0 || models[len(models)-1] != m.Model {
			models = append(models, m.Model)
		}
	}
	for _, m := range s.filter(ctx, models, children, (*semcat.Access).CanSeeSemanticModel) {
		visible[m] = true
	}
	out := make([]semcat.SchemaMetric, 0, len(metrics))
	for _, m := range metrics {
		if visible[m.Model] {
			out = append(out, m)
		}
	}
	return out, nil
}

// seeTable is seeObject for a table of schema ns: schema access, then the
// table's visibility.
func (s *Service) seeTable(ctx context.Context, ns semcat.Namespace, name string) (bool, error) {
	return s.seeObject(ctx, ns, semcat.KindTable, name, (*semcat.Access).CanUseSchema, "use schema '"+ns.Schema+"'",
		(*semcat.Access).CanSeeTable, func() error { return semcat.NoSuchTable(ns, name) })
}

// seeModel is seeTable for a semantic model.
func (s *Service) seeModel(ctx context.Context, ns semcat.Namespace, name string) (bool, error) {
	return s.seeObject(ctx, ns, semcat.KindSemanticModel, name, (*semcat.Access).CanUseSchema, "use schema '"+ns.Schema+"'",
		(*semcat.Access).CanSeeSemanticModel, func() error { return semcat.NoSuchSemanticModel(ns, name) })
}

// checkSources fails as the store does for a missing source table when a
// dataset's source is a table the user may not see (SPEC §6): neither its
// existence nor its columns show. path prefixes the error (an update's).
func (s *Service) checkSources(ctx context.Context, metalake string, d *semcat.Definition, path string) error {
	if d == nil {
		return nil
	}
	for i, ds := range d.Datasets {
		if ds.Source == nil || len(ds.Source.Namespace) != 2 {
			continue // the definition's own validation says what is wrong
		}
		ns := semcat.Namespace{Metalake: metalake, Catalog: ds.Source.Namespace[0], Schema: ds.Source.Namespace[1]}
		a, err := s.object(ctx, ns, semcat.KindTable, ds.Source.Name)
		if err != nil {
			return err
		}
		if ok, err := a.CanSeeTable(); err == nil && ok {
			continue
		}
		err = semcat.NoSuchSource(i, ds.Source)
		if path != "" {
			err = semcat.IllegalSemanticModel("%s.%s", path, semcat.ErrorMessage(err))
		}
		return err
	}
	return nil
}
