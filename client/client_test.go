package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/google/go-cmp/cmp"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/api/apitest"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
	"github.com/semcat/semcat/client"
	"github.com/semcat/semcat/internal/demo"
)

func TestMain(m *testing.M) {
	pgtest.SetTemplateSetup(catalogdb.MigrateURL)
	pgtest.Main(m)
}

// routeMethods names the client method of every route of api.Routes. A new
// route fails TestEveryRouteHasAMethod until it has a method listed here;
// "" marks the Gravitino calls semcat only refuses (405), which a client
// of semcat has no use for.
var routeMethods = map[string]string{
	"listPartitions": "",
	"addPartitions":  "",
	"loadPartition":  "",
	"dropPartition":  "",

	"healthz":              "Health",
	"readyz":               "Ready",
	"getOpenAPI":           "OpenAPI",
	"getVersion":           "Version",
	"setMetalakeInUse":     "SetMetalakeInUse",
	"setCatalogInUse":      "SetCatalogInUse",
	"listUsers":            "ListUsers",
	"removeUser":           "DeleteUser",
	"createGroup":          "CreateGroup",
	"listGroups":           "ListGroups",
	"loadGroup":            "GetGroup",
	"removeGroup":          "DeleteGroup",
	"listRoles":            "ListRoles",
	"deleteRole":           "DeleteRole",
	"grantRolesToGroup":    "GrantRolesToGroup",
	"revokeRolesFromGroup": "RevokeRolesFromGroup",
	"grantPrivileges":      "GrantPrivileges",
	"revokePrivileges":     "RevokePrivileges",
	"listObjectRoles":      "ObjectRoles",
	"listStatistics":       "ListTableStatistics",
	"suggest":              "Suggest",
	"updateStatistics":     "UpdateTableStatistics",
	"dropStatistics":       "DropTableStatistics",
	"alterTag":             "AlterTag",
	"listTagObjects":       "TagObjects",
	"loadObjectTag":        "GetObjectTag",
	"reindex":              "Reindex",

	"getReindexProgress": "ReindexProgress",

	"createMetalake": "CreateMetalake",
	"listMetalakes":  "ListMetalakes",
	"loadMetalake":   "GetMetalake",
	"alterMetalake":  "AlterMetalake",
	"dropMetalake":   "DropMetalake",

	"createCatalog": "CreateCatalog",
	"listCatalogs":  "ListCatalogs",
	"loadCatalog":   "GetCatalog",
	"alterCatalog":  "AlterCatalog",
	"dropCatalog":   "DropCatalog",

	"createSchema": "CreateSchema",
	"listSchemas":  "ListSchemas",
	"loadSchema":   "GetSchema",
	"alterSchema":  "AlterSchema",
	"dropSchema":   "DropSchema",

	"createTable":  "CreateTable",
	"createTables": "CreateTables",
	"listTables":   "ListTables",
	"loadTable":    "GetTable",
	"alterTable":   "AlterTable",
	"dropTable":    "DropTable",

	"createSemanticModel":      "CreateSemanticModel",
	"listSemanticModels":       "ListSemanticModels",
	"loadSemanticModel":        "GetSemanticModel",
	"alterSemanticModel":       "AlterSemanticModel",
	"dropSemanticModel":        "DropSemanticModel",
	"listSemanticModelMetrics": "ListSchemaMetrics",
	"testConnection":           "TestConnection",
	"refreshCatalog":           "RefreshCatalog",
	"getSynonyms":              "GetSynonyms",
	"setSynonyms":              "SetSynonyms",
	"testCatalogConnection":    "TestCatalogConnection",

	"search":            "Search",
	"getObjectMetadata": "ObjectMetadata",

	"createTag":      "CreateTag",
	"listTags":       "ListTags",
	"loadTag":        "GetTag",
	"dropTag":        "DropTag",
	"listObjectTags": "ListObjectTags",
	"associateTags":  "AssociateTags",

	"createUser":          "CreateUser",
	"loadUser":            "GetUser",
	"createRole":          "CreateRole",
	"loadRole":            "GetRole",
	"grantRoles":          "GrantRoles",
	"revokeRoles":         "RevokeRoles",
	"setOwner":            "SetOwner",
	"getOwner":            "GetOwner",
	"getObjectPrivileges": "ObjectPrivileges",

	"createPolicy":       "CreatePolicy",
	"listPolicies":       "ListPolicies",
	"loadPolicy":         "GetPolicy",
	"alterPolicy":        "AlterPolicy",
	"setPolicy":          "SetPolicyEnabled",
	"dropPolicy":         "DropPolicy",
	"listPolicyObjects":  "PolicyObjects",
	"listObjectPolicies": "ListObjectPolicies",
	"associatePolicies":  "AssociatePolicies",
	"loadObjectPolicy":   "GetObjectPolicy",
}

func TestEveryRouteHasAMethod(t *testing.T) {
	typ := reflect.TypeFor[*client.Client]()
	routes := map[string]bool{}
	for _, rt := range api.Routes() {
		routes[rt.Name] = true
		name, ok := routeMethods[rt.Name]
		if !ok {
			t.Errorf("route %s %s (%s) has no client method: add one and list it in routeMethods", rt.Method, rt.Path, rt.Name)
			continue
		}
		if name == "" {
			continue
		}
		m, ok := typ.MethodByName(name)
		if !ok {
			t.Errorf("route %s: client.Client has no method %s", rt.Name, name)
			continue
		}
		if m.Type.NumIn() < 2 || m.Type.In(1) != reflect.TypeFor[context.Context]() {
			t.Errorf("client.Client.%s does not take a context.Context first", name)
		}
	}
	for name := range routeMethods {
		if !routes[name] {
			t.Errorf("routeMethods lists %q, which is not a route of api.Routes", name)
		}
	}
}

// server is the whole API as cmd/semcat wires it, over a fresh database:
// the store behind the authorization rules, search over a Bleve index that
// follows the outbox, simple authentication, and reindex for the service
// admin "admin".
type server struct {
	url   string
	admin *client.Client
}

func newServer(t *testing.T) *server {
	t.Helper()
	c := apitest.NewStackServer(t, pgtest.NewDatabase(t), api.Config{Version: "1.2.3"})
	return &server{url: c.URL, admin: newClient(t, c.URL, client.WithUser("admin"))}
}

// as returns a client that acts as user.
func (s *server) as(t *testing.T, user string) *client.Client {
	return newClient(t, s.url, client.WithUser(user))
}

