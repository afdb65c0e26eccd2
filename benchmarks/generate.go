package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
)

// The generator builds a realistic catalog deterministically from a seed:
// a metalake with catalogs → schemas → tables (nested schemas of 5–200
// fields) and semantic models (5–50 metrics over the schema's tables), with
// properties whose values are 1–8 words drawn from a Zipf-skewed vocabulary
// and 0–6 tags per entity.
//
// Only the skeleton (how many catalogs, schemas, tables and models, and how
// many metrics each model has) is kept in memory. Every entity is generated
// on demand from its own random stream, seeded by the run's seed and the
// entity's position, so a table comes out identical whether the loader, the
// PostgreSQL comparison or a query sampler asks for it, in any order, and a
// 1M-entity catalog never has to fit in memory.

// sizes are the catalog sizes of -size, in entities (catalogs + schemas +
// tables + semantic models + metrics).
var sizes = map[string]int{"10k": 10_000, "100k": 100_000, "1m": 1_000_000}

// Tunables of the catalog's shape.
const (
	vocabularySize = 8000 // words of property values, field and entity names
	tagVocabulary  = 150  // distinct tags
	zipfS          = 1.1  // skew of word and tag frequencies
	zipfV          = 2.0

	discoveryMetrics = 20 // metrics per model in the discovery schema
	discoveryTables  = 20 // tables the discovery models draw their datasets from
	maxDiscovery     = 1000

	modelOneIn = 30 // one schema slot in modelOneIn is a semantic model
)

// propertyKeys are the user property keys. None is a system property key
// (SPEC §4.2), so key:value queries match user metadata only.
var propertyKeys = []string{
	"owner", "domain", "team", "layer", "source", "format", "retention", "sla",
	"pii", "steward", "costcenter", "region", "env", "quality", "refresh",
	"upstream", "downstream", "purpose", "classification", "project",
	"product", "contact", "status", "notes",
}

// refKey is the property every catalog, schema, table and model carries with
// a value unique in the catalog: the target of exact key:value queries.
const refKey = "ref"

// reserved words never enter the vocabulary: type keywords, datatypes,
// dialects and system values would make a vocabulary word match system
// metadata in semcat but not the PostgreSQL documents.
var reserved = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`boolean byte short integer long float double decimal date time timestamp
		timestamp_tz string varchar char uuid binary struct list map union opaque datetime datetimetz
		ansi_sql snowflake trino schema tags properties table metric catalog semantic_model model
		anonymous relational fileset messaging sum count avg min max distinct and or not`) {
		reserved[w] = true
	}
}

// Generator produces the catalog of one run.
type Generator struct {
	Seed  uint64
	Words []string // vocabulary; index 0 is the most frequent word
	Tags  []string // tag names; index 0 is the most frequent tag
	Plan  Plan
}

// Plan is the skeleton of the catalog.
type Plan struct {
	Metalake  string
	Catalogs  []CatalogPlan
	Discovery SchemaRef // 1,000 (or fewer at small sizes) models × 20 metrics
	Lag       SchemaRef // empty at load; the write-lag scenario writes here
	Counts    Counts
}

// CatalogPlan is one catalog and its schemas.
type CatalogPlan struct {
	Name    string
	Schemas []SchemaPlan
}

// SchemaPlan is one schema: its tables come first (indexes 0..Tables-1), and
// each model's metric count.
type SchemaPlan struct {
	Name    string
	Tables  int
	Metrics []int // Metrics[i] is the number of metrics of model i
}

// SchemaRef names a schema of the plan by position.
type SchemaRef struct{ Catalog, Schema int }

// Counts counts the entities of a catalog by kind.
type Counts struct {
	Catalogs int `json:"catalogs"`
	Schemas  int `json:"schemas"`
	Tables   int `json:"tables"`
	Models   int `json:"models"`
	Metrics  int `json:"metrics"`
}

// Entities is the number of searchable entities.
func (c Counts) Entities() int { return c.Catalogs + c.Schemas + c.Tables + c.Models + c.Metrics }

