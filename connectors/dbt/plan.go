package dbt

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/semcat/semcat"
)

// The properties that mark what an import wrote. dbt.project says which
// project imported an object (prune removes only its own), dbt.unique_id
// which node it came from.
const (
	PropProject  = "dbt.project"
	PropUniqueID = "dbt.unique_id"
	// PropTags lists the dbt tags the import attached, so that a later
	// import removes only those when dbt drops them.
	PropTags = "dbt.tags"
	// PropColumnTypes holds, as JSON, the source types of the columns whose
	// Gravitino type only approximates them.
	PropColumnTypes = "dbt.column_types"
	// PropColumnNames maps, as JSON, the columns renamed to valid semcat
	// names to their names in the warehouse.
	PropColumnNames = "dbt.column_names"
	// PropColumnMeta holds, as JSON, the columns' dbt meta and tags.
	PropColumnMeta = "dbt.column_meta"
	// PropSources lists the dbt sources declared over a table that a model
	// or seed builds.
	PropSources = "dbt.sources"
	propPrefix  = "dbt."
)

// Plan is what a project's artifacts describe, mapped onto one semcat
// catalog: the desired state an import brings the catalog to.
type Plan struct {
	Project    string
	DBTVersion string
	// Spec names the semantic layer's spec: "measures" (dbt before 1.12),
	// "metric aggregation" (1.12 and later), or "" without one.
	Spec    string
	Catalog string
	Schemas []string
	Tables  []*TablePlan
	Models  []*ModelPlan
	Tags    []string
	Metrics int
	// Issues are the items that could not be mapped; an import with any
	// fails unless partial imports are allowed.
	Issues []Issue
	// Skipped are the kinds of dbt objects semcat has no place for (tests,
	// exposures, saved queries, ephemeral models), by name.
	Skipped []Issue
	// Notes say what was imported differently from how dbt names it (a
	// name semcat's rule rejects, made valid).
	Notes []Issue
}

// TablePlan is one table to create or keep up to date.
type TablePlan struct {
	Schema   string
	UniqueID string
	Table    semcat.TableCreate
	Tags     []string
	// Owner is meta.owner ("" for none); it becomes the table's owner when
	// a user of that name exists.
	Owner string
	// orig maps the lower-cased warehouse name of each column to its name
	// in the table.
	orig map[string]string
}

// ModelPlan is one semantic model to create or keep up to date.
type ModelPlan struct {
	Schema   string
	UniqueID string
	Model    semcat.SemanticModelCreate
	// Owner is the semantic model's meta.owner ("" for none).
	Owner string
}

// Issue names an item and why it was not (fully) imported.
type Issue struct {
	Item   string `json:"item"`
	Reason string `json:"reason"`
}

func (i Issue) String() string { return i.Item + ": " + i.Reason }

// tableKinds are the node kinds that become tables.
var tableKinds = map[string]bool{"model": true, "seed": true, "snapshot": true, "source": true}

// planner builds a Plan.
type planner struct {
	*Plan
	a *Artifacts
	// byRelation finds a table by schema and name, for semantic models.
	byRelation map[[2]string]*TablePlan
	byID       map[string]*TablePlan
	tags       map[string]bool
	// renamedSchemas and renamedTags are noted once each.
	renamedSchemas, renamedTags map[string]bool
	// modelNames are the semantic models planned, by schema.name.
	modelNames map[string]bool
}

