package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/semcat/semcat"
)

var _ semcat.SearchService = (*Client)(nil)

// Search searches the metadata of req.Metalake (SPEC §2.6) and answers at
// once from the index as it is. Zero fields of req leave the server's
// defaults (20 results, relevance order, both scopes).
func (c *Client) Search(ctx context.Context, req semcat.SearchRequest) (*semcat.SearchResult, error) {
	return c.SearchAfter(ctx, req, semcat.Position{}, 0)
}

// SearchAfter is Search that first waits until the index covers the write
// at minPosition (the position a write method returned), so that a search
// sees the caller's own writes. The server waits at most wait (0: its
// default of 5s, at most 30s) and then fails with ENOTCAUGHTUP rather than
// answer without the write. A zero minPosition does not wait.
func (c *Client) SearchAfter(ctx context.Context, req semcat.SearchRequest, minPosition semcat.Position, wait time.Duration) (*semcat.SearchResult, error) {
	p, err := metalakePath(req.Metalake)
	if err != nil {
		return nil, err
	}
	q := url.Values{"query": {req.Query}}
	set := func(key, value string) {
		if value != "" {
			q.Set(key, value)
		}
	}
	setInt := func(key string, n int) {
		if n != 0 {
			q.Set(key, strconv.Itoa(n))
		}
	}
	set("type", strings.Join(req.Types, ","))
	// catalog, schema and owner repeat: any of their values (SPEC §2.6).
	set("catalog", req.Catalog)
	for _, v := range req.Catalogs {
		q.Add("catalog", v)
	}
	set("schema", req.Schema)
	for _, v := range req.Schemas {
		q.Add("schema", v)
	}
	for _, v := range req.Owners {
		q.Add("owner", v)
	}
	for _, t := range req.Tags {
		q.Add("tag", t)
	}
	set("scope", req.Scope)
	set("sort", req.Sort)
	setInt("limit", req.Limit)
	setInt("offset", req.Offset)
	set("cursor", req.Cursor)
	set("facets", strings.Join(req.Facets, ","))
	setInt("facetSize", req.FacetSize)
	if req.Profile {
		q.Set("profile", "true")
	}
	set("minPosition", minPosition.String())
	if !minPosition.IsZero() && wait > 0 {
		q.Set("waitMs", strconv.FormatInt(wait.Milliseconds(), 10))
	}
	rep, err := c.do(ctx, request{method: http.MethodGet, path: p + "/search", query: q})
	if err != nil {
		return nil, err
	}
	var body struct {
		Total    uint64                         `json:"total"`
		Position string                         `json:"position"`
		Results  []semcat.SearchHit             `json:"results"`
		Facets   map[string][]semcat.FacetValue `json:"facets"`
		Cursor   string                         `json:"cursor"`
		Profile  *semcat.SearchProfile          `json:"profile"`
	}
	if err := json.Unmarshal(rep.body, &body); err != nil {
		return nil, fmt.Errorf("client: decoding the search answer: %w", err)
	}
	res := &semcat.SearchResult{Total: body.Total, Results: body.Results, Facets: body.Facets, Cursor: body.Cursor, Profile: body.Profile}
	if body.Position != "" {
		if res.Position, err = semcat.ParsePosition("position", body.Position); err != nil {
			return nil, fmt.Errorf("client: the server answered a malformed search position %q", body.Position)
		}
	}
	return res, nil
}

// WaitFor is part of semcat.SearchService. The REST API waits for a
// position only as part of a search, so WaitFor fails with EUNSUPPORTED;
// use SearchAfter.
func (c *Client) WaitFor(ctx context.Context, pos semcat.Position) error {
	return semcat.Errorf(semcat.EUNSUPPORTED, "the REST API waits for a position only within a search: use SearchAfter")
}

// Suggest answers a type-ahead prefix (SPEC §2.6): the entities of
// req.Metalake whose name or a part of it starts with req.Prefix, best
// first. Zero Limit leaves the server's default (10).
func (c *Client) Suggest(ctx context.Context, req semcat.SuggestRequest) (*semcat.SuggestResult, error) {
	p, err := metalakePath(req.Metalake)
	if err != nil {
		return nil, err
	}
	q := url.Values{"prefix": {req.Prefix}}
	if len(req.Types) > 0 {
		q.Set("type", strings.Join(req.Types, ","))
	}
	if req.Limit != 0 {
		q.Set("limit", strconv.Itoa(req.Limit))
	}
	suggestions, err := get[[]semcat.Suggestion](ctx, c, request{method: http.MethodGet, path: p + "/suggest", query: q}, "suggestions")
	if err != nil {
		return nil, err
	}
	return &semcat.SuggestResult{Suggestions: suggestions}, nil
}