func newClient(t *testing.T, url string, opts ...client.Option) *client.Client {
	t.Helper()
	c, err := client.New(url, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// answer is what a client call returned, so that a test checks it in one
// expression: read(c.GetTable(...)).must(t), wrote(c.CreateTable(...)).must(t).
type answer[T any] struct {
	v     T
	pos   semcat.Position
	err   error
	write bool
}

func read[T any](v T, err error) answer[T] { return answer[T]{v: v, err: err} }

func wrote[T any](v T, pos semcat.Position, err error) answer[T] {
	return answer[T]{v: v, pos: pos, err: err, write: true}
}

// wrote1 is wrote for a write that returns only its position.
func wrote1(pos semcat.Position, err error) answer[struct{}] {
	return answer[struct{}]{pos: pos, err: err, write: true}
}

// must fails the test on an error, or on a write without a position, and
// returns the value.
func (a answer[T]) must(t *testing.T) T {
	t.Helper()
	if a.err != nil {
		t.Fatal(a.err)
	}
	if a.write && a.pos.IsZero() {
		t.Fatalf("a write returned no position (result %v)", a.v)
	}
	return a.v
}

// wantCode fails the test unless err is a *semcat.Error of code, found both
// by semcat.ErrorCode and by errors.Is with the matching sentinel.
func wantCode(t *testing.T, what string, err error, code string, sentinel error) {
	t.Helper()
	if got := semcat.ErrorCode(err); got != code {
		t.Errorf("%s: error %v has code %q, want %q", what, err, got, code)
	}
	if !errors.Is(err, sentinel) {
		t.Errorf("%s: errors.Is(%v, %v) is false", what, err, sentinel)
	}
}

func str(s string) *string { return &s }

func expr(sql string) *semcat.Expression {
	return &semcat.Expression{Dialects: []semcat.DialectExpression{{Dialect: "ANSI_SQL", Expression: sql}}}
}

func column(name, typ string) semcat.Column {
	return semcat.Column{Name: name, Type: &semcat.Type{Name: typ}}
}

var (
	rel   = semcat.Namespace{Metalake: "m", Catalog: "rel"}
	sales = semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "sales"}
)

// seed creates metalake m with the relational catalog rel, schema sales,
// tables orders and customers and the model shop with two metrics.
func seed(t *testing.T, c *client.Client) semcat.Position {
	t.Helper()
	ctx := t.Context()
	wrote(c.CreateMetalake(ctx, semcat.MetalakeCreate{Name: "m"})).must(t)
	wrote(c.CreateCatalog(ctx, "m", semcat.CatalogCreate{Name: "rel", Type: semcat.CatalogRelational})).must(t)
	wrote(c.CreateSchema(ctx, rel, semcat.SchemaCreate{Name: "sales"})).must(t)
	wrote(c.CreateTable(ctx, sales, semcat.TableCreate{Name: "orders", Columns: []semcat.Column{column("id", "long"), column("amount", "decimal(10,2)")}})).must(t)
	wrote(c.CreateTable(ctx, sales, semcat.TableCreate{Name: "customers", Columns: []semcat.Column{column("id", "long")}})).must(t)
	_, pos, err := c.CreateSemanticModel(ctx, sales, shopModel("shop"))
	if err != nil {
		t.Fatal(err)
	}
	return pos
}

func shopModel(name string) semcat.SemanticModelCreate {
	return semcat.SemanticModelCreate{Name: name, Definition: &semcat.Definition{
		Datasets: []semcat.Dataset{{Name: "orders", Source: &semcat.Source{Namespace: []string{"rel", "sales"}, Name: "orders"}, PrimaryKey: []string{"id"}}},
		Metrics: []semcat.Metric{
			{Name: "revenue", Expression: expr("SUM(amount) FILTER (WHERE amount < 1000 AND id <> 0)")},
			{Name: "order_count", Expression: expr("COUNT(*)")},
		},
	}}
}

func TestMetalakesCatalogsSchemas(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()

	ml := wrote(c.CreateMetalake(ctx, semcat.MetalakeCreate{Name: "m", Comment: str("first"), Properties: map[string]string{"k": "v"}})).must(t)
	if ml.Name != "m" || *ml.Comment != "first" || ml.Properties["k"] != "v" || ml.Audit.Creator != "admin" {
		t.Errorf("created metalake: %+v", ml)
	}
	if got := read(c.GetMetalake(ctx, "m")).must(t); got.Name != "m" || got.Properties["k"] != "v" {
		t.Errorf("GetMetalake: %+v", got)
	}
	ml = wrote(c.AlterMetalake(ctx, "m", []semcat.Update{{Type: semcat.UpdateSetProperty, Property: str("k"), Value: str("w")}})).must(t)
	if ml.Properties["k"] != "w" {
		t.Errorf("AlterMetalake: %+v", ml)
	}
	if got := read(c.ListMetalakes(ctx)).must(t); len(got) != 1 || got[0].Name != "m" {
		t.Errorf("ListMetalakes: %+v", got)
	}

	for _, name := range []string{"rel", "files"} {
		typ := semcat.CatalogRelational
		if name == "files" {
			typ = semcat.CatalogFileset
		}
		wrote(c.CreateCatalog(ctx, "m", semcat.CatalogCreate{Name: name, Type: typ})).must(t)
	}
	if got := read(c.GetCatalog(ctx, "m", "files")).must(t); got.Type != semcat.CatalogFileset {
		t.Errorf("GetCatalog: %+v", got)
	}
	cats := read(c.ListCatalogs(ctx, "m")).must(t)
	if len(cats) != 2 || cats[0].Name != "files" || cats[1].Name != "rel" || cats[1].Type != semcat.CatalogRelational {
		t.Errorf("ListCatalogs: %+v", cats)
	}
	cat := wrote(c.AlterCatalog(ctx, "m", "files", []semcat.Update{{Type: semcat.UpdateComment, NewComment: semcat.OptionalString{Set: true, Value: str("blobs")}}})).must(t)
	if *cat.Comment != "blobs" {
		t.Errorf("AlterCatalog: %+v", cat)
	}

	wrote(c.CreateSchema(ctx, rel, semcat.SchemaCreate{Name: "b"})).must(t)
	wrote(c.CreateSchema(ctx, rel, semcat.SchemaCreate{Name: "a", Properties: map[string]string{"p": "1"}})).must(t)
	if got := read(c.ListSchemas(ctx, rel)).must(t); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("ListSchemas: %v", got)
	}
	if got := read(c.GetSchema(ctx, rel, "a")).must(t); got.Properties["p"] != "1" {
		t.Errorf("GetSchema: %+v", got)
	}
	sch := wrote(c.AlterSchema(ctx, rel, "a", []semcat.Update{{Type: semcat.UpdateRename, NewName: str("a2")}})).must(t)
	if sch.Name != "a2" {
		t.Errorf("AlterSchema: %+v", sch)
	}
	wrote(c.CreateTable(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "b"}, semcat.TableCreate{Name: "t", Columns: []semcat.Column{column("id", "long")}})).must(t)

	// Non-empty parents need cascade or force: 409/1005.
	_, _, err := c.DropSchema(ctx, rel, "b", false)
	wantCode(t, "drop non-empty schema", err, semcat.ENOTEMPTY, client.ErrNotEmpty)
	if dropped := wrote(c.DropSchema(ctx, rel, "b", true)).must(t); !dropped {
		t.Error("DropSchema with cascade: not dropped")
	}
	// An enabled catalog needs force (409/1010); a disabled one with
	// schemas, too (409/1005).
	_, _, err = c.DropCatalog(ctx, "m", "rel", false)
	wantCode(t, "drop enabled catalog", err, semcat.EINUSE, client.ErrInUse)
	wrote1(c.SetCatalogInUse(ctx, "m", "rel", false)).must(t)
	if cat, err := c.GetCatalog(ctx, "m", "rel"); err != nil || cat.InUse || cat.Properties[semcat.PropertyInUse] != "false" {
		t.Errorf("disabled catalog: %+v %v", cat, err)
	}
	_, err = c.ListSchemas(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel"})
	wantCode(t, "list schemas of a disabled catalog", err, semcat.ENOTINUSE, client.ErrNotInUse)
	_, _, err = c.DropCatalog(ctx, "m", "rel", false)
	wantCode(t, "drop non-empty catalog", err, semcat.ENOTEMPTY, client.ErrNotEmpty)
	wrote1(c.SetCatalogInUse(ctx, "m", "rel", true)).must(t)
	if dropped := wrote(c.DropCatalog(ctx, "m", "rel", true)).must(t); !dropped {
		t.Error("DropCatalog with force: not dropped")
	}
	wrote1(c.SetCatalogInUse(ctx, "m", "files", false)).must(t)
	if dropped := wrote(c.DropCatalog(ctx, "m", "files", false)).must(t); !dropped {
		t.Error("DropCatalog of an empty, disabled catalog: not dropped")
	}
	// Dropping what does not exist answers false, not an error.
	if dropped, _, err := c.DropCatalog(ctx, "m", "files", false); err != nil || dropped {
		t.Errorf("DropCatalog of a missing catalog: %v %v", dropped, err)
	}
	if dropped := wrote(c.DropMetalake(ctx, "m", true)).must(t); !dropped {
		t.Error("DropMetalake: not dropped")
	}
	_, err = c.GetMetalake(ctx, "m")
	wantCode(t, "GetMetalake after drop", err, semcat.ENOTFOUND, client.ErrNotFound)
	if semcat.ErrorEntity(err) != semcat.KindMetalake {
		t.Errorf("the not-found error is about %q, want metalake", semcat.ErrorEntity(err))
	}
}

