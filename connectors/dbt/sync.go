package dbt

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/semcat/semcat"
	apiclient "github.com/semcat/semcat/client"
)

// Options steer an import.
type Options struct {
	Metalake string
	// Prune drops the tables and semantic models this project imported
	// earlier that its artifacts no longer have.
	Prune bool
	// DryRun reads what is there and reports the changes without making
	// any.
	DryRun bool
	// Concurrency is how many requests are in flight (default 8).
	Concurrency int
	// Progress, when set, is told how many of about how many objects are
	// done; it is called from several goroutines.
	Progress func(done, total int64)
}

// Action is one change an import made (or, in a dry run, would make).
type Action struct {
	Op     string `json:"op"`   // create, update, delete
	Kind   string `json:"kind"` // catalog, schema, tag, table, semantic_model, owner
	Name   string `json:"name"`
	Detail string `json:"detail,omitempty"`
}

func (a Action) String() string {
	s := a.Op + " " + strings.ReplaceAll(a.Kind, "_", " ") + " " + a.Name
	if a.Detail != "" {
		s += " (" + a.Detail + ")"
	}
	return s
}

// Result is what an import did.
type Result struct {
	Project    string   `json:"project"`
	DBTVersion string   `json:"dbtVersion"`
	Spec       string   `json:"semanticSpec,omitempty"`
	Catalog    string   `json:"catalog"`
	DryRun     bool     `json:"dryRun"`
	Actions    []Action `json:"actions"`
	// Tables, Models and Metrics count what the artifacts map onto.
	Tables  int `json:"tables"`
	Models  int `json:"semanticModels"`
	Metrics int `json:"metrics"`
	// Unchanged counts the tables and models that needed no write.
	Unchanged int `json:"unchanged"`
	// Issues are the items not (fully) imported; Skipped the dbt objects
	// semcat has no place for.
	Issues  []Issue `json:"issues"`
	Skipped []Issue `json:"skipped"`
	// Notes say what was imported under another name than dbt's.
	Notes []Issue `json:"notes"`
}

// Writes counts the actions of kind (all kinds for "").
func (r *Result) Writes(kind string) int {
	n := 0
	for _, a := range r.Actions {
		if kind == "" || a.Kind == kind {
			n++
		}
	}
	return n
}

// importer runs one import.
type importer struct {
	c    *apiclient.Client
	plan *Plan
	opt  Options
	res  *Result
	mu   sync.Mutex // guards res

	done, total atomic.Int64
	users       map[string]bool
	// schemas are the catalog's schemas before the import.
	schemas map[string]bool
}

// Import brings catalog plan.Catalog of opt.Metalake to what plan
// describes, through the REST API: it creates what is missing, updates in
// place what differs (so a repeat import writes nothing and metric
// identities are kept), and with opt.Prune drops what this project
// imported earlier and no longer has. A failure to write one object is an
// issue of the result; the error is for failures that stop the import.
func Import(ctx context.Context, c *apiclient.Client, plan *Plan, opt Options) (*Result, error) {
	if opt.Concurrency < 1 {
		opt.Concurrency = 8
	}
	im := &importer{c: c, plan: plan, opt: opt, res: &Result{Project: plan.Project, DBTVersion: plan.DBTVersion, Spec: plan.Spec,
		Catalog: plan.Catalog, DryRun: opt.DryRun, Tables: len(plan.Tables), Models: len(plan.Models), Metrics: plan.Metrics,
		Actions: []Action{}, Issues: append([]Issue{}, plan.Issues...), Skipped: append([]Issue{}, plan.Skipped...), Notes: append([]Issue{}, plan.Notes...)}}
	im.total.Store(int64(len(plan.Tables) + len(plan.Models)))
	steps := []func(context.Context) error{im.catalog, im.schemasAndTags, im.loadUsers, im.tables, im.models}
	if opt.Prune {
		steps = append(steps, im.prune)
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			sortActions(im.res.Actions)
			return im.res, err
		}
	}
	sortActions(im.res.Actions)
	return im.res, nil
}

func (im *importer) act(op, kind, name, detail string) {
	im.mu.Lock()
	im.res.Actions = append(im.res.Actions, Action{Op: op, Kind: kind, Name: name, Detail: detail})
	im.mu.Unlock()
}