// NewGenerator builds the vocabulary and the plan of a catalog of about n
// entities (exactly n unless n is too small for the fixed schemas).
func NewGenerator(seed uint64, n int) *Generator {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	g := &Generator{Seed: seed}
	g.Words = makeWords(r, vocabularySize, 2, 3)
	g.Tags = makeWords(r, tagVocabulary, 2, 2)
	g.Plan = makePlan(r, g.Words, n)
	return g
}

// makeWords returns n distinct pronounceable lower-case words of minSyl to
// maxSyl syllables (plus an optional final consonant), none reserved.
func makeWords(r *rand.Rand, n, minSyl, maxSyl int) []string {
	const consonants, vowels = "bdfgklmnprstvz", "aeiou"
	seen := map[string]bool{}
	out := make([]string, 0, n)
	for len(out) < n {
		var b strings.Builder
		syl := minSyl + r.IntN(maxSyl-minSyl+1)
		for range syl {
			b.WriteByte(consonants[r.IntN(len(consonants))])
			b.WriteByte(vowels[r.IntN(len(vowels))])
		}
		if r.IntN(3) == 0 {
			b.WriteByte(consonants[r.IntN(len(consonants))])
		}
		w := b.String()
		if seen[w] || reserved[w] {
			continue
		}
		seen[w] = true
		out = append(out, w)
	}
	return out
}

// makePlan lays out catalogs, schemas, tables and models until the entity
// count reaches n. Catalog 0 holds the discovery and lag schemas.
func makePlan(r *rand.Rand, words []string, n int) Plan {
	p := Plan{Metalake: "bench"}
	d := min(maxDiscovery, max(10, n/100))
	metrics := make([]int, d)
	for i := range metrics {
		metrics[i] = discoveryMetrics
	}
	p.Catalogs = []CatalogPlan{{Name: "bench_main", Schemas: []SchemaPlan{
		{Name: "discovery", Tables: discoveryTables, Metrics: metrics},
		{Name: "lag"},
	}}}
	p.Discovery, p.Lag = SchemaRef{0, 0}, SchemaRef{0, 1}
	c := &p.Counts
	c.Catalogs, c.Schemas, c.Tables, c.Models, c.Metrics = 1, 2, discoveryTables, d, d*discoveryMetrics

	word := func() string { return words[r.IntN(len(words))] }
	cat := &p.Catalogs[0]
	schemasLeft := 4 + r.IntN(9) // general schemas still to add to cat
	for c.Entities() < n {
		left := n - c.Entities()
		switch {
		case schemasLeft == 0 && left >= 3:
			p.Catalogs = append(p.Catalogs, CatalogPlan{Name: fmt.Sprintf("%s_%s_%d", word(), word(), len(p.Catalogs))})
			cat = &p.Catalogs[len(p.Catalogs)-1]
			c.Catalogs++
			schemasLeft = 4 + r.IntN(9)
			continue
		case schemasLeft > 0 && left >= 2:
			cat.Schemas = append(cat.Schemas, SchemaPlan{Name: fmt.Sprintf("%s_%d", word(), len(cat.Schemas))})
			c.Schemas++
			schemasLeft--
		}
		s := &cat.Schemas[len(cat.Schemas)-1]
		slots := 20 + r.IntN(101)
		for ; slots > 0 && c.Entities() < n; slots-- {
			left := n - c.Entities()
			if s.Tables > 0 && left >= 6 && r.IntN(modelOneIn) == 0 {
				m := min(5+r.IntN(46), left-1)
				s.Metrics = append(s.Metrics, m)
				c.Models++
				c.Metrics += m
				continue
			}
			s.Tables++
			c.Tables++
		}
	}
	return p
}

// Entity kinds, as semcat names them in search results and object paths.
const (
	kindCatalog = "catalog"
	kindSchema  = "schema"
	kindTable   = "table"
	kindModel   = "semantic_model"
	kindMetric  = "metric"
)

// Kind numbers for entityKey.
const (
	keyCatalog = iota + 1
	keySchema
	keyTable
	keyModel
)

// entityKey packs an entity's kind and position into the second seed of its
// random stream; it is also the number in the entity's unique ref value.
func entityKey(kind, ci, si, i int) uint64 {
	return uint64(kind)<<58 | uint64(ci)<<44 | uint64(si)<<26 | uint64(i)
}

// stream is one entity's random stream with the vocabulary samplers.
type stream struct {
	*rand.Rand
	g     *Generator
	words *rand.Zipf
	tags  *rand.Zipf
}

