package authz_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
	"github.com/semcat/semcat/internal/authz"
)

func TestMain(m *testing.M) {
	pgtest.SetTemplateSetup(catalogdb.MigrateURL)
	pgtest.Main(m)
}

// syncBuffer is a log sink safe for concurrent writes.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

type fixture struct {
	t     *testing.T
	store *catalogdb.Store
	svc   *authz.Service
	log   *syncBuffer
}

func as(u string) context.Context { return semcat.NewContextWithUser(context.Background(), u) }

var salesNS = semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "sales"}

// newFixture: admin creates metalake m (and so owns it), catalog rel,
// schema sales, table orders, models visible_model, secret_model and
// other_model (two metrics each); users alice, bob, carol, dave exist.
func newFixture(t *testing.T) *fixture {
	t.Helper()
	s, err := catalogdb.Open(context.Background(), pgtest.NewDatabase(t), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	log := &syncBuffer{}
	f := &fixture{t: t, store: s, log: log,
		svc: authz.New(s, s, []string{"admin"}, slog.New(slog.NewTextHandler(log, nil)))}
	admin := as("admin")
	f.ok(f.svc.CreateMetalake(admin, semcat.MetalakeCreate{Name: "m"}))
	f.ok(f.svc.CreateCatalog(admin, "m", semcat.CatalogCreate{Name: "rel", Type: semcat.CatalogRelational}))
	f.ok(f.svc.CreateSchema(admin, semcat.Namespace{Metalake: "m", Catalog: "rel"}, semcat.SchemaCreate{Name: "sales"}))
	f.ok(f.svc.CreateTable(admin, salesNS, semcat.TableCreate{Name: "orders", Columns: []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}}))
	for _, m := range []string{"visible_model", "secret_model", "other_model"} {
		f.ok(f.svc.CreateSemanticModel(admin, salesNS, semcat.SemanticModelCreate{Name: m, Definition: definition(m+"_a", m+"_b")}))
	}
	for _, u := range []string{"alice", "bob", "carol", "dave"} {
		f.ok(f.svc.CreateUser(admin, "m", semcat.UserCreate{Name: u}))
	}
	return f
}

func definition(metrics ...string) *semcat.Definition {
	d := &semcat.Definition{Datasets: []semcat.Dataset{{Name: "orders", Source: &semcat.Source{Namespace: []string{"rel", "sales"}, Name: "orders"}}}}
	for _, m := range metrics {
		d.Metrics = append(d.Metrics, semcat.Metric{Name: m, Expression: &semcat.Expression{Dialects: []semcat.DialectExpression{{Dialect: "ANSI_SQL", Expression: "1"}}}})
	}
	return d
}

func (f *fixture) ok(_ any, _ semcat.Position, err error) {
	f.t.Helper()
	if err != nil {
		f.t.Fatal(err)
	}
}

// role creates a role with the given grants and grants it to user.
func (f *fixture) role(user, name string, objects ...semcat.SecurableObject) {
	f.t.Helper()
	f.ok(f.svc.CreateRole(as("admin"), "m", semcat.RoleCreate{Name: name, SecurableObjects: objects}))
	f.ok(f.svc.GrantRoles(as("admin"), "m", user, []string{name}))
}

func on(typ, fullName string, cond semcat.Condition, ps ...semcat.Privilege) semcat.SecurableObject {
	o := semcat.SecurableObject{FullName: fullName, Type: semcat.ObjectType(typ)}
	for _, p := range ps {
		o.Privileges = append(o.Privileges, semcat.PrivilegeGrant{Name: p, Condition: cond})
	}
	return o
}

func (f *fixture) metrics(user string) ([]string, error) {
	ms, err := f.svc.ListSchemaMetrics(as(user), salesNS, false)
	var out []string
	for _, m := range ms {
		out = append(out, m.Model+"."+m.Name)
	}
	return out, err
}

