package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/semcat/semcat"
)

// searchPage is the JSON of a search result: the REST API's answer without
// its "code".
type searchPage struct {
	Total    uint64                         `json:"total"`
	Position string                         `json:"position"`
	Results  []semcat.SearchHit             `json:"results"`
	Facets   map[string][]semcat.FacetValue `json:"facets,omitempty"`
	Cursor   string                         `json:"cursor,omitempty"`
}

// searchCommand is `semcat search <query> [filters]`: one page of results
// of a metadata search, as a table or JSON.
func searchCommand(r *remote) *cobra.Command {
	var a searchArgs
	c := &cobra.Command{
		Use:   "search [flags] <query>...",
		Short: "search the metadata",
		Long:  "search the metadata; quote a query with -terms, or put it after --",
		Example: `  semcat search EmpTel --type table
  semcat search 'owner:finance revenue' --facets type,tags
  semcat search revenue --owner alice --owner finance --catalog warehouse
  semcat search -- -deprecated orders`,
		Args:              argsBetween(1, -1),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cc *cobra.Command, words []string) error {
			return a.run(r.command(cc), words)
		},
	}
	fs := c.Flags()
	typesFlag(c, &a.types)
	fs.Var(&a.catalogs, "catalog", "only entities in this catalog (repeatable: in any of them)")
	fs.Var(&a.schemas, "schema", "only entities in this schema (repeatable: in any of them)")
	fs.Var(&a.owners, "owner", "only entities with this owner, a user or group (repeatable: any of them)")
	fs.Var(&a.tags, "tag", "only entities with this tag (repeatable; all must be present)")
	fs.StringVar(&a.req.Scope, "scope", "", "match only user or only system metadata (default both)")
	fs.StringVar(&a.req.Sort, "sort", "", "relevance (default), name, -name, created or -created")
	fs.IntVar(&a.req.Limit, "limit", 0, "results per page (server default 20, at most 1000)")
	fs.IntVar(&a.req.Offset, "offset", 0, "results to skip (at most 10000)")
	fs.StringVar(&a.req.Cursor, "cursor", "", "the cursor of the previous page, for the next one")
	fs.Var(&a.facets, "facets", "count results per value of: "+strings.Join(searchFacets, ", ")+" (comma list)")
	fs.IntVar(&a.req.FacetSize, "facet-size", 0, "values per facet (server default 10)")
	fs.StringVar(&a.minPosition, "min-position", "", "wait until the index covers this write position (X-Semcat-Position)")
	fs.DurationVar(&a.wait, "wait", 0, "with --min-position, how long the server may wait (default 5s, at most 30s)")
	_ = c.RegisterFlagCompletionFunc("sort", completeValues(searchSorts...))
	_ = c.RegisterFlagCompletionFunc("scope", completeValues("user", "system"))
	_ = c.RegisterFlagCompletionFunc("facets", completeValues(searchFacets...))
	_ = c.RegisterFlagCompletionFunc("tag", completeTags(r))
	for _, f := range []string{"catalog", "schema", "owner"} {
		_ = c.RegisterFlagCompletionFunc(f, completeFacet(r, f))
	}
	return c
}