func (im *importer) fail(item string, err error) {
	im.mu.Lock()
	im.res.Issues = append(im.res.Issues, Issue{Item: item, Reason: semcat.ErrorMessage(err)})
	im.mu.Unlock()
}

func (im *importer) step() {
	d := im.done.Add(1)
	if im.opt.Progress != nil {
		im.opt.Progress(d, im.total.Load())
	}
}

func (im *importer) ns(schema string) semcat.Namespace {
	return semcat.Namespace{Metalake: im.opt.Metalake, Catalog: im.plan.Catalog, Schema: schema}
}

// catalog makes sure the catalog exists and is relational.
func (im *importer) catalog(ctx context.Context) error {
	if _, err := im.c.GetMetalake(ctx, im.opt.Metalake); err != nil {
		return err
	}
	cat, err := im.c.GetCatalog(ctx, im.opt.Metalake, im.plan.Catalog)
	switch {
	case err == nil:
		if cat.Type != semcat.CatalogRelational {
			return semcat.Errorf(semcat.EINVALID, "--catalog: catalog '%s' is of type %s; dbt imports into a relational catalog", cat.Name, cat.Type)
		}
		if strings.HasPrefix(cat.Provider, "jdbc-") {
			// Its tables are a live database's: writes would be DDL there.
			return semcat.Errorf(semcat.EINVALID, "--catalog: catalog '%s' mirrors a live database (provider %s); import dbt into a catalog of its own", cat.Name, cat.Provider)
		}
		return nil
	case !errors.Is(err, apiclient.ErrNotFound):
		return err
	}
	im.act("create", "catalog", im.plan.Catalog, "")
	if im.opt.DryRun {
		return nil
	}
	comment := "dbt project " + im.plan.Project
	_, _, err = im.c.CreateCatalog(ctx, im.opt.Metalake, semcat.CatalogCreate{Name: im.plan.Catalog, Type: semcat.CatalogRelational,
		Comment: &comment, Properties: map[string]string{PropProject: im.plan.Project}})
	return err
}

// schemasAndTags creates the schemas and tags the tables need.
func (im *importer) schemasAndTags(ctx context.Context) error {
	im.schemas = map[string]bool{}
	if !im.created("catalog", im.plan.Catalog) {
		names, err := im.c.ListSchemas(ctx, semcat.Namespace{Metalake: im.opt.Metalake, Catalog: im.plan.Catalog})
		if err != nil {
			return err
		}
		for _, s := range names {
			im.schemas[s] = true
		}
	}
	for _, s := range im.plan.Schemas {
		if im.schemas[s] {
			continue
		}
		im.act("create", "schema", s, "")
		if im.opt.DryRun {
			continue
		}
		_, _, err := im.c.CreateSchema(ctx, semcat.Namespace{Metalake: im.opt.Metalake, Catalog: im.plan.Catalog},
			semcat.SchemaCreate{Name: s, Properties: map[string]string{PropProject: im.plan.Project}})
		if err != nil && !errors.Is(err, apiclient.ErrAlreadyExists) {
			return fmt.Errorf("schema %s: %w", s, err)
		}
	}
	if len(im.plan.Tags) == 0 {
		return nil
	}
	have, err := im.c.ListTags(ctx, im.opt.Metalake)
	if err != nil {
		return err
	}
	exists := map[string]bool{}
	for _, t := range have {
		exists[t] = true
	}
	for _, t := range im.plan.Tags {
		if exists[t] {
			continue
		}
		im.act("create", "tag", t, "")
		if im.opt.DryRun {
			continue
		}
		comment := "dbt tag"
		if _, _, err := im.c.CreateTag(ctx, im.opt.Metalake, semcat.TagCreate{Name: t, Comment: &comment}); err != nil && !errors.Is(err, apiclient.ErrAlreadyExists) {
			return fmt.Errorf("tag %s: %w", t, err)
		}
	}
	return nil
}

// created reports whether this import creates (or would create) an object.
func (im *importer) created(kind, name string) bool {
	im.mu.Lock()
	defer im.mu.Unlock()
	for _, a := range im.res.Actions {
		if a.Op == "create" && a.Kind == kind && a.Name == name {
			return true
		}
	}
	return false
}

