package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/semcat/semcat"
	apiclient "github.com/semcat/semcat/client"
	"github.com/semcat/semcat/connectors/dbt"
)

// DBTResult is the dbt import benchmark's outcome (DESIGN §8.3: about 2,000
// models with columns in under a minute end to end, and a repeat import
// of the same artifacts writing nothing).
type DBTResult struct {
	Started        time.Time `json:"started"`
	Commit         string    `json:"commit"`
	Machine        Machine   `json:"machine"`
	Models         int       `json:"models"`
	Columns        int       `json:"columns"`
	SemanticModels int       `json:"semanticModels"`
	Metrics        int       `json:"metrics"`
	ManifestBytes  int64     `json:"manifestBytes"`
	// FirstMs is the first import, from reading the artifacts to the last
	// write; RepeatMs the same artifacts again; ChangeMs after one model's
	// description changed.
	FirstMs       int64 `json:"firstMs"`
	FirstWrites   int   `json:"firstWrites"`
	RepeatMs      int64 `json:"repeatMs"`
	RepeatWrites  int   `json:"repeatWrites"`
	ChangeMs      int64 `json:"changeMs"`
	ChangeWrites  int   `json:"changeWrites"`
	Issues        int   `json:"issues"`
	TargetFirstMs int64 `json:"targetFirstMs"`
}

// dbtBench generates dbt artifacts shaped like GitLab's project from the
// relevance corpus (every table a model with its documented columns,
// description, tags and meta; catalog.json with Snowflake types and
// undocumented columns up to padColumns per model; a
// semantic model and metrics over every tenth model), then imports them
// into a fresh semcat three times: first, again unchanged, and after one
// model's description changed.
func dbtBench(ctx context.Context, o options, root, tmp string, srv **Server, clusterDir *string) (*DBTResult, error) {
	corpus := o.corpus
	if corpus == "" {
		corpus = filepath.Join(root, "..", "shared", "data", "catalog-corpus.jsonl")
	}
	dir := filepath.Join(tmp, "dbt-target")
	res, err := writeDBTArtifacts(corpus, dir, "")
	if err != nil {
		return nil, err
	}
	res.Started, res.Commit, res.Machine, res.TargetFirstMs = time.Now().UTC(), gitCommit(root), machine(), 60_000
	logf("building ./cmd/semcat")
	bin, err := buildSemcat(ctx, root, tmp)
	if err != nil {
		return nil, err
	}
	s, err := startServer(ctx, bin, tmp, false)
	*srv = s
	if err != nil {
		return nil, err
	}
	if *clusterDir, err = s.ClusterDir(); err != nil {
		return nil, err
	}
	c, err := apiclient.New(s.URL)
	if err != nil {
		return nil, err
	}
	if _, _, err := c.CreateMetalake(ctx, semcat.MetalakeCreate{Name: "bench"}); err != nil {
		return nil, err
	}
	run := func(what string) (int64, *dbt.Result, error) {
		started := time.Now()
		a, err := dbt.Read(dir)
		if err != nil {
			return 0, nil, err
		}
		plan, err := dbt.NewPlan(a, "gitlab", "")
		if err != nil {
			return 0, nil, err
		}
		r, err := dbt.Import(ctx, c, plan, dbt.Options{Metalake: "bench"})
		ms := time.Since(started).Milliseconds()
		if err == nil {
			logf("dbt import (%s): %d writes, %d unchanged, %d issues in %d ms", what, len(r.Actions), r.Unchanged, len(r.Issues), ms)
		}
		return ms, r, err
	}
	ms, r, err := run("first")
	if err != nil {
		return nil, err
	}
	res.FirstMs, res.FirstWrites, res.Issues = ms, len(r.Actions), len(r.Issues)
	res.SemanticModels, res.Metrics = r.Models, r.Metrics
	for _, i := range r.Issues {
		logf("issue: %s", i)
	}
	if ms, r, err = run("repeat"); err != nil {
		return nil, err
	}
	res.RepeatMs, res.RepeatWrites = ms, len(r.Actions)
	if _, err := writeDBTArtifacts(corpus, dir, "changed by the benchmark"); err != nil {
		return nil, err
	}
	if ms, r, err = run("one model changed"); err != nil {
		return nil, err
	}
	res.ChangeMs, res.ChangeWrites = ms, len(r.Actions)
	return res, nil
}

// padColumns is the fewest columns a generated model has: catalog.json
// gives it undocumented warehouse columns up to that many.
const padColumns = 25

