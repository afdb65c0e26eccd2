// Command dbtcorpus turns a dbt project's documentation into a relevance
// benchmark corpus: a file in `semcat import` format, as
// ../shared/data/catalog-corpus.jsonl (CATALOG-CORPUS.md there says how that
// one was made).
//
//	go run ./benchmarks/dbtcorpus -project DIR -metalake tuva -catalog tuva \
//	    -comment "…" > benchmarks/relevance/tuva/corpus.jsonl
//
// It reads every *.yml/*.yaml under the project's model, seed and snapshot
// folders (DIR/dbt_project.yml names them; models, seeds and snapshots by
// default) and maps:
//   - a model, seed or snapshot to a table in the schema named for its
//     folder below the models/seeds/snapshots folder (folders joined by "_";
//     a file at the top gets the folder's own name), with its description
//     as comment, its documented columns (description as comment, type from
//     data_type or meta.data_type, else string), tags from tags and
//     config.tags, and properties dbt_path, materialized, grain and the
//     scalar values of meta and config.meta;
//   - a source's table to a table in schema "source_<source name>";
//   - semantic_models and metrics (dbt's semantic layer) to one semantic
//     model "semantic_layer" in schema "semantic_layer": each semantic model
//     whose model is a converted table a dataset over that table (entities,
//     dimensions and measures its fields), each metric a metric with its
//     label and description and, for a simple metric, its measure's
//     aggregation as SQL; dbt's type and type_params are kept as a custom
//     extension (vendor "dbt"). Checked by importing dbt-labs/jaffle-shop's.
//
// Names semcat's name rule rejects are made valid (each rune that is not a
// letter, digit, '_', '/', '=' or '-' becomes '_', cut to 64 bytes; the
// original kept as property original_name). A second entity of the same
// name in a schema, and a second column of the same name in a table, are
// dropped. Jinja in a description is left as written. Output order is
// stable: files by path, entities in file order.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

func main() {
	project := flag.String("project", "", "the dbt project's folder (holding dbt_project.yml)")
	metalake := flag.String("metalake", "", "the metalake to create")
	catalog := flag.String("catalog", "", "the catalog to create")
	comment := flag.String("comment", "", "the catalog's comment (source, commit, licence)")
	flag.Parse()
	if *project == "" || *metalake == "" || *catalog == "" {
		flag.Usage()
		os.Exit(2)
	}
	c, err := convert(*project, *metalake, *catalog, *comment)
	if err == nil {
		err = c.write(os.Stdout)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "dbtcorpus:", err)
		os.Exit(1)
	}
}

// node is a model, seed, snapshot or source table as a schema file
// describes it.
type node struct {
	Name        string         `yaml:"name"`
	Description string         `yaml:"description"`
	Tags        any            `yaml:"tags"`
	Meta        map[string]any `yaml:"meta"`
	Grain       string         `yaml:"grain"`
	Config      struct {
		Tags         any            `yaml:"tags"`
		Meta         map[string]any `yaml:"meta"`
		Materialized string         `yaml:"materialized"`
	} `yaml:"config"`
	Columns []struct {
		Name        string         `yaml:"name"`
		Description string         `yaml:"description"`
		DataType    string         `yaml:"data_type"`
		Meta        map[string]any `yaml:"meta"`
		Config      struct {
			Meta map[string]any `yaml:"meta"`
		} `yaml:"config"`
	} `yaml:"columns"`
}

type schemaFile struct {
	Models    []node `yaml:"models"`
	Seeds     []node `yaml:"seeds"`
	Snapshots []node `yaml:"snapshots"`
	Sources   []struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Tables      []node `yaml:"tables"`
	} `yaml:"sources"`
	SemanticModels []semanticModel `yaml:"semantic_models"`
	Metrics        []metric        `yaml:"metrics"`
}

type semanticModel struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Model       string `yaml:"model"`
	Entities    []struct {
		Name        string `yaml:"name"`
		Type        string `yaml:"type"`
		Expr        any    `yaml:"expr"`
		Description string `yaml:"description"`
	} `yaml:"entities"`
	Dimensions []struct {
		Name        string `yaml:"name"`
		Type        string `yaml:"type"`
		Expr        any    `yaml:"expr"`
		Description string `yaml:"description"`
	} `yaml:"dimensions"`
	Measures []struct {
		Name        string `yaml:"name"`
		Agg         string `yaml:"agg"`
		Expr        any    `yaml:"expr"`
		Description string `yaml:"description"`
	} `yaml:"measures"`
}

type metric struct {
	Name        string         `yaml:"name"`
	Label       string         `yaml:"label"`
	Description string         `yaml:"description"`
	Type        string         `yaml:"type"`
	TypeParams  map[string]any `yaml:"type_params"`
}