func TestTables(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()
	seed(t, c)

	nested := &semcat.Type{Name: "struct", Fields: []semcat.StructField{{Name: "EmpTel", Type: &semcat.Type{Name: "integer"}}}}
	// A '/' is allowed in names and travels escaped in the path.
	tbl := wrote(c.CreateTable(ctx, sales, semcat.TableCreate{Name: "a/b", Comment: str("slash"),
		Columns: []semcat.Column{column("id", "long"), {Name: "contact", Type: nested}}})).must(t)
	if tbl.Name != "a/b" || len(tbl.Columns) != 2 || tbl.Columns[1].Type.Fields[0].Name != "EmpTel" {
		t.Errorf("CreateTable: %+v", tbl)
	}
	got := read(c.GetTable(ctx, sales, "a/b")).must(t)
	if diff := cmp.Diff(tbl, got); diff != "" {
		t.Errorf("GetTable differs from the created table (-created +loaded):\n%s", diff)
	}
	if names := read(c.ListTables(ctx, sales)).must(t); !slices.Equal(names, []string{"a/b", "customers", "orders"}) {
		t.Errorf("ListTables: %v", names)
	}
	tbl = wrote(c.AlterTable(ctx, sales, "a/b", []semcat.Update{{Type: semcat.UpdateReplaceColumns, Columns: []semcat.Column{column("only", "string")}}})).must(t)
	if len(tbl.Columns) != 1 || tbl.Columns[0].Name != "only" {
		t.Errorf("AlterTable: %+v", tbl.Columns)
	}
	tbl = wrote(c.AlterTable(ctx, sales, "a/b", []semcat.Update{
		{Type: semcat.UpdateAddColumn, FieldName: []string{"first"}, ColumnType: &semcat.Type{Name: "long"}, Position: &semcat.ColumnPosition{Kind: "first"}},
		{Type: semcat.UpdateRenameColumn, OldFieldName: []string{"only"}, NewFieldName: str("second")},
	})).must(t)
	if len(tbl.Columns) != 2 || tbl.Columns[0].Name != "first" || tbl.Columns[1].Name != "second" {
		t.Errorf("AlterTable with column changes: %+v", tbl.Columns)
	}
	if dropped := wrote(c.DropTable(ctx, sales, "a/b")).must(t); !dropped {
		t.Error("DropTable: not dropped")
	}
	_, err := c.GetTable(ctx, sales, "a/b")
	wantCode(t, "GetTable after drop", err, semcat.ENOTFOUND, client.ErrNotFound)
	if !strings.Contains(semcat.ErrorMessage(err), "a/b") || semcat.ErrorEntity(err) != semcat.KindTable {
		t.Errorf("not-found error %v (about %q) does not name the table", err, semcat.ErrorEntity(err))
	}

	_, _, err = c.CreateTable(ctx, sales, semcat.TableCreate{Name: "orders", Columns: []semcat.Column{column("id", "long")}})
	wantCode(t, "CreateTable twice", err, semcat.EEXISTS, client.ErrAlreadyExists)
	if semcat.ErrorEntity(err) != semcat.KindTable {
		t.Errorf("already-exists error is about %q, want table", semcat.ErrorEntity(err))
	}
	_, _, err = c.CreateTable(ctx, sales, semcat.TableCreate{Name: "bad", Columns: []semcat.Column{column("id", "nonsense")}})
	wantCode(t, "CreateTable with a bad type", err, semcat.EINVALID, client.ErrInvalid)
	if !strings.HasPrefix(semcat.ErrorMessage(err), "columns[0]") {
		t.Errorf("400 message %q does not start with the JSON path", semcat.ErrorMessage(err))
	}

	// Tables live only in relational catalogs: 405/1006.
	wrote(c.CreateCatalog(ctx, "m", semcat.CatalogCreate{Name: "files", Type: semcat.CatalogFileset})).must(t)
	_, err = c.ListTables(ctx, semcat.Namespace{Metalake: "m", Catalog: "files", Schema: "x"})
	wantCode(t, "tables of a fileset catalog", err, semcat.EUNSUPPORTED, client.ErrUnsupported)

	// A namespace of the wrong depth fails before any request.
	_, err = c.ListTables(ctx, rel)
	wantCode(t, "tables of a catalog namespace", err, semcat.EINVALID, client.ErrInvalid)
	if !strings.Contains(semcat.ErrorMessage(err), "metalake.catalog.schema") {
		t.Errorf("wrong-depth message: %q", semcat.ErrorMessage(err))
	}
	_, err = c.GetTable(ctx, sales, "")
	wantCode(t, "GetTable without a name", err, semcat.EINVALID, client.ErrInvalid)
}