// writeDBTArtifacts writes manifest.json, catalog.json and
// semantic_manifest.json for the corpus's tables into dir; a non-empty
// change replaces the first model's description.
func writeDBTArtifacts(corpus, dir, change string) (*DBTResult, error) {
	f, err := os.Open(corpus)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	type node = map[string]any
	nodes, catNodes := map[string]node{}, map[string]node{}
	var sms, metrics []node
	var counts []string
	res := &DBTResult{}
	var prev []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 16<<20)
	for sc.Scan() {
		var l struct {
			Type      string             `json:"type"`
			Namespace string             `json:"namespace"`
			Entity    semcat.TableCreate `json:"entity"`
			Tags      []string           `json:"tags"`
		}
		if json.Unmarshal(sc.Bytes(), &l) != nil || l.Type != "table" {
			continue
		}
		t := l.Entity
		parts := strings.Split(l.Namespace, ".")
		schema := parts[len(parts)-1]
		id := fmt.Sprintf("model.gitlab.%s__%s", schema, t.Name)
		desc := ""
		if t.Comment != nil {
			desc = *t.Comment
		}
		if change != "" && len(nodes) == 0 {
			desc = change
		}
		cols, catCols := map[string]any{}, map[string]any{}
		for i, c := range t.Columns {
			cd := ""
			if c.Comment != nil {
				cd = *c.Comment
			}
			cols[c.Name] = map[string]any{"name": c.Name, "description": cd, "data_type": nil, "meta": map[string]any{}, "tags": []string{}}
			catCols[strings.ToUpper(c.Name)] = map[string]any{"name": strings.ToUpper(c.Name), "type": snowflakeType(c.Type), "index": i + 1, "comment": nil}
			res.Columns++
		}
		// A warehouse table has more columns than the project documents.
		for i := len(t.Columns); i < padColumns; i++ {
			name := fmt.Sprintf("ATTRIBUTE_%02d", i)
			catCols[name] = map[string]any{"name": name, "type": []string{"TEXT", "NUMBER(38,2)", "TIMESTAMP_NTZ"}[i%3], "index": i + 1, "comment": nil}
			res.Columns++
		}
		meta := map[string]any{}
		for k, v := range t.Properties {
			meta[k] = v
		}
		deps := []string{}
		if len(prev) > 0 {
			deps = append(deps, prev[len(prev)-1])
			if len(prev) > 7 {
				deps = append(deps, prev[len(prev)-7])
			}
		}
		nodes[id] = node{"unique_id": id, "resource_type": "model", "package_name": "gitlab", "name": t.Name, "alias": t.Name,
			"database": "PROD", "schema": schema, "description": desc, "tags": l.Tags, "meta": meta,
			"original_file_path": "models/" + schema + "/" + t.Name + ".sql",
			"config":             map[string]any{"materialized": "table", "meta": meta, "tags": l.Tags, "enabled": true},
			"columns":            cols, "depends_on": map[string]any{"nodes": deps, "macros": []string{}}}
		catNodes[id] = node{"unique_id": id, "metadata": map[string]any{"type": "BASE TABLE", "schema": strings.ToUpper(schema),
			"name": strings.ToUpper(t.Name), "database": "PROD", "comment": nil}, "columns": catCols}
		prev = append(prev, id)
		res.Models++
		if res.Models%10 == 0 && len(t.Columns) >= 2 {
			sms = append(sms, dbtSemanticModel(t, schema, id))
			counts = append(counts, cut("count_"+t.Name))
			metrics = append(metrics, node{"name": cut("count_" + t.Name), "type": "simple", "label": "Count of " + t.Name,
				"description": "Rows of " + t.Name, "type_params": map[string]any{"measure": map[string]any{"name": "rows_" + t.Name}},
				"filter": nil})
			if len(counts) >= 2 {
				a, b := counts[len(counts)-2], counts[len(counts)-1]
				metrics = append(metrics, node{"name": fmt.Sprintf("ratio_%d", len(metrics)), "type": "ratio",
					"type_params": map[string]any{"numerator": map[string]any{"name": b}, "denominator": map[string]any{"name": a}}})
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	manifest := map[string]any{"metadata": map[string]any{"dbt_version": "1.9.4", "project_name": "gitlab", "adapter_type": "snowflake"},
		"nodes": nodes, "sources": map[string]any{}}
	for name, v := range map[string]any{
		"manifest.json":          manifest,
		"catalog.json":           map[string]any{"nodes": catNodes, "sources": map[string]any{}},
		"semantic_manifest.json": map[string]any{"semantic_models": sms, "metrics": metrics},
	} {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		if name == "manifest.json" {
			res.ManifestBytes = int64(len(b))
		}
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// dbtSemanticModel is a semantic model over table t: its first column the
// primary entity, its other columns dimensions, and a count measure.
func dbtSemanticModel(t semcat.TableCreate, schema, id string) map[string]any {
	var dims []map[string]any
	for _, c := range t.Columns[1:min(len(t.Columns), 6)] {
		typ := "categorical"
		var params any
		if c.Type != nil && c.Type.Name == "timestamp" {
			typ, params = "time", map[string]any{"time_granularity": "day"}
		}
		dims = append(dims, map[string]any{"name": c.Name, "type": typ, "type_params": params})
	}
	return map[string]any{"name": cut("sm_" + t.Name), "description": "Semantic model of " + t.Name,
		"node_relation": map[string]any{"alias": t.Name, "schema_name": schema, "database": "PROD"},
		"depends_on":    map[string]any{"nodes": []string{id}},
		"entities":      []map[string]any{{"name": cut(t.Name + "_key"), "type": "primary", "expr": t.Columns[0].Name}},
		"dimensions":    dims,
		"measures":      []map[string]any{{"name": "rows_" + t.Name, "agg": "count", "expr": t.Columns[0].Name}}}
}

// snowflakeType is how Snowflake's catalog would report a Gravitino type.
func snowflakeType(t *semcat.Type) string {
	if t == nil {
		return "TEXT"
	}
	switch n := t.Name; {
	case n == "string":
		return "TEXT"
	case strings.HasPrefix(n, "decimal("):
		return "NUMBER" + strings.TrimPrefix(n, "decimal")
	case n == "long" || n == "integer":
		return "NUMBER(38,0)"
	case n == "timestamp":
		return "TIMESTAMP_NTZ"
	case n == "boolean":
		return "BOOLEAN"
	case n == "double" || n == "float":
		return "FLOAT"
	case n == "list":
		return "ARRAY"
	case n == "map" || n == "struct":
		return "OBJECT"
	}
	return strings.ToUpper(t.Name)
}

// Markdown is the benchmark's table.
func (r *DBTResult) Markdown() string {
	var b strings.Builder
	fmt.Fprintf(&b, "# dbt import (DESIGN §8.3)\n\n%s, commit %s, %d CPUs (%s), load %s\n\n", r.Started.Format(time.RFC3339), r.Commit, r.Machine.NProc, r.Machine.CPU, r.Machine.LoadAvg)
	fmt.Fprintf(&b, "Artifacts generated from the GitLab corpus: %d models with %d columns (manifest %.1f MB), %d semantic models, %d metrics.\n\n",
		r.Models, r.Columns, float64(r.ManifestBytes)/1e6, r.SemanticModels, r.Metrics)
	b.WriteString("| run | time | writes | target |\n|---|---:|---:|---|\n")
	fmt.Fprintf(&b, "| first import | %.1f s | %d | ≤ %d s |\n", float64(r.FirstMs)/1000, r.FirstWrites, r.TargetFirstMs/1000)
	fmt.Fprintf(&b, "| repeat, same artifacts | %.1f s | %d | 0 writes |\n", float64(r.RepeatMs)/1000, r.RepeatWrites)
	fmt.Fprintf(&b, "| one model's description changed | %.1f s | %d | 1 write |\n", float64(r.ChangeMs)/1000, r.ChangeWrites)
	if r.Issues > 0 {
		fmt.Fprintf(&b, "\n%d items were not imported (see the log).\n", r.Issues)
	}
	return b.String()
}

// check reports what misses its target.
func (r *DBTResult) check() []string {
	var out []string
	if r.FirstMs > r.TargetFirstMs {
		out = append(out, fmt.Sprintf("first import took %d ms (target %d)", r.FirstMs, r.TargetFirstMs))
	}
	if r.RepeatWrites != 0 {
		out = append(out, fmt.Sprintf("a repeat import made %d writes", r.RepeatWrites))
	}
	if r.ChangeWrites != 1 {
		out = append(out, fmt.Sprintf("changing one model made %d writes", r.ChangeWrites))
	}
	if r.Issues != 0 {
		out = append(out, fmt.Sprintf("%d items were not imported", r.Issues))
	}
	return out
}

func (r *DBTResult) write(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, "dbt-import.json"), append(b, '\n'), 0o644); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "dbt-import.md"), []byte(r.Markdown()), 0o644)
}

// cut shortens a generated name to semcat's 64 characters.
func cut(s string) string { return s[:min(len(s), 64)] }
