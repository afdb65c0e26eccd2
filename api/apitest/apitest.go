// Package apitest runs semcat's HTTP API in tests: a real server around
// api.NewHandler and a client whose calls fail the test on transport errors,
// so that tests read as a list of requests and expected answers.
package apitest

import (
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/semcat/semcat/api"
)

// Client sends requests to a test server.
type Client struct {
	tb testing.TB
	// URL is the server's base URL, without a trailing slash.
	URL string
	// HTTP is the client used for requests.
	HTTP *http.Client
}

// NewServer starts a server for svc with the default configuration (errors
// logged to the test's output) and closes it when the test ends.
func NewServer(tb testing.TB, svc api.Services) *Client {
	tb.Helper()
	return NewServerWithConfig(tb, svc, api.Config{})
}

// NewServerWithConfig is NewServer with a configuration; a nil Logger logs
// to the test's output.
func NewServerWithConfig(tb testing.TB, svc api.Services, cfg api.Config) *Client {
	tb.Helper()
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(tb.Output(), nil))
	}
	srv := httptest.NewServer(api.NewHandler(svc, cfg))
	tb.Cleanup(srv.Close)
	return &Client{tb: tb, URL: srv.URL, HTTP: srv.Client()}
}

// Do sends a request and returns the status, the headers and the JSON body
// decoded into a map (nil for an empty body). body is nil for none, a string
// or []byte sent as is (raw JSON), or any other value, sent marshalled.
// headers are name, value pairs.
func (c *Client) Do(method, path string, body any, headers ...string) (status int, hdr http.Header, resp map[string]any) {
	c.tb.Helper()
	if len(headers)%2 != 0 {
		c.tb.Fatalf("apitest: headers must be name, value pairs, got %q", headers)
	}
	var r io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		r = strings.NewReader(b)
	case []byte:
		r = bytes.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			c.tb.Fatalf("apitest: marshal request body: %v", err)
		}
		r = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, c.URL+path, r)
	if err != nil {
		c.tb.Fatalf("apitest: %s %s: %v", method, path, err)
	}
	if r != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	for i := 0; i < len(headers); i += 2 {
		req.Header.Add(headers[i], headers[i+1])
	}
	res, err := c.HTTP.Do(req)
	if err != nil {
		c.tb.Fatalf("apitest: %s %s: %v", method, path, err)
	}
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	if err != nil {
		c.tb.Fatalf("apitest: %s %s: read response: %v", method, path, err)
	}
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &resp); err != nil {
			c.tb.Fatalf("apitest: %s %s: response is not a JSON object (status %d): %v\n%s", method, path, res.StatusCode, err, data)
		}
	}
	return res.StatusCode, res.Header, resp
}

// MustOK is Do that fails the test unless the answer is 200.
func (c *Client) MustOK(method, path string, body any, headers ...string) (http.Header, map[string]any) {
	c.tb.Helper()
	status, hdr, resp := c.Do(method, path, body, headers...)
	if status != http.StatusOK {
		c.tb.Fatalf("%s %s: got status %d, want 200; body: %v", method, path, status, resp)
	}
	return hdr, resp
}