func TestSemanticModels(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()
	seed(t, c)

	m := read(c.GetSemanticModel(ctx, sales, "shop")).must(t)
	if m.Version < 1 || len(m.Definition.Metrics) != 2 || m.Definition.Metrics[0].Expression.Dialects[0].Expression != "SUM(amount) FILTER (WHERE amount < 1000 AND id <> 0)" {
		t.Errorf("GetSemanticModel: version %d, %+v", m.Version, m.Definition)
	}
	if names := read(c.ListSemanticModels(ctx, sales)).must(t); !slices.Equal(names, []string{"shop"}) {
		t.Errorf("ListSemanticModels: %v", names)
	}
	setOwner := []semcat.Update{{Type: semcat.UpdateSetProperty, Property: str("owner"), Value: str("finance")}}
	altered := wrote(c.AlterSemanticModel(ctx, sales, "shop", setOwner, m.Version)).must(t)
	if altered.Version <= m.Version || altered.Properties["owner"] != "finance" {
		t.Errorf("AlterSemanticModel: version %d after %d, %v", altered.Version, m.Version, altered.Properties)
	}
	// The old version no longer matches: 409/1012, nothing changes.
	_, _, err := c.AlterSemanticModel(ctx, sales, "shop", []semcat.Update{{Type: semcat.UpdateRemoveProperty, Property: str("owner")}}, m.Version)
	wantCode(t, "alter with a stale If-Match", err, semcat.ECONFLICT, client.ErrConflict)
	_, _, err = c.DropSemanticModel(ctx, sales, "shop", m.Version)
	wantCode(t, "drop with a stale If-Match", err, semcat.ECONFLICT, client.ErrConflict)
	if got := read(c.GetSemanticModel(ctx, sales, "shop")).must(t); got.Version != altered.Version || got.Properties["owner"] != "finance" {
		t.Errorf("after the conflicts: version %d, %v", got.Version, got.Properties)
	}
	// Without If-Match every alter applies.
	def := shopModel("shop").Definition
	def.Metrics = def.Metrics[:1]
	replaced := wrote(c.AlterSemanticModel(ctx, sales, "shop", []semcat.Update{{Type: semcat.UpdateReplaceDefinition, Definition: def}}, 0)).must(t)
	if len(replaced.Definition.Metrics) != 1 {
		t.Errorf("replaceDefinition: %+v", replaced.Definition.Metrics)
	}
	if dropped := wrote(c.DropSemanticModel(ctx, sales, "shop", replaced.Version)).must(t); !dropped {
		t.Error("DropSemanticModel: not dropped")
	}
	_, err = c.GetSemanticModel(ctx, sales, "shop")
	wantCode(t, "GetSemanticModel after drop", err, semcat.ENOTFOUND, client.ErrNotFound)

	bad := shopModel("broken")
	bad.Definition.Datasets[0].Source.Name = "nowhere"
	_, _, err = c.CreateSemanticModel(ctx, sales, bad)
	wantCode(t, "a model over a missing table", err, semcat.EINVALID, client.ErrInvalid)
	if !strings.HasPrefix(semcat.ErrorMessage(err), "datasets[0]") {
		t.Errorf("message %q does not start with the JSON path", semcat.ErrorMessage(err))
	}
}

func TestMetricDiscovery(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()
	seed(t, c)
	wrote(c.CreateSemanticModel(ctx, sales, shopModel("another"))).must(t)

	ids := read(c.ListSchemaMetrics(ctx, sales, false)).must(t)
	want := []semcat.SchemaMetric{
		{Model: "another", Name: "order_count"}, {Model: "another", Name: "revenue"},
		{Model: "shop", Name: "order_count"}, {Model: "shop", Name: "revenue"},
	}
	if diff := cmp.Diff(want, ids); diff != "" {
		t.Errorf("identifiers (-want +got):\n%s", diff)
	}
	infos := read(c.ListSchemaMetrics(ctx, sales, true)).must(t)
	if len(infos) != 4 {
		t.Fatalf("details: %d metrics, want 4", len(infos))
	}
	for i, m := range infos {
		var def semcat.Metric
		if err := json.Unmarshal(m.Definition, &def); err != nil {
			t.Fatal(err)
		}
		if m.Model != want[i].Model || m.Name != want[i].Name || def.Name != m.Name {
			t.Errorf("details[%d]: %s.%s %s", i, m.Model, m.Name, m.Definition)
		}
		if wantDef := shopModel("").Definition.Metrics[1-i%2]; !reflect.DeepEqual(def, wantDef) {
			t.Errorf("details[%d]: definition %s, want %+v", i, m.Definition, wantDef)
		}
	}
	// Paged with a limit, and narrowed by names.
	var paged []semcat.SchemaMetric
	pages := 0
	for cursor := ""; pages == 0 || cursor != ""; pages++ {
		page := read(c.ListSchemaMetricPage(ctx, sales, false, semcat.MetricFilter{Limit: 3, Cursor: cursor})).must(t)
		paged = append(paged, page.Metrics...)
		cursor = page.Cursor
	}
	if diff := cmp.Diff(want, paged); diff != "" || pages != 2 {
		t.Errorf("%d pages of 3 (-want +got):\n%s", pages, diff)
	}
	page := read(c.ListSchemaMetricPage(ctx, sales, true, semcat.MetricFilter{Names: []string{"revenue"}})).must(t)
	if len(page.Metrics) != 2 || page.Metrics[0].Name != "revenue" || page.Metrics[1].Model != "shop" || page.Cursor != "" || page.Metrics[0].Definition == nil {
		t.Errorf("names revenue: %+v", page)
	}
	empty := semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "empty"}
	wrote(c.CreateSchema(ctx, rel, semcat.SchemaCreate{Name: "empty"})).must(t)
	if got := read(c.ListSchemaMetrics(ctx, empty, true)).must(t); got == nil || len(got) != 0 {
		t.Errorf("an empty schema: %#v, want an empty list", got)
	}
	_, err := c.ListSchemaMetrics(ctx, semcat.Namespace{Metalake: "m", Catalog: "rel", Schema: "nope"}, false)
	wantCode(t, "metrics of a missing schema", err, semcat.ENOTFOUND, client.ErrNotFound)
	if semcat.ErrorEntity(err) != semcat.KindSchema {
		t.Errorf("not-found error is about %q, want schema", semcat.ErrorEntity(err))
	}
}

// TestDemoOverHTTP loads the example catalog through the client, which
// implements the services demo.Load writes to, and discovers MetricFlow's
// 113 metrics in one call.
func TestDemoOverHTTP(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()
	if err := demo.Load(ctx, c); err != nil {
		t.Fatal(err)
	}
	metrics := read(c.ListSchemaMetrics(ctx, semcat.Namespace{Metalake: "demo", Catalog: "warehouse", Schema: "main"}, false)).must(t)
	if len(metrics) != 113 {
		t.Fatalf("%d metrics, want 113", len(metrics))
	}
	if !slices.IsSortedFunc(metrics, func(a, b semcat.SchemaMetric) int {
		return strings.Compare(a.Model+"\x00"+a.Name, b.Model+"\x00"+b.Name)
	}) {
		t.Error("metrics are not sorted by model, then name")
	}
}