// line is one line of the import file.
type line struct {
	Type      string   `json:"type"`
	Namespace string   `json:"namespace"`
	Entity    any      `json:"entity"`
	Tags      []string `json:"tags,omitempty"`
}

type tableEntity struct {
	Name       string            `json:"name"`
	Comment    string            `json:"comment,omitempty"`
	Columns    []columnEntity    `json:"columns"`
	Properties map[string]string `json:"properties,omitempty"`
}

type columnEntity struct {
	Name    string `json:"name"`
	Type    string `json:"type"`
	Comment string `json:"comment,omitempty"`
}

type corpus struct {
	metalake, catalog, comment string
	schemas                    []string
	tables                     map[string][]line // by schema
	seen                       map[string]bool   // schema.name
	schemaOf                   map[string]string // a model's name: its schema (the first one)
	tags                       map[string]bool
	models                     []semanticModel
	metrics                    []metric
}

func convert(project, metalake, catalog, comment string) (*corpus, error) {
	c := &corpus{metalake: metalake, catalog: catalog, comment: comment, tables: map[string][]line{}, seen: map[string]bool{}, schemaOf: map[string]string{}, tags: map[string]bool{}}
	var cfg struct {
		ModelPaths    []string `yaml:"model-paths"`
		SeedPaths     []string `yaml:"seed-paths"`
		SnapshotPaths []string `yaml:"snapshot-paths"`
	}
	b, err := os.ReadFile(filepath.Join(project, "dbt_project.yml"))
	if err != nil {
		return nil, err
	}
	if err := yaml.Unmarshal(b, &cfg); err != nil {
		return nil, fmt.Errorf("dbt_project.yml: %w", err)
	}
	roots := append(append(orDefault(cfg.ModelPaths, "models"), orDefault(cfg.SeedPaths, "seeds")...), orDefault(cfg.SnapshotPaths, "snapshots")...)
	for _, root := range roots {
		dir := filepath.Join(project, root)
		if _, err := os.Stat(dir); err != nil {
			continue
		}
		var files []string
		err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if !d.IsDir() && (strings.HasSuffix(p, ".yml") || strings.HasSuffix(p, ".yaml")) {
				files = append(files, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		sort.Strings(files)
		for _, f := range files {
			if err := c.readFile(project, dir, f); err != nil {
				return nil, err
			}
		}
	}
	return c, nil
}

func orDefault(paths []string, def string) []string {
	if len(paths) == 0 {
		return []string{def}
	}
	return paths
}

func (c *corpus) readFile(project, root, path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	var sf schemaFile
	if err := yaml.Unmarshal(b, &sf); err != nil {
		// Not a schema file dbt reads (a fixture, a broken draft): skipped.
		fmt.Fprintf(os.Stderr, "dbtcorpus: skipping %s: %v\n", path, err)
		return nil
	}
	rel, _ := filepath.Rel(project, path)
	dirRel, _ := filepath.Rel(root, filepath.Dir(path))
	schema := filepath.Base(root)
	if dirRel != "." {
		schema = strings.ReplaceAll(filepath.ToSlash(dirRel), "/", "_")
	}
	for _, list := range [][]node{sf.Models, sf.Seeds, sf.Snapshots} {
		for _, n := range list {
			c.addTable(schema, n, rel, "")
		}
	}
	for _, s := range sf.Sources {
		for _, n := range s.Tables {
			c.addTable("source_"+s.Name, n, rel, s.Description)
		}
	}
	c.models = append(c.models, sf.SemanticModels...)
	c.metrics = append(c.metrics, sf.Metrics...)
	return nil
}

func (c *corpus) addTable(schema string, n node, path, parentDesc string) {
	schema, _ = validName(schema)
	name, renamed := validName(n.Name)
	if n.Name == "" || c.seen[schema+"."+name] {
		return
	}
	c.seen[schema+"."+name] = true
	if _, ok := c.schemaOf[name]; !ok {
		c.schemaOf[name] = schema
	}
	if c.tables[schema] == nil {
		c.schemas = append(c.schemas, schema)
	}
	t := tableEntity{Name: name, Comment: strings.TrimSpace(n.Description), Columns: []columnEntity{},
		Properties: map[string]string{"dbt_path": filepath.ToSlash(path)}}
	if t.Comment == "" && parentDesc != "" {
		t.Comment = strings.TrimSpace(parentDesc)
	}
	if renamed {
		t.Properties["original_name"] = n.Name
	}
	if n.Config.Materialized != "" {
		t.Properties["materialized"] = n.Config.Materialized
	}
	if n.Grain != "" {
		t.Properties["grain"] = strings.TrimSpace(n.Grain)
	}
	flattenMeta("", n.Meta, t.Properties)
	flattenMeta("", n.Config.Meta, t.Properties)
	cols := map[string]bool{}
	for _, col := range n.Columns {
		cn, _ := validName(col.Name)
		if col.Name == "" || cols[strings.ToLower(cn)] {
			continue
		}
		cols[strings.ToLower(cn)] = true
		typ := col.DataType
		for _, m := range []map[string]any{col.Meta, col.Config.Meta} {
			if s, ok := m["data_type"].(string); ok && typ == "" {
				typ = s
			}
		}
		t.Columns = append(t.Columns, columnEntity{Name: cn, Type: semcatType(typ), Comment: strings.TrimSpace(col.Description)})
	}
	var tags []string
	for _, v := range []any{n.Tags, n.Config.Tags} {
		for _, tag := range stringList(v) {
			if tn, _ := validName(tag); tn != "" && !contains(tags, tn) {
				tags = append(tags, tn)
				c.tags[tn] = true
			}
		}
	}
	c.tables[schema] = append(c.tables[schema], line{Type: "table", Namespace: c.metalake + "." + c.catalog + "." + schema, Entity: t, Tags: tags})
}

// flattenMeta copies meta's scalar values into props, nested keys joined
// by ".".
func flattenMeta(prefix string, meta map[string]any, props map[string]string) {
	for k, v := range meta {
		key := prefix + k
		switch v := v.(type) {
		case map[string]any:
			flattenMeta(key+".", v, props)
		case string, int, float64, bool:
			s := strings.TrimSpace(fmt.Sprint(v))
			if s != "" && len(key) <= 128 {
				props[key] = s[:min(len(s), 4096)]
			}
		case []any:
			var parts []string
			for _, e := range v {
				switch e.(type) {
				case string, int, float64, bool:
					parts = append(parts, fmt.Sprint(e))
				}
			}
			if len(parts) > 0 && len(key) <= 128 {
				s := strings.Join(parts, ", ")
				props[key] = s[:min(len(s), 4096)]
			}
		}
	}
}

// semcatType maps a warehouse type name to one of semcat's, string when
// unknown.
func semcatType(t string) string {
	t = strings.ToLower(strings.TrimSpace(t))
	if i := strings.IndexAny(t, "( "); i >= 0 {
		t = t[:i]
	}
	switch t {
	case "int", "integer", "smallint", "tinyint":
		return "integer"
	case "bigint", "long", "int64":
		return "long"
	case "number", "numeric", "decimal", "float", "float64", "double", "real":
		return "double"
	case "boolean", "bool":
		return "boolean"
	case "date":
		return "date"
	case "timestamp", "datetime", "timestamp_ntz", "timestamp_tz", "timestamptz":
		return "timestamp"
	}
	return "string"
}

func stringList(v any) []string {
	switch v := v.(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func contains(l []string, s string) bool {
	for _, e := range l {
		if e == s {
			return true
		}
	}
	return false
}

// validName makes name a valid semcat name; renamed says it changed.
func validName(name string) (string, bool) {
	b := []byte(name)
	for i, ch := range b {
		ok := 'a' <= ch && ch <= 'z' || 'A' <= ch && ch <= 'Z' || '0' <= ch && ch <= '9' || ch == '_' ||
			i > 0 && (ch == '/' || ch == '=' || ch == '-')
		if !ok {
			b[i] = '_'
		}
	}
	out := string(b[:min(len(b), 64)])
	return out, out != name
}

func (c *corpus) write(w *os.File) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	emit := func(l line) error { return enc.Encode(l) }
	if err := emit(line{Type: "metalake", Entity: map[string]string{"name": c.metalake, "comment": "search relevance benchmark corpus"}}); err != nil {
		return err
	}
	tags := make([]string, 0, len(c.tags))
	for t := range c.tags {
		tags = append(tags, t)
	}
	sort.Strings(tags)
	for _, t := range tags {
		if err := emit(line{Type: "tag", Namespace: c.metalake, Entity: map[string]string{"name": t}}); err != nil {
			return err
		}
	}
	if err := emit(line{Type: "catalog", Namespace: c.metalake, Entity: map[string]string{"name": c.catalog, "type": "relational", "comment": c.comment}}); err != nil {
		return err
	}
	for _, s := range c.schemas {
		if err := emit(line{Type: "schema", Namespace: c.metalake + "." + c.catalog, Entity: map[string]string{"name": s}}); err != nil {
			return err
		}
		for _, t := range c.tables[s] {
			if err := emit(t); err != nil {
				return err
			}
		}
	}
	sm := c.semanticModel()
	if sm == nil {
		return nil
	}
	if err := emit(line{Type: "schema", Namespace: c.metalake + "." + c.catalog, Entity: map[string]string{"name": "semantic_layer"}}); err != nil {
		return err
	}
	return emit(line{Type: "semantic_model", Namespace: c.metalake + "." + c.catalog + ".semantic_layer", Entity: sm})
}

// semanticModel is the project's semantic layer as one semantic model, or
// nil when it has none: each semantic model whose model is one of the
// converted tables a dataset (its source that table), each metric a metric
// (its label before its description; dbt's type and type_params kept as a
// custom extension, vendor "dbt").
func (c *corpus) semanticModel() map[string]any {
	sql := func(s string) map[string]any {
		return map[string]any{"dialects": []map[string]string{{"dialect": "ANSI_SQL", "expression": s}}}
	}
	exprOr := func(e any, name string) string {
		if e != nil {
			if s := strings.TrimSpace(fmt.Sprint(e)); s != "" {
				return s
			}
		}
		return name
	}
	measures := map[string]string{}
	var datasets []map[string]any
	seen := map[string]bool{}
	for _, m := range c.models {
		ref := strings.TrimSpace(m.Model)
		ref = strings.TrimSuffix(strings.TrimPrefix(ref, "ref("), ")")
		ref = strings.Trim(ref, "'\" ")
		schema, ok := c.schemaOf[ref]
		name, _ := validName(m.Name)
		if !ok || seen[name] {
			continue
		}
		seen[name] = true
		var fields []map[string]any
		fieldSeen := map[string]bool{}
		add := func(fname, expr, desc string, isTime bool) {
			fname, _ = validName(fname)
			if fieldSeen[fname] {
				return
			}
			fieldSeen[fname] = true
			f := map[string]any{"name": fname, "expression": sql(expr), "description": desc}
			if isTime {
				f["dimension"] = map[string]bool{"isTime": true}
			}
			fields = append(fields, f)
		}
		for _, e := range m.Entities {
			add(e.Name, exprOr(e.Expr, e.Name), strings.TrimSpace(e.Type+" entity. "+e.Description), false)
		}
		for _, d := range m.Dimensions {
			add(d.Name, exprOr(d.Expr, d.Name), strings.TrimSpace(d.Description), d.Type == "time")
		}
		for _, ms := range m.Measures {
			agg, arg := strings.ToUpper(ms.Agg), name+"."+exprOr(ms.Expr, ms.Name)
			switch agg {
			case "COUNT_DISTINCT":
				measures[ms.Name] = "COUNT(DISTINCT " + arg + ")"
			case "AVERAGE":
				measures[ms.Name] = "AVG(" + arg + ")"
			case "SUM_BOOLEAN":
				measures[ms.Name] = "SUM(CASE WHEN " + arg + " THEN 1 ELSE 0 END)"
			default:
				measures[ms.Name] = agg + "(" + arg + ")"
			}
			add(ms.Name, exprOr(ms.Expr, ms.Name), strings.TrimSpace("Measure ("+ms.Agg+"). "+ms.Description), false)
		}
		datasets = append(datasets, map[string]any{"name": name, "description": strings.TrimSpace(m.Description),
			"source": map[string]any{"namespace": []string{c.catalog, schema}, "name": ref}, "fields": fields})
	}
	if len(datasets) == 0 {
		return nil
	}
	var metrics []map[string]any
	metricSeen := map[string]bool{}
	for _, m := range c.metrics {
		name, _ := validName(m.Name)
		if m.Name == "" || metricSeen[name] {
			continue
		}
		metricSeen[name] = true
		expr := "-- " + m.Type + " metric"
		if s, ok := measures[fmt.Sprint(measureName(m.TypeParams["measure"]))]; ok {
			expr = s
		}
		desc := strings.TrimSpace(m.Description)
		if l := strings.TrimSpace(m.Label); l != "" && l != desc {
			desc = strings.TrimSpace(l + ". " + desc)
		}
		ext, _ := json.Marshal(map[string]any{"type": m.Type, "type_params": m.TypeParams})
		metrics = append(metrics, map[string]any{"name": name, "description": desc, "expression": sql(expr), "datatype": "Decimal",
			"customExtensions": []map[string]string{{"vendorName": "dbt", "data": string(ext)}}})
	}
	return map[string]any{"name": "semantic_layer", "comment": "The project's dbt semantic models and metrics",
		"definition": map[string]any{"datasets": datasets, "metrics": metrics}}
}

func measureName(v any) any {
	if m, ok := v.(map[string]any); ok {
		return m["name"]
	}
	return v
}