func (g *Generator) stream(kind, ci, si, i int) *stream {
	r := rand.New(rand.NewPCG(g.Seed, entityKey(kind, ci, si, i)))
	return &stream{Rand: r, g: g,
		words: rand.NewZipf(r, zipfS, zipfV, uint64(len(g.Words)-1)),
		tags:  rand.NewZipf(r, zipfS, zipfV, uint64(len(g.Tags)-1)),
	}
}

// word draws a vocabulary word by its Zipf frequency.
func (s *stream) word() string { return s.g.Words[s.words.Uint64()] }

// value draws a property value of 1–8 words, short values being commoner.
func (s *stream) value() string {
	n := min(8, 1+int(s.ExpFloat64()*1.6))
	ws := make([]string, n)
	for i := range ws {
		ws[i] = s.word()
	}
	return strings.Join(ws, " ")
}

// properties draws 2–8 user properties plus the unique ref.
func (s *stream) properties(ref string) map[string]string {
	p := map[string]string{refKey: ref}
	for n := 2 + s.IntN(7); len(p) < n+1; {
		p[propertyKeys[s.IntN(len(propertyKeys))]] = s.value()
	}
	return p
}

// tagCounts weights the number of tags of an entity, 0 to 6.
var tagCounts = []int{25, 20, 18, 14, 10, 7, 6}

