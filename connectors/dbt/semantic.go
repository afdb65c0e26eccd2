package dbt

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/semcat/semcat"
)

// vendor is the customExtensions vendorName of what the importer keeps
// verbatim from dbt.
const vendor = "dbt"

// maxMetricDepth bounds how deep metrics may be built on metrics (a cycle
// in a broken manifest stops there).
const maxMetricDepth = 32

// smInfo is one dbt semantic model on its way to a semcat model.
type smInfo struct {
	sm      *SemanticModel
	table   *TablePlan
	ds      semcat.Dataset
	columns map[string]semcat.Column // the table's columns by lower-cased name
	// key is the column of its primary (or unique) entity, "" for none.
	key      string
	entities map[string]Entity
	dims     map[string]Dimension
	measures map[string]*Measure
	// joined are the other models' datasets its relationships and metrics
	// use, in the order first used.
	joined  []*smInfo
	rels    []semcat.Relationship
	metrics []semcat.Metric
}

// semantic maps the semantic layer: each semantic model onto a semcat model
// in its table's schema, each metric into the model of its first input.
func (p *planner) semantic() {
	sem := p.a.Semantic
	if len(sem.SemanticModels)+len(sem.Metrics) == 0 {
		return
	}
	var measures, aggregations bool
	var infos []*smInfo
	byName := map[string]*smInfo{}
	measureOwner := map[string]*smInfo{}
	for _, sm := range sem.SemanticModels {
		item := "semantic model " + sm.Name
		if len(sm.Measures) > 0 {
			measures = true
		}
		t := p.relationOf(sm)
		if t == nil {
			p.issue(item, "its relation %s.%s is not among the imported tables", sm.NodeRelation.SchemaName, sm.NodeRelation.Alias)
			continue
		}
		info := p.dataset(sm, t)
		infos = append(infos, info)
		byName[sm.Name] = info
		for _, ms := range info.measures {
			measureOwner[ms.Name] = info
		}
	}
	// An entity joins to the model where it is primary (or unique).
	keyOwner := map[string]*smInfo{}
	for _, info := range infos {
		for _, e := range info.sm.Entities {
			if (e.Type == "primary" || e.Type == "unique" || e.Type == "natural") && keyOwner[e.Name] == nil {
				keyOwner[e.Name] = info
			}
		}
		if pe := info.sm.PrimaryEntity; pe != nil && keyOwner[*pe] == nil {
			keyOwner[*pe] = info
		}
	}
	for _, info := range infos {
		for _, e := range info.sm.Entities {
			if e.Type != "foreign" {
				continue
			}
			to := keyOwner[e.Name]
			from, ok := info.column(exprOr(e.Expr, e.Name))
			if to == nil || to == info || !ok || to.key == "" {
				continue // the entity stays a field, its type in customExtensions
			}
			info.join(to)
			rel, _ := semcatName(e.Name)
			info.rels = append(info.rels, semcat.Relationship{Name: rel, From: info.ds.Name, To: to.ds.Name,
				FromColumns: []string{from}, ToColumns: []string{to.key}})
		}
	}

	c := &compiler{p: p, byName: byName, measureOwner: measureOwner, keyOwner: keyOwner, metrics: map[string]*Metric{},
		legacy: map[string]*smInfo{}}
	legacy := p.legacyModels(sem.Metrics)
	for _, info := range legacy {
		c.legacy[info.table.UniqueID] = info
	}
	infos = append(infos, legacy...)
	var all []*Metric
	for _, m := range sem.Metrics {
		c.metrics[m.Name] = m
		all = append(all, m)
		if m.TypeParams.MetricAggregationParams != nil && m.TypeParams.Measure == nil {
			aggregations = true
		}
	}
	// A measure with create_metric is a simple metric of its own name.
	for _, info := range infos {
		for _, ms := range info.sm.Measures {
			if ms.CreateMetric && c.metrics[ms.Name] == nil {
				m := &Metric{Name: ms.Name, Type: "simple", Description: ms.Description, Label: ms.Label,
					TypeParams: TypeParams{Measure: &Input{Name: ms.Name}}}
				m.Raw, _ = json.Marshal(map[string]any{"name": ms.Name, "type": "simple", "created_from_measure": ms.Name})
				c.metrics[ms.Name] = m
				all = append(all, m)
			}
		}
	}
	switch {
	case len(legacy) > 0:
		p.Spec = "dbt_metrics (dbt before 1.6)"
	case measures && aggregations:
		p.Spec = "measures and metric aggregation"
	case aggregations:
		p.Spec = "metric aggregation (dbt 1.12+)"
	case measures:
		p.Spec = "measures (dbt before 1.12)"
	}
	for _, m := range all {
		item := "metric " + m.Name
		name, renamed := semcatName(m.Name)
		if renamed {
			p.note(item, "imported as '%s'", name)
		}
		r, err := c.compile(m.Name, nil, 0)
		if err != nil {
			p.issue(item, "%v", err)
			continue
		}
		home := r.home
		for _, d := range r.uses {
			home.join(d)
		}
		if slices.ContainsFunc(home.metrics, func(x semcat.Metric) bool { return x.Name == name }) {
			p.issue(item, "its semcat name '%s' is another metric's of model %s", name, home.ds.Name)
			continue
		}
		out := semcat.Metric{Name: name, Expression: sqlExpr(r.sql), Description: trimmed(m.Description), Datatype: &r.dt,
			CustomExtensions: extension(metricData(m, r))}
		if m.Label != nil && normal(*m.Label) != normal(m.Name) {
			out.AIContext, _ = json.Marshal(map[string]any{"synonyms": []string{*m.Label}})
		}
		home.metrics = append(home.metrics, out)
		p.Metrics++
	}
	for _, info := range infos {
		p.model(info)
	}
	for _, q := range sem.SavedQueries {
		var sq struct {
			Name string `json:"name"`
		}
		_ = json.Unmarshal(q, &sq)
		p.Skipped = append(p.Skipped, Issue{Item: "saved query " + sq.Name, Reason: "semcat has no saved queries"})
	}
}