func TestDiscoveryAuthorization(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	useSchema := on("METALAKE", "m", semcat.Allow, semcat.UseCatalog, semcat.UseSchema)
	// alice: SELECT on the metalake, DENY on secret_model.
	f.role("alice", "analyst", useSchema, on("METALAKE", "m", semcat.Allow, semcat.SelectSemanticModel),
		on("SEMANTIC_MODEL", "rel.sales.secret_model", semcat.Deny, semcat.SelectSemanticModel))
	// bob: may create models, nothing else.
	f.role("bob", "builder", useSchema, on("SCHEMA", "rel.sales", semcat.Allow, semcat.CreateSemanticModel))
	// carol: owns the schema.
	f.ok(nil, semcat.Position{}, func() error {
		_, err := f.svc.SetOwner(as("admin"), "m", semcat.ObjectRef{Type: semcat.KindSchema, FullName: "rel.sales"}, semcat.Owner{Name: "carol", Type: "USER"})
		return err
	}())
	// dave: SELECT on models, but no schema access.
	f.role("dave", "reader", on("METALAKE", "m", semcat.Allow, semcat.SelectSemanticModel))

	all := []string{"other_model.other_model_a", "other_model.other_model_b", "secret_model.secret_model_a", "secret_model.secret_model_b",
		"visible_model.visible_model_a", "visible_model.visible_model_b"}
	tests := []struct {
		user      string
		want      []string
		forbidden bool
	}{
		{"admin", all, false}, // owner of the metalake
		{"carol", all, false}, // owner of the schema
		{"alice", []string{"other_model.other_model_a", "other_model.other_model_b", "visible_model.visible_model_a", "visible_model.visible_model_b"}, false},
		{"bob", nil, false},     // CREATE only: sees no model and no metric
		{"dave", nil, true},     // no schema access: 403
		{"stranger", nil, true}, // not a member: the metalake does not exist
	}
	for _, tt := range tests {
		got, err := f.metrics(tt.user)
		if tt.forbidden {
			want := semcat.EFORBIDDEN
			if tt.user == "stranger" {
				want = semcat.ENOTFOUND // SPEC §6 revision 3
			}
			if semcat.ErrorCode(err) != want {
				t.Errorf("%s: %v %v, want %s", tt.user, got, err, want)
			}
			// Without schema access, loading any model is the same error.
			_, hidden := f.svc.GetSemanticModel(as(tt.user), salesNS, "visible_model")
			_, missing := f.svc.GetSemanticModel(as(tt.user), salesNS, "no_such_model")
			if semcat.ErrorCode(hidden) != want || semcat.ErrorCode(missing) != want || semcat.ErrorMessage(hidden) != semcat.ErrorMessage(missing) {
				t.Errorf("%s: load of an existing model %v, of a missing one %v; want both %s", tt.user, hidden, missing, want)
			}
			if _, missingML := f.svc.GetSemanticModel(as(tt.user), semcat.Namespace{Metalake: "nosuch", Catalog: salesNS.Catalog, Schema: salesNS.Schema}, "visible_model"); tt.user == "stranger" &&
				strings.Replace(semcat.ErrorMessage(missingML), "nosuch", "m", 1) != semcat.ErrorMessage(hidden) {
				t.Errorf("stranger: %v under its metalake, %v under a missing one; want the same", hidden, missingML)
			}
			continue
		}
		if err != nil || strings.Join(got, ",") != strings.Join(tt.want, ",") {
			t.Errorf("%s: got %v (%v)\nwant %v", tt.user, got, err, tt.want)
		}
		// The model listing and loading agree with discovery.
		models, err := f.svc.ListSemanticModels(as(tt.user), salesNS)
		if err != nil {
			t.Errorf("%s: list models: %v", tt.user, err)
		}
		seen := map[string]bool{}
		for _, m := range tt.want {
			seen[strings.Split(m, ".")[0]] = true
		}
		if len(models) != len(seen) {
			t.Errorf("%s: list models %v, want %d", tt.user, models, len(seen))
		}
		// A model the user may not see loads as a missing one does (SPEC
		// §6, no existence oracles).
		_, missing := f.svc.GetSemanticModel(as(tt.user), salesNS, "no_such_model")
		for _, m := range []string{"visible_model", "secret_model", "other_model"} {
			_, err := f.svc.GetSemanticModel(as(tt.user), salesNS, m)
			if seen[m] != (err == nil) {
				t.Errorf("%s: load %s: %v, visible=%v", tt.user, m, err, seen[m])
			}
			if want := semcat.NoSuchSemanticModel(salesNS, m); err != nil && (semcat.ErrorCode(err) != semcat.ENOTFOUND || err.Error() != want.Error()) {
				t.Errorf("%s: load %s: %v, want %v", tt.user, m, err, want)
			}
			if err != nil && semcat.ErrorCode(err) != semcat.ErrorCode(missing) {
				t.Errorf("%s: load %s: %v, but a missing model: %v", tt.user, m, err, missing)
			}
		}
	}
	// The details listing filters alike.
	ms, err := f.svc.ListSchemaMetrics(as("alice"), salesNS, true)
	if err != nil || len(ms) != 4 || ms[0].Definition == nil {
		t.Errorf("alice details: %d metrics, %v", len(ms), err)
	}
}

