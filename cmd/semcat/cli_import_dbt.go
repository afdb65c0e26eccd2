package main

import (
	"fmt"
	"io"
	"strings"
	"sync/atomic"
	"time"

	"github.com/spf13/cobra"

	"github.com/semcat/semcat/connectors/dbt"
)

// importDBTCommand is `semcat import dbt DIR --catalog C`: it imports a dbt
// project's artifacts (connectors/dbt) through the server's REST API.
func importDBTCommand(r *remote) *cobra.Command {
	var catalog string
	var prune, dryRun, allowPartial bool
	var concurrency int
	c := &cobra.Command{
		Use:   "dbt DIR --catalog C [--prune] [--dry-run] [--allow-partial]",
		Short: "import a dbt project's tables, semantic models and metrics",
		Long: `import a dbt project from its target directory (DIR, or DIR/target): manifest.json
(models, seeds, snapshots and sources become tables in schemas named as in dbt),
catalog.json (column types and order, optional) and semantic_manifest.json
(semantic models and metrics, optional). A repeat import writes nothing; items
that cannot be mapped are named and fail the import unless --allow-partial.`,
		Args: argsBetween(1, 1),
		RunE: func(cc *cobra.Command, pos []string) error {
			if catalog == "" {
				return usagef("import dbt: --catalog is required")
			}
			if concurrency < 1 {
				return usagef("import dbt: --concurrency must be at least 1")
			}
			return runImportDBT(r.command(cc), pos[0], catalog, dbt.Options{Prune: prune, DryRun: dryRun, Concurrency: concurrency}, allowPartial)
		},
	}
	c.Flags().StringVar(&catalog, "catalog", "", "the relational catalog to import into (created if missing)")
	c.Flags().BoolVar(&prune, "prune", false, "drop tables and semantic models this project imported earlier and no longer has")
	c.Flags().BoolVar(&dryRun, "dry-run", false, "print the changes without making them")
	c.Flags().BoolVar(&allowPartial, "allow-partial", false, "succeed even when some items cannot be imported (they are still listed)")
	c.Flags().IntVar(&concurrency, "concurrency", 8, "requests in flight")
	return c
}

func runImportDBT(cmd *command, dir, catalog string, opt dbt.Options, allowPartial bool) error {
	a, err := dbt.Read(dir)
	if err != nil {
		return err
	}
	plan, err := dbt.NewPlan(a, catalog, "")
	if err != nil {
		return err
	}
	c, err := cmd.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	if opt.Metalake, err = cmd.defaultMetalake(ctx, c); err != nil {
		return err
	}
	var done, total atomic.Int64
	opt.Progress = func(d, t int64) { done.Store(d); total.Store(t) }
	label := "importing dbt project " + plan.Project
	stopProgress := startProgress(cmd.stderr, label, func() (int64, int64, bool) { return done.Load(), total.Load(), total.Load() > 0 })
	started := time.Now()
	res, err := dbt.Import(ctx, c, plan, opt)
	stopProgress()
	if err != nil {
		return err
	}
	if cmd.json {
		if err := printJSON(cmd.stdout, res); err != nil {
			return err
		}
	} else {
		printDBTResult(cmd.stdout, cmd.stderr, res, opt.Metalake, time.Since(started))
	}
	if len(res.Issues) > 0 && !allowPartial {
		return fmt.Errorf("import dbt: %d %s not imported (named above); --allow-partial accepts a partial import",
			len(res.Issues), map[bool]string{true: "item was", false: "items were"}[len(res.Issues) == 1])
	}
	return nil
}

// printDBTResult writes what an import did: every change in a dry run,
// else the updates and deletions and a count of the creations; then what
// was skipped, and on stderr what could not be imported.
func printDBTResult(stdout, stderr io.Writer, res *dbt.Result, metalake string, took time.Duration) {
	spec := ""
	if res.Spec != "" {
		spec = ", semantic layer: " + res.Spec
	}
	fmt.Fprintf(stdout, "dbt project %s (dbt %s%s) into %s.%s\n", res.Project, res.DBTVersion, spec, metalake, res.Catalog)
	created := map[string]int{}
	verb := map[string]string{"create": "create", "update": "update", "delete": "delete"}
	if res.DryRun {
		verb = map[string]string{"create": "would create", "update": "would update", "delete": "would delete"}
	}
	for _, a := range res.Actions {
		if a.Op == "create" && !res.DryRun && len(res.Actions) > 50 {
			created[a.Kind]++
			continue
		}
		a.Op = verb[a.Op]
		fmt.Fprintf(stdout, "  %s\n", a)
	}
	for _, k := range []string{"catalog", "schema", "tag", "table", "semantic_model"} {
		if n := created[k]; n > 0 {
			fmt.Fprintf(stdout, "  created %d %s\n", n, strings.ReplaceAll(k, "_", " ")+map[bool]string{true: "", false: "s"}[n == 1])
		}
	}
	changes := len(res.Actions)
	what := "changes"
	if res.DryRun {
		what = "changes would be made (dry run: nothing written)"
	}
	fmt.Fprintf(stdout, "%d tables, %d semantic models, %d metrics: %d %s, %d unchanged, in %s\n",
		res.Tables, res.Models, res.Metrics, changes, what, res.Unchanged, took.Round(time.Millisecond))
	for _, s := range res.Skipped {
		fmt.Fprintf(stdout, "skipped %s\n", s)
	}
	for _, n := range res.Notes {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	for _, i := range res.Issues {
		fmt.Fprintf(stderr, "semcat: not imported: %s\n", i)
	}
}