// relationOf finds the table a semantic model reads: its node, else its
// relation by schema and name.
func (p *planner) relationOf(sm *SemanticModel) *TablePlan {
	for _, id := range sm.DependsOn.Nodes {
		if t := p.byID[id]; t != nil {
			return t
		}
	}
	schema, _ := semcatName(sm.NodeRelation.SchemaName)
	alias, _ := semcatName(sm.NodeRelation.Alias)
	if t := p.byRelation[[2]string{schema, alias}]; t != nil {
		return t
	}
	for _, k := range sortedRelations(p.byRelation) {
		if strings.EqualFold(k[0], schema) && strings.EqualFold(k[1], alias) {
			return p.byRelation[k]
		}
	}
	return nil
}

// dataset maps a semantic model's entities and dimensions onto the fields
// and keys of its dataset.
func (p *planner) dataset(sm *SemanticModel, t *TablePlan) *smInfo {
	info := &smInfo{sm: sm, table: t, columns: map[string]semcat.Column{}, entities: map[string]Entity{},
		dims: map[string]Dimension{}, measures: map[string]*Measure{}}
	byName := map[string]semcat.Column{}
	for _, c := range t.Table.Columns {
		byName[c.Name] = c
		info.columns[strings.ToLower(c.Name)] = c
	}
	for o, n := range t.orig {
		info.columns[o] = byName[n]
	}
	name, renamed := semcatName(sm.Name)
	if renamed {
		p.note("semantic model "+sm.Name, "imported as '%s'", name)
	}
	ds := semcat.Dataset{Name: name, Source: &semcat.Source{Namespace: []string{p.Catalog, t.Schema}, Name: t.Table.Name},
		Description: trimmed(sm.Description)}
	seen := map[string]bool{}
	field := func(f semcat.Field, kind string) {
		dbtName := f.Name
		var renamed bool
		if f.Name, renamed = semcatName(f.Name); renamed {
			p.note("semantic model "+sm.Name, "%s '%s' imported as field '%s'", kind, dbtName, f.Name)
		}
		if seen[f.Name] {
			p.issue("semantic model "+sm.Name, "%s '%s' has the name of another entity or dimension", kind, f.Name)
			return
		}
		seen[f.Name] = true
		ds.Fields = append(ds.Fields, f)
	}
	for _, e := range sm.Entities {
		info.entities[e.Name] = e
		expr := exprOr(e.Expr, e.Name)
		col, isCol := info.column(expr)
		switch {
		case !isCol:
		case e.Type == "primary" && ds.PrimaryKey == nil:
			ds.PrimaryKey, info.key = []string{col}, col
		case e.Type == "unique":
			ds.UniqueKeys = append(ds.UniqueKeys, []string{col})
			if info.key == "" {
				info.key = col
			}
		}
		field(semcat.Field{Name: e.Name, Expression: sqlExpr(expr), Description: trimmed(e.Description), Label: trimmed(e.Label),
			Datatype:         info.datatype(expr),
			CustomExtensions: extension(map[string]any{"entity": e.Type, "role": e.Role, "expr": e.Expr})}, "entity")
	}
	for _, d := range sm.Dimensions {
		info.dims[d.Name] = d
		expr := exprOr(d.Expr, d.Name)
		f := semcat.Field{Name: d.Name, Expression: sqlExpr(expr), Dimension: &semcat.Dimension{IsTime: ptr(d.Type == "time")},
			Description: trimmed(d.Description), Label: trimmed(d.Label), Datatype: info.datatype(expr)}
		data := map[string]any{"dimension": d.Type, "expr": d.Expr, "is_partition": d.IsPartition}
		if d.TypeParams != nil {
			data["time_granularity"] = d.TypeParams.TimeGranularity
			data["validity_params"] = d.TypeParams.ValidityParams
		}
		if d.Type == "time" && f.Datatype == nil {
			dt := semcat.Datatype("DateTime")
			f.Datatype = &dt
		}
		f.CustomExtensions = extension(data)
		field(f, "dimension")
	}
	for i := range sm.Measures {
		info.measures[sm.Measures[i].Name] = &sm.Measures[i]
	}
	data := map[string]any{"unique_id": sm.UniqueID, "node_relation": sm.NodeRelation, "primary_entity": sm.PrimaryEntity,
		"label": sm.Label, "meta": sm.Config.Meta}
	if sm.Defaults != nil {
		data["agg_time_dimension"] = sm.Defaults.AggTimeDimension
	}
	if len(sm.Measures) > 0 {
		data["measures"] = sm.Measures
	}
	ds.CustomExtensions = extension(data)
	info.ds = ds
	return info
}

