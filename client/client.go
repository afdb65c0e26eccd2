// Package client is a Go client of semcat's REST API (SPEC §2): one method
// per route, each taking a context.Context first and answering with the
// root package's types.
//
// # Addressing
//
// Methods address entities the way the domain services do: a semcat.Namespace
// names the parent and a string the entity. A schema lives in
// Namespace{Metalake, Catalog}, a table or semantic model in
// Namespace{Metalake, Catalog, Schema}; fields below the addressed level
// stay empty, and a namespace of the wrong depth fails with EINVALID before
// any request is sent. Tags, users, roles and search are addressed by
// metalake name; objects that carry tags, metadata and owners by a
// semcat.ObjectRef, whose FullName is the dotted name without the metalake
// ("hr.people.employees"). People and command lines write the same paths
// dotted from the metalake down ("demo.hr.people.employees"); ParseNamespace
// and ParseIdentifier read that form. Names never contain a dot, so the
// dotted form is unambiguous.
//
// # Errors
//
// A failure the server reports comes back as a *semcat.Error whose Code is
// the root package's code for the answer's Gravitino code (1003 is
// ENOTFOUND, 1004 EEXISTS, and so on; a 413 is ETOOLARGE) and whose Message
// is the server's. semcat.ErrorCode(err) and errors.Is(err, ErrNotFound)
// both work. Transport failures and context cancellation are returned as
// net/http reports them, so errors.Is(err, context.Canceled) works too.
//
// # Writes and read-your-writes
//
// Every write answers with the position of its transaction (the
// X-Semcat-Position header) as a semcat.Position. Passing it to SearchAfter
// makes the search wait until the index covers that write. Semantic models
// carry their version in the ETag header: the models this client returns
// have Version set from it, and AlterSemanticModel and DropSemanticModel send
// a non-zero ifMatch as If-Match, failing with ECONFLICT when the model has
// changed since.
//
// The Client implements the root package's service interfaces
// (semcat.TableService, semcat.SearchService, ...), so code written against
// them can run against a remote server.
package client

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/semcat/semcat"
)

// Client calls one semcat server. It is safe for concurrent use.
type Client struct {
	base string // scheme://host[/prefix], without a trailing slash
	http *http.Client
	auth func(*http.Request)
}

// Option configures a Client.
type Option func(*Client)

// WithHTTPClient sends requests with hc instead of http.DefaultClient, for
// timeouts, proxies or TLS settings.
func WithHTTPClient(hc *http.Client) Option {
	return func(c *Client) { c.http = hc }
}

// WithToken authenticates every request with a Bearer token, as a server in
// --auth jwt mode expects.
func WithToken(token string) Option {
	return func(c *Client) {
		c.auth = func(r *http.Request) { r.Header.Set("Authorization", "Bearer "+token) }
	}
}

// WithUser authenticates every request as user with HTTP Basic credentials
// and an empty password, as a server in --auth simple mode expects.
func WithUser(user string) Option {
	return func(c *Client) {
		c.auth = func(r *http.Request) { r.SetBasicAuth(user, "") }
	}
}