// NewPlan maps the artifacts onto catalog. project overrides the project
// name the manifest gives ("" keeps it).
func NewPlan(a *Artifacts, catalog, project string) (*Plan, error) {
	if project == "" {
		project = a.Manifest.Metadata.ProjectName
	}
	if project == "" {
		project = mostCommonPackage(a.Manifest)
	}
	if project == "" {
		return nil, semcat.Errorf(semcat.EINVALID, "manifest.json: no metadata.project_name and no nodes; name the project with --project")
	}
	p := &planner{
		Plan:       &Plan{Project: project, DBTVersion: a.Manifest.Metadata.DBTVersion, Catalog: catalog},
		a:          a,
		byRelation: map[[2]string]*TablePlan{},
		byID:       map[string]*TablePlan{},
		tags:       map[string]bool{},

		renamedSchemas: map[string]bool{},
		modelNames:     map[string]bool{},
		renamedTags:    map[string]bool{},
	}
	skipped := map[string][]string{}
	for _, set := range []map[string]*Node{a.Manifest.Nodes, a.Manifest.Sources} {
		for _, id := range sortedKeys(set) {
			n := set[id]
			if n.UniqueID == "" {
				n.UniqueID = id
			}
			switch {
			case !tableKinds[n.ResourceType]:
				skipped[n.ResourceType] = append(skipped[n.ResourceType], n.UniqueID)
			case n.Config.Materialized == "ephemeral":
				skipped["ephemeral model"] = append(skipped["ephemeral model"], n.UniqueID)
			case n.Config.Enabled != nil && !*n.Config.Enabled:
				skipped["disabled node"] = append(skipped["disabled node"], n.UniqueID)
			default:
				p.table(n)
			}
		}
	}
	if len(a.Manifest.Exposures) > 0 {
		skipped["exposure"] = sortedKeys(a.Manifest.Exposures)
	}
	for _, kind := range sortedKeys(skipped) {
		ids := skipped[kind]
		p.Skipped = append(p.Skipped, Issue{Item: fmt.Sprintf("%d %s", len(ids), plural(kind, len(ids))), Reason: "semcat has no place for them: " + list(ids, 8)})
	}
	p.semantic()
	sort.SliceStable(p.Tables, func(i, j int) bool {
		return p.Tables[i].Schema+"\x00"+p.Tables[i].Table.Name < p.Tables[j].Schema+"\x00"+p.Tables[j].Table.Name
	})
	schemas := map[string]bool{}
	for _, t := range p.Tables {
		schemas[t.Schema] = true
	}
	for _, m := range p.Models {
		schemas[m.Schema] = true
	}
	p.Schemas = sortedKeys(schemas)
	p.Tags = sortedKeys(p.tags)
	return p.Plan, nil
}

func (p *planner) issue(item, format string, args ...any) {
	p.Issues = append(p.Issues, Issue{Item: item, Reason: fmt.Sprintf(format, args...)})
}

func (p *planner) note(item, format string, args ...any) {
	p.Notes = append(p.Notes, Issue{Item: item, Reason: fmt.Sprintf(format, args...)})
}