// model assembles the semcat model of one semantic model.
func (p *planner) model(info *smInfo) {
	sm := info.sm
	datasets := []semcat.Dataset{info.ds}
	for _, j := range info.joined {
		datasets = append(datasets, j.ds)
	}
	def := &semcat.Definition{Datasets: datasets, Relationships: info.rels, Metrics: info.metrics}
	id := sm.UniqueID
	if id == "" {
		id = "semantic_model." + p.Project + "." + sm.Name
	}
	props := map[string]string{PropProject: p.Project, PropUniqueID: id, "dbt.node": info.table.UniqueID}
	if sm.Label != nil && *sm.Label != "" {
		props["dbt.label"] = *sm.Label
	}
	for _, k := range sortedKeys(sm.Config.Meta) {
		v, ok := sm.Config.Meta[k].(string)
		if !ok {
			b, _ := json.Marshal(sm.Config.Meta[k])
			v = string(b)
		}
		props["dbt.meta."+k] = v
	}
	if p.modelNames[info.table.Schema+"."+info.ds.Name] {
		p.issue("semantic model "+sm.Name, "its semcat name %s.%s is another model's", info.table.Schema, info.ds.Name)
		return
	}
	p.modelNames[info.table.Schema+"."+info.ds.Name] = true
	create := semcat.SemanticModelCreate{Name: info.ds.Name, Comment: trimmed(sm.Description), Definition: def, Properties: props}
	if err := create.Validate(); err != nil {
		p.issue("semantic model "+sm.Name, "%s", semcat.ErrorMessage(err))
		return
	}
	owner, _ := sm.Config.Meta["owner"].(string)
	p.Models = append(p.Models, &ModelPlan{Schema: info.table.Schema, UniqueID: id, Model: create, Owner: owner})
}