// New returns a client of the server at baseURL ("http://127.0.0.1:8090",
// or with a path prefix when the server sits behind a proxy). Of WithToken
// and WithUser, the last one given wins.
func New(baseURL string, opts ...Option) (*Client, error) {
	u, err := url.Parse(baseURL)
	if err != nil {
		return nil, fmt.Errorf("client: invalid server URL %q: %w", baseURL, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, fmt.Errorf("client: invalid server URL %q: want http:// or https:// and a host", baseURL)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("client: invalid server URL %q: must not have a query or fragment", baseURL)
	}
	c := &Client{base: strings.TrimSuffix(u.String(), "/"), http: http.DefaultClient}
	for _, o := range opts {
		o(c)
	}
	return c, nil
}

// URL returns the server's base URL.
func (c *Client) URL() string { return c.base }

// request is one call of the API.
type request struct {
	method  string
	path    string     // escaped, from the API root on ("/api/metalakes/m")
	query   url.Values // nil for none
	body    any        // sent as JSON unless nil
	media   string     // the body's content type when not application/json
	ifMatch int64      // sent as If-Match when > 0
}

// reply is a successful answer.
type reply struct {
	header http.Header
	body   []byte
}

// do sends r and returns the answer of a 200, or the error the server
// answered with.
func (c *Client) do(ctx context.Context, r request) (*reply, error) {
	target := c.base + r.path
	if len(r.query) > 0 {
		target += "?" + r.query.Encode()
	}
	var body io.Reader
	if r.body != nil {
		data, err := marshal(r.body)
		if err != nil {
			return nil, fmt.Errorf("client: %s %s: encoding the request: %w", r.method, r.path, err)
		}
		body = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, r.method, target, body)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil {
		media := cmp.Or(r.media, "application/json")
		req.Header.Set("Content-Type", media)
	}
	if r.ifMatch > 0 {
		req.Header.Set("If-Match", `"`+strconv.FormatInt(r.ifMatch, 10)+`"`)
	}
	if c.auth != nil {
		c.auth(req)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, fmt.Errorf("client: %s %s: reading the answer: %w", r.method, r.path, err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, decodeError(resp.StatusCode, data)
	}
	return &reply{header: resp.Header, body: data}, nil
}

// marshal encodes v without HTML escaping, as the server does, so that
// expressions with '<' and '&' travel as written.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// position returns the position of a write from the X-Semcat-Position
// header; a write that changed nothing has none.
func (r *reply) position() (semcat.Position, error) {
	token := r.header.Get("X-Semcat-Position")
	if token == "" {
		return semcat.Position{}, nil
	}
	pos, err := semcat.ParsePosition("X-Semcat-Position", token)
	if err != nil {
		return semcat.Position{}, fmt.Errorf("client: the server answered a malformed X-Semcat-Position %q", token)
	}
	return pos, nil
}

// version returns the semantic model version of the ETag header, 0 if none.
func (r *reply) version() int64 {
	v, err := strconv.ParseInt(strings.Trim(r.header.Get("ETag"), `"`), 10, 64)
	if err != nil {
		return 0
	}
	return v
}

// member decodes the member key of a success body ({"code":0,"<key>":...}).
func member[T any](r *reply, key string) (T, error) {
	var out T
	var body map[string]json.RawMessage
	if err := json.Unmarshal(r.body, &body); err != nil {
		return out, fmt.Errorf("client: the answer is not a JSON object: %w", err)
	}
	raw, ok := body[key]
	if !ok {
		return out, fmt.Errorf("client: the answer has no %q", key)
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return out, fmt.Errorf("client: decoding %q of the answer: %w", key, err)
	}
	return out, nil
}

// get sends r and decodes the member key of its answer.
func get[T any](ctx context.Context, c *Client, r request, key string) (T, error) {
	rep, err := c.do(ctx, r)
	if err != nil {
		var zero T
		return zero, err
	}
	return member[T](rep, key)
}

// write sends r and decodes the member key of its answer and its position.
func write[T any](ctx context.Context, c *Client, r request, key string) (T, semcat.Position, error) {
	var zero T
	rep, err := c.do(ctx, r)
	if err != nil {
		return zero, semcat.Position{}, err
	}
	out, err := member[T](rep, key)
	if err != nil {
		return zero, semcat.Position{}, err
	}
	pos, err := rep.position()
	if err != nil {
		return zero, semcat.Position{}, err
	}
	return out, pos, nil
}

// writeNothing sends r, whose answer is just {"code": 0}, and returns its
// position.
func writeNothing(ctx context.Context, c *Client, r request) (semcat.Position, error) {
	rep, err := c.do(ctx, r)
	if err != nil {
		return semcat.Position{}, err
	}
	return rep.position()
}

// names returns the names of an identifier list, in the server's order.
func names(ids []semcat.NameIdentifier) []string {
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = id.Name
	}
	return out
}

// trueParam returns the query that sets a boolean parameter, or nil when it is
// false (the server's default).
func trueParam(name string, on bool) url.Values {
	if !on {
		return nil
	}
	return url.Values{name: {"true"}}
}
