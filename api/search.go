package api

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/semcat/semcat"
)

// Search limits (SPEC §2.6, §5.6).
const (
	defaultLimit     = 20
	maxLimit         = 1000
	maxOffset        = 10000
	defaultFacetSize = 10
	maxFacetSize     = 1000
	defaultWait      = 5 * time.Second
	maxWait          = 30 * time.Second
)

var searchTypes = map[string]bool{"catalog": true, "schema": true, "table": true, "semantic_model": true, "metric": true}

// listParam returns the values of a repeatable parameter, each also split at
// commas, without empty ones.
func listParam(q url.Values, name string) []string {
	var out []string
	for _, v := range q[name] {
		for _, p := range strings.Split(v, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// intParam reads an optional integer parameter within [lo, hi].
func intParam(q url.Values, name string, def, lo, hi int) (int, error) {
	v := q.Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		return 0, semcat.Errorf(semcat.EINVALID, "%s: must be a whole number from %d to %d, got '%s'", name, lo, hi, v)
	}
	return n, nil
}

// searchSingle are the search parameters that take one value; type,
// catalog, schema, owner, tag and facets may repeat.
var searchSingle = []string{"query", "scope", "sort", "limit", "offset", "cursor", "facetSize", "profile", "minPosition", "waitMs"}

// searchRequest reads and checks the parameters of a search from the
// query string qs (queryValues).
func searchRequest(r *http.Request, qs url.Values) (semcat.SearchRequest, error) {
	var req semcat.SearchRequest
	var err error
	if req.Metalake, err = pathName(r, "metalake"); err != nil {
		return req, err
	}
	if _, ok := qs["query"]; !ok {
		return req, semcat.Errorf(semcat.EINVALID, "query: the query parameter is required")
	}
	req.Query = qs.Get("query")
	if req.Types, err = typesParam(qs); err != nil {
		return req, err
	}
	// catalog, schema and owner repeat: any of their values (SPEC §2.6).
	for _, p := range []struct {
		name string
		dst  *[]string
	}{{"catalog", &req.Catalogs}, {"schema", &req.Schemas}, {"owner", &req.Owners}} {
		for _, v := range qs[p.name] {
			if v == "" {
				continue
			}
			if err := semcat.ValidateName(p.name, v); err != nil {
				return req, err
			}
			*p.dst = append(*p.dst, v)
		}
	}
	for _, t := range qs["tag"] {
		if err := semcat.ValidateName("tag", t); err != nil {
			return req, err
		}
		req.Tags = append(req.Tags, t)
	}
	switch req.Scope = qs.Get("scope"); req.Scope {
	case "", "user", "system":
	default:
		return req, semcat.Errorf(semcat.EINVALID, "scope: must be user or system, got '%s'", req.Scope)
	}
	switch req.Sort = qs.Get("sort"); req.Sort {
	case "", "relevance", "name", "-name", "created", "-created":
	default:
		return req, semcat.Errorf(semcat.EINVALID, "sort: must be relevance, name, -name, created or -created, got '%s'", req.Sort)
	}
	if req.Limit, err = intParam(qs, "limit", defaultLimit, 1, maxLimit); err != nil {
		return req, err
	}
	if req.Offset, err = intParam(qs, "offset", 0, 0, maxOffset); err != nil {
		return req, err
	}
	req.Cursor = qs.Get("cursor")
	if req.Cursor != "" && req.Offset != 0 {
		return req, semcat.Errorf(semcat.EINVALID, "cursor: cannot be combined with offset")
	}
	for _, f := range listParam(qs, "facets") {
		switch f {
		case "type", "catalog", "schema", "tags", "owner":
		default:
			return req, semcat.Errorf(semcat.EINVALID, "facets: unknown facet '%s' (want type, catalog, schema, tags or owner)", f)
		}
		req.Facets = append(req.Facets, f)
	}
	if req.FacetSize, err = intParam(qs, "facetSize", defaultFacetSize, 1, maxFacetSize); err != nil {
		return req, err
	}
	if req.Profile, err = boolParam(r, "profile"); err != nil {
		return req, err
	}
	return req, nil
}

// typesParam reads the entity types of a search or suggest.
func typesParam(qs url.Values) ([]string, error) {
	var out []string
	for _, t := range listParam(qs, "type") {
		if !searchTypes[t] {
			return nil, semcat.Errorf(semcat.EINVALID, "type: unknown type '%s' (want catalog, schema, table, semantic_model or metric)", t)
		}
		out = append(out, t)
	}
	return out, nil
}

// Suggest limits (SPEC §2.6).
const (
	defaultSuggestLimit = 10
	maxSuggestLimit     = 100
	maxPrefixLength     = 128
)

// suggest answers GET /api/metalakes/{metalake}/suggest?prefix=…: the
// entities whose name or a part of it starts with prefix, best first.
func (h *handler) suggest(w http.ResponseWriter, r *http.Request) error {
	qs, err := queryValues(r, "prefix", "limit")
	if err != nil {
		return err
	}
	var req semcat.SuggestRequest
	if req.Metalake, err = pathName(r, "metalake"); err != nil {
		return err
	}
	if _, ok := qs["prefix"]; !ok {
		return semcat.Errorf(semcat.EINVALID, "prefix: the query parameter is required")
	}
	req.Prefix = qs.Get("prefix")
	if n := utf8.RuneCountInString(req.Prefix); n < 1 || n > maxPrefixLength || strings.TrimSpace(req.Prefix) == "" {
		return semcat.Errorf(semcat.EINVALID, "prefix: must be 1-%d characters, not blank", maxPrefixLength)
	}
	if req.Types, err = typesParam(qs); err != nil {
		return err
	}
	if req.Limit, err = intParam(qs, "limit", defaultSuggestLimit, 1, maxSuggestLimit); err != nil {
		return err
	}
	res, err := h.svc.Search.Suggest(r.Context(), req)
	if err != nil {
		return err
	}
	RecordCount(r, len(res.Suggestions))
	return ok(w, "suggestions", nonNil(res.Suggestions))
}

// requestedWait is how long a request asks to wait for a position
// (minPosition and waitMs), within the limits; 0 if it asks for none or
// names an invalid wait, which search rejects.
func requestedWait(r *http.Request) time.Duration {
	q, err := queryValues(r)
	if err != nil || q.Get("minPosition") == "" {
		return 0
	}
	ms, err := intParam(q, "waitMs", int(defaultWait/time.Millisecond), 0, int(maxWait/time.Millisecond))
	if err != nil {
		return 0
	}
	return time.Duration(ms) * time.Millisecond
}

// searchChecker is a search service that fails, before it reads the
// index, a search that cannot answer (search.Service.CheckSearch).
type searchChecker interface {
	CheckSearch(ctx context.Context, metalake string) error
}

// checkSearch fails a search of metalake that cannot answer — the metalake
// missing, or not the caller's — before a wait for a position: the wait
// starts only after authorization (SPEC §2.11), or a caller could hold a
// connection for waitMs on a metalake it may not search.
func checkSearch(ctx context.Context, svc semcat.SearchService, metalake string) error {
	if c, ok := svc.(searchChecker); ok {
		return c.CheckSearch(ctx, metalake)
	}
	return nil
}

// search answers GET /api/metalakes/{metalake}/search. With minPosition it
// first checks the metalake (checkSearch), then waits until the index
// covers that write (at most waitMs), and fails with 503/1013 rather than
// answer without it.
func (h *handler) search(w http.ResponseWriter, r *http.Request) error {
	qs, err := queryValues(r, searchSingle...)
	if err != nil {
		return err
	}
	req, err := searchRequest(r, qs)
	if err != nil {
		return err
	}
	if err := h.checkProfile(r, req); err != nil {
		return err
	}
	wait, err := intParam(qs, "waitMs", int(defaultWait/time.Millisecond), 0, int(maxWait/time.Millisecond))
	if err != nil {
		return err
	}
	if token := qs.Get("minPosition"); token != "" {
		pos, err := semcat.ParsePosition("minPosition", token)
		if err != nil {
			return err
		}
		if err := checkSearch(r.Context(), h.svc.Search, req.Metalake); err != nil {
			return err
		}
		ctx, cancel := context.WithTimeout(r.Context(), time.Duration(wait)*time.Millisecond)
		err = h.svc.Search.WaitFor(ctx, pos)
		cancel()
		if errors.Is(err, context.DeadlineExceeded) {
			return semcat.Errorf(semcat.ENOTCAUGHTUP, "the search index has not yet applied position %s after %d ms; try again or raise waitMs", token, wait)
		} else if err != nil {
			return err
		}
	}
	res, err := h.svc.Search.Search(r.Context(), req)
	if err != nil {
		return err
	}
	RecordCount(r, len(res.Results))
	body := struct {
		Code     int                            `json:"code"`
		Total    uint64                         `json:"total"`
		Position string                         `json:"position"`
		Results  []semcat.SearchHit             `json:"results"`
		Facets   map[string][]semcat.FacetValue `json:"facets,omitempty"`
		Cursor   string                         `json:"cursor,omitempty"`
		Profile  *semcat.SearchProfile          `json:"profile,omitempty"`
	}{0, res.Total, res.Position.String(), nonNil(res.Results), res.Facets, res.Cursor, res.Profile}
	return writeJSON(w, http.StatusOK, body)
}

// objectMetadata answers GET .../objects/{type}/{fullName}/metadata.
func (h *handler) objectMetadata(w http.ResponseWriter, r *http.Request) error {
	metalake, obj, err := objectTarget(r)
	if err != nil {
		return err
	}
	md, err := h.svc.Metadata.ObjectMetadata(r.Context(), metalake, obj)
	if err != nil {
		return err
	}
	return ok(w, "metadata", md)
}

// reindex answers POST /api/admin/reindex: rebuild the search index from
// PostgreSQL into a new directory and swap it in while search keeps serving.
func (h *handler) reindex(w http.ResponseWriter, r *http.Request) error {
	if h.cfg.Reindex == nil {
		return semcat.Errorf(semcat.EUNSUPPORTED, "this server has no search index to rebuild")
	}
	if err := h.checkAdmin(r); err != nil {
		return err
	}
	started := time.Now()
	// A rebuild takes as long as the catalog needs, well past the request
	// deadline, and must not stop half-way because a client went away;
	// its answer may come after the server's write timeout.
	_ = http.NewResponseController(w).SetWriteDeadline(time.Time{})
	if err := h.cfg.Reindex(context.WithoutCancel(r.Context())); err != nil {
		return err
	}
	return ok(w, "tookMs", time.Since(started).Milliseconds())
}

// reindexProgress answers GET /api/admin/reindex: how far the latest
// rebuild got, for progress bars while POST /api/admin/reindex runs.
func (h *handler) reindexProgress(w http.ResponseWriter, r *http.Request) error {
	if h.cfg.ReindexProgress == nil {
		return semcat.Errorf(semcat.EUNSUPPORTED, "this server has no search index to rebuild")
	}
	if err := h.checkAdmin(r); err != nil {
		return err
	}
	return ok(w, "rebuild", h.cfg.ReindexProgress())
}

// checkProfile refuses profile=true to all but service admins (SPEC §2.6):
// a profile counts the index's terms and postings before visibility
// applies, so it would tell anyone which words the whole index holds. The
// refusal does not depend on the metalake, which it therefore does not
// reveal.
func (h *handler) checkProfile(r *http.Request, req semcat.SearchRequest) error {
	if req.Profile && h.cfg.IsAdmin != nil && !h.cfg.IsAdmin(semcat.UserFromContext(r.Context())) {
		return semcat.Errorf(semcat.EFORBIDDEN, "profile: only service admins may ask for a search's profile; it describes the whole index")
	}
	return nil
}

// checkAdmin lets only service admins through, when IsAdmin is set.
func (h *handler) checkAdmin(r *http.Request) error {
	if h.cfg.IsAdmin != nil && !h.cfg.IsAdmin(semcat.UserFromContext(r.Context())) {
		return semcat.Errorf(semcat.EFORBIDDEN, "only service admins may rebuild the search index")
	}
	return nil
}
