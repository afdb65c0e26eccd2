package main

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/semcat/semcat"
	apiclient "github.com/semcat/semcat/client"
)

// entityCommand is `semcat <name> list <parent>` and `semcat <name> get
// <identifier>` for one kind of catalog entity. Parent and identifier are
// dotted from the metalake down; parent is "metalake" for the entities of
// a metalake, and "" for metalakes themselves.
type entityCommand struct {
	name   string
	parent string
	list   func(ctx context.Context, cmd *command, c *apiclient.Client, parent []string) error
	get    func(ctx context.Context, cmd *command, c *apiclient.Client, id []string) error
}

// identifier is the shape of the identifier of one entity.
func (e *entityCommand) identifier() string {
	entity := strings.TrimSuffix(e.name, "s")
	if e.parent == "" {
		return entity
	}
	return e.parent + "." + entity
}

var (
	metalakesCommand = &entityCommand{name: "metalakes", list: listMetalakes, get: getMetalake}
	catalogsCommand  = &entityCommand{name: "catalogs", parent: "metalake", list: listCatalogs, get: getCatalog}
	schemasCommand   = &entityCommand{name: "schemas", parent: "metalake.catalog", list: listSchemas, get: getSchema}
	tablesCommand    = &entityCommand{name: "tables", parent: "metalake.catalog.schema", list: listTables, get: getTable}
	modelsCommand    = &entityCommand{name: "models", parent: "metalake.catalog.schema", list: listModels, get: getModel}
)

// command is `semcat <name> list|get ...`.
func (e *entityCommand) command(r *remote) *cobra.Command {
	synopsis := fmt.Sprintf("list [flags] <%s> | get [flags] <%s>", e.parent, e.identifier())
	listUse := fmt.Sprintf("list [flags] <%s>", e.parent)
	getUse := fmt.Sprintf("get [flags] <%s>", e.identifier())
	switch e.parent {
	case "":
		synopsis, listUse, getUse = "list [flags] | get [flags] <metalake>", "list [flags]", "get [flags] <metalake>"
	case "metalake":
		listUse = "list [flags] [metalake]"
	}
	atLeast, atMost := 1, 1
	switch e.parent {
	case "":
		atLeast, atMost = 0, 0
	case "metalake":
		atLeast = 0 // the metalake may be left out
	}
	list := &cobra.Command{
		Use:               listUse,
		Short:             "list the " + e.name + e.under(),
		Args:              argsBetween(atLeast, atMost),
		ValidArgsFunction: completeIdentifier(r, firstArg(e.parent)),
		RunE: func(cc *cobra.Command, pos []string) error {
			return e.run(r.command(cc), "list", pos)
		},
	}
	get := &cobra.Command{
		Use:               getUse,
		Short:             "show one of the " + e.name,
		Args:              argsBetween(1, 1),
		ValidArgsFunction: completeIdentifier(r, firstArg(e.identifier())),
		RunE: func(cc *cobra.Command, pos []string) error {
			return e.run(r.command(cc), "get", pos)
		},
	}
	return groupCommand(e.name, e.name+": list|get", synopsis, list, get)
}

// under is where a listing of the entities is, for help.
func (e *entityCommand) under() string {
	if e.parent == "" {
		return ""
	}
	return " of a " + e.parent[strings.LastIndex(e.parent, ".")+1:]
}

// run runs `semcat <name> <sub> <pos>`.
func (e *entityCommand) run(cmd *command, sub string, pos []string) error {
	shape := e.identifier()
	if sub == "list" {
		shape = e.parent
	}
	c, err := cmd.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	var parts []string
	switch {
	case shape == "":
	case len(pos) == 0:
		m, err := cmd.defaultMetalake(ctx, c)
		if err != nil {
			return err
		}
		parts = []string{m}
	case shape == "metalake":
		if err := semcat.ValidateName("metalake", pos[0]); err != nil {
			return usagef("'%s': %s", pos[0], semcat.ErrorMessage(err))
		}
		parts = pos
	default:
		if parts, err = cmd.resolve(ctx, c, pos[0], shape); err != nil {
			return err
		}
	}
	if sub == "list" {
		return e.list(ctx, cmd, c, parts)
	}
	return e.get(ctx, cmd, c, parts)
}

// namespace returns the namespace that parts name from the metalake down,
// of at most three levels.
func namespace(parts []string) semcat.Namespace {
	var ns semcat.Namespace
	for i, dst := range []*string{&ns.Metalake, &ns.Catalog, &ns.Schema}[:min(len(parts), 3)] {
		*dst = parts[i]
	}
	return ns
}

// printNames writes a list of names: a NAME column, or with --json the
// REST API's answer without its code: {"names": [...]}.
func printNames(cmd *command, names []string, what string) error {
	if cmd.json {
		return printJSON(cmd.stdout, map[string][]string{"names": nonNilNames(names)})
	}
	return printNameColumn(cmd, names, what)
}