func TestTagsAndMetadata(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()
	seed(t, c)
	orders := semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.orders"}

	tag := wrote(c.CreateTag(ctx, "m", semcat.TagCreate{Name: "pii", Comment: str("personal"), Properties: map[string]string{"level": "high"}})).must(t)
	if tag.Name != "pii" || tag.Properties["level"] != "high" {
		t.Errorf("CreateTag: %+v", tag)
	}
	wrote(c.CreateTag(ctx, "m", semcat.TagCreate{Name: "gold"})).must(t)
	if got := read(c.GetTag(ctx, "m", "pii")).must(t); *got.Comment != "personal" {
		t.Errorf("GetTag: %+v", got)
	}
	if got := read(c.ListTags(ctx, "m")).must(t); !slices.Equal(got, []string{"gold", "pii"}) {
		t.Errorf("ListTags: %v", got)
	}
	if got := read(c.ListObjectTags(ctx, "m", orders)).must(t); got == nil || len(got) != 0 {
		t.Errorf("ListObjectTags before: %#v", got)
	}
	tags := wrote(c.AssociateTags(ctx, "m", orders, semcat.TagAssociation{TagsToAdd: []string{"pii", "gold"}}.Assignments())).must(t)
	if !slices.Equal(tags, []string{"gold", "pii"}) {
		t.Errorf("AssociateTags: %v", tags)
	}
	tags = wrote(c.AssociateTags(ctx, "m", orders, semcat.TagAssociation{TagsToRemove: []string{"gold"}}.Assignments())).must(t)
	if !slices.Equal(tags, []string{"pii"}) {
		t.Errorf("AssociateTags remove: %v", tags)
	}
	if got := read(c.ListObjectTags(ctx, "m", orders)).must(t); !slices.Equal(got, []string{"pii"}) {
		t.Errorf("ListObjectTags: %v", got)
	}
	// As in Gravitino, a tag that does not exist is ignored, and adding
	// one the object holds is refused.
	if tags := wrote(c.AssociateTags(ctx, "m", orders, semcat.TagAssociation{TagsToAdd: []string{"missing"}}.Assignments())).must(t); !slices.Equal(tags, []string{"pii"}) {
		t.Errorf("AssociateTags of a missing tag: %v", tags)
	}
	_, _, err := c.AssociateTags(ctx, "m", orders, semcat.TagAssociation{TagsToAdd: []string{"pii"}}.Assignments())
	wantCode(t, "associating a held tag", err, semcat.EEXISTS, client.ErrAlreadyExists)

	// Tag values (Gravitino's tag-values request), inherited from the
	// schema.
	wrote(c.CreateTag(ctx, "m", semcat.TagCreate{Name: "tier", AllowedValues: []string{"gold", "silver"}})).must(t)
	gold, silver := "gold", "silver"
	wrote(c.AssociateTags(ctx, "m", orders, semcat.TagAssignments{Valued: true,
		Add: []semcat.TagValue{{Name: "tier", Value: &gold}, {Name: "tier", Value: &silver}}})).must(t)
	sales := semcat.ObjectRef{Type: semcat.KindSchema, FullName: "rel.sales"}
	wrote(c.AssociateTags(ctx, "m", sales, semcat.TagAssociation{TagsToAdd: []string{"gold", "pii"}}.Assignments())).must(t)
	infos := read(c.ObjectTagInfos(ctx, "m", orders)).must(t)
	var shown []string
	for _, ti := range infos {
		shown = append(shown, fmt.Sprintf("%s%v:%v", ti.Name, ti.AssignmentValues, ti.Inherited))
	}
	if want := "pii[]:false tier[gold silver]:false gold[]:true"; strings.Join(shown, " ") != want {
		t.Errorf("ObjectTagInfos: %s, want %s", strings.Join(shown, " "), want)
	}
	if objs := read(c.TagObjects(ctx, "m", "tier", "silver")).must(t); len(objs) != 1 || objs[0].FullName != "rel.sales.orders" {
		t.Errorf("TagObjects with value silver: %v", objs)
	}
	if objs := read(c.TagObjects(ctx, "m", "tier", "bronze")).must(t); len(objs) != 0 {
		t.Errorf("TagObjects with value bronze: %v", objs)
	}
	wrote(c.AssociateTags(ctx, "m", orders, semcat.TagAssociation{TagsToRemove: []string{"tier"}}.Assignments())).must(t)
	wrote(c.AssociateTags(ctx, "m", sales, semcat.TagAssociation{TagsToRemove: []string{"gold", "pii"}}.Assignments())).must(t)

	md := read(c.ObjectMetadata(ctx, "m", orders)).must(t)
	if !slices.Equal(md.User.Tags, []string{"pii"}) || md.System.Properties["entity-type"] != "table" ||
		!strings.Contains(md.System.Properties["schema"], "amount decimal(10,2)") {
		t.Errorf("ObjectMetadata: %+v", md)
	}
	_, err = c.ObjectMetadata(ctx, "m", semcat.ObjectRef{Type: "volume", FullName: "rel.sales.orders"})
	wantCode(t, "metadata of an unknown object type", err, semcat.EINVALID, client.ErrInvalid)

	if dropped := wrote(c.DropTag(ctx, "m", "pii")).must(t); !dropped {
		t.Error("DropTag: not dropped")
	}
	if got := read(c.ListObjectTags(ctx, "m", orders)).must(t); len(got) != 0 {
		t.Errorf("a dropped tag is still on the table: %v", got)
	}
	_, err = c.GetTag(ctx, "m", "pii")
	wantCode(t, "GetTag after drop", err, semcat.ENOTFOUND, client.ErrNotFound)
}