// table maps one node onto a table.
func (p *planner) table(n *Node) {
	name := n.Alias
	if n.ResourceType == "source" {
		name = n.Identifier
	}
	if name == "" {
		name = n.Name
	}
	if n.Schema == "" {
		p.issue(n.UniqueID, "has no schema")
		return
	}
	schema, schemaRenamed := semcatName(n.Schema)
	if schemaRenamed && !p.renamedSchemas[n.Schema] {
		p.renamedSchemas[n.Schema] = true
		p.note("schema "+n.Schema, "imported as '%s' (a semcat name is 1-64 of A-Z a-z 0-9 _ / = -)", schema)
	}
	relation := name
	name, renamed := semcatName(name)
	if renamed {
		p.note(n.UniqueID, "relation '%s' imported as table %s.%s (the dbt name kept in property dbt.alias)", relation, schema, name)
	}
	key := [2]string{schema, name}
	if other := p.byRelation[key]; other != nil {
		if n.ResourceType == "source" && other.Table.Properties["dbt.database"] == n.Database {
			// A source declared over a seed's or model's relation (as
			// jaffle-shop's raw tables): one table, both identities.
			props := other.Table.Properties
			props[PropSources] = strings.TrimPrefix(props[PropSources]+","+n.UniqueID, ",")
			if other.Table.Comment == nil {
				other.Table.Comment = optional(n.Description)
			}
			p.byID[n.UniqueID] = other
			return
		}
		p.issue(n.UniqueID, "its relation %s.%s is also %s's (databases are not kept apart)", schema, name, other.UniqueID)
		return
	}
	props := map[string]string{
		PropProject:         p.Project,
		PropUniqueID:        n.UniqueID,
		"dbt.resource_type": n.ResourceType,
	}
	if renamed {
		props["dbt.alias"] = relation
	}
	if schemaRenamed {
		props["dbt.schema"] = n.Schema
	}
	setIf := func(k, v string) {
		if v != "" {
			props[k] = v
		}
	}
	setIf("dbt.materialized", n.Config.Materialized)
	setIf("dbt.database", n.Database)
	setIf("dbt.path", n.OriginalFilePath)
	setIf("dbt.source_name", n.SourceName)
	setIf("dbt.loader", n.Loader)
	setIf("dbt.depends_on", strings.Join(n.DependsOn.Nodes, ","))

	meta := map[string]any{}
	for k, v := range n.Meta {
		meta[k] = v
	}
	for k, v := range n.Config.Meta {
		meta[k] = v
	}
	owner := ""
	if o, ok := meta["owner"].(string); ok {
		owner = o
	}
	for _, k := range sortedKeys(meta) {
		v, ok := meta[k].(string)
		if !ok {
			b, _ := json.Marshal(meta[k])
			v = string(b)
		}
		props["dbt.meta."+k] = v
	}

	tags := map[string]bool{}
	for _, t := range n.Tags {
		tags[t] = true
	}
	switch ct := n.Config.Tags.(type) {
	case string:
		tags[ct] = true
	case []any:
		for _, t := range ct {
			if s, ok := t.(string); ok {
				tags[s] = true
			}
		}
	}
	var tagList []string
	for _, t := range sortedKeys(tags) {
		tag, renamed := semcatName(t)
		if renamed && !p.renamedTags[t] {
			p.renamedTags[t] = true
			p.note("tag "+t, "imported as '%s'", tag)
		}
		if !slices.Contains(tagList, tag) {
			tagList = append(tagList, tag)
		}
		p.tags[tag] = true
	}
	setIf(PropTags, strings.Join(tagList, ","))

	var cat *CatalogTable
	if p.a.Catalog != nil {
		if n.ResourceType == "source" {
			cat = p.a.Catalog.Sources[n.UniqueID]
		} else {
			cat = p.a.Catalog.Nodes[n.UniqueID]
		}
	}
	cols, approx := columns(n, cat, p.a.Manifest.Metadata.AdapterType == "snowflake")
	if len(approx) > 0 {
		b, _ := json.Marshal(approx)
		props[PropColumnTypes] = string(b)
	}
	// Column names semcat cannot take are made valid (and distinct); the
	// originals are kept, and semantic models find columns by either.
	orig := map[string]string{}
	renamedCols := map[string]string{}
	taken := map[string]bool{}
	for _, c := range cols {
		taken[c.Name] = true
	}
	for i, c := range cols {
		orig[strings.ToLower(c.Name)] = c.Name
		valid, changed := semcatName(c.Name)
		if !changed {
			continue
		}
		delete(taken, c.Name)
		for k := 2; taken[valid]; k++ {
			suffix := fmt.Sprintf("_%d", k)
			valid = valid[:min(len(valid), semcat.MaxNameLength-len(suffix))] + suffix
		}
		taken[valid] = true
		renamedCols[valid] = c.Name
		orig[strings.ToLower(c.Name)] = valid
		cols[i].Name = valid
	}
	if len(renamedCols) > 0 {
		b, _ := json.Marshal(renamedCols)
		props[PropColumnNames] = string(b)
		p.note(n.UniqueID, "%d %s renamed to valid semcat names (the originals kept in property %s)",
			len(renamedCols), plural("column", len(renamedCols)), PropColumnNames)
	}
	// Column meta and tags have no place on a semcat column: kept as JSON.
	colMeta := map[string]any{}
	for _, c := range n.Columns {
		m := map[string]any{}
		if len(c.Meta) > 0 {
			m["meta"] = c.Meta
		}
		if len(c.Tags) > 0 {
			m["tags"] = c.Tags
		}
		if len(m) > 0 {
			colMeta[c.Name] = m
		}
	}
	if len(colMeta) > 0 {
		b, _ := json.Marshal(colMeta)
		props[PropColumnMeta] = string(b)
	}
	for k, v := range props {
		if utf8.RuneCountInString(k) > semcat.MaxPropertyKeyLength {
			p.issue(n.UniqueID, "property '%s' has a key longer than %d characters", k, semcat.MaxPropertyKeyLength)
			delete(props, k)
		} else if utf8.RuneCountInString(v) > semcat.MaxPropertyValueLength {
			p.issue(n.UniqueID, "property '%s' is longer than %d characters", k, semcat.MaxPropertyValueLength)
			delete(props, k)
		}
	}
	comment := optional(n.Description)
	if comment == nil && cat != nil && cat.Metadata.Comment != nil && *cat.Metadata.Comment != "" {
		comment = cat.Metadata.Comment
	}
	tp := &TablePlan{Schema: schema, UniqueID: n.UniqueID, Tags: tagList, Owner: owner, orig: orig,
		Table: semcat.TableCreate{Name: name, Comment: comment, Columns: cols, Properties: props}}
	if err := semcat.ValidateColumns("columns", cols); err != nil {
		p.issue(n.UniqueID, "%s", semcat.ErrorMessage(err))
		return
	}
	p.Tables = append(p.Tables, tp)
	p.byRelation[key] = tp
	p.byID[n.UniqueID] = tp
}