// loadUsers lists the metalake's users when some table names an owner; an
// owner who is not a user stays a property only, and is reported.
func (im *importer) loadUsers(ctx context.Context) error {
	owners := map[string][]string{}
	for _, t := range im.plan.Tables {
		if t.Owner != "" {
			owners[t.Owner] = append(owners[t.Owner], "table "+t.Schema+"."+t.Table.Name)
		}
	}
	for _, m := range im.plan.Models {
		if m.Owner != "" {
			owners[m.Owner] = append(owners[m.Owner], "semantic model "+m.Schema+"."+m.Model.Name)
		}
	}
	if len(owners) == 0 {
		return nil
	}
	users, err := im.c.ListUsers(ctx, im.opt.Metalake)
	if err != nil {
		im.fail("owners", fmt.Errorf("listing the metalake's users: %w", err))
		return nil
	}
	im.users = map[string]bool{}
	for _, u := range users {
		im.users[u.Name] = true
	}
	for _, o := range sortedKeys(owners) {
		if !im.users[o] {
			objs := owners[o]
			im.res.Skipped = append(im.res.Skipped, Issue{Item: fmt.Sprintf("owner '%s' of %d %s", o, len(objs), plural("object", len(objs))),
				Reason: "no user of that name in the metalake; kept as property dbt.meta.owner (" + list(objs, 5) + ")"})
		}
	}
	return nil
}

// each runs fn for 0..n-1 on the importer's workers.
func (im *importer) each(ctx context.Context, n int, fn func(i int)) {
	var wg sync.WaitGroup
	next := atomic.Int64{}
	for range min(im.opt.Concurrency, n) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				fn(i)
			}
		})
	}
	wg.Wait()
}

// tables creates the missing tables, a batch per schema and hundred, and
// compares the existing ones with the plan, updating those that differ.
func (im *importer) tables(ctx context.Context) error {
	bySchema := map[string][]*TablePlan{}
	for _, t := range im.plan.Tables {
		bySchema[t.Schema] = append(bySchema[t.Schema], t)
	}
	var check, create []*TablePlan
	for _, s := range sortedKeys(bySchema) {
		existing := map[string]bool{}
		if im.schemas[s] {
			names, err := im.c.ListTables(ctx, im.ns(s))
			if err != nil {
				return err
			}
			for _, n := range names {
				existing[n] = true
			}
		}
		for _, t := range bySchema[s] {
			if existing[t.Table.Name] {
				check = append(check, t)
			} else {
				create = append(create, t)
			}
		}
	}
	im.each(ctx, len(check), func(i int) { im.checkTable(ctx, check[i]) })
	// Batches: consecutive tables of one schema, up to batchSize each.
	var batches [][]*TablePlan
	for i := 0; i < len(create); {
		j := i
		for j < len(create) && create[j].Schema == create[i].Schema && j-i < batchSize {
			j++
		}
		batches = append(batches, create[i:j])
		i = j
	}
	im.each(ctx, len(batches), func(i int) { im.createTables(ctx, batches[i]) })
	return ctx.Err()
}

// batchSize is the most tables one batch create carries.
const batchSize = 100

func (im *importer) createTables(ctx context.Context, batch []*TablePlan) {
	for _, t := range batch {
		im.act("create", "table", t.Schema+"."+t.Table.Name, "")
	}
	if !im.opt.DryRun {
		items := make([]semcat.TableBatchItem, len(batch))
		for i, t := range batch {
			items[i] = semcat.TableBatchItem{TableCreate: t.Table, Tags: t.Tags}
		}
		if _, _, err := im.c.CreateTables(ctx, im.ns(batch[0].Schema), semcat.TableBatchCreate{Tables: items}); err != nil {
			// One bad table fails its batch: create them one by one to name it.
			for i, t := range batch {
				if _, _, err := im.c.CreateTables(ctx, im.ns(t.Schema), semcat.TableBatchCreate{Tables: items[i : i+1]}); err != nil {
					im.fail("table "+t.Schema+"."+t.Table.Name, err)
				}
			}
		}
	}
	for _, t := range batch {
		im.setOwner(ctx, semcat.KindTable, t.Schema+"."+t.Table.Name, t.Owner, false)
		im.step()
	}
}