func TestSearch(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()
	seed(t, c)
	wrote(c.CreateTag(ctx, "m", semcat.TagCreate{Name: "gold"})).must(t)
	wrote(c.AssociateTags(ctx, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.orders"}, semcat.TagAssociation{TagsToAdd: []string{"gold"}}.Assignments())).must(t)
	nested := &semcat.Type{Name: "struct", Fields: []semcat.StructField{{Name: "EmpTel", Type: &semcat.Type{Name: "integer"}}}}
	_, pos, err := c.CreateTable(ctx, sales, semcat.TableCreate{Name: "employees", Properties: map[string]string{"Codename": "Alpha Tango Charlie"},
		Columns: []semcat.Column{{Name: "EmpContact", Type: nested}}})
	if err != nil {
		t.Fatal(err)
	}

	// Read your writes: the search waits until the index has the table.
	res, err := c.SearchAfter(ctx, semcat.SearchRequest{Metalake: "m", Query: "EmpTel", Facets: []string{"type"}}, pos, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || len(res.Results) != 1 || res.Results[0].Entity.Name != "employees" ||
		!slices.Equal(res.Results[0].Entity.Namespace, []string{"m", "rel", "sales"}) || res.Position.TxID < pos.TxID {
		t.Fatalf("SearchAfter: %+v", res)
	}
	if got := fmt.Sprint(res.Results[0].Matches); !strings.Contains(got, "EmpContact.EmpTel") {
		t.Errorf("matches: %s", got)
	}
	if diff := cmp.Diff(map[string][]semcat.FacetValue{"type": {{Value: "table", Count: 1}}}, res.Facets); diff != "" {
		t.Errorf("facets (-want +got):\n%s", diff)
	}

	// Filters, sorting and cursors.
	req := semcat.SearchRequest{Metalake: "m", Query: "*", Types: []string{"table"}, Catalog: "rel", Schema: "sales", Sort: "name", Limit: 2}
	var all []string
	for range 5 {
		page := read(c.Search(ctx, req)).must(t)
		for _, h := range page.Results {
			all = append(all, h.Entity.Name)
		}
		if page.Cursor == "" {
			break
		}
		req.Cursor = page.Cursor
	}
	if !slices.Equal(all, []string{"customers", "employees", "orders"}) {
		t.Errorf("pages of tables by name: %v", all)
	}
	// Owner, catalog and schema filters take several values, and owner is
	// a facet (SPEC §2.6).
	wrote(c.CreateUser(ctx, "m", semcat.UserCreate{Name: "bob"})).must(t)
	customers := semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.customers"}
	pos, err = c.SetOwner(ctx, "m", customers, semcat.Owner{Name: "bob", Type: "USER"})
	if err != nil {
		t.Fatal(err)
	}
	res, err = c.SearchAfter(ctx, semcat.SearchRequest{Metalake: "m", Query: "*", Owners: []string{"bob", "nobody"},
		Catalogs: []string{"rel", "other"}, Schemas: []string{"sales", "other"}, Facets: []string{"owner"}}, pos, 10*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if res.Total != 1 || res.Results[0].Entity.Name != "customers" {
		t.Errorf("owner filter: %+v", res)
	}
	// A facet counts without its own filter, so that other values can be
	// added to it.
	if !slices.Contains(res.Facets["owner"], semcat.FacetValue{Value: "bob", Count: 1}) || len(res.Facets["owner"]) != 2 {
		t.Errorf("owner facet: %+v", res.Facets)
	}
	res = read(c.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: "*", Types: []string{"table"}, Owners: []string{"admin", "bob"}})).must(t)
	if res.Total != 3 {
		t.Errorf("two owners: %d tables, want 3", res.Total)
	}
	res = read(c.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: "*", Tags: []string{"gold"}, Scope: "user"})).must(t)
	if res.Total != 1 || res.Results[0].Entity.Name != "orders" {
		t.Errorf("tag filter: %+v", res)
	}
	res = read(c.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: "revenue", Types: []string{"metric"}, Offset: 0, FacetSize: 5})).must(t)
	if res.Total != 1 || res.Results[0].Entity.Type != "metric" || !slices.Equal(res.Results[0].Entity.Namespace, []string{"m", "rel", "sales", "shop"}) {
		t.Errorf("metric search: %+v", res)
	}
	if res.Profile != nil {
		t.Errorf("a profile not asked for: %+v", res.Profile)
	}
	res = read(c.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: "revenue", Types: []string{"metric"}, Profile: true})).must(t)
	if res.Profile == nil || len(res.Profile.Fields) == 0 || res.Profile.Fields[0].Bytes == 0 {
		t.Errorf("search profile: %+v", res.Profile)
	}

	_, err = c.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: "-x"})
	wantCode(t, "a query without a positive term", err, semcat.EINVALID, client.ErrInvalid)
	// A position the index cannot reach in time: ENOTCAUGHTUP, never a
	// stale answer.
	_, err = c.SearchAfter(ctx, semcat.SearchRequest{Metalake: "m", Query: "*"}, semcat.Position{TxID: 1 << 50}, 50*time.Millisecond)
	wantCode(t, "an unreachable position", err, semcat.ENOTCAUGHTUP, client.ErrNotCaughtUp)
	if err := c.WaitFor(ctx, pos); semcat.ErrorCode(err) != semcat.EUNSUPPORTED {
		t.Errorf("WaitFor: %v, want EUNSUPPORTED", err)
	}
}

