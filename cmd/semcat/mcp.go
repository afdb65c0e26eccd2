package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"

	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/mcpserver"
)

// serveMCP runs `semcat mcp`: the MCP tools over stdio, answering from a
// running semcat server over HTTP, so an agent's session never opens the
// server's database or index itself.
func serveMCP(args []string, getenv func(string) string, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	server := fs.String("server", "", "base URL of the server (default http://<SEMCAT_ADDR or 127.0.0.1:8090>)")
	user := fs.String("user", "", "user name for --auth simple")
	token := fs.String("token", "", "bearer token for --auth jwt (or SEMCAT_TOKEN)")
	metalake := fs.String("metalake", getenv("SEMCAT_DEFAULT_METALAKE"), "default metalake of the tools")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *server == "" {
		addr := getenv("SEMCAT_ADDR")
		if addr == "" {
			addr = DefaultConfig().Addr
		}
		*server = "http://" + addr
	}
	if *token == "" {
		*token = getenv("SEMCAT_TOKEN")
	}
	r := &remote{base: strings.TrimSuffix(*server, "/"), user: *user, token: *token, http: &http.Client{Timeout: time.Minute}}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	logger := slog.New(slog.NewJSONHandler(stderr, nil))
	name := *user
	if name == "" {
		name = mcpserver.AnonymousUser
	}
	return mcpserver.ServeStdio(ctx, mcpserver.Services{Metrics: r, Search: r},
		mcpserver.Config{DefaultMetalake: *metalake, Version: version, Logger: logger}, name)
}

// remote implements the discovery and search services over a server's REST
// API: one HTTP request per call.
type remote struct {
	base, user, token string
	http              *http.Client
}

func (r *remote) get(ctx context.Context, path string, q url.Values, out any) error {
	u := r.base + path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return err
	}
	if r.user != "" {
		req.SetBasicAuth(r.user, "")
	}
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	resp, err := r.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK {
		var e struct {
			Type    string `json:"type"`
			Message string `json:"message"`
		}
		json.Unmarshal(body, &e)
		return &semcat.Error{Code: codeForStatus(resp.StatusCode), Message: e.Message}
	}
	return json.Unmarshal(body, out)
}

// codeForStatus maps an HTTP status back to a semcat error code.
func codeForStatus(status int) string {
	switch status {
	case 400, 413:
		return semcat.EINVALID
	case 401:
		return semcat.EUNAUTHORIZED
	case 403:
		return semcat.EFORBIDDEN
	case 404:
		return semcat.ENOTFOUND
	case 409:
		return semcat.ECONFLICT
	case 501:
		return semcat.EUNSUPPORTED
	case 503:
		return semcat.ENOTCAUGHTUP
	}
	return semcat.EINTERNAL
}

func (r *remote) ListSchemaMetrics(ctx context.Context, ns semcat.Namespace, details bool) ([]semcat.SchemaMetric, error) {
	path := fmt.Sprintf("/api/metalakes/%s/catalogs/%s/schemas/%s/semantic-model-metrics",
		url.PathEscape(ns.Metalake), url.PathEscape(ns.Catalog), url.PathEscape(ns.Schema))
	var body struct {
		Identifiers []semcat.NameIdentifier `json:"identifiers"`
		Metrics     []struct {
			Namespace []string        `json:"namespace"`
			Metric    json.RawMessage `json:"metric"`
		} `json:"metrics"`
	}
	if err := r.get(ctx, path, url.Values{"details": {strconv.FormatBool(details)}}, &body); err != nil {
		return nil, err
	}
	out := []semcat.SchemaMetric{}
	for _, id := range body.Identifiers {
		out = append(out, semcat.SchemaMetric{Model: id.Namespace[len(id.Namespace)-1], Name: id.Name})
	}
	for _, m := range body.Metrics {
		var named struct {
			Name string `json:"name"`
		}
		json.Unmarshal(m.Metric, &named)
		out = append(out, semcat.SchemaMetric{Model: m.Namespace[len(m.Namespace)-1], Name: named.Name, Definition: m.Metric})
	}
	return out, nil
}

func (r *remote) Search(ctx context.Context, req semcat.SearchRequest) (*semcat.SearchResult, error) {
	q := url.Values{"query": {req.Query}}
	set := func(k, v string) {
		if v != "" {
			q.Set(k, v)
		}
	}
	set("type", strings.Join(req.Types, ","))
	set("catalog", req.Catalog)
	set("schema", req.Schema)
	set("scope", req.Scope)
	set("sort", req.Sort)
	set("cursor", req.Cursor)
	set("facets", strings.Join(req.Facets, ","))
	for _, t := range req.Tags {
		q.Add("tag", t)
	}
	if req.Limit > 0 {
		q.Set("limit", strconv.Itoa(req.Limit))
	}
	if req.Offset > 0 {
		q.Set("offset", strconv.Itoa(req.Offset))
	}
	if req.FacetSize > 0 {
		q.Set("facetSize", strconv.Itoa(req.FacetSize))
	}
	var body struct {
		Total    uint64                         `json:"total"`
		Position string                         `json:"position"`
		Results  []semcat.SearchHit             `json:"results"`
		Facets   map[string][]semcat.FacetValue `json:"facets"`
		Cursor   string                         `json:"cursor"`
	}
	if err := r.get(ctx, "/api/metalakes/"+url.PathEscape(req.Metalake)+"/search", q, &body); err != nil {
		return nil, err
	}
	pos, _ := semcat.ParsePosition("position", body.Position)
	return &semcat.SearchResult{Total: body.Total, Position: pos, Results: body.Results, Facets: body.Facets, Cursor: body.Cursor}, nil
}

func (r *remote) WaitFor(ctx context.Context, pos semcat.Position) error {
	return semcat.Errorf(semcat.EUNSUPPORTED, "waiting for a position is not available over MCP")
}