// setOwner makes an object's dbt owner its semcat owner when that user
// exists and is not the owner already: for a new object (check false) at
// once, else after asking who owns it.
func (im *importer) setOwner(ctx context.Context, kind semcat.EntityKind, name, owner string, check bool) {
	if owner == "" || !im.users[owner] {
		return
	}
	obj := semcat.ObjectRef{Type: kind, FullName: im.plan.Catalog + "." + name}
	if check {
		if cur, err := im.c.GetOwner(ctx, im.opt.Metalake, obj); err == nil && cur != nil && cur.Name == owner {
			return
		}
	}
	im.act("update", "owner", name, owner)
	if im.opt.DryRun {
		return
	}
	if _, err := im.c.SetOwner(ctx, im.opt.Metalake, obj, semcat.Owner{Name: owner, Type: "USER"}); err != nil {
		im.fail(fmt.Sprintf("owner of %s %s", strings.ReplaceAll(string(kind), "_", " "), name), err)
	}
}

// checkTable compares an existing table with the plan and updates what
// differs: comment, dbt properties, columns, dbt tags and owner.
func (im *importer) checkTable(ctx context.Context, t *TablePlan) {
	defer im.step()
	name := t.Schema + "." + t.Table.Name
	cur, err := im.c.GetTable(ctx, im.ns(t.Schema), t.Table.Name)
	if err != nil {
		im.fail("table "+name, err)
		return
	}
	if cur.Properties[PropProject] != im.plan.Project {
		im.fail("table "+name, fmt.Errorf("exists and was not imported from dbt project %s; left as it is", im.plan.Project))
		return
	}
	updates, what := tableUpdates(cur, &t.Table)
	if len(updates) > 0 {
		im.act("update", "table", name, strings.Join(what, ", "))
		if !im.opt.DryRun {
			if _, _, err := im.c.AlterTable(ctx, im.ns(t.Schema), t.Table.Name, updates); err != nil {
				im.fail("table "+name, err)
				return
			}
		}
	}
	im.syncTags(ctx, t, strings.Split(cur.Properties[PropTags], ","))
	im.setOwner(ctx, semcat.KindTable, name, t.Owner, true)
	if len(updates) == 0 {
		im.mu.Lock()
		im.res.Unchanged++
		im.mu.Unlock()
	}
}

// syncTags attaches the dbt tags a table gained and detaches those dbt
// no longer gives it (tags attached by people stay).
func (im *importer) syncTags(ctx context.Context, t *TablePlan, old []string) {
	had := map[string]bool{}
	for _, o := range old {
		if o != "" {
			had[o] = true
		}
	}
	want := map[string]bool{}
	var add, remove []semcat.TagValue
	for _, n := range t.Tags {
		want[n] = true
		if !had[n] {
			add = append(add, semcat.TagValue{Name: n})
		}
	}
	for _, o := range sortedKeys(had) {
		if !want[o] {
			remove = append(remove, semcat.TagValue{Name: o})
		}
	}
	if len(add)+len(remove) == 0 {
		return
	}
	name := t.Schema + "." + t.Table.Name
	im.act("update", "tags", name, fmt.Sprintf("+%d -%d", len(add), len(remove)))
	if im.opt.DryRun {
		return
	}
	obj := semcat.ObjectRef{Type: semcat.KindTable, FullName: im.plan.Catalog + "." + name}
	if _, _, err := im.c.AssociateTags(ctx, im.opt.Metalake, obj, semcat.TagAssignments{Add: add, Remove: remove, Valued: true}); err != nil {
		im.fail("tags of table "+name, err)
	}
}

// tableUpdates are the changes that bring cur to want, and their names.
// Properties outside dbt's (set by people) are left alone.
func tableUpdates(cur *semcat.Table, want *semcat.TableCreate) (updates []semcat.Update, what []string) {
	if !sameString(cur.Comment, want.Comment) {
		updates = append(updates, semcat.Update{Type: semcat.UpdateComment, NewComment: semcat.OptionalString{Set: true, Value: want.Comment}})
		what = append(what, "comment")
	}
	props := propertyUpdates(cur.Properties, want.Properties)
	if len(props) > 0 {
		updates = append(updates, props...)
		what = append(what, "properties")
	}
	if !sameColumns(cur.Columns, want.Columns) {
		updates = append(updates, semcat.Update{Type: semcat.UpdateReplaceColumns, Columns: want.Columns})
		what = append(what, "columns")
	}
	return updates, what
}