func TestAccessControl(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()
	seed(t, c)
	bob := s.as(t, "bob")

	u := wrote(c.CreateUser(ctx, "m", semcat.UserCreate{Name: "bob"})).must(t)
	if u.Name != "bob" || len(u.Roles) != 0 {
		t.Errorf("CreateUser: %+v", u)
	}
	_, err := bob.ListSchemaMetrics(ctx, sales, false)
	wantCode(t, "bob without schema access", err, semcat.EFORBIDDEN, client.ErrForbidden)

	role := wrote(c.CreateRole(ctx, "m", semcat.RoleCreate{Name: "reader", SecurableObjects: []semcat.SecurableObject{
		{FullName: "rel", Type: "CATALOG", Privileges: []semcat.PrivilegeGrant{{Name: semcat.UseCatalog, Condition: semcat.Allow}}},
		{FullName: "rel.sales", Type: "SCHEMA", Privileges: []semcat.PrivilegeGrant{
			{Name: semcat.UseSchema, Condition: semcat.Allow}, {Name: semcat.SelectSemanticModel, Condition: semcat.Allow}}},
	}})).must(t)
	if role.Name != "reader" || len(role.SecurableObjects) != 2 {
		t.Errorf("CreateRole: %+v", role)
	}
	if got := read(c.GetRole(ctx, "m", "reader")).must(t); len(got.SecurableObjects[1].Privileges) != 2 {
		t.Errorf("GetRole: %+v", got)
	}
	u = wrote(c.GrantRoles(ctx, "m", "bob", []string{"reader"})).must(t)
	if !slices.Equal(u.Roles, []string{"reader"}) {
		t.Errorf("GrantRoles: %+v", u)
	}
	if got := read(c.GetUser(ctx, "m", "bob")).must(t); !slices.Equal(got.Roles, []string{"reader"}) {
		t.Errorf("GetUser: %+v", got)
	}
	if got := read(bob.ListSchemaMetrics(ctx, sales, false)).must(t); len(got) != 2 {
		t.Errorf("bob with the reader role sees %d metrics, want 2", len(got))
	}
	shopRef := semcat.ObjectRef{Type: semcat.KindSemanticModel, FullName: "rel.sales.shop"}
	if a := read(bob.ObjectPrivileges(ctx, "m", shopRef)).must(t); a.User != "bob" || a.Alter || a.Drop || a.SetOwner ||
		!slices.Equal(a.Privileges, []semcat.Privilege{semcat.UseCatalog, semcat.UseSchema, semcat.SelectSemanticModel}) || !a.Has(semcat.SelectSemanticModel) {
		t.Errorf("ObjectPrivileges of a reader: %+v", a)
	}
	if a := read(c.ObjectPrivileges(ctx, "m", shopRef)).must(t); !a.Alter || !a.Drop || !a.SetOwner || !a.Has(semcat.ModifySemanticModel) || !a.Has(semcat.ManageGrants) {
		t.Errorf("ObjectPrivileges of the metalake's owner: %+v", a)
	}
	_, err = bob.ObjectPrivileges(ctx, "m", semcat.ObjectRef{Type: semcat.KindTable, FullName: "rel.sales.orders"})
	wantCode(t, "ObjectPrivileges of a table bob may not see", err, semcat.ENOTFOUND, client.ErrNotFound)
	u = wrote(c.RevokeRoles(ctx, "m", "bob", []string{"reader"})).must(t)
	if len(u.Roles) != 0 {
		t.Errorf("RevokeRoles: %+v", u)
	}
	_, err = bob.ListSchemaMetrics(ctx, sales, false)
	wantCode(t, "bob after the revocation", err, semcat.EFORBIDDEN, client.ErrForbidden)

	shop := semcat.ObjectRef{Type: semcat.KindSemanticModel, FullName: "rel.sales.shop"}
	if o := read(c.GetOwner(ctx, "m", shop)).must(t); o == nil || o.Name != "admin" {
		t.Errorf("GetOwner of the model: %+v", o)
	}
	pos, err := c.SetOwner(ctx, "m", shop, semcat.Owner{Name: "bob", Type: "USER"})
	if err != nil || pos.IsZero() {
		t.Fatalf("SetOwner: %v %v", pos, err)
	}
	if o := read(c.GetOwner(ctx, "m", shop)).must(t); o == nil || o.Name != "bob" {
		t.Errorf("GetOwner after SetOwner: %+v", o)
	}
	if o := read(c.GetOwner(ctx, "m", semcat.ObjectRef{Type: semcat.KindMetalake, FullName: "m"})).must(t); o == nil || o.Name != "admin" {
		t.Errorf("GetOwner of the metalake: %+v", o)
	}
	_, err = c.GetUser(ctx, "m", "carol")
	wantCode(t, "a missing user", err, semcat.ENOTFOUND, client.ErrNotFound)
	if semcat.ErrorEntity(err) != semcat.KindUser {
		t.Errorf("not-found error is about %q, want user", semcat.ErrorEntity(err))
	}

	// A metalake one is not in searches as one that does not exist (SPEC
	// §6): no total of 0 that tells it apart.
	stranger := s.as(t, "stranger")
	_, hidden := stranger.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: "*"})
	_, missing := stranger.Search(ctx, semcat.SearchRequest{Metalake: "no_such_metalake", Query: "*"})
	wantCode(t, "search in a metalake one is not in", hidden, semcat.ENOTFOUND, client.ErrNotFound)
	if strings.ReplaceAll(semcat.ErrorMessage(missing), "no_such_metalake", "m") != semcat.ErrorMessage(hidden) {
		t.Errorf("search in a metalake one is not in: %v; in a missing one: %v", hidden, missing)
	}
	if res := read(bob.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: "*"})).must(t); res == nil {
		t.Error("a member's search failed")
	}

	// Without credentials: 401/1011.
	anonymous := newClient(t, s.url)
	_, err = anonymous.ListMetalakes(ctx)
	wantCode(t, "no credentials", err, semcat.EUNAUTHORIZED, client.ErrUnauthorized)
}

func TestOperations(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()
	seed(t, c)

	if err := c.Health(ctx); err != nil {
		t.Errorf("Health: %v", err)
	}
	if err := c.Ready(ctx); err != nil {
		t.Errorf("Ready: %v", err)
	}
	if v := read(c.Version(ctx)).must(t); v != "1.2.3" {
		t.Errorf("Version: %q", v)
	}
	doc := read(c.OpenAPI(ctx)).must(t)
	if !strings.HasPrefix(string(doc), "openapi: 3") || !strings.Contains(string(doc), "operationId: listSemanticModelMetrics") {
		t.Errorf("OpenAPI: %.80s", doc)
	}
	took, err := c.Reindex(ctx)
	if err != nil || took < 0 {
		t.Errorf("Reindex: %v %v", took, err)
	}
	// The rebuilt index serves.
	if res := read(c.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: "orders"})).must(t); res.Total == 0 {
		t.Error("no results after the rebuild")
	}
	if p := read(c.ReindexProgress(ctx)).must(t); p.Running || p.Total == 0 || p.Indexed != p.Total || p.StartedAt == nil || p.FinishedAt == nil {
		t.Errorf("ReindexProgress after a rebuild: %+v", p)
	}
	_, err = s.as(t, "bob").Reindex(ctx)
	wantCode(t, "reindex by a non-admin", err, semcat.EFORBIDDEN, client.ErrForbidden)
	_, err = s.as(t, "bob").ReindexProgress(ctx)
	wantCode(t, "reindex progress for a non-admin", err, semcat.EFORBIDDEN, client.ErrForbidden)
}

func TestContextCancellation(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c := s.admin
	seed(t, c)

	canceled, cancel := context.WithCancel(t.Context())
	cancel()
	if _, err := c.ListMetalakes(canceled); !errors.Is(err, context.Canceled) {
		t.Errorf("a canceled context: %v", err)
	}
	// A deadline that ends while the server waits for the index.
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.SearchAfter(ctx, semcat.SearchRequest{Metalake: "m", Query: "*"}, semcat.Position{TxID: 1 << 50}, 20*time.Second)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a deadline during the wait: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the call returned %v after its deadline", d)
	}
}

// TestSearchCost: a query of more terms than SPEC §2.11 allows is refused
// before it costs anything, and a request whose deadline passes answers
// 503/1013 ServiceUnavailableException, never 500 or a partial answer.
func TestSearchCost(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()
	seed(t, c)
	_, err := c.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: strings.Repeat("a* ", 1365)})
	wantCode(t, "1,365 prefixes", err, semcat.EINVALID, client.ErrInvalid)
	if msg := semcat.ErrorMessage(err); !strings.Contains(msg, "query: too many terms: at most 64") {
		t.Errorf("1,365 prefixes: %q, want the query and its limit named", msg)
	}
	// 64 prefixes are allowed.
	read(c.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: strings.TrimSpace(strings.Repeat("o* ", 64))})).must(t)

	hurried := apitest.NewStackServer(t, pgtest.NewDatabase(t), api.Config{RequestTimeout: time.Nanosecond})
	for _, c := range []*client.Client{newClient(t, hurried.URL, client.WithUser("admin")), newClient(t, hurried.URL, client.WithUser("alice"))} {
		_, err = c.Search(ctx, semcat.SearchRequest{Metalake: "m", Query: "a* b* c*"})
		wantCode(t, "a search past its deadline", err, semcat.EDEADLINE, client.ErrDeadline)
		_, err = c.ListMetalakes(ctx)
		wantCode(t, "a listing past its deadline", err, semcat.EDEADLINE, client.ErrDeadline)
	}
}