// TestVisibilityErrorExcludesOneModel corrupts a grant on one model: that
// model is left out (and logged); the others are still listed.
func TestVisibilityErrorExcludesOneModel(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.role("alice", "analyst", on("METALAKE", "m", semcat.Allow, semcat.UseCatalog, semcat.UseSchema, semcat.SelectSemanticModel),
		on("SEMANTIC_MODEL", "rel.sales.secret_model", semcat.Allow, semcat.SelectSemanticModel))
	_, err := f.store.Pool().Exec(context.Background(), `UPDATE role_privilege SET privilege = 'SELECT_EVERYTHING'
		WHERE object_type = 'semantic_model'`)
	if err != nil {
		t.Fatal(err)
	}
	got, err := f.metrics("alice")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(got, ",") != "other_model.other_model_a,other_model.other_model_b,visible_model.visible_model_a,visible_model.visible_model_b" {
		t.Errorf("got %v", got)
	}
	if !strings.Contains(f.log.String(), "secret_model") {
		t.Errorf("the excluded model was not logged:\n%s", f.log.String())
	}
}

func TestOwnersAndCreators(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	// bob may create models in the schema, becomes the owner of his model,
	// and may then see, alter and drop it, but not the others.
	f.role("bob", "builder", on("METALAKE", "m", semcat.Allow, semcat.UseCatalog, semcat.UseSchema),
		on("SCHEMA", "rel.sales", semcat.Allow, semcat.CreateSemanticModel))
	bob := as("bob")
	// bob may not see the table orders: as a source it is a missing table,
	// whose columns are not checked (SPEC §6).
	hidden := definition("x")
	hidden.Datasets[0].PrimaryKey = []string{"no_such_column"}
	_, _, err := f.svc.CreateSemanticModel(bob, salesNS, semcat.SemanticModelCreate{Name: "bobs", Definition: hidden})
	if want := semcat.NoSuchSource(0, hidden.Datasets[0].Source); semcat.ErrorCode(err) != semcat.EINVALID || semcat.ErrorMessage(err) != semcat.ErrorMessage(want) {
		t.Errorf("a hidden source: %v, want %v", err, want)
	}
	missing := definition("x")
	missing.Datasets[0].Source.Name = "nope"
	_, _, err = f.svc.CreateSemanticModel(bob, salesNS, semcat.SemanticModelCreate{Name: "bobs", Definition: missing})
	if want := semcat.NoSuchSource(0, missing.Datasets[0].Source); semcat.ErrorMessage(err) != semcat.ErrorMessage(want) {
		t.Errorf("a missing source: %v, want %v", err, want)
	}
	if _, err := f.svc.GetTable(bob, salesNS, "orders"); err == nil || err.Error() != semcat.NoSuchTable(salesNS, "orders").Error() {
		t.Errorf("bob sees a table without SELECT_TABLE: %v, want it missing", err)
	}
	f.role("bob", "orders_reader", on("TABLE", "rel.sales.orders", semcat.Allow, semcat.SelectTable))
	f.ok(f.svc.CreateSemanticModel(bob, salesNS, semcat.SemanticModelCreate{Name: "bobs", Definition: definition("x")}))
	if got, _ := f.metrics("bob"); strings.Join(got, ",") != "bobs.x" {
		t.Errorf("bob sees %v, want his own model's metric", got)
	}
	if _, _, err := f.svc.AlterSemanticModel(bob, salesNS, "bobs", []semcat.Update{{Type: semcat.UpdateComment, NewComment: semcat.OptionalString{Set: true}}}, 0); err != nil {
		t.Errorf("owner alter: %v", err)
	}
	// Another's model he may not see is, to alter or drop, a missing one.
	if _, _, err := f.svc.AlterSemanticModel(bob, salesNS, "visible_model", []semcat.Update{{Type: semcat.UpdateComment, NewComment: semcat.OptionalString{Set: true}}}, 0); semcat.ErrorCode(err) != semcat.ENOTFOUND {
		t.Errorf("alter of another's model: %v", err)
	}
	if dropped, _, err := f.svc.DropSemanticModel(bob, salesNS, "visible_model", 0); dropped || err != nil {
		t.Errorf("drop of another's model: %v %v, want the answer for a missing one: not dropped", dropped, err)
	}
	if _, err := f.svc.GetSemanticModel(as("admin"), salesNS, "visible_model"); err != nil {
		t.Errorf("after bob's drop: %v", err)
	}
	if dropped, _, err := f.svc.DropSemanticModel(bob, salesNS, "bobs", 0); err != nil || !dropped {
		t.Errorf("owner drop: %v %v", dropped, err)
	}
	// Non-admins may not create metalakes; tables follow the table rules.
	if _, _, err := f.svc.CreateMetalake(bob, semcat.MetalakeCreate{Name: "n"}); semcat.ErrorCode(err) != semcat.EFORBIDDEN {
		t.Errorf("bob created a metalake: %v", err)
	}
	if tables, err := f.svc.ListTables(bob, salesNS); err != nil || strings.Join(tables, ",") != "orders" {
		t.Errorf("bob lists tables %v %v, want the one he may select", tables, err)
	}
}

