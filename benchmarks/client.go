package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"
)

// Client drives semcat's REST API as any HTTP client would.
type Client struct {
	base string
	hc   *http.Client
}

func newClient(base string) *Client {
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.MaxIdleConns, tr.MaxIdleConnsPerHost = 64, 64
	return &Client{base: base, hc: &http.Client{Transport: tr, Timeout: 10 * time.Minute}}
}

// APIError is a semcat error response.
type APIError struct {
	Status  int
	Code    int    `json:"code"`
	Type    string `json:"type"`
	Message string `json:"message"`
	Path    string `json:"-"`
}

func (e *APIError) Error() string {
	return fmt.Sprintf("%s: HTTP %d, %d %s: %s", e.Path, e.Status, e.Code, e.Type, e.Message)
}

// do sends a request with body (JSON-encoded unless nil) to the API path
// and decodes a 200 response into out (unless nil). It returns the write's
// X-Semcat-Position, if any.
func (c *Client) do(ctx context.Context, method, path string, body, out any) (string, error) {
	data, position, err := c.fetch(ctx, method, path, body)
	if err != nil {
		return "", err
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return "", fmt.Errorf("%s %s: decoding the response: %w", method, path, err)
		}
	}
	return position, nil
}

// fetch sends a request with body (JSON-encoded unless nil) to the API path
// and returns the whole body of a 200 response, undecoded, and the write's
// X-Semcat-Position, if any. Any other status is an *APIError.
func (c *Client) fetch(ctx context.Context, method, path string, body any) ([]byte, string, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return nil, "", err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return nil, "", err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", err
	}
	if resp.StatusCode != http.StatusOK {
		e := &APIError{Status: resp.StatusCode, Path: method + " " + path}
		if json.Unmarshal(data, e) != nil {
			e.Message = string(data)
		}
		return nil, "", e
	}
	return data, resp.Header.Get("X-Semcat-Position"), nil
}

// Identifier is a name in a namespace, as listings return it.
type Identifier struct {
	Namespace []string `json:"namespace"`
	Name      string   `json:"name"`
}

// SearchResponse is the part of a search response the harness reads.
type SearchResponse struct {
	Total    uint64 `json:"total"`
	Position string `json:"position"`
	Results  []struct {
		Entity struct {
			Type      string   `json:"type"`
			Namespace []string `json:"namespace"`
			Name      string   `json:"name"`
		} `json:"entity"`
		Score float64 `json:"score"`
	} `json:"results"`
	Facets map[string][]struct {
		Value string `json:"value"`
		Count int    `json:"count"`
	} `json:"facets"`
	Profile *struct {
		Fields []FieldRead `json:"fields"`
	} `json:"profile"`
}

// FieldRead is what a search read of one index field (a search's
// profile), or on average per search of a kind.
type FieldRead struct {
	Field string  `json:"field"`
	Lists float64 `json:"lists"`
	Bytes float64 `json:"bytes"`
	Terms float64 `json:"terms,omitempty"`
}

// IDs returns the results as "type:catalog.schema.name" (the metalake
// dropped from the namespace), the form the PostgreSQL comparison uses.
func (r *SearchResponse) IDs() []string {
	out := make([]string, len(r.Results))
	for i, h := range r.Results {
		id := h.Entity.Type + ":"
		for _, n := range h.Entity.Namespace[1:] {
			id += n + "."
		}
		out[i] = id + h.Entity.Name
	}
	return out
}

// SearchParams are a search's query string parameters.
type SearchParams struct {
	Query       string
	Types       string
	Facets      string
	Limit       int
	MinPosition string
	WaitMs      int
	Profile     bool
}

// Search runs a search in metalake m.
func (c *Client) Search(ctx context.Context, m string, p SearchParams) (*SearchResponse, error) {
	v := url.Values{"query": {p.Query}}
	if p.Types != "" {
		v.Set("type", p.Types)
	}
	if p.Facets != "" {
		v.Set("facets", p.Facets)
	}
	if p.Limit > 0 {
		v.Set("limit", strconv.Itoa(p.Limit))
	}
	if p.MinPosition != "" {
		v.Set("minPosition", p.MinPosition)
		v.Set("waitMs", strconv.Itoa(p.WaitMs))
	}
	if p.Profile {
		v.Set("profile", "true")
	}
	var out SearchResponse
	_, err := c.do(ctx, http.MethodGet, "/api/metalakes/"+url.PathEscape(m)+"/search?"+v.Encode(), nil, &out)
	return &out, err
}

// WaitSearchable waits until search covers the write at pos, retrying the
// 503 (IndexNotCaughtUp) a slow index answers after waitMs, up to limit.
func (c *Client) WaitSearchable(ctx context.Context, m, pos string, limit time.Duration) error {
	deadline := time.Now().Add(limit)
	for {
		_, err := c.Search(ctx, m, SearchParams{Query: "*", Limit: 1, MinPosition: pos, WaitMs: 30000})
		var ae *APIError
		if err == nil || !(errors.As(err, &ae) && ae.Status == http.StatusServiceUnavailable) {
			return err
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("search still does not cover position %s after %s: %w", pos, limit, err)
		}
	}
}

// SuggestResponse is a type-ahead answer.
type SuggestResponse struct {
	Suggestions []struct {
		Entity struct {
			Type string `json:"type"`
			Name string `json:"name"`
		} `json:"entity"`
		Highlight string `json:"highlight"`
	} `json:"suggestions"`
}

// Suggest asks metalake m's type-ahead for prefix.
func (c *Client) Suggest(ctx context.Context, m, prefix string, limit int) (*SuggestResponse, error) {
	v := url.Values{"prefix": {prefix}, "limit": {strconv.Itoa(limit)}}
	var out SuggestResponse
	_, err := c.do(ctx, http.MethodGet, "/api/metalakes/"+url.PathEscape(m)+"/suggest?"+v.Encode(), nil, &out)
	return &out, err
}
