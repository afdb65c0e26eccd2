package main

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

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

// runSearch runs `semcat search <query> [filters]`: one page of results of a
// metadata search, as a table or JSON.
func runSearch(args []string, r *remote, stdout, stderr io.Writer) error {
	cmd := newCommand("search", "[flags] <query>...  (quote a query with -terms, or put it after --)", r, stdout, stderr)
	var req semcat.SearchRequest
	var types, tags, facets listFlag
	var minPosition string
	var wait time.Duration
	cmd.fs.Var(&types, "type", "only these entity types: catalog, schema, table, semantic_model, metric (repeatable, or a comma list)")
	cmd.fs.StringVar(&req.Catalog, "catalog", "", "only entities in this catalog")
	cmd.fs.StringVar(&req.Schema, "schema", "", "only entities in this schema")
	cmd.fs.Var(&tags, "tag", "only entities with this tag (repeatable; all must be present)")
	cmd.fs.StringVar(&req.Scope, "scope", "", "match only user or only system metadata (default both)")
	cmd.fs.StringVar(&req.Sort, "sort", "", "relevance (default), name, -name, created or -created")
	cmd.fs.IntVar(&req.Limit, "limit", 0, "results per page (server default 20, at most 1000)")
	cmd.fs.IntVar(&req.Offset, "offset", 0, "results to skip (at most 10000)")
	cmd.fs.StringVar(&req.Cursor, "cursor", "", "the cursor of the previous page, for the next one")
	cmd.fs.Var(&facets, "facets", "count results per value of: type, catalog, schema, tags (comma list)")
	cmd.fs.IntVar(&req.FacetSize, "facet-size", 0, "values per facet (server default 10)")
	cmd.fs.StringVar(&minPosition, "min-position", "", "wait until the index covers this write position (X-Semcat-Position)")
	cmd.fs.DurationVar(&wait, "wait", 0, "with --min-position, how long the server may wait (default 5s, at most 30s)")
	words, err := cmd.parse(args, 1, -1)
	if err != nil {
		return err
	}
	req.Query = strings.Join(words, " ")
	req.Types, req.Tags, req.Facets = types, tags, facets
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