// printIdentifiers writes the children of a namespace: a NAME column, or
// with --json the REST API's listing without its code: {"identifiers":
// [{"namespace", "name"}]}.
func printIdentifiers(cmd *command, parent, names []string, what string) error {
	if cmd.json {
		ids := make([]semcat.NameIdentifier, len(names))
		for i, n := range names {
			ids[i] = semcat.NameIdentifier{Namespace: parent, Name: n}
		}
		return printJSON(cmd.stdout, map[string][]semcat.NameIdentifier{"identifiers": ids})
	}
	return printNameColumn(cmd, names, what)
}

func nonNilNames(names []string) []string {
	if names == nil {
		return []string{}
	}
	return names
}

func printNameColumn(cmd *command, names []string, what string) error {
	if len(names) == 0 {
		fmt.Fprintf(cmd.stdout, "no %s\n", what)
		return nil
	}
	t := newTable(cmd.stdout, "NAME")
	for _, n := range names {
		t.row(n)
	}
	return t.flush()
}

// printFields writes "key: value" lines, aligned, leaving out empty values.
func printFields(w io.Writer, kv ...string) error {
	t := newTable(w)
	for i := 0; i+1 < len(kv); i += 2 {
		if kv[i+1] != "" {
			t.row(kv[i]+":", kv[i+1])
		}
	}
	return t.flush()
}

// auditFields returns the created and modified fields of an audit.
func auditFields(a semcat.Audit) []string {
	kv := []string{"created", a.CreateTime.Format(time.RFC3339) + " by " + a.Creator}
	if a.LastModifiedTime != nil && !a.LastModifiedTime.Equal(a.CreateTime) {
		kv = append(kv, "modified", a.LastModifiedTime.Format(time.RFC3339)+" by "+a.LastModifier)
	}
	return kv
}

func listMetalakes(ctx context.Context, cmd *command, c *apiclient.Client, _ []string) error {
	ms, err := c.ListMetalakes(ctx)
	if err != nil || cmd.json {
		return orJSON(cmd, ms, err)
	}
	t := newTable(cmd.stdout, "NAME", "COMMENT")
	for _, m := range ms {
		t.row(m.Name, clip(deref(m.Comment), 60))
	}
	return t.flush()
}

func getMetalake(ctx context.Context, cmd *command, c *apiclient.Client, id []string) error {
	m, err := c.GetMetalake(ctx, id[0])
	if err != nil || cmd.json {
		return orJSON(cmd, m, err)
	}
	return printFields(cmd.stdout, append([]string{"metalake", m.Name, "comment", deref(m.Comment),
		"properties", formatProperties(m.Properties)}, auditFields(m.Audit)...)...)
}

func listCatalogs(ctx context.Context, cmd *command, c *apiclient.Client, parent []string) error {
	cs, err := c.ListCatalogs(ctx, parent[0])
	if err != nil || cmd.json {
		return orJSON(cmd, cs, err)
	}
	t := newTable(cmd.stdout, "NAME", "TYPE", "COMMENT")
	for _, c := range cs {
		t.row(c.Name, string(c.Type), clip(deref(c.Comment), 60))
	}
	return t.flush()
}

func getCatalog(ctx context.Context, cmd *command, c *apiclient.Client, id []string) error {
	cat, err := c.GetCatalog(ctx, id[0], id[1])
	if err != nil || cmd.json {
		return orJSON(cmd, cat, err)
	}
	return printFields(cmd.stdout, append([]string{"catalog", strings.Join(id, "."), "type", string(cat.Type),
		"provider", cat.Provider, "comment", deref(cat.Comment), "properties", formatProperties(cat.Properties)}, auditFields(cat.Audit)...)...)
}

func listSchemas(ctx context.Context, cmd *command, c *apiclient.Client, parent []string) error {
	names, err := c.ListSchemas(ctx, namespace(parent))
	if err != nil {
		return err
	}
	return printIdentifiers(cmd, parent, names, "schemas in catalog "+strings.Join(parent, "."))
}

func getSchema(ctx context.Context, cmd *command, c *apiclient.Client, id []string) error {
	s, err := c.GetSchema(ctx, namespace(id[:2]), id[2])
	if err != nil || cmd.json {
		return orJSON(cmd, s, err)
	}
	return printFields(cmd.stdout, append([]string{"schema", strings.Join(id, "."), "comment", deref(s.Comment),
		"properties", formatProperties(s.Properties)}, auditFields(s.Audit)...)...)
}

func listTables(ctx context.Context, cmd *command, c *apiclient.Client, parent []string) error {
	names, err := c.ListTables(ctx, namespace(parent))
	if err != nil {
		return err
	}
	return printIdentifiers(cmd, parent, names, "tables in schema "+strings.Join(parent, "."))
}