// tagList draws 0–6 distinct tags by their Zipf frequency.
func (s *stream) tagList() []string {
	n, x := 0, s.IntN(100)
	for ; n < len(tagCounts)-1 && x >= tagCounts[n]; n++ {
		x -= tagCounts[n]
	}
	seen := map[string]bool{}
	var out []string
	for tries := 0; len(out) < n && tries < 50; tries++ {
		t := s.g.Tags[s.tags.Uint64()]
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

// uniqueName draws a vocabulary word not in used, and records it.
func (s *stream) uniqueName(used map[string]bool) string {
	for range 20 {
		if w := s.word(); !used[w] {
			used[w] = true
			return w
		}
	}
	for i := 2; ; i++ {
		if w := s.word() + strconv.Itoa(i); !used[w] {
			used[w] = true
			return w
		}
	}
}

// Entity is what every generated entity shares: where it is, its user
// metadata, and the text the PostgreSQL comparison indexes for it.
type Entity struct {
	Kind       string
	Catalog    string
	Schema     string // "" for a catalog
	Model      string // the model of a metric
	Name       string
	Properties map[string]string
	Tags       []string
	Fields     []string // schema field names at every depth (tables, models)
	Text       []string // other searchable text: dataset names, metric descriptions
}

// Identifier is the dotted name semcat uses in object paths and search.
func (e *Entity) Identifier() string {
	if e.Kind == kindCatalog {
		return e.Name
	}
	parts := []string{e.Catalog}
	if e.Schema != "" {
		parts = append(parts, e.Schema)
	}
	if e.Model != "" {
		parts = append(parts, e.Model)
	}
	return strings.Join(append(parts, e.Name), ".")
}

// ID names the entity uniquely across kinds.
func (e *Entity) ID() string { return e.Kind + ":" + e.Identifier() }

func refValue(key uint64) string { return "u" + strconv.FormatUint(key, 36) }

// Catalog generates catalog ci.
func (g *Generator) Catalog(ci int) *Entity {
	s := g.stream(keyCatalog, ci, 0, 0)
	return &Entity{Kind: kindCatalog, Catalog: g.Plan.Catalogs[ci].Name, Name: g.Plan.Catalogs[ci].Name,
		Properties: s.properties(refValue(entityKey(keyCatalog, ci, 0, 0))), Tags: s.tagList()}
}

// Schema generates schema si of catalog ci.
func (g *Generator) Schema(ci, si int) *Entity {
	s := g.stream(keySchema, ci, si, 0)
	return &Entity{Kind: kindSchema, Catalog: g.Plan.Catalogs[ci].Name, Name: g.Plan.Catalogs[ci].Schemas[si].Name,
		Properties: s.properties(refValue(entityKey(keySchema, ci, si, 0))), Tags: s.tagList()}
}

// Column is a table column or struct field in semcat's wire form.
type Column struct {
	Name string `json:"name"`
	Type any    `json:"type"` // a primitive name, or a nested type below
}

type structType struct {
	Type   string   `json:"type"` // "struct"
	Fields []Column `json:"fields"`
}

type listType struct {
	Type         string `json:"type"` // "list"
	ElementType  any    `json:"elementType"`
	ContainsNull bool   `json:"containsNull"`
}

type mapType struct {
	Type      string `json:"type"` // "map"
	KeyType   any    `json:"keyType"`
	ValueType any    `json:"valueType"`
}

// primitives are the leaf types, with the semantic-model datatype each
// maps to when a model uses the column as a field.
var primitives = []struct{ name, datatype string }{
	{"string", "String"}, {"string", "String"}, {"long", "Integer"}, {"integer", "Integer"},
	{"double", "Float"}, {"decimal(18,2)", "Decimal"}, {"timestamp", "DateTime"},
	{"date", "Date"}, {"boolean", "Boolean"}, {"varchar(64)", "String"},
}

// Table is a generated table.
type Table struct {
	Entity
	Columns []Column
}

// Body is the table's creation request.
func (t *Table) Body() any {
	return map[string]any{"name": t.Name, "columns": t.Columns, "properties": t.Properties}
}

// Table generates table ti of schema si of catalog ci: 5–200 fields in all
// (log-uniform, so small tables are commoner), with structs (some inside
// lists or maps) nested 1–3 deep.
func (g *Generator) Table(ci, si, ti int) *Table {
	s := g.stream(keyTable, ci, si, ti)
	cat, sch := g.Plan.Catalogs[ci].Name, g.Plan.Catalogs[ci].Schemas[si].Name
	t := &Table{Entity: Entity{Kind: kindTable, Catalog: cat, Schema: sch,
		Name: fmt.Sprintf("%s_%s_%d", s.word(), s.word(), ti)}}
	total := int(math.Exp(math.Log(5) + s.Float64()*(math.Log(201)-math.Log(5))))
	depth := 1 + s.IntN(3)
	t.Columns = s.fields(total, depth, depth, &t.Fields)
	t.Properties = s.properties(refValue(entityKey(keyTable, ci, si, ti)))
	t.Tags = s.tagList()
	return t
}

// fields returns sibling fields using exactly budget fields in all
// (counting nested ones), nested at most depth more levels. The first field
// is forced to nest force levels deep, so each table reaches its depth.
func (s *stream) fields(budget, depth, force int, names *[]string) []Column {
	used := map[string]bool{}
	var out []Column
	for budget > 0 {
		name := s.uniqueName(used)
		*names = append(*names, name)
		budget--
		nest := depth > 0 && budget >= 2 && (force > 0 || s.IntN(8) == 0)
		if !nest {
			out = append(out, Column{Name: name, Type: primitives[s.IntN(len(primitives))].name})
			continue
		}
		inner := 2 + s.IntN(min(budget, 12)-1)
		if force > 0 {
			inner = max(inner, min(budget, 2*force))
		}
		budget -= inner
		st := structType{Type: "struct", Fields: s.fields(inner, depth-1, force-1, names)}
		force = 0
		var typ any = st
		switch x := s.IntN(10); {
		case x < 2:
			typ = listType{Type: "list", ElementType: st, ContainsNull: true}
		case x < 3:
			typ = mapType{Type: "map", KeyType: "string", ValueType: st}
		}
		out = append(out, Column{Name: name, Type: typ})
	}
	return out
}

// Model is a generated semantic model.
type Model struct {
	Entity
	Definition map[string]any
	Metrics    []*Entity
}

// Body is the model's creation request.
func (m *Model) Body() any {
	return map[string]any{"name": m.Name, "definition": m.Definition, "properties": m.Properties}
}

// Model generates model mi of schema si of catalog ci: 1–3 datasets over
// the schema's tables, each exposing 2–8 of its top-level columns as fields,
// relationships between them, and the planned number of metrics.
func (g *Generator) Model(ci, si, mi int) *Model {
	s := g.stream(keyModel, ci, si, mi)
	cp := g.Plan.Catalogs[ci]
	sp := cp.Schemas[si]
	m := &Model{Entity: Entity{Kind: kindModel, Catalog: cp.Name, Schema: sp.Name,
		Name: fmt.Sprintf("sm_%s_%d", s.word(), mi),
		Text: []string{cp.Name, sp.Name}}} // semcat indexes the datasets' sources, catalog.schema.table

	nd := 1 + s.IntN(min(3, sp.Tables))
	var datasets, relationships []any
	var firstCols []string
	var fieldCols []string
	for _, ti := range s.Perm(sp.Tables)[:nd] {
		t := g.Table(ci, si, ti)
		cols := t.Columns
		nf := min(len(cols), 2+s.IntN(7))
		var fields []any
		for _, c := range cols[:nf] {
			dt := "Opaque"
			if p, ok := c.Type.(string); ok {
				for _, pr := range primitives {
					if pr.name == p {
						dt = pr.datatype
					}
				}
			}
			fields = append(fields, map[string]any{"name": c.Name, "datatype": dt,
				"expression": dialects(c.Name, false)})
			m.Fields = append(m.Fields, c.Name)
			fieldCols = append(fieldCols, c.Name)
		}
		datasets = append(datasets, map[string]any{
			"name":       t.Name,
			"source":     map[string]any{"namespace": []string{cp.Name, sp.Name}, "name": t.Name},
			"primaryKey": []string{cols[0].Name},
			"fields":     fields,
		})
		m.Text = append(m.Text, t.Name)
		if len(firstCols) > 0 {
			prev := datasets[len(datasets)-2].(map[string]any)
			relationships = append(relationships, map[string]any{
				"name": fmt.Sprintf("rel_%d", len(relationships)), "from": prev["name"], "to": t.Name,
				"fromColumns": []string{firstCols[len(firstCols)-1]}, "toColumns": []string{cols[0].Name},
			})
		}
		firstCols = append(firstCols, cols[0].Name)
	}

	used := map[string]bool{}
	var metrics []any
	for range sp.Metrics[mi] {
		name := s.uniqueName(used) + "_" + s.word()
		desc := s.value()
		col := fieldCols[s.IntN(len(fieldCols))]
		agg := [...]string{"SUM", "COUNT", "AVG", "MAX"}[s.IntN(4)]
		dt := [...]string{"Decimal", "Integer", "Float"}[s.IntN(3)]
		metrics = append(metrics, map[string]any{
			"name":        name,
			"expression":  dialects(agg+"("+col+")", s.IntN(10) < 3),
			"description": desc,
			"datatype":    dt,
		})
		m.Metrics = append(m.Metrics, &Entity{Kind: kindMetric, Catalog: cp.Name, Schema: sp.Name, Model: m.Name,
			Name: name, Text: []string{desc, m.Name}})
	}
	m.Definition = map[string]any{"datasets": datasets, "metrics": metrics}
	if len(relationships) > 0 {
		m.Definition["relationships"] = relationships
	}
	m.Properties = s.properties(refValue(entityKey(keyModel, ci, si, mi)))
	m.Tags = s.tagList()
	return m
}

// dialects is an expression in ANSI SQL and, if both, Snowflake too.
func dialects(expr string, both bool) map[string]any {
	d := []any{map[string]any{"dialect": "ANSI_SQL", "expression": expr}}
	if both {
		d = append(d, map[string]any{"dialect": "SNOWFLAKE", "expression": expr})
	}
	return map[string]any{"dialects": d}
}

// Each calls fn for every entity of the plan, parents first, tables of a
// schema before its models, metrics right after their model.
func (g *Generator) Each(fn func(*Entity) error) error {
	for ci, cp := range g.Plan.Catalogs {
		if err := fn(g.Catalog(ci)); err != nil {
			return err
		}
		for si, sp := range cp.Schemas {
			if err := fn(g.Schema(ci, si)); err != nil {
				return err
			}
			for ti := range sp.Tables {
				if err := fn(&g.Table(ci, si, ti).Entity); err != nil {
					return err
				}
			}
			for mi := range sp.Metrics {
				m := g.Model(ci, si, mi)
				if err := fn(&m.Entity); err != nil {
					return err
				}
				for _, mt := range m.Metrics {
					if err := fn(mt); err != nil {
						return err
					}
				}
			}
		}
	}
	return nil
}
