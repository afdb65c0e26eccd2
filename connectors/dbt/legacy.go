package dbt

import (
	"fmt"
	"strings"
)

// Metrics of the dbt_metrics spec (dbt 1.0 to 1.5, before MetricFlow) name a
// model, an aggregation (calculation_method; "type" before dbt 1.3) of an
// expression ("sql" before 1.3), filters and dimensions. Each model they
// are defined on gets a semantic model of its own, named like its table,
// whose dataset has the metrics' dimensions and time stamp as fields.

// LegacyFilter is a dbt_metrics filter: field operator value.
type LegacyFilter struct {
	Field    string `json:"field"`
	Operator string `json:"operator"`
	Value    string `json:"value"`
}

// metricFlowTypes are the metric types of MetricFlow's spec.
var metricFlowTypes = map[string]bool{"simple": true, "ratio": true, "derived": true, "cumulative": true, "conversion": true}

// legacy reports whether m is of the dbt_metrics spec, and its
// aggregation and expression.
func (m *Metric) legacy() (method, expr string, ok bool) {
	method = m.CalculationMethod
	if method == "" && m.Type != "" && !metricFlowTypes[m.Type] {
		method = m.Type
	}
	if method == "" {
		return "", "", false
	}
	expr = m.Expression
	if expr == "" {
		expr = m.SQL
	}
	return method, expr, true
}

// legacyModels makes the semantic models of the dbt_metrics spec's metrics:
// one per table they are defined on, with their dimensions and time stamps.
func (p *planner) legacyModels(metrics []*Metric) []*smInfo {
	type dims struct {
		table *TablePlan
		names []string
		time  map[string]bool
	}
	var order []string
	by := map[string]*dims{}
	for _, m := range metrics {
		if _, _, ok := m.legacy(); !ok {
			continue
		}
		t := p.legacyTable(m)
		if t == nil {
			continue
		}
		d := by[t.UniqueID]
		if d == nil {
			d = &dims{table: t, time: map[string]bool{}}
			by[t.UniqueID] = d
			order = append(order, t.UniqueID)
		}
		add := func(n string, time bool) {
			for _, x := range d.names {
				if x == n {
					return
				}
			}
			d.names = append(d.names, n)
			d.time[n] = time
		}
		if m.Timestamp != "" {
			add(m.Timestamp, true)
		}
		for _, n := range m.Dimensions {
			add(n, false)
		}
	}
	var out []*smInfo
	for _, id := range order {
		d := by[id]
		sm := &SemanticModel{Name: d.table.Table.Name, Description: d.table.Table.Comment,
			UniqueID: "semantic_model." + p.Project + "." + d.table.Table.Name}
		sm.DependsOn.Nodes = []string{id}
		for _, n := range d.names {
			typ := "categorical"
			if d.time[n] {
				typ = "time"
			}
			sm.Dimensions = append(sm.Dimensions, Dimension{Name: n, Type: typ})
		}
		out = append(out, p.dataset(sm, d.table))
	}
	return out
}

// legacyTable is the table a dbt_metrics metric is defined on.
func (p *planner) legacyTable(m *Metric) *TablePlan {
	for _, id := range m.DependsOn.Nodes {
		if t := p.byID[id]; t != nil {
			return t
		}
	}
	return nil
}

// compileLegacy writes the SQL of a dbt_metrics metric: its aggregation of
// its expression over its model, filtered; a derived one's expression over
// the metrics it names.
func (c *compiler) compileLegacy(m *Metric, method, expr string, filters []string, depth int) (compiled, error) {
	if method == "derived" || method == "expression" {
		var parts []compiled
		sub := map[string]string{}
		var inputs []string
		for _, id := range m.DependsOn.Nodes {
			if !strings.HasPrefix(id, "metric.") {
				continue
			}
			name := id[strings.LastIndexByte(id, '.')+1:]
			r, err := c.compile(name, filters, depth+1)
			if err != nil {
				return compiled{}, err
			}
			parts = append(parts, r)
			sub[name] = "(" + r.sql + ")"
			inputs = append(inputs, name)
		}
		if len(parts) == 0 {
			return compiled{}, fmt.Errorf("a derived metric that names no metric")
		}
		r := combine(wordRE.ReplaceAllStringFunc(expr, func(w string) string {
			if s, ok := sub[w]; ok {
				return s
			}
			return w
		}), "Decimal", parts...)
		r.inputs = inputs
		return r, nil
	}
	t := c.p.legacyTable(m)
	if t == nil {
		return compiled{}, fmt.Errorf("its model is not among the imported tables")
	}
	info := c.legacy[t.UniqueID]
	var conds []string
	for _, f := range m.Filters {
		conds = append(conds, fmt.Sprintf("%s %s %s", info.qualify(f.Field), f.Operator, f.Value))
	}
	agg := map[string]string{"count_distinct": "count_distinct", "average": "average", "avg": "average"}[method]
	if agg == "" {
		agg = method
	}
	return c.aggregateWhere(info, agg, expr, nil, filters, conds, nil)
}