// propertyUpdates sets the dbt properties that differ and removes the
// dbt properties no longer wanted.
func propertyUpdates(cur, want map[string]string) []semcat.Update {
	var out []semcat.Update
	for _, k := range sortedKeys(want) {
		if v, ok := cur[k]; !ok || v != want[k] {
			out = append(out, semcat.Update{Type: semcat.UpdateSetProperty, Property: ptr(k), Value: ptr(want[k])})
		}
	}
	for _, k := range sortedKeys(cur) {
		if _, ok := want[k]; !ok && strings.HasPrefix(k, propPrefix) {
			out = append(out, semcat.Update{Type: semcat.UpdateRemoveProperty, Property: ptr(k)})
		}
	}
	return out
}

func sameColumns(a, b []semcat.Column) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Name != b[i].Name || !sameString(a[i].Comment, b[i].Comment) || a[i].IsNullable() != b[i].IsNullable() {
			return false
		}
		ta, _ := json.Marshal(a[i].Type)
		tb, _ := json.Marshal(b[i].Type)
		if !bytes.Equal(ta, tb) {
			return false
		}
	}
	return true
}

func sameString(a, b *string) bool {
	return a == nil && b == nil || a != nil && b != nil && *a == *b
}

// ptr returns a pointer to v, for optional fields.
func ptr[T any](v T) *T { return &v }

// models creates the missing semantic models and replaces the definition,
// comment or properties of those that differ, at the version read, so the
// server keeps the identities of metrics whose names stay.
func (im *importer) models(ctx context.Context) error {
	existing := map[string]bool{}
	for _, s := range im.plan.Schemas {
		if !im.schemas[s] {
			continue
		}
		names, err := im.c.ListSemanticModels(ctx, im.ns(s))
		if err != nil {
			return err
		}
		for _, n := range names {
			existing[s+"."+n] = true
		}
	}
	models := im.plan.Models
	im.each(ctx, len(models), func(i int) {
		m := models[i]
		defer im.step()
		name := m.Schema + "." + m.Model.Name
		if !existing[name] {
			im.act("create", "semantic_model", name, fmt.Sprintf("%d metrics", len(m.Model.Definition.Metrics)))
			if !im.opt.DryRun {
				if _, _, err := im.c.CreateSemanticModel(ctx, im.ns(m.Schema), m.Model); err != nil {
					im.fail("semantic model "+name, err)
					return
				}
			}
			im.setOwner(ctx, semcat.KindSemanticModel, name, m.Owner, false)
			return
		}
		cur, err := im.c.GetSemanticModel(ctx, im.ns(m.Schema), m.Model.Name)
		if err != nil {
			im.fail("semantic model "+name, err)
			return
		}
		if cur.Properties[PropProject] != im.plan.Project {
			im.fail("semantic model "+name, fmt.Errorf("exists and was not imported from dbt project %s; left as it is", im.plan.Project))
			return
		}
		im.setOwner(ctx, semcat.KindSemanticModel, name, m.Owner, true)
		var updates []semcat.Update
		var what []string
		if !sameDefinition(&cur.Definition, m.Model.Definition) {
			updates = append(updates, semcat.Update{Type: semcat.UpdateReplaceDefinition, Definition: m.Model.Definition})
			what = append(what, "definition")
		}
		if !sameString(cur.Comment, m.Model.Comment) {
			updates = append(updates, semcat.Update{Type: semcat.UpdateComment, NewComment: semcat.OptionalString{Set: true, Value: m.Model.Comment}})
			what = append(what, "comment")
		}
		if props := propertyUpdates(cur.Properties, m.Model.Properties); len(props) > 0 {
			updates = append(updates, props...)
			what = append(what, "properties")
		}
		if len(updates) == 0 {
			im.mu.Lock()
			im.res.Unchanged++
			im.mu.Unlock()
			return
		}
		im.act("update", "semantic_model", name, strings.Join(what, ", "))
		if !im.opt.DryRun {
			if _, _, err := im.c.AlterSemanticModel(ctx, im.ns(m.Schema), m.Model.Name, updates, cur.Version); err != nil {
				im.fail("semantic model "+name, err)
			}
		}
	})
	return ctx.Err()
}

// sameDefinition compares definitions in their wire form, after a round
// trip that puts want in the form the server answers with.
func sameDefinition(cur, want *semcat.Definition) bool {
	a, err1 := json.Marshal(cur)
	b, err2 := json.Marshal(want)
	if err1 != nil || err2 != nil {
		return false
	}
	var w semcat.Definition
	if json.Unmarshal(b, &w) != nil {
		return false
	}
	b, _ = json.Marshal(&w)
	return bytes.Equal(a, b)
}

