package api_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/semcat/semcat"
)

// fake implements every service without storage, for tests of the HTTP
// layer only (routing, decoding, parameters, headers, error bodies): it
// records each call and echoes its input back. Behaviour is tested against
// PostgreSQL with catalogdb.Store.
type fake struct {
	mu       sync.Mutex
	calls    []string
	user     string        // user of the last call
	deadline time.Duration // time left before the deadline of the last call's context; 0 if none
	err      error         // when set, every call fails with it
	pos      semcat.Position
	version  int64 // version of every semantic model returned
	// listing is how long TagObjects works before it answers.
	listing time.Duration
}

func newFake() *fake { return &fake{pos: semcat.Position{TxID: 42}, version: 7} }

// call records a call and returns the configured error.
func (f *fake) call(ctx context.Context, format string, args ...any) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, fmt.Sprintf(format, args...))
	f.user = semcat.UserFromContext(ctx)
	f.deadline = 0
	if d, ok := ctx.Deadline(); ok {
		f.deadline = time.Until(d)
	}
	return f.err
}

// lastCall returns the last recorded call, or "" if none.
func (f *fake) lastCall() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.calls) == 0 {
		return ""
	}
	return f.calls[len(f.calls)-1]
}

// drop answers a drop: the entity named "missing" does not exist.
func (f *fake) drop(name string) (bool, semcat.Position) {
	if name == "missing" {
		return false, semcat.Position{}
	}
	return true, f.pos
}

func ns(n semcat.Namespace) string { return strings.Join(n.Path(), "/") }

func updateTypes(us []semcat.Update) string {
	types := make([]string, len(us))
	for i, u := range us {
		types[i] = u.Type
	}
	return strings.Join(types, ",")
}

var props = map[string]string{}

func (f *fake) CreateMetalake(ctx context.Context, req semcat.MetalakeCreate) (*semcat.Metalake, semcat.Position, error) {
	if err := f.call(ctx, "CreateMetalake %s", req.Name); err != nil {
		return nil, semcat.Position{}, err
	}
	return &semcat.Metalake{Name: req.Name, Comment: req.Comment, Properties: props}, f.pos, nil
}

func (f *fake) GetMetalake(ctx context.Context, name string) (*semcat.Metalake, error) {
	if err := f.call(ctx, "GetMetalake %s", name); err != nil {
		return nil, err
	}
	return &semcat.Metalake{Name: name, Properties: props}, nil
}

func (f *fake) ListMetalakes(ctx context.Context) ([]*semcat.Metalake, error) {
	return nil, f.call(ctx, "ListMetalakes")
}

func (f *fake) AlterMetalake(ctx context.Context, name string, updates []semcat.Update) (*semcat.Metalake, semcat.Position, error) {
	if err := f.call(ctx, "AlterMetalake %s %s", name, updateTypes(updates)); err != nil {
		return nil, semcat.Position{}, err
	}
	return &semcat.Metalake{Name: name, Properties: props}, f.pos, nil
}

func (f *fake) DropMetalake(ctx context.Context, name string, force bool) (bool, semcat.Position, error) {
	if err := f.call(ctx, "DropMetalake %s force=%v", name, force); err != nil {
		return false, semcat.Position{}, err
	}
	dropped, pos := f.drop(name)
	return dropped, pos, nil
}

func (f *fake) SetMetalakeInUse(ctx context.Context, name string, inUse bool) (semcat.Position, error) {
	if err := f.call(ctx, "SetMetalakeInUse %s %v", name, inUse); err != nil {
		return semcat.Position{}, err
	}
	return f.pos, nil
}

func (f *fake) CreateCatalog(ctx context.Context, metalake string, req semcat.CatalogCreate) (*semcat.Catalog, semcat.Position, error) {
	if err := f.call(ctx, "CreateCatalog %s %s %s %s", metalake, req.Name, req.Type, req.ProviderOrDefault()); err != nil {
		return nil, semcat.Position{}, err
	}
	return &semcat.Catalog{Name: req.Name, Type: req.Type, Provider: req.ProviderOrDefault(), Properties: props}, f.pos, nil
}