// columns merges the warehouse's columns (catalog.json: names, types,
// order) with the documented ones (descriptions, data_type). A documented
// column keeps its spelling (dbt's lower case against Snowflake's upper
// case); documented columns the warehouse does not have come last. approx
// maps a column to its source type where the Gravitino type approximates
// it ("unknown" where nothing gave a type).
//
// On Snowflake, which upper-cases unquoted names, an upper-case name the
// manifest does not spell otherwise is written in lower case, as dbt
// projects write them.
func columns(n *Node, cat *CatalogTable, foldsUpper bool) (cols []semcat.Column, approx map[string]string) {
	approx = map[string]string{}
	docs := map[string]*Column{}
	for i := range n.Columns {
		docs[strings.ToLower(n.Columns[i].Name)] = &n.Columns[i]
	}
	used := map[string]bool{}
	add := func(name, typ string, comment *string, notNull bool) {
		c := semcat.Column{Name: name, Comment: comment}
		if notNull {
			no := false
			c.Nullable = &no
		}
		if typ == "" {
			c.Type, approx[name] = &semcat.Type{Name: "string"}, "unknown"
		} else {
			var exact bool
			if c.Type, exact = mapType(typ); !exact {
				approx[name] = typ
			}
		}
		cols = append(cols, c)
	}
	if cat != nil {
		for _, cc := range cat.Ordered() {
			name, comment, notNull := cc.Name, cc.Comment, false
			if comment != nil && *comment == "" {
				comment = nil
			}
			if foldsUpper && name == strings.ToUpper(name) {
				name = strings.ToLower(name)
			}
			if d := docs[strings.ToLower(cc.Name)]; d != nil {
				name = d.Name
				if c := optional(d.Description); c != nil {
					comment = c
				}
				notNull = d.notNull()
				used[strings.ToLower(cc.Name)] = true
			}
			add(name, cc.Type, comment, notNull)
		}
	}
	for _, d := range n.Columns {
		if used[strings.ToLower(d.Name)] {
			continue
		}
		used[strings.ToLower(d.Name)] = true
		typ := ""
		if d.DataType != nil {
			typ = *d.DataType
		}
		add(d.Name, typ, optional(d.Description), d.notNull())
	}
	if cols == nil {
		cols = []semcat.Column{}
	}
	if len(approx) == 0 {
		approx = nil
	}
	return cols, approx
}

// optional is s, or nil when s is empty (dbt writes "" for no description).
func optional(s string) *string {
	if strings.TrimSpace(s) == "" {
		return nil
	}
	return &s
}

func mostCommonPackage(m Manifest) string {
	count := map[string]int{}
	best := ""
	for _, n := range m.Nodes {
		if tableKinds[n.ResourceType] && n.PackageName != "" {
			count[n.PackageName]++
			if c := count[n.PackageName]; c > count[best] || c == count[best] && n.PackageName < best {
				best = n.PackageName
			}
		}
	}
	return best
}

func plural(word string, n int) string {
	if n == 1 {
		return word
	}
	if strings.HasSuffix(word, "y") {
		return word[:len(word)-1] + "ies"
	}
	return word + "s"
}

// list joins up to most names, saying how many more there are.
func list(names []string, most int) string {
	if len(names) <= most {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:most], ", "), len(names)-most)
}