// sortedRelations are the keys of m in order, for a deterministic search.
func sortedRelations(m map[[2]string]*TablePlan) [][2]string {
	keys := make([][2]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b [2]string) int { return strings.Compare(a[0]+"\x00"+a[1], b[0]+"\x00"+b[1]) })
	return keys
}

// join adds another model's dataset to this one's model.
func (info *smInfo) join(other *smInfo) {
	if other == info {
		return
	}
	for _, j := range info.joined {
		if j == other {
			return
		}
	}
	info.joined = append(info.joined, other)
}

// column resolves expr to a top-level column of the model's table, in the
// table's spelling.
func (info *smInfo) column(expr string) (string, bool) {
	c, ok := info.columns[strings.ToLower(strings.TrimSpace(expr))]
	return c.Name, ok
}

// datatype is the semantic datatype of expr when it is a column.
func (info *smInfo) datatype(expr string) *semcat.Datatype {
	c, ok := info.columns[strings.ToLower(strings.TrimSpace(expr))]
	if !ok || c.Type == nil {
		return nil
	}
	name := c.Type.Name
	if i := strings.IndexByte(name, '('); i >= 0 {
		name = name[:i]
	}
	dt, ok := map[string]semcat.Datatype{
		"boolean": "Boolean", "byte": "Integer", "short": "Integer", "integer": "Integer", "long": "Integer",
		"float": "Float", "double": "Float", "decimal": "Decimal", "date": "Date", "time": "Time",
		"timestamp": "DateTime", "timestamp_tz": "DateTimeTz", "string": "String", "varchar": "String", "char": "String", "uuid": "String",
	}[name]
	if !ok {
		return nil
	}
	return &dt
}