func (f *fake) SetCatalogInUse(ctx context.Context, metalake, name string, inUse bool) (semcat.Position, error) {
	if err := f.call(ctx, "SetCatalogInUse %s %s %v", metalake, name, inUse); err != nil {
		return semcat.Position{}, err
	}
	return f.pos, nil
}

func (f *fake) GetCatalog(ctx context.Context, metalake, name string) (*semcat.Catalog, error) {
	if err := f.call(ctx, "GetCatalog %s %s", metalake, name); err != nil {
		return nil, err
	}
	return &semcat.Catalog{Name: name, Type: semcat.CatalogRelational, Properties: props}, nil
}

func (f *fake) ListCatalogs(ctx context.Context, metalake string) ([]*semcat.Catalog, error) {
	if err := f.call(ctx, "ListCatalogs %s", metalake); err != nil {
		return nil, err
	}
	return []*semcat.Catalog{
		{Name: "B", Type: semcat.CatalogRelational, Properties: props},
		{Name: "a", Type: semcat.CatalogFileset, Properties: props},
	}, nil
}

func (f *fake) AlterCatalog(ctx context.Context, metalake, name string, updates []semcat.Update) (*semcat.Catalog, semcat.Position, error) {
	if err := f.call(ctx, "AlterCatalog %s %s %s", metalake, name, updateTypes(updates)); err != nil {
		return nil, semcat.Position{}, err
	}
	return &semcat.Catalog{Name: name, Type: semcat.CatalogRelational, Properties: props}, f.pos, nil
}

func (f *fake) DropCatalog(ctx context.Context, metalake, name string, force bool) (bool, semcat.Position, error) {
	if err := f.call(ctx, "DropCatalog %s %s force=%v", metalake, name, force); err != nil {
		return false, semcat.Position{}, err
	}
	dropped, pos := f.drop(name)
	return dropped, pos, nil
}

func (f *fake) CreateSchema(ctx context.Context, n semcat.Namespace, req semcat.SchemaCreate) (*semcat.Schema, semcat.Position, error) {
	if err := f.call(ctx, "CreateSchema %s %s", ns(n), req.Name); err != nil {
		return nil, semcat.Position{}, err
	}
	return &semcat.Schema{Name: req.Name, Properties: props}, f.pos, nil
}

func (f *fake) GetSchema(ctx context.Context, n semcat.Namespace, name string) (*semcat.Schema, error) {
	if err := f.call(ctx, "GetSchema %s %s", ns(n), name); err != nil {
		return nil, err
	}
	return &semcat.Schema{Name: name, Properties: props}, nil
}

func (f *fake) ListSchemas(ctx context.Context, n semcat.Namespace) ([]string, error) {
	return []string{"s1", "s2"}, f.call(ctx, "ListSchemas %s", ns(n))
}

func (f *fake) AlterSchema(ctx context.Context, n semcat.Namespace, name string, updates []semcat.Update) (*semcat.Schema, semcat.Position, error) {
	if err := f.call(ctx, "AlterSchema %s %s %s", ns(n), name, updateTypes(updates)); err != nil {
		return nil, semcat.Position{}, err
	}
	return &semcat.Schema{Name: name, Properties: props}, f.pos, nil
}

func (f *fake) DropSchema(ctx context.Context, n semcat.Namespace, name string, cascade bool) (bool, semcat.Position, error) {
	if err := f.call(ctx, "DropSchema %s %s cascade=%v", ns(n), name, cascade); err != nil {
		return false, semcat.Position{}, err
	}
	dropped, pos := f.drop(name)
	return dropped, pos, nil
}

func (f *fake) CreateTable(ctx context.Context, n semcat.Namespace, req semcat.TableCreate) (*semcat.Table, semcat.Position, error) {
	if err := f.call(ctx, "CreateTable %s %s", ns(n), req.Name); err != nil {
		return nil, semcat.Position{}, err
	}
	return &semcat.Table{Name: req.Name, Columns: req.Columns, Properties: props}, f.pos, nil
}