// TestBatchCreateTables: a batch needs CREATE_TABLE as a single create
// does; its creator owns the new tables and so may see and tag them.
func TestBatchCreateTables(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.ok(f.svc.CreateTag(as("admin"), "m", semcat.TagCreate{Name: "pii"}))
	batch := semcat.TableBatchCreate{Tables: []semcat.TableBatchItem{
		{TableCreate: semcat.TableCreate{Name: "a", Columns: []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}}, Tags: []string{"pii"}},
		{TableCreate: semcat.TableCreate{Name: "b", Columns: []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}}},
	}}
	f.role("carol", "reader", on("METALAKE", "m", semcat.Allow, semcat.UseCatalog, semcat.UseSchema))
	if _, _, err := f.svc.CreateTables(as("carol"), salesNS, batch); semcat.ErrorCode(err) != semcat.EFORBIDDEN {
		t.Errorf("carol, without CREATE_TABLE: %v, want EFORBIDDEN", err)
	}
	if names, err := f.store.ListTables(as("admin"), salesNS); err != nil || strings.Join(names, ",") != "orders" {
		t.Errorf("tables after the denied batch: %v %v", names, err)
	}
	f.role("bob", "builder", on("METALAKE", "m", semcat.Allow, semcat.UseCatalog, semcat.UseSchema),
		on("SCHEMA", "rel.sales", semcat.Allow, semcat.CreateTable))
	bob := as("bob")
	f.ok(f.svc.CreateTables(bob, salesNS, batch))
	if names, err := f.svc.ListTables(bob, salesNS); err != nil || strings.Join(names, ",") != "a,b" {
		t.Errorf("bob lists %v %v, want his two tables", names, err)
	}
	if tags, err := f.svc.ListObjectTags(bob, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.a"}); err != nil || strings.Join(tags, ",") != "pii" {
		t.Errorf("tags of a: %v %v", tags, err)
	}
}