// qualify prefixes a plain column with the dataset's name; other SQL is
// left as written.
func (info *smInfo) qualify(expr string) string {
	if col, ok := info.column(expr); ok {
		return info.ds.Name + "." + col
	}
	if identRE.MatchString(strings.TrimSpace(expr)) {
		return info.ds.Name + "." + strings.TrimSpace(expr)
	}
	return expr
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// compiled is a metric's SQL and where it lives.
type compiled struct {
	sql  string
	dt   semcat.Datatype
	home *smInfo
	// uses are the models whose datasets the SQL names besides home.
	uses []*smInfo
	// inputs are the names of the measures and metrics it is built on.
	inputs []string
	// filtered reports whether every filter is in the SQL (false: kept only
	// in customExtensions, a filter template that could not be resolved).
	filtered bool
}

// compiler writes each metric's SQL from its dbt definition.
type compiler struct {
	p            *planner
	byName       map[string]*smInfo
	measureOwner map[string]*smInfo
	keyOwner     map[string]*smInfo
	metrics      map[string]*Metric
	// legacy are the models of dbt_metrics metrics, by their table's id.
	legacy map[string]*smInfo
}

// compile writes metric name's SQL with extra filters (from the metric
// that uses it) applied to its aggregations.
func (c *compiler) compile(name string, filters []string, depth int) (compiled, error) {
	if depth > maxMetricDepth {
		return compiled{}, fmt.Errorf("metrics built on each other more than %d deep (a cycle?)", maxMetricDepth)
	}
	m := c.metrics[name]
	if m == nil {
		return compiled{}, fmt.Errorf("input metric '%s' is not in the semantic manifest", name)
	}
	if method, expr, ok := m.legacy(); ok {
		return c.compileLegacy(m, method, expr, filters, depth)
	}
	tp := m.TypeParams
	filters = append(append([]string(nil), filters...), m.Filter.Templates()...)
	input := func(in *Input) (compiled, error) {
		return c.compile(in.Name, append(append([]string(nil), filters...), in.Filter.Templates()...), depth+1)
	}
	switch m.Type {
	case "simple", "":
		// dbt writes both a measure and its aggregation params on simple
		// metrics it converts from measures; the measure then has the expr.
		if a := tp.MetricAggregationParams; a != nil && (tp.Measure == nil || c.measureOwner[tp.Measure.Name] == nil) {
			info := c.byName[a.SemanticModel]
			if info == nil {
				return compiled{}, fmt.Errorf("its semantic model '%s' was not imported", a.SemanticModel)
			}
			expr := m.Name
			if tp.Expr != nil && *tp.Expr != "" {
				expr = *tp.Expr
			} else if a.Expr != nil && *a.Expr != "" {
				expr = *a.Expr
			}
			return c.aggregate(info, a.Agg, expr, a.AggParams, filters, []string{a.SemanticModel})
		}
		if tp.Measure == nil {
			return compiled{}, fmt.Errorf("a simple metric with neither a measure nor metric_aggregation_params")
		}
		return c.measure(tp.Measure, filters)
	case "ratio":
		if tp.Numerator == nil || tp.Denominator == nil {
			return compiled{}, fmt.Errorf("a ratio metric needs a numerator and a denominator")
		}
		num, err := input(tp.Numerator)
		if err != nil {
			return compiled{}, err
		}
		den, err := input(tp.Denominator)
		if err != nil {
			return compiled{}, err
		}
		r := combine(fmt.Sprintf("CAST(%s AS DOUBLE PRECISION) / NULLIF(%s, 0)", num.sql, den.sql), "Float", num, den)
		r.inputs = []string{tp.Numerator.Name, tp.Denominator.Name}
		return r, nil
	case "derived":
		if tp.Expr == nil || len(tp.Metrics) == 0 {
			return compiled{}, fmt.Errorf("a derived metric needs an expression and input metrics")
		}
		parts := make([]compiled, len(tp.Metrics))
		sub := map[string]string{}
		for i := range tp.Metrics {
			in := &tp.Metrics[i]
			r, err := input(in)
			if err != nil {
				return compiled{}, err
			}
			parts[i] = r
			ref := in.Name
			if in.Alias != nil && *in.Alias != "" {
				ref = *in.Alias
			}
			sub[ref] = "(" + r.sql + ")"
		}
		sql := wordRE.ReplaceAllStringFunc(*tp.Expr, func(w string) string {
			if s, ok := sub[w]; ok {
				return s
			}
			return w
		})
		r := combine(sql, "Decimal", parts...)
		r.inputs = nil
		for _, in := range tp.Metrics {
			r.inputs = append(r.inputs, in.Name)
		}
		return r, nil
	case "cumulative":
		// The window (or grain to date) is MetricFlow's to apply at query
		// time; the SQL is the aggregation it accumulates.
		if ct := tp.CumulativeTypeParams; ct != nil && ct.Metric != nil {
			r, err := input(ct.Metric)
			if err != nil {
				return compiled{}, err
			}
			r = combine(r.sql, r.dt, r)
			r.inputs = []string{ct.Metric.Name}
			return r, nil
		}
		if tp.Measure == nil {
			return compiled{}, fmt.Errorf("a cumulative metric with neither a measure nor an input metric")
		}
		return c.measure(tp.Measure, filters)
	case "conversion":
		cp := tp.ConversionTypeParams
		if cp == nil {
			return compiled{}, fmt.Errorf("a conversion metric without conversion_type_params")
		}
		var base, conv compiled
		var err error
		switch {
		case cp.BaseMeasure != nil && cp.ConversionMeasure != nil:
			if base, err = c.measure(cp.BaseMeasure, filters); err == nil {
				conv, err = c.measure(cp.ConversionMeasure, filters)
			}
		case cp.BaseMetric != nil && cp.ConversionMetric != nil:
			if base, err = input(cp.BaseMetric); err == nil {
				conv, err = input(cp.ConversionMetric)
			}
		default:
			err = fmt.Errorf("a conversion metric needs a base and a conversion event")
		}
		if err != nil {
			return compiled{}, err
		}
		r := combine(fmt.Sprintf("CAST(%s AS DOUBLE PRECISION) / NULLIF(%s, 0)", conv.sql, base.sql), "Float", base, conv)
		if cp.Calculation == "conversions" {
			r.sql, r.dt = conv.sql, conv.dt
		}
		r.inputs = append(base.inputs, conv.inputs...)
		return r, nil
	}
	return compiled{}, fmt.Errorf("unknown metric type '%s'", m.Type)
}

var wordRE = regexp.MustCompile(`[A-Za-z_][A-Za-z0-9_]*`)

// combine makes one result of parts: the first part's home and every
// other model used; the caller names the inputs.
func combine(sql string, dt semcat.Datatype, parts ...compiled) compiled {
	r := compiled{sql: sql, dt: dt, home: parts[0].home, filtered: true}
	for _, p := range parts {
		r.filtered = r.filtered && p.filtered
		for _, u := range append([]*smInfo{p.home}, p.uses...) {
			if u != r.home && !containsInfo(r.uses, u) {
				r.uses = append(r.uses, u)
			}
		}
	}
	return r
}

func containsInfo(list []*smInfo, x *smInfo) bool {
	for _, y := range list {
		if y == x {
			return true
		}
	}
	return false
}

// measure writes the aggregation of a measure (dbt before 1.12).
func (c *compiler) measure(in *Input, filters []string) (compiled, error) {
	info := c.measureOwner[in.Name]
	if info == nil {
		return compiled{}, fmt.Errorf("its measure '%s' is in no imported semantic model", in.Name)
	}
	ms := info.measures[in.Name]
	filters = append(append([]string(nil), filters...), in.Filter.Templates()...)
	return c.aggregate(info, ms.Agg, exprOr(ms.Expr, ms.Name), ms.AggParams, filters, []string{in.Name})
}

// aggregate writes agg(expr) over info's dataset, filtered.
func (c *compiler) aggregate(info *smInfo, agg, expr string, params *AggParams, filters []string, inputs []string) (compiled, error) {
	return c.aggregateWhere(info, agg, expr, params, filters, nil, inputs)
}

// aggregateWhere is aggregate with SQL conditions besides the filter
// templates.
func (c *compiler) aggregateWhere(info *smInfo, agg, expr string, params *AggParams, filters, where []string, inputs []string) (compiled, error) {
	r := compiled{home: info, inputs: inputs, filtered: true}
	col := info.qualify(expr)
	if len(filters)+len(where) > 0 {
		conds := append([]string(nil), where...)
		for _, f := range filters {
			cond, uses, ok := c.render(info, f)
			if !ok {
				r.filtered = false
				conds = append([]string(nil), where...)
				break
			}
			conds = append(conds, cond)
			for _, u := range uses {
				if u != info && !containsInfo(r.uses, u) {
					r.uses = append(r.uses, u)
				}
			}
		}
		if len(conds) > 0 {
			col = fmt.Sprintf("CASE WHEN %s THEN %s END", strings.Join(conds, " AND "), col)
		}
	}
	r.dt = "Decimal"
	switch agg {
	case "sum":
		r.sql = "SUM(" + col + ")"
	case "count":
		r.sql, r.dt = "COUNT("+col+")", "Integer"
	case "count_distinct":
		r.sql, r.dt = "COUNT(DISTINCT "+col+")", "Integer"
	case "average", "avg":
		r.sql = "AVG(" + col + ")"
	case "min":
		r.sql = "MIN(" + col + ")"
	case "max":
		r.sql = "MAX(" + col + ")"
	case "sum_boolean":
		r.sql, r.dt = "SUM(CASE WHEN "+col+" THEN 1 ELSE 0 END)", "Integer"
	case "median":
		r.sql = "PERCENTILE_CONT(0.5) WITHIN GROUP (ORDER BY " + col + ")"
	case "percentile":
		if params == nil || params.Percentile == nil {
			return compiled{}, fmt.Errorf("a percentile aggregation without a percentile")
		}
		p := *params.Percentile
		if p > 1 { // the latest spec writes 95 where the legacy one wrote 0.95
			p /= 100
		}
		fn := "PERCENTILE_CONT"
		if params.UseDiscretePercentile {
			fn = "PERCENTILE_DISC"
		}
		r.sql = fmt.Sprintf("%s(%s) WITHIN GROUP (ORDER BY %s)", fn, strconv.FormatFloat(p, 'f', -1, 64), col)
	default:
		return compiled{}, fmt.Errorf("unknown aggregation '%s'", agg)
	}
	return r, nil
}

// templateRE matches the references of a MetricFlow where filter.
var templateRE = regexp.MustCompile(`\{\{\s*(Dimension|TimeDimension|Entity)\(\s*'([^']*)'[^)]*\)[^}]*\}\}`)

// render turns a where-filter template into SQL over the model's datasets,
// resolving Dimension('entity__dim'), TimeDimension(...) and Entity(...);
// ok is false when a reference cannot be resolved (a Metric(...) filter,
// a dimension of a model not imported).
func (c *compiler) render(home *smInfo, tmpl string) (sql string, uses []*smInfo, ok bool) {
	ok = true
	sql = templateRE.ReplaceAllStringFunc(tmpl, func(m string) string {
		g := templateRE.FindStringSubmatch(m)
		kind, ref := g[1], g[2]
		path := strings.Split(ref, "__")
		last := path[len(path)-1]
		owner := home
		if len(path) > 1 {
			owner = c.keyOwner[path[len(path)-2]]
		}
		if owner == nil {
			ok = false
			return m
		}
		var expr string
		switch {
		case kind == "Entity":
			e, found := owner.entities[last]
			if !found {
				ok = false
				return m
			}
			expr = exprOr(e.Expr, e.Name)
		case last == "metric_time" && owner.sm.Defaults != nil:
			d, found := owner.dims[owner.sm.Defaults.AggTimeDimension]
			if !found {
				ok = false
				return m
			}
			expr = exprOr(d.Expr, d.Name)
		default:
			d, found := owner.dims[last]
			if !found {
				ok = false
				return m
			}
			expr = exprOr(d.Expr, d.Name)
		}
		if owner != home && !containsInfo(uses, owner) {
			uses = append(uses, owner)
		}
		return owner.qualify(expr)
	})
	if strings.Contains(sql, "{{") {
		ok = false
	}
	return strings.TrimSpace(sql), uses, ok
}

// metricData is what customExtensions keep of a metric: dbt's whole
// definition (type, label, inputs, filter, window, aggregation), with the
// inputs listed and a note when the SQL leaves a filter out.
func metricData(m *Metric, r compiled) map[string]any {
	var def map[string]any
	_ = json.Unmarshal(m.Raw, &def)
	for _, k := range []string{"name", "description", "unique_id", "resource_type", "package_name", "path", "original_file_path",
		"fqn", "created_at", "sources", "refs", "depends_on", "unrendered_config", "metadata"} {
		delete(def, k)
	}
	def["inputs"] = r.inputs
	if !r.filtered {
		def["sql_omits_filter"] = true
	}
	if m.UniqueID != "" {
		def["unique_id"] = m.UniqueID
	}
	return def
}

// extension wraps data as the one dbt customExtension, leaving out null
// and empty members.
func extension(data map[string]any) []semcat.CustomExtension {
	clean := map[string]any{}
	for k, v := range data {
		if !empty(v) {
			clean[k] = v
		}
	}
	if len(clean) == 0 {
		return nil
	}
	b, _ := json.Marshal(clean)
	s := string(b)
	return []semcat.CustomExtension{{VendorName: ptr(vendor), Data: &s}}
}

func empty(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case *string:
		return x == nil
	case string:
		return x == ""
	case json.RawMessage:
		return len(x) == 0 || string(x) == "null"
	case map[string]any:
		return len(x) == 0
	case []any:
		return len(x) == 0
	case []string:
		return len(x) == 0
	}
	return false
}

func sqlExpr(sql string) *semcat.Expression {
	return &semcat.Expression{Dialects: []semcat.DialectExpression{{Dialect: "ANSI_SQL", Expression: sql}}}
}

func exprOr(expr *string, name string) string {
	if expr != nil && strings.TrimSpace(*expr) != "" {
		return strings.TrimSpace(*expr)
	}
	return name
}

// trimmed is s without surrounding white space, nil when that is empty.
func trimmed(s *string) *string {
	if s == nil {
		return nil
	}
	t := strings.TrimSpace(*s)
	if t == "" {
		return nil
	}
	return &t
}

// normal is a name or label for comparison: lower case, words joined by _.
func normal(s string) string {
	return strings.Join(strings.Fields(strings.ToLower(strings.ReplaceAll(s, "_", " "))), "_")
}