// completeFacet completes a search filter's value from the values of its
// facet: those of the entities the user may see, as the page offers them.
func completeFacet(r *remote, facet string) cobra.CompletionFunc {
	return func(cmd *cobra.Command, _ []string, toComplete string) ([]cobra.Completion, cobra.ShellCompDirective) {
		c, err := r.client()
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		ctx, cancel := context.WithTimeout(cmd.Context(), completionTimeout)
		defer cancel()
		m, err := r.defaultMetalake(ctx, c)
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		res, err := c.Search(ctx, semcat.SearchRequest{Metalake: m, Query: "*", Limit: 1, Facets: []string{facet}, FacetSize: maxFacetSize})
		if err != nil {
			return nil, cobra.ShellCompDirectiveError
		}
		var out []cobra.Completion
		for _, v := range res.Facets[facet] {
			if strings.HasPrefix(v.Value, toComplete) {
				out = append(out, v.Value)
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}

// maxFacetSize is the most values a facet answers (SPEC §2.6).
const maxFacetSize = 1000

// searchArgs are the flags of semcat search.
type searchArgs struct {
	req                       semcat.SearchRequest
	types, tags, facets       listFlag
	catalogs, schemas, owners repeatedFlag
	minPosition               string
	wait                      time.Duration
}

func (a *searchArgs) run(cmd *command, words []string) error {
	stdout, req, minPosition, wait := cmd.stdout, a.req, a.minPosition, a.wait
	var err error
	req.Query = strings.Join(words, " ")
	req.Types, req.Tags, req.Facets = a.types, a.tags, a.facets
	req.Catalogs, req.Schemas, req.Owners = a.catalogs, a.schemas, a.owners
	if err := checkTypes(req.Types); err != nil {
		return err
	}
	if req.Sort != "" && !slices.Contains(searchSorts, req.Sort) {
		return usagef("--sort: unknown sort %q (want %s)%s", req.Sort, strings.Join(searchSorts, ", "), didYouMean(req.Sort, searchSorts))
	}
	var pos semcat.Position
	if minPosition != "" {
		if pos, err = semcat.ParsePosition("--min-position", minPosition); err != nil {
			return usagef("%s", semcat.ErrorMessage(err))
		}
	}
	c, err := cmd.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	if req.Metalake, err = cmd.defaultMetalake(ctx, c); err != nil {
		return err
	}
	res, err := c.SearchAfter(ctx, req, pos, wait)
	if err != nil {
		return err
	}
	if cmd.json {
		hits := res.Results
		if hits == nil {
			hits = []semcat.SearchHit{}
		}
		return printJSON(stdout, searchPage{Total: res.Total, Position: res.Position.String(), Results: hits, Facets: res.Facets, Cursor: res.Cursor})
	}
	return printSearch(stdout, req, res)
}

// printSearch writes the results as a table (type, identifier, score, what
// matched), then the facets and how to get the next page.
func printSearch(w io.Writer, req semcat.SearchRequest, res *semcat.SearchResult) error {
	if len(res.Results) == 0 {
		fmt.Fprintf(w, "no results in metalake %s\n", req.Metalake)
	} else {
		t := newTable(w, "TYPE", "IDENTIFIER", "SCORE", "MATCHED")
		for _, h := range res.Results {
			matched := make([]string, len(h.Matches))
			for i, m := range h.Matches {
				matched[i] = m.Key + ":" + m.Value
				if m.Field != "" {
					matched[i] = m.Key + ":" + m.Field // a column's or field's path
					if m.In == "comment" {
						matched[i] += " (comment)"
					}
				}
			}
			id := strings.Join(append(append([]string{}, h.Entity.Namespace...), h.Entity.Name), ".")
			t.row(h.Entity.Type, id, strconv.FormatFloat(h.Score, 'f', 2, 64), clip(strings.Join(matched, ", "), 60))
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	if len(res.Facets) > 0 {
		fmt.Fprintln(w)
		t := newTable(w, "FACET", "VALUE", "COUNT")
		for _, name := range req.Facets {
			for _, v := range res.Facets[name] {
				t.row(name, v.Value, strconv.Itoa(v.Count))
			}
		}
		if err := t.flush(); err != nil {
			return err
		}
	}
	if res.Cursor != "" {
		fmt.Fprintf(w, "\n%d of %d results; next page: --cursor %s\n", len(res.Results), res.Total, res.Cursor)
	}
	return nil
}

// searchTypeNames and searchSorts are the values --type and --sort take,
// checked here so that a typo is a usage error (exit 2), as SPEC §2.6
// names them.
var (
	searchTypeNames = []string{"catalog", "schema", "table", "semantic_model", "metric"}
	searchSorts     = []string{"relevance", "name", "-name", "created", "-created"}
	searchFacets    = []string{"type", "catalog", "schema", "tags", "owner"}
)

// checkTypes fails with a usage error for a type that is no entity type.
func checkTypes(types []string) error {
	for _, t := range types {
		if !slices.Contains(searchTypeNames, t) {
			return usagef("--type: unknown type %q (want %s)%s", t, strings.Join(searchTypeNames, ", "), didYouMean(t, searchTypeNames))
		}
	}
	return nil
}

// suggestPage is the JSON of a suggestion list: the REST API's answer
// without its "code".
type suggestPage struct {
	Suggestions []semcat.Suggestion `json:"suggestions"`
}

// suggestCommand is `semcat suggest <prefix>`: type-ahead, the entities
// whose name or a part of it starts with the prefix, best first.
func suggestCommand(r *remote) *cobra.Command {
	var types listFlag
	var req semcat.SuggestRequest
	c := &cobra.Command{
		Use:               "suggest [flags] <prefix>",
		Short:             "type-ahead: the names starting with a prefix",
		Example:           "  semcat suggest emp --type table",
		Args:              argsBetween(1, 1),
		ValidArgsFunction: cobra.NoFileCompletions,
		RunE: func(cc *cobra.Command, words []string) error {
			return runSuggest(r.command(cc), req, words, types)
		},
	}
	typesFlag(c, &types)
	c.Flags().IntVar(&req.Limit, "limit", 0, "how many suggestions (server default 10, at most 100)")
	return c
}

func runSuggest(cmd *command, req semcat.SuggestRequest, words, types []string) error {
	stdout := cmd.stdout
	var err error
	req.Prefix, req.Types = words[0], types
	if err := checkTypes(req.Types); err != nil {
		return err
	}
	c, err := cmd.client()
	if err != nil {
		return err
	}
	ctx, stop := signalContext()
	defer stop()
	if req.Metalake, err = cmd.defaultMetalake(ctx, c); err != nil {
		return err
	}
	res, err := c.Suggest(ctx, req)
	if err != nil {
		return err
	}
	if cmd.json {
		return printJSON(stdout, suggestPage{Suggestions: res.Suggestions})
	}
	if len(res.Suggestions) == 0 {
		fmt.Fprintf(stdout, "nothing in metalake %s starts with %q\n", req.Metalake, req.Prefix)
		return nil
	}
	t := newTable(stdout, "TYPE", "IDENTIFIER")
	for _, s := range res.Suggestions {
		t.row(s.Entity.Type, strings.Join(append(append([]string{}, s.Entity.Namespace...), s.Entity.Name), "."))
	}
	return t.flush()
}