// prune drops the semantic models, then the tables, that carry this
// project's mark and that the plan no longer has. Objects of other
// projects, and those without the mark, are never touched.
func (im *importer) prune(ctx context.Context) error {
	if im.created("catalog", im.plan.Catalog) {
		return nil
	}
	wantTables, wantModels := map[string]bool{}, map[string]bool{}
	for _, t := range im.plan.Tables {
		wantTables[t.Schema+"."+t.Table.Name] = true
	}
	for _, m := range im.plan.Models {
		wantModels[m.Schema+"."+m.Model.Name] = true
	}
	schemas := sortedKeys(im.schemas)
	type obj struct{ schema, name string }
	var models, tables []obj
	listed := map[string]int{} // objects per schema
	for _, s := range schemas {
		ms, err := im.c.ListSemanticModels(ctx, im.ns(s))
		if err != nil {
			return err
		}
		listed[s] += len(ms)
		for _, n := range ms {
			if !wantModels[s+"."+n] {
				models = append(models, obj{s, n})
			}
		}
		ts, err := im.c.ListTables(ctx, im.ns(s))
		if err != nil {
			return err
		}
		listed[s] += len(ts)
		for _, n := range ts {
			if !wantTables[s+"."+n] {
				tables = append(tables, obj{s, n})
			}
		}
	}
	im.total.Add(int64(len(models) + len(tables)))
	var mu sync.Mutex
	dropped := map[string]int{}
	drop := func(schema string) {
		mu.Lock()
		dropped[schema]++
		mu.Unlock()
	}
	im.each(ctx, len(models), func(i int) {
		o := models[i]
		defer im.step()
		cur, err := im.c.GetSemanticModel(ctx, im.ns(o.schema), o.name)
		if err != nil || cur.Properties[PropProject] != im.plan.Project {
			return
		}
		drop(o.schema)
		im.act("delete", "semantic_model", o.schema+"."+o.name, "")
		if !im.opt.DryRun {
			if _, _, err := im.c.DropSemanticModel(ctx, im.ns(o.schema), o.name, cur.Version); err != nil {
				im.fail("semantic model "+o.schema+"."+o.name, err)
			}
		}
	})
	im.each(ctx, len(tables), func(i int) {
		o := tables[i]
		defer im.step()
		cur, err := im.c.GetTable(ctx, im.ns(o.schema), o.name)
		if err != nil || cur.Properties[PropProject] != im.plan.Project {
			return
		}
		drop(o.schema)
		im.act("delete", "table", o.schema+"."+o.name, "")
		if !im.opt.DryRun {
			if _, _, err := im.c.DropTable(ctx, im.ns(o.schema), o.name); err != nil {
				im.fail("table "+o.schema+"."+o.name, err)
			}
		}
	})
	// A schema this project created that the plan no longer uses goes too,
	// once nothing is left in it.
	wantSchemas := map[string]bool{}
	for _, sc := range im.plan.Schemas {
		wantSchemas[sc] = true
	}
	for _, sc := range schemas {
		if wantSchemas[sc] || listed[sc] != dropped[sc] || ctx.Err() != nil {
			continue
		}
		cur, err := im.c.GetSchema(ctx, semcat.Namespace{Metalake: im.opt.Metalake, Catalog: im.plan.Catalog}, sc)
		if err != nil || cur.Properties[PropProject] != im.plan.Project {
			continue
		}
		im.act("delete", "schema", sc, "")
		if !im.opt.DryRun {
			if _, _, err := im.c.DropSchema(ctx, semcat.Namespace{Metalake: im.opt.Metalake, Catalog: im.plan.Catalog}, sc, false); err != nil {
				im.fail("schema "+sc, err)
			}
		}
	}
	return ctx.Err()
}

// kindOrder is the order actions are listed in: parents first.
var kindOrder = map[string]int{"catalog": 0, "schema": 1, "tag": 2, "table": 3, "tags": 4, "owner": 5, "semantic_model": 6}

// sortActions orders actions for reading (workers finish in any order):
// by kind, parents first, then name and change.
func sortActions(as []Action) {
	sort.SliceStable(as, func(i, j int) bool {
		if ki, kj := kindOrder[as[i].Kind], kindOrder[as[j].Kind]; ki != kj {
			return ki < kj
		}
		if as[i].Name != as[j].Name {
			return as[i].Name < as[j].Name
		}
		return as[i].Op < as[j].Op
	})
}