// TestToken authenticates with a Bearer token against a server in jwt mode.
func TestToken(t *testing.T) {
	t.Parallel()
	secret := []byte(strings.Repeat("k", 32))
	authenticate, err := api.NewAuthenticator(api.AuthConfig{Mode: api.AuthJWT, JWT: api.JWTConfig{HS256Secret: secret}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(api.NewHandler(api.Services{}, api.Config{Version: "9", Authenticate: authenticate, Logger: slog.New(slog.DiscardHandler)}))
	defer srv.Close()
	token, err := jwt.NewWithClaims(jwt.SigningMethodHS256, jwt.RegisteredClaims{
		Subject: "alice", ExpiresAt: jwt.NewNumericDate(time.Now().Add(time.Hour)),
	}).SignedString(secret)
	if err != nil {
		t.Fatal(err)
	}
	if v, err := newClient(t, srv.URL, client.WithToken(token)).Version(t.Context()); err != nil || v != "9" {
		t.Errorf("with a token: %q %v", v, err)
	}
	_, err = newClient(t, srv.URL, client.WithUser("alice")).Version(t.Context())
	wantCode(t, "Basic credentials in jwt mode", err, semcat.EUNAUTHORIZED, client.ErrUnauthorized)
	if !strings.Contains(semcat.ErrorMessage(err), "Bearer") {
		t.Errorf("the server's message is not kept: %q", semcat.ErrorMessage(err))
	}
}

// TestErrorAnswers decodes answers that do not come from semcat's error
// table the way a proxy or an overloaded server might send them.
func TestErrorAnswers(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status  int
		body    string
		code    string
		entity  semcat.EntityKind
		message string
	}{
		{404, `{"code":1003,"type":"NoSuchSemanticModelException","message":"no model"}`, semcat.ENOTFOUND, semcat.KindSemanticModel, "no model"},
		{409, `{"code":1004,"type":"TagAlreadyExistsException","message":"exists"}`, semcat.EEXISTS, semcat.KindTag, "exists"},
		{409, `{"code":1005,"type":"NonEmptyEntityException","message":"full"}`, semcat.ENOTEMPTY, "", "full"},
		{413, `{"code":1001,"type":"IllegalArgumentException","message":"too big"}`, semcat.ETOOLARGE, "", "too big"},
		{500, `{"code":1002,"type":"InternalError","message":"internal server error"}`, semcat.EINTERNAL, "", "internal server error"},
		{503, `{"code":1013,"type":"ServiceUnavailableException","message":"late"}`, semcat.EDEADLINE, "", "late"},
		{503, `{"code":1013,"type":"IndexNotCaughtUpException","message":"behind"}`, semcat.ENOTCAUGHTUP, "", "behind"},
		{500, `{"code":4242,"type":"FutureException","message":"new"}`, semcat.EINTERNAL, "", "new"},
		{502, `<html>bad gateway</html>`, semcat.EINTERNAL, "", "the server answered 502 Bad Gateway without an error body: <html>bad gateway</html>"},
		{404, `not json`, semcat.ENOTFOUND, "", "the server answered 404 Not Found without an error body: not json"},
	}
	for _, tt := range tests {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tt.status)
			fmt.Fprint(w, tt.body)
		}))
		_, err := newClient(t, srv.URL).GetMetalake(t.Context(), "m")
		srv.Close()
		var e *semcat.Error
		if !errors.As(err, &e) {
			t.Errorf("%d %s: %v is not a *semcat.Error", tt.status, tt.body, err)
			continue
		}
		if diff := cmp.Diff(&semcat.Error{Code: tt.code, Entity: tt.entity, Message: tt.message}, e); diff != "" {
			t.Errorf("%d %s (-want +got):\n%s", tt.status, tt.body, diff)
		}
	}
}

func TestNew(t *testing.T) {
	t.Parallel()
	for _, bad := range []string{"", "127.0.0.1:8090", "ftp://h", "http://", "http://h/?q=1", "http://h/#x"} {
		if _, err := client.New(bad); err == nil {
			t.Errorf("New(%q) succeeded", bad)
		}
	}
	c := newClient(t, "http://h:1/prefix/")
	if c.URL() != "http://h:1/prefix" {
		t.Errorf("URL() = %q", c.URL())
	}
}

func TestParseIdentifier(t *testing.T) {
	t.Parallel()
	type parsed struct {
		NS   semcat.Namespace
		Name string
	}
	tests := []struct {
		in   string
		want *parsed // nil: must fail
	}{
		{"m", &parsed{Name: "m"}},
		{"m.c", &parsed{semcat.Namespace{Metalake: "m"}, "c"}},
		{"m.c.s", &parsed{semcat.Namespace{Metalake: "m", Catalog: "c"}, "s"}},
		{"m.c.s.t", &parsed{semcat.Namespace{Metalake: "m", Catalog: "c", Schema: "s"}, "t"}},
		{"m.c.s/x.a=b", &parsed{semcat.Namespace{Metalake: "m", Catalog: "c", Schema: "s/x"}, "a=b"}},
		{"m.c.s.t.x", nil},
		{"", nil},
		{"m..t", nil},
		{"m.c.", nil},
		{"m.*", nil},
	}
	for _, tt := range tests {
		ns, name, err := client.ParseIdentifier(tt.in)
		if tt.want == nil {
			if err == nil {
				t.Errorf("ParseIdentifier(%q) = %v %q, want an error", tt.in, ns, name)
			}
			continue
		}
		if diff := cmp.Diff(*tt.want, parsed{ns, name}); diff != "" || err != nil {
			t.Errorf("ParseIdentifier(%q) (-want +got): %v\n%s", tt.in, err, diff)
		}
		if got := client.FormatNamespace(ns); ns.Metalake != "" && got+"."+name != tt.in {
			t.Errorf("FormatNamespace(%v) = %q", ns, got)
		}
	}
	if _, err := client.ParseNamespace("a.b.c.d"); semcat.ErrorCode(err) != semcat.EINVALID {
		t.Errorf("ParseNamespace of four parts: %v", err)
	}
}

// TestRefreshCatalog: refreshing a catalog without a source writes
// nothing; a missing catalog is not found.
func TestRefreshCatalog(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()
	seed(t, c)
	if pos, err := c.RefreshCatalog(ctx, "m", "rel"); err != nil || !pos.IsZero() {
		t.Errorf("refresh of a catalog without a source: %v %v, want no write", pos, err)
	}
	if _, err := c.RefreshCatalog(ctx, "m", "nope"); !errors.Is(err, client.ErrNotFound) {
		t.Errorf("refresh of a missing catalog: %v, want ErrNotFound", err)
	}
}

func TestTestConnection(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()
	seed(t, c)
	if err := c.TestConnection(ctx, "m", semcat.CatalogCreate{Name: "new", Type: semcat.CatalogRelational}); err != nil {
		t.Errorf("a catalog without a source: %v", err)
	}
	if err := c.TestCatalogConnection(ctx, "m", "rel"); err != nil {
		t.Errorf("catalog rel: %v", err)
	}
	wantCode(t, "a missing catalog", c.TestCatalogConnection(ctx, "m", "nope"), semcat.ENOTFOUND, client.ErrNotFound)
}