// TestNoExistenceOracles: to a caller who may see the schema but not an
// object in it, every read of the object answers as for a missing object
// of that name; an owner who lost schema access may neither read nor
// change what they own (SPEC §6).
func TestNoExistenceOracles(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	f.role("alice", "analyst", on("METALAKE", "m", semcat.Allow, semcat.UseCatalog, semcat.UseSchema, semcat.SelectTable, semcat.SelectSemanticModel),
		on("TABLE", "rel.sales.orders", semcat.Deny, semcat.SelectTable),
		on("SEMANTIC_MODEL", "rel.sales.secret_model", semcat.Deny, semcat.SelectSemanticModel))
	alice := as("alice")
	// same reports whether two errors are one answer but for the object's
	// name.
	same := func(hidden, missing error, name, ghost string) bool {
		return hidden != nil && semcat.ErrorCode(hidden) == semcat.ErrorCode(missing) &&
			strings.ReplaceAll(semcat.ErrorMessage(missing), ghost, name) == semcat.ErrorMessage(hidden)
	}
	for _, o := range []struct {
		kind        semcat.EntityKind
		name, ghost string
		load        func(name string) error
	}{
		{semcat.KindTable, "orders", "ghost", func(n string) error { _, err := f.svc.GetTable(alice, salesNS, n); return err }},
		{semcat.KindSemanticModel, "secret_model", "ghost", func(n string) error { _, err := f.svc.GetSemanticModel(alice, salesNS, n); return err }},
	} {
		ref := func(n string) semcat.ObjectRef { return semcat.ObjectRef{Type: o.kind, FullName: "rel.sales." + n} }
		reads := map[string]func(string) error{
			"load":     o.load,
			"tags":     func(n string) error { _, err := f.svc.ListObjectTags(alice, "m", ref(n)); return err },
			"metadata": func(n string) error { _, err := f.svc.ObjectMetadata(alice, "m", ref(n)); return err },
			"owner":    func(n string) error { _, err := f.svc.GetOwner(alice, "m", ref(n)); return err },
			"tag it": func(n string) error {
				_, _, err := f.svc.AssociateTags(alice, "m", ref(n), semcat.TagAssociation{TagsToAdd: []string{"x"}}.Assignments())
				return err
			},
		}
		for what, read := range reads {
			hidden, missing := read(o.name), read(o.ghost)
			if semcat.ErrorCode(missing) != semcat.ENOTFOUND || !same(hidden, missing, o.name, o.ghost) {
				t.Errorf("%s %s: hidden %v, missing %v; want the same not-found", what, o.kind, hidden, missing)
			}
		}
	}

	// dave creates a table, owns it, then loses schema access.
	f.role("dave", "builder", on("METALAKE", "m", semcat.Allow, semcat.UseCatalog, semcat.UseSchema),
		on("SCHEMA", "rel.sales", semcat.Allow, semcat.CreateTable))
	dave := as("dave")
	f.ok(f.svc.CreateTable(dave, salesNS, semcat.TableCreate{Name: "daves", Columns: []semcat.Column{{Name: "id", Type: &semcat.Type{Name: "long"}}}}))
	f.role("dave", "shut_out", on("SCHEMA", "rel.sales", semcat.Deny, semcat.UseSchema))
	if _, err := f.svc.GetTable(dave, salesNS, "daves"); semcat.ErrorCode(err) != semcat.EFORBIDDEN {
		t.Errorf("load by an owner without schema access: %v, want EFORBIDDEN", err)
	}
	mine := "mine"
	comment := []semcat.Update{{Type: semcat.UpdateComment, NewComment: semcat.OptionalString{Set: true, Value: &mine}}}
	if tb, _, err := f.svc.AlterTable(dave, salesNS, "daves", comment); semcat.ErrorCode(err) != semcat.EFORBIDDEN || tb != nil {
		t.Errorf("a no-op alter by an owner without schema access: %v %v, want EFORBIDDEN and no table", tb, err)
	}
	if tb, err := f.svc.GetTable(as("admin"), salesNS, "daves"); err != nil || tb.Comment != nil && *tb.Comment == mine {
		t.Errorf("the refused alter changed the table: %+v %v", tb, err)
	}
}