func (f *fake) CreateTables(ctx context.Context, n semcat.Namespace, req semcat.TableBatchCreate) ([]*semcat.Table, semcat.Position, error) {
	var names []string
	for _, item := range req.Tables {
		names = append(names, item.Name)
	}
	if err := f.call(ctx, "CreateTables %s %s", ns(n), strings.Join(names, ",")); err != nil {
		return nil, semcat.Position{}, err
	}
	out := make([]*semcat.Table, len(req.Tables))
	for i, item := range req.Tables {
		out[i] = &semcat.Table{Name: item.Name, Columns: item.Columns, Properties: props}
	}
	return out, f.pos, nil
}

func (f *fake) GetTable(ctx context.Context, n semcat.Namespace, name string) (*semcat.Table, error) {
	if err := f.call(ctx, "GetTable %s %s", ns(n), name); err != nil {
		return nil, err
	}
	return &semcat.Table{Name: name, Columns: []semcat.Column{}, Properties: props}, nil
}

func (f *fake) ListTables(ctx context.Context, n semcat.Namespace) ([]string, error) {
	return []string{"Orders", "customers"}, f.call(ctx, "ListTables %s", ns(n))
}

func (f *fake) AlterTable(ctx context.Context, n semcat.Namespace, name string, updates []semcat.Update) (*semcat.Table, semcat.Position, error) {
	if err := f.call(ctx, "AlterTable %s %s %s", ns(n), name, updateTypes(updates)); err != nil {
		return nil, semcat.Position{}, err
	}
	return &semcat.Table{Name: name, Columns: []semcat.Column{}, Properties: props}, f.pos, nil
}

func (f *fake) DropTable(ctx context.Context, n semcat.Namespace, name string) (bool, semcat.Position, error) {
	if err := f.call(ctx, "DropTable %s %s", ns(n), name); err != nil {
		return false, semcat.Position{}, err
	}
	dropped, pos := f.drop(name)
	return dropped, pos, nil
}

func (f *fake) ListTableStatistics(ctx context.Context, n semcat.Namespace, name string) ([]*semcat.Statistic, error) {
	return []*semcat.Statistic{{Name: "custom-rows", Value: []byte("10"), Modifiable: true}}, f.call(ctx, "ListTableStatistics %s %s", ns(n), name)
}

func (f *fake) UpdateTableStatistics(ctx context.Context, n semcat.Namespace, name string, req semcat.StatisticsUpdate) (semcat.Position, error) {
	return f.pos, f.call(ctx, "UpdateTableStatistics %s %s %d", ns(n), name, len(req.Updates))
}

func (f *fake) DropTableStatistics(ctx context.Context, n semcat.Namespace, name string, req semcat.StatisticsDrop) (bool, semcat.Position, error) {
	return true, f.pos, f.call(ctx, "DropTableStatistics %s %s %v", ns(n), name, req.Names)
}

func (f *fake) CreateSemanticModel(ctx context.Context, n semcat.Namespace, req semcat.SemanticModelCreate) (*semcat.SemanticModel, semcat.Position, error) {
	if err := f.call(ctx, "CreateSemanticModel %s %s", ns(n), req.Name); err != nil {
		return nil, semcat.Position{}, err
	}
	return &semcat.SemanticModel{Name: req.Name, Version: f.version, Definition: *req.Definition, Properties: props}, f.pos, nil
}

func (f *fake) GetSemanticModel(ctx context.Context, n semcat.Namespace, name string) (*semcat.SemanticModel, error) {
	if err := f.call(ctx, "GetSemanticModel %s %s", ns(n), name); err != nil {
		return nil, err
	}
	return &semcat.SemanticModel{Name: name, Version: f.version, Properties: props}, nil
}

func (f *fake) ListSemanticModels(ctx context.Context, n semcat.Namespace) ([]string, error) {
	return []string{"sales"}, f.call(ctx, "ListSemanticModels %s", ns(n))
}

func (f *fake) AlterSemanticModel(ctx context.Context, n semcat.Namespace, name string, updates []semcat.Update, ifMatch int64) (*semcat.SemanticModel, semcat.Position, error) {
	if err := f.call(ctx, "AlterSemanticModel %s %s %s ifMatch=%d", ns(n), name, updateTypes(updates), ifMatch); err != nil {
		return nil, semcat.Position{}, err
	}
	return &semcat.SemanticModel{Name: name, Version: f.version + 1, Properties: props}, f.pos, nil
}