func getTable(ctx context.Context, cmd *command, c *apiclient.Client, id []string) error {
	tbl, err := c.GetTable(ctx, namespace(id[:3]), id[3])
	if err != nil || cmd.json {
		return orJSON(cmd, tbl, err)
	}
	obj := semcat.ObjectRef{Type: semcat.KindTable, FullName: strings.Join(id[1:], ".")}
	tags, err := c.ListObjectTags(ctx, id[0], obj)
	if err != nil {
		return err
	}
	owner, err := ownerName(ctx, c, id[0], obj)
	if err != nil {
		return err
	}
	if err := printFields(cmd.stdout, append([]string{"table", strings.Join(id, "."), "comment", deref(tbl.Comment),
		"owner", owner, "tags", strings.Join(tags, ", "), "properties", formatProperties(tbl.Properties)}, auditFields(tbl.Audit)...)...); err != nil {
		return err
	}
	fmt.Fprintln(cmd.stdout)
	t := newTable(cmd.stdout, "COLUMN", "TYPE", "NULLABLE", "COMMENT")
	for _, col := range tbl.Columns {
		typ := strings.TrimPrefix(semcat.ColumnsDDL([]semcat.Column{col}), col.Name+" ")
		t.row(col.Name, clip(typ, 80), strconv.FormatBool(col.IsNullable()), clip(deref(col.Comment), 50))
	}
	return t.flush()
}

func listModels(ctx context.Context, cmd *command, c *apiclient.Client, parent []string) error {
	names, err := c.ListSemanticModels(ctx, namespace(parent))
	if err != nil {
		return err
	}
	return printIdentifiers(cmd, parent, names, "semantic models in schema "+strings.Join(parent, "."))
}

func getModel(ctx context.Context, cmd *command, c *apiclient.Client, id []string) error {
	m, err := c.GetSemanticModel(ctx, namespace(id[:3]), id[3])
	if err != nil || cmd.json {
		return orJSON(cmd, m, err)
	}
	owner, err := ownerName(ctx, c, id[0], semcat.ObjectRef{Type: semcat.KindSemanticModel, FullName: strings.Join(id[1:], ".")})
	if err != nil {
		return err
	}
	if err := printFields(cmd.stdout, append([]string{"semantic model", strings.Join(id, "."), "version", strconv.FormatInt(m.Version, 10),
		"comment", deref(m.Comment), "owner", owner, "properties", formatProperties(m.Properties)}, auditFields(m.Audit)...)...); err != nil {
		return err
	}
	fmt.Fprintln(cmd.stdout)
	t := newTable(cmd.stdout, "DATASET", "SOURCE", "FIELDS", "DESCRIPTION")
	for _, ds := range m.Definition.Datasets {
		source := ""
		if ds.Source != nil {
			source = strings.Join(append(append([]string{}, ds.Source.Namespace...), ds.Source.Name), ".")
		}
		t.row(ds.Name, source, strconv.Itoa(len(ds.Fields)), clip(deref(ds.Description), 50))
	}
	if err := t.flush(); err != nil {
		return err
	}
	if len(m.Definition.Relationships) > 0 {
		fmt.Fprintln(cmd.stdout)
		t = newTable(cmd.stdout, "RELATIONSHIP", "FROM", "TO", "COLUMNS")
		for _, rel := range m.Definition.Relationships {
			t.row(rel.Name, rel.From, rel.To, relationshipColumns(rel))
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	if len(m.Definition.Metrics) == 0 {
		return nil
	}
	fmt.Fprintln(cmd.stdout)
	t = newTable(cmd.stdout, "METRIC", "DATATYPE", "EXPRESSION")
	for _, mt := range m.Definition.Metrics {
		datatype := ""
		if mt.Datatype != nil {
			datatype = string(*mt.Datatype)
		}
		t.row(mt.Name, datatype, expressionText(mt.Expression, 60))
	}
	return t.flush()
}

// ownerName returns the name of an object's owner, or "" when it has none
// or the caller may not read it.
func ownerName(ctx context.Context, c *apiclient.Client, metalake string, obj semcat.ObjectRef) (string, error) {
	o, err := c.GetOwner(ctx, metalake, obj)
	switch {
	case semcat.ErrorCode(err) == semcat.EFORBIDDEN:
		return "", nil
	case err != nil:
		return "", err
	case o == nil:
		return "", nil
	}
	return o.Name, nil
}

// orJSON returns err, or prints v as JSON.
func orJSON(cmd *command, v any, err error) error {
	if err != nil {
		return err
	}
	return printJSON(cmd.stdout, v)
}

// relationshipColumns shows a relationship's join: "a = x, b = y".
func relationshipColumns(rel semcat.Relationship) string {
	pairs := make([]string, 0, len(rel.FromColumns))
	for i, f := range rel.FromColumns {
		to := ""
		if i < len(rel.ToColumns) {
			to = rel.ToColumns[i]
		}
		pairs = append(pairs, f+" = "+to)
	}
	return clip(strings.Join(pairs, ", "), 60)
}
