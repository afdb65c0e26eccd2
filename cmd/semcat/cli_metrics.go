package main

import (
	"encoding/json"
	"fmt"
	"github.com/spf13/cobra"
	"strings"

	"github.com/semcat/semcat"
)

// metricInfo is the JSON of one metric of a detailed listing: its full
// namespace and its definition as stored, as the REST API answers it.
type metricInfo struct {
	Namespace []string        `json:"namespace"`
	Metric    json.RawMessage `json:"metric"`
}

// metricsCommand is `semcat metrics <metalake.catalog.schema> [--details]`:
// every metric of the schema's semantic models in one request, sorted by
// model then metric name.
func metricsCommand(r *remote) *cobra.Command {
	var details bool
	c := &cobra.Command{
		Use:               "metrics [--details] [flags] <metalake.catalog.schema>",
		Short:             "list a schema's metrics (--details: with definitions)",
		Example:           "  semcat metrics demo.warehouse.sales --details",
		Args:              argsBetween(1, 1),
		ValidArgsFunction: completeIdentifier(r, firstArg("metalake.catalog.schema")),
		RunE: func(cc *cobra.Command, pos []string) error {
			return runMetrics(r.command(cc), pos[0], details)
		},
	}
	c.Flags().BoolVar(&details, "details", false, "with each metric's definition")
	return c
}

func runMetrics(cmd *command, schema string, details bool) error {
	stdout := cmd.stdout
	c, err := cmd.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	parts, err := cmd.resolve(ctx, c, schema, "metalake.catalog.schema")
	if err != nil {
		return err
	}
	ns := semcat.Namespace{Metalake: parts[0], Catalog: parts[1], Schema: parts[2]}
	metrics, err := c.ListSchemaMetrics(ctx, ns, details)
	if err != nil {
		return err
	}
	fullNamespace := func(m semcat.SchemaMetric) []string { return append(ns.Path(), m.Model) }
	if cmd.json {
		if details {
			out := make([]metricInfo, len(metrics))
			for i, m := range metrics {
				out[i] = metricInfo{Namespace: fullNamespace(m), Metric: m.Definition}
			}
			return printJSON(stdout, out)
		}
		out := make([]semcat.NameIdentifier, len(metrics))
		for i, m := range metrics {
			out[i] = semcat.NameIdentifier{Namespace: fullNamespace(m), Name: m.Name}
		}
		return printJSON(stdout, out)
	}
	if len(metrics) == 0 {
		fmt.Fprintf(stdout, "no metrics in schema %s\n", strings.Join(ns.Path(), "."))
		return nil
	}
	if !details {
		t := newTable(stdout, "MODEL", "METRIC")
		for _, m := range metrics {
			t.row(m.Model, m.Name)
		}
		return t.flush()
	}
	t := newTable(stdout, "MODEL", "METRIC", "DATATYPE", "EXPRESSION", "DESCRIPTION")
	for _, m := range metrics {
		var def semcat.Metric
		if err := json.Unmarshal(m.Definition, &def); err != nil {
			return fmt.Errorf("metric %s.%s: %w", m.Model, m.Name, err)
		}
		datatype := ""
		if def.Datatype != nil {
			datatype = string(*def.Datatype)
		}
		t.row(m.Model, m.Name, datatype, expressionText(def.Expression, 60), clip(deref(def.Description), 50))
	}
	return t.flush()
}

// expressionText is an expression for a table cell: its first dialect's
// text, clipped to width, and how many other dialects there are.
func expressionText(e *semcat.Expression, width int) string {
	if e == nil || len(e.Dialects) == 0 {
		return ""
	}
	s := clip(e.Dialects[0].Expression, width)
	if n := len(e.Dialects) - 1; n > 0 {
		s = fmt.Sprintf("%s (+%d dialects)", s, n)
	}
	return s
}