func (f *fake) DropSemanticModel(ctx context.Context, n semcat.Namespace, name string, ifMatch int64) (bool, semcat.Position, error) {
	if err := f.call(ctx, "DropSemanticModel %s %s ifMatch=%d", ns(n), name, ifMatch); err != nil {
		return false, semcat.Position{}, err
	}
	dropped, pos := f.drop(name)
	return dropped, pos, nil
}

func (f *fake) CreateTag(ctx context.Context, metalake string, req semcat.TagCreate) (*semcat.Tag, semcat.Position, error) {
	if err := f.call(ctx, "CreateTag %s %s", metalake, req.Name); err != nil {
		return nil, semcat.Position{}, err
	}
	return &semcat.Tag{Name: req.Name, Properties: props}, f.pos, nil
}

func (f *fake) GetTag(ctx context.Context, metalake, name string) (*semcat.Tag, error) {
	if err := f.call(ctx, "GetTag %s %s", metalake, name); err != nil {
		return nil, err
	}
	return &semcat.Tag{Name: name, Properties: props}, nil
}

func (f *fake) ListTags(ctx context.Context, metalake string) ([]string, error) {
	return nil, f.call(ctx, "ListTags %s", metalake)
}

func (f *fake) DropTag(ctx context.Context, metalake, name string) (bool, semcat.Position, error) {
	if err := f.call(ctx, "DropTag %s %s", metalake, name); err != nil {
		return false, semcat.Position{}, err
	}
	dropped, pos := f.drop(name)
	return dropped, pos, nil
}

func (f *fake) AlterTag(ctx context.Context, metalake, name string, updates []semcat.Update) (*semcat.Tag, semcat.Position, error) {
	if err := f.call(ctx, "AlterTag %s %s %s", metalake, name, updateTypes(updates)); err != nil {
		return nil, semcat.Position{}, err
	}
	return &semcat.Tag{Name: name, Properties: props}, f.pos, nil
}

func (f *fake) ListTagInfos(ctx context.Context, metalake string) ([]*semcat.Tag, error) {
	if err := f.call(ctx, "ListTagInfos %s", metalake); err != nil {
		return nil, err
	}
	return []*semcat.Tag{{Name: "pii", Properties: props}}, nil
}

func (f *fake) TagObjects(ctx context.Context, metalake, name, value string) ([]semcat.TaggedObject, error) {
	if err := f.call(ctx, "TagObjects %s %s%s", metalake, name, value); err != nil {
		return nil, err
	}
	time.Sleep(f.listing)
	return []semcat.TaggedObject{{Type: semcat.KindTable, FullName: "c.s.t"}}, nil
}

func (f *fake) ListObjectTags(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]string, error) {
	return []string{"pii"}, f.call(ctx, "ListObjectTags %s %s %s", metalake, obj.Type, obj.FullName)
}

func (f *fake) ObjectTagInfos(ctx context.Context, metalake string, obj semcat.ObjectRef) ([]*semcat.ObjectTag, error) {
	return []*semcat.ObjectTag{{Tag: &semcat.Tag{Name: "pii", Properties: props}, AssignmentValues: []string{}}},
		f.call(ctx, "ObjectTagInfos %s %s %s", metalake, obj.Type, obj.FullName)
}

func (f *fake) AssociateTags(ctx context.Context, metalake string, obj semcat.ObjectRef, req semcat.TagAssignments) ([]string, semcat.Position, error) {
	show := func(vs []semcat.TagValue) []string {
		var out []string
		for _, v := range vs {
			if v.Value != nil {
				out = append(out, v.Name+"="+*v.Value)
			} else {
				out = append(out, v.Name)
			}
		}
		return out
	}
	mode := ""
	if req.Valued {
		mode = " (values)"
	}
	if err := f.call(ctx, "AssociateTags %s %s %s +%v -%v%s", metalake, obj.Type, obj.FullName, show(req.Add), show(req.Remove), mode); err != nil {
		return nil, semcat.Position{}, err
	}
	return show(req.Add), f.pos, nil
}
