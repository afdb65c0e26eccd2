package web_test

import (
	"cmp"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/semcat/semcat/web"
)

// ---- the handler ------------------------------------------------------------

func TestHandlerServesPageAndAssets(t *testing.T) {
	srv := httptest.NewServer(web.Handler())
	defer srv.Close()

	for _, tc := range []struct {
		path, contentType, contains string
	}{
		{"/", "text/html; charset=utf-8", `<script type="module" src="assets/app.js">`},
		{"/index.html", "text/html; charset=utf-8", `id="search-form"`},
		{"/assets/app.js", "text/javascript; charset=utf-8", "import"},
		{"/assets/api.js", "text/javascript; charset=utf-8", "export async function get"},
		{"/assets/app.css", "text/css; charset=utf-8", ":root"},
		{"/assets/favicon.svg", "image/svg+xml", "<svg"},
	} {
		res, body := fetch(t, http.MethodGet, srv.URL+tc.path, nil)
		if res.StatusCode != http.StatusOK {
			t.Errorf("GET %s: status %d, want 200", tc.path, res.StatusCode)
			continue
		}
		if got := res.Header.Get("Content-Type"); got != tc.contentType {
			t.Errorf("GET %s: Content-Type %q, want %q", tc.path, got, tc.contentType)
		}
		if !strings.Contains(body, tc.contains) {
			t.Errorf("GET %s: body lacks %q", tc.path, tc.contains)
		}
		if res.Header.Get("ETag") == "" || res.Header.Get("X-Content-Type-Options") != "nosniff" {
			t.Errorf("GET %s: headers %v lack ETag or nosniff", tc.path, res.Header)
		}
	}

	// The page allows same-origin resources only and needs nothing else: no
	// CDN, no inline script or style.
	res, body := fetch(t, http.MethodGet, srv.URL+"/", nil)
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || !strings.Contains(csp, "connect-src 'self'") {
		t.Errorf("Content-Security-Policy = %q", csp)
	}
	for _, bad := range []string{"http://", "https://", "<style", "style=", "onclick="} {
		if strings.Contains(body, bad) {
			t.Errorf("index.html contains %q", bad)
		}
	}

	// Revalidation: the ETag answers 304.
	res, _ = fetch(t, http.MethodGet, srv.URL+"/assets/app.js", nil)
	res2, _ := fetch(t, http.MethodGet, srv.URL+"/assets/app.js", http.Header{"If-None-Match": {res.Header.Get("ETag")}})
	if res2.StatusCode != http.StatusNotModified {
		t.Errorf("GET with If-None-Match: status %d, want 304", res2.StatusCode)
	}

	for _, p := range []string{"/nope", "/assets/", "/assets/nope.js", "/api/metalakes", "/static/index.html"} {
		if res, _ := fetch(t, http.MethodGet, srv.URL+p, nil); res.StatusCode != http.StatusNotFound {
			t.Errorf("GET %s: status %d, want 404", p, res.StatusCode)
		}
	}
	res, _ = fetch(t, http.MethodPost, srv.URL+"/", nil)
	if res.StatusCode != http.StatusMethodNotAllowed || res.Header.Get("Allow") != "GET, HEAD" {
		t.Errorf("POST /: status %d Allow %q, want 405 with Allow: GET, HEAD", res.StatusCode, res.Header.Get("Allow"))
	}
	res, body = fetch(t, http.MethodHead, srv.URL+"/", nil)
	if res.StatusCode != http.StatusOK || body != "" {
		t.Errorf("HEAD /: status %d body %q", res.StatusCode, body)
	}
}

// TestMountNextToAPI checks the wiring of cmd/semcat: the page takes GET / and
// GET /assets/, everything else stays with the API handler.
func TestMountNextToAPI(t *testing.T) {
	api := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		apiError(w, http.StatusNotFound, 1003, "NotFoundException", "api: "+r.Method+" "+r.URL.Path)
	})
	page := web.Handler()
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", page)
	mux.Handle("GET /assets/", page)
	mux.Handle("/", api)
	srv := httptest.NewServer(mux)
	defer srv.Close()

	for _, tc := range []struct {
		method, path, want string
	}{
		{"GET", "/", `id="search-form"`},
		{"GET", "/?metalake=demo&q=EmpTel", `id="search-form"`},
		{"GET", "/assets/app.js", "import"},
		{"GET", "/api/metalakes", "api: GET /api/metalakes"},
		{"GET", "/healthz", "api: GET /healthz"},
		{"POST", "/", "api: POST /"},
		{"GET", "/nope", "api: GET /nope"},
	} {
		_, body := fetch(t, tc.method, srv.URL+tc.path, nil)
		if !strings.Contains(body, tc.want) {
			t.Errorf("%s %s: body %.80q lacks %q", tc.method, tc.path, body, tc.want)
		}
	}
	if res, _ := fetch(t, http.MethodHead, srv.URL+"/", nil); res.StatusCode != http.StatusOK {
		t.Errorf("HEAD /: %d", res.StatusCode)
	}
}

func fetch(t *testing.T, method, u string, h http.Header) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range h {
		req.Header[k] = v
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	if err != nil {
		t.Fatal(err)
	}
	return res, string(b)
}

// ---- a fake API ---------------------------------------------------------------

// fakeDoc is one searchable entity of the fake catalog.
type fakeDoc struct {
	typ       string
	namespace []string
	name      string
	words     []string // lower-case tokens a query term matches
	matches   []map[string]string
	tags      []string
	system    map[string]string
	sysTags   []string
	user      map[string]string
}

// fakeAPI answers the routes the page uses with data shaped as SPEC §2
// describes, and records the requests.
type fakeAPI struct {
	mu        sync.Mutex
	requests  []*http.Request
	needAuth  atomic.Bool // answer 401 unless the request signs in as alice
	docs      []fakeDoc
	pageLimit int
}

func newFakeAPI() *fakeAPI {
	schemaMatch := []map[string]string{{"key": "column", "field": "EmpContact.EmpTel", "value": "EmpContact.EmpTel", "in": "name"}}
	return &fakeAPI{docs: []fakeDoc{
		{typ: "catalog", namespace: []string{"demo"}, name: "rel", words: []string{"rel"},
			system: map[string]string{"entity-type": "catalog", "comment": "Relational warehouse", "creator": "alice"}},
		{typ: "schema", namespace: []string{"demo", "rel"}, name: "hr", words: []string{"hr"},
			system: map[string]string{"entity-type": "schema", "comment": "Human resources", "creator": "alice"}},
		{typ: "table", namespace: []string{"demo", "rel", "hr"}, name: "employees",
			words:   []string{"employees", "empname", "empcontact", "emptel", "empaddr", "empcontact.emptel"},
			matches: schemaMatch, tags: []string{"pii"},
			system: map[string]string{"entity-name": "employees", "entity-type": "table", "comment": "One row per employee",
				"creator": "alice", "schema": "EmpName string EmpContact struct EmpTel integer EmpAddr string"},
			user: map[string]string{"owner": "people-team", "retention": "7y"}},
		{typ: "semantic_model", namespace: []string{"demo", "rel", "hr"}, name: "people", words: []string{"people", "staff", "headcount"},
			system:  map[string]string{"entity-type": "semantic_model", "comment": "People analytics", "datasets": "staff", "creator": "bob"},
			sysTags: []string{"staff"}},
		{typ: "metric", namespace: []string{"demo", "rel", "hr", "people"}, name: "headcount", words: []string{"headcount"},
			system: map[string]string{"entity-type": "metric", "description": "Distinct employees", "datatype": "Integer",
				"model": "rel.hr.people", "dialects": "ANSI_SQL", "expression": "COUNT(DISTINCT emp_id)"},
			sysTags: []string{"ANSI_SQL"}},
	}, pageLimit: 3}
}

// searchRequests returns the recorded search requests' query parameters.
func (f *fakeAPI) searchRequests() []url.Values {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []url.Values
	for _, r := range f.requests {
		if strings.HasSuffix(r.URL.Path, "/search") {
			out = append(out, r.URL.Query())
		}
	}
	return out
}

func (f *fakeAPI) lastAuthorization() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.requests) == 0 {
		return ""
	}
	return f.requests[len(f.requests)-1].Header.Get("Authorization")
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func apiError(w http.ResponseWriter, status, code int, typ, msg string) {
	writeJSON(w, status, map[string]any{"code": code, "type": typ, "message": msg})
}

func (f *fakeAPI) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Clone(context.Background()))
	f.mu.Unlock()

	if f.needAuth.Load() && r.Header.Get("Authorization") != "Basic "+base64.StdEncoding.EncodeToString([]byte("alice:")) {
		apiError(w, http.StatusUnauthorized, 1011, "UnauthorizedException", "missing credentials: send HTTP Basic authentication")
		return
	}
	if r.Method != http.MethodGet {
		apiError(w, http.StatusMethodNotAllowed, 1001, "IllegalArgumentException", "method not allowed")
		return
	}
	const ml = "/api/metalakes/demo"
	const schema = ml + "/catalogs/rel/schemas/hr"
	switch p := r.URL.EscapedPath(); p {
	case "/api/metalakes":
		writeJSON(w, 200, map[string]any{"code": 0, "metalakes": []any{
			map[string]any{"name": "demo", "comment": "example", "properties": map[string]string{}},
			map[string]any{"name": "other", "comment": nil, "properties": map[string]string{}},
		}})
	case ml + "/search":
		f.search(w, r)
	case ml + "/suggest":
		f.suggest(w, r)
	case ml + "/catalogs/rel":
		writeJSON(w, 200, map[string]any{"code": 0, "catalog": map[string]any{"name": "rel", "type": "relational", "comment": "Relational warehouse", "properties": map[string]string{}}})
	case schema:
		writeJSON(w, 200, map[string]any{"code": 0, "schema": map[string]any{"name": "hr", "comment": "Human resources", "properties": map[string]string{}}})
	case schema + "/tables/employees":
		writeJSON(w, 200, json.RawMessage(`{"code":0,"table":{"name":"employees","comment":"One row per employee",
			"columns":[{"name":"EmpName","type":"string","nullable":true},
			           {"name":"EmpContact","type":{"type":"struct","fields":[
			              {"name":"EmpTel","type":"integer","nullable":true},
			              {"name":"EmpAddr","type":"string","nullable":true}]},"nullable":true}],
			"properties":{"owner":"people-team","retention":"7y"},
			"audit":{"creator":"alice","createTime":"2026-01-02T03:04:05Z"}}}`))
	case schema + "/semantic-models/people":
		writeJSON(w, 200, json.RawMessage(`{"code":0,"semanticModel":{"name":"people","comment":"People analytics",
			"definition":{"datasets":[{"name":"staff","source":{"namespace":["rel","hr"],"name":"employees"},"primaryKey":["EmpName"],
			    "fields":[{"name":"emp_name","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"EmpName"}]},"datatype":"String","dimension":{"isTime":false}},
			              {"name":"phone","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"EmpContact.EmpTel"}]},"datatype":"Integer"}]}],
			  "relationships":[{"name":"self","from":"staff","to":"staff","fromColumns":["EmpName"],"toColumns":["EmpName"]}],
			  "metrics":[{"name":"headcount","description":"Distinct employees","datatype":"Integer",
			    "expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"COUNT(DISTINCT emp_name)"},{"dialect":"SNOWFLAKE","expression":"COUNT(DISTINCT emp_name)"}]}}]},
			"properties":{}}}`))
	case ml + "/objects/table/rel.hr.employees/metadata":
		writeJSON(w, 200, json.RawMessage(`{"code":0,"metadata":{"system":{"properties":{"owner":"alice","entity-name":"employees"},"tags":[]},
			"user":{"properties":{"owner":"people-team","retention":"7y"},"tags":["pii"]}}}`))
	case schema + "/semantic-model-metrics":
		if r.URL.Query().Get("details") == "true" {
			writeJSON(w, 200, json.RawMessage(`{"code":0,"metrics":[{"namespace":["demo","rel","hr","people"],
				"metric":{"name":"headcount","description":"Distinct employees","datatype":"Integer",
				  "expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"COUNT(DISTINCT emp_name)"}]}}}]}`))
		} else {
			writeJSON(w, 200, json.RawMessage(`{"code":0,"identifiers":[{"namespace":["demo","rel","hr","people"],"name":"headcount"}]}`))
		}
	default:
		apiError(w, http.StatusNotFound, 1003, "NoSuchEntityException", "no such route or entity: "+p)
	}
}

// search answers GET .../search like SPEC §2.6, for this small catalog: a term
// matches a document having the token (prefix with a trailing *), `*` matches
// everything, the filters restrict, and the facets count the matches.
func (f *fakeAPI) search(w http.ResponseWriter, r *http.Request) {
	qs := r.URL.Query()
	query := strings.TrimSpace(qs.Get("query"))
	if query == "" {
		apiError(w, 400, 1001, "IllegalArgumentException", "query: must not be empty")
		return
	}
	if strings.HasPrefix(query, "-") && !strings.Contains(query, " ") {
		apiError(w, 400, 1001, "IllegalArgumentException", "query at 1: a query needs at least one positive term")
		return
	}
	var types []string
	for _, v := range qs["type"] {
		types = append(types, strings.Split(v, ",")...)
	}
	var hits []fakeDoc
	for _, d := range f.docs {
		if len(types) > 0 && !slices.Contains(types, d.typ) ||
			qs.Get("catalog") != "" && (len(d.namespace) < 2 || d.namespace[1] != qs.Get("catalog")) ||
			qs.Get("schema") != "" && (len(d.namespace) < 3 || d.namespace[2] != qs.Get("schema")) {
			continue
		}
		if !slices.ContainsFunc(qs["tag"], func(t string) bool { return !slices.Contains(d.tags, t) }) && matchesQuery(d, query) {
			hits = append(hits, d)
		}
	}
	offset := 0
	if c := qs.Get("cursor"); c != "" {
		offset, _ = strconv.Atoi(strings.TrimPrefix(c, "o"))
	}
	limit := f.pageLimit
	end := min(offset+limit, len(hits))
	results := []any{}
	for i, d := range hits[min(offset, len(hits)):end] {
		user := d.user
		if user == nil {
			user = map[string]string{}
		}
		results = append(results, map[string]any{
			"entity":  map[string]any{"type": d.typ, "namespace": d.namespace, "name": d.name},
			"score":   3.5 - 0.5*float64(offset+i), // hits rank apart
			"matches": orEmpty(d.matches, query),
			"metadata": map[string]any{
				"system": map[string]any{"properties": d.system, "tags": nonNil(d.sysTags)},
				"user":   map[string]any{"properties": user, "tags": nonNil(d.tags)},
			},
		})
	}
	body := map[string]any{"code": 0, "total": len(hits), "position": "p1", "results": results}
	if end < len(hits) {
		body["cursor"] = "o" + strconv.Itoa(end)
	}
	if facets := qs.Get("facets"); facets != "" {
		out := map[string]any{}
		for _, name := range strings.Split(facets, ",") {
			counts := map[string]int{}
			var order []string
			for _, d := range hits {
				var vals []string
				switch name {
				case "type":
					vals = []string{d.typ}
				case "catalog":
					if len(d.namespace) > 1 {
						vals = []string{d.namespace[1]}
					}
				case "schema":
					if len(d.namespace) > 2 {
						vals = []string{d.namespace[2]}
					}
				case "tags":
					vals = append(slices.Clone(d.tags), d.sysTags...)
				}
				for _, v := range vals {
					if counts[v] == 0 {
						order = append(order, v)
					}
					counts[v]++
				}
			}
			list := []any{}
			for _, v := range order {
				fv := map[string]any{"value": v, "count": counts[v]}
				if name == "tags" && !slices.ContainsFunc(f.docs, func(d fakeDoc) bool { return slices.Contains(d.tags, v) }) {
					fv["scope"] = "system"
				}
				list = append(list, fv)
			}
			out[name] = list
		}
		body["facets"] = out
	}
	writeJSON(w, 200, body)
}

// suggest answers GET .../suggest like SPEC §2.6: the documents whose name
// starts with the prefix (case-insensitive), shorter names first, the match
// in <b>.
func (f *fakeAPI) suggest(w http.ResponseWriter, r *http.Request) {
	prefix := strings.ToLower(r.URL.Query().Get("prefix"))
	var hits []fakeDoc
	for _, d := range f.docs {
		if strings.HasPrefix(strings.ToLower(d.name), prefix) {
			hits = append(hits, d)
		}
	}
	slices.SortFunc(hits, func(a, b fakeDoc) int {
		return cmp.Or(cmp.Compare(len(a.name), len(b.name)), strings.Compare(a.name, b.name))
	})
	out := []any{}
	for _, d := range hits {
		out = append(out, map[string]any{"entity": map[string]any{"type": d.typ, "namespace": d.namespace, "name": d.name},
			"highlight": "<b>" + html.EscapeString(d.name[:len(prefix)]) + "</b>" + html.EscapeString(d.name[len(prefix):])})
	}
	writeJSON(w, 200, map[string]any{"code": 0, "suggestions": out})
}

func matchesQuery(d fakeDoc, query string) bool {
	for _, term := range strings.Fields(strings.ToLower(query)) {
		term = strings.TrimPrefix(strings.TrimPrefix(term, "+"), "schema:")
		if term == "*" {
			return true
		}
		for _, w := range append([]string{strings.ToLower(d.name)}, d.words...) {
			if w == term || strings.HasSuffix(term, "*") && strings.HasPrefix(w, strings.TrimSuffix(term, "*")) {
				return true
			}
		}
	}
	return false
}

func orEmpty(m []map[string]string, query string) []map[string]string {
	if query == "*" || m == nil {
		return []map[string]string{}
	}
	return m
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// ---- the browser --------------------------------------------------------------

// chromiumPath finds Debian's chromium, or fails (skips with SEMCAT_SKIP_BROWSER=1).
func chromiumPath(t *testing.T) string {
	t.Helper()
	for _, p := range []string{os.Getenv("SEMCAT_CHROMIUM"), "/usr/bin/chromium"} {
		if p != "" {
			if _, err := os.Stat(p); err == nil {
				return p
			}
		}
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("SEMCAT_SKIP_BROWSER") == "1" {
		t.Skip("chromium is not installed and SEMCAT_SKIP_BROWSER=1: skipping the browser test")
	}
	t.Fatal("the search page's end-to-end test needs headless Chromium, which is not installed: " +
		"run `apt-get update && apt-get install -y chromium` (CI's .ci/run installs it), " +
		"or set SEMCAT_SKIP_BROWSER=1 to skip this test")
	return ""
}

// newBrowser starts headless Chromium with a fresh profile and returns a tab.
func newBrowser(t *testing.T, width, height int) context.Context {
	t.Helper()
	exe := chromiumPath(t)
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(exe),
		chromedp.Headless, // --headless
		chromedp.NoSandbox,
		chromedp.DisableGPU,
		chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.WindowSize(width, height),
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	// The first Do starts the browser (its life is bound to ctx).
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	return ctx
}

// watchConsole fails the test on a JavaScript exception or error message
// (network errors, such as the 401 the test provokes, are expected).
func watchConsole(t *testing.T, ctx context.Context) func() {
	t.Helper()
	messages := chromedp.Console(ctx)
	var mu sync.Mutex
	var bad []string
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				return
			}
			if m.IsException() || m.Type == chromedp.ConsoleError && m.Source != "network" {
				mu.Lock()
				bad = append(bad, fmt.Sprintf("%s:%d %s", m.URL, m.Line+1, m.String()))
				mu.Unlock()
			}
		}
	}()
	return func() {
		t.Helper()
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bad {
			t.Errorf("browser console: %s", b)
		}
	}
}

// TestSearchPageInBrowser drives the page in headless Chromium against a fake
// API: browse, open a model, load more, search EmpTel, filter on the table
// facet, open the table, reload from the URL, and sign in after a 401.
// eval evaluates a JavaScript expression in the page.
func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, 15*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

func TestSearchPageInBrowser(t *testing.T) {
	api := newFakeAPI()
	mux := http.NewServeMux()
	mux.Handle("/api/", api)
	mux.Handle("/", web.Handler())
	srv := httptest.NewServer(mux)
	defer srv.Close()

	ctx := newBrowser(t, 1280, 900)
	checkConsole := watchConsole(t, ctx)
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()

	// Each step has its own deadline, so that a page that never shows what a
	// step waits for fails the test quickly with that step's name.
	const stepTimeout = 15 * time.Second
	do := func(step string, actions ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, stepTimeout)
		defer cancel()
		if err := chromedp.Do(sctx, actions...); err != nil {
			checkConsole()
			state, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`location.search + " | q=" + document.getElementById("q").value + " | " + document.getElementById("status").textContent`))
			t.Fatalf("%s: %v (page: %s)", step, err, state)
		}
	}
	text := func(sel string) string {
		t.Helper()
		sctx, cancel := context.WithTimeout(ctx, stepTimeout)
		defer cancel()
		s, err := chromedp.Run(sctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("text of %s: %v", sel, err)
		}
		return strings.TrimSpace(s)
	}
	const employees = `.result[data-key="table:rel.hr.employees"]`

	// The home page lists the metalakes; a metalake lists its catalogs.
	do("open the home page",
		chromedp.Navigate(srv.URL+"/"),
		chromedp.WaitVisible(chromedp.CSS(`#home .child[data-key="other"]`)),
		chromedp.Click(chromedp.CSS(`#home .child[data-key="demo"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`#home .child[data-key="catalog:rel"]`)),
	)
	// Browsing everything: the page asks for * with every facet.
	do("browse everything",
		chromedp.Navigate(srv.URL+"/?metalake=demo&q=*"),
		chromedp.WaitVisible(chromedp.CSS(`.result[data-key="catalog:rel"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-facet="type"][data-value="semantic_model"]`)),
	)
	if got := text("#status"); !strings.Contains(got, "Showing 3 of 5 results") {
		t.Errorf("status = %q, want Showing 3 of 5 results", got)
	}
	// Without authentication (the fake never answers 401) there is no
	// sign-in control; browsing everything shows no scores.
	signInHidden := eval[bool](t, ctx, `document.querySelector(".auth").hidden && document.querySelector("#auth-toggle").offsetParent === null`)
	scores := eval[int](t, ctx, `document.querySelectorAll("#results .score").length`)
	if !signInHidden || scores != 0 {
		t.Errorf("without authentication: sign-in hidden %v; browsing shows %d scores, want none", signInHidden, scores)
	}

	// Load more follows the cursor.
	do("load more",
		chromedp.Click(chromedp.CSS("#more")),
		chromedp.WaitVisible(chromedp.CSS(`.result[data-key="metric:rel.hr.people.headcount"]`)),
		chromedp.WaitNotVisible(chromedp.CSS("#more")),
	)
	if reqs := api.searchRequests(); reqs[len(reqs)-1].Get("cursor") != "o3" {
		t.Errorf("load more sent %v, want cursor=o3", reqs[len(reqs)-1])
	}

	// System tags say what they are: a metric's dialect, a model's dataset;
	// the tags facet marks them.
	if got := strings.Join(strings.Fields(text(`.result[data-key="metric:rel.hr.people.headcount"] .chip.systag`)), " "); got != "dialect ANSI_SQL" {
		t.Errorf("the metric's system tag = %q, want the label dialect and ANSI_SQL", got)
	}
	if got := text(`.result[data-key="semantic_model:rel.hr.people"] .chip.systag .k`); got != "dataset" {
		t.Errorf("the model's system tag label = %q, want dataset", got)
	}
	if mark := eval[string](t, ctx, `getComputedStyle(document.querySelector("#results .chip.systag"), "::before").content`); mark != "none" && mark != "normal" {
		t.Errorf("a system tag is marked %s, as user tags are", mark)
	}
	if got := text(`button[data-facet="tags"][data-value="ANSI_SQL"] .facet-scope`); got != "system" {
		t.Errorf("tags facet marks ANSI_SQL as %q, want system", got)
	}

	// A semantic model's page: datasets with fields, relationships, metrics.
	do("open the model",
		chromedp.Click(chromedp.CSS(`.result[data-key="semantic_model:rel.hr.people"] .result-link`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail [data-section="metrics"] a`)),
	)
	detail := text("#detail")
	for _, want := range []string{"staff", "rel.hr.employees", "emp_name", "self", "headcount", "COUNT(DISTINCT emp_name)"} {
		if !strings.Contains(detail, want) {
			t.Errorf("model page lacks %q:\n%s", want, detail)
		}
	}
	if !eval[bool](t, ctx, `document.getElementById("results-pane").hidden`) {
		t.Error("the model's page shows the result list beside it")
	}

	// Type-ahead: a prefix suggests names as the user types; the keyboard
	// picks one, which opens its page.
	do("type a prefix",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("q").value = ""`),
		chromedp.Focus(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), "Emp"),
		chromedp.WaitVisible(chromedp.CSS(`#suggestions .suggestion[data-key="table:rel.hr.employees"]`)),
	)
	if got := text(`#suggestions .suggestion mark`); got != "emp" {
		t.Errorf("the suggestion's highlight = %q, want emp", got)
	}
	do("pick it with the keyboard",
		chromedp.KeyEvent(kb.ArrowDown),
		chromedp.WaitVisible(chromedp.CSS(`#suggestions .suggestion[aria-selected="true"]`)),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitNotVisible(chromedp.CSS("#suggestions")),
		chromedp.WaitVisible(chromedp.CSS(`#detail .entity-tags .chip.tag`)),
	)
	// The page reads the entity's tags and owner for itself.
	if got := text("#detail-title"); got != "employees" {
		t.Errorf("picking the suggestion opened %q, want employees", got)
	}
	if got := text("#detail .fact.owner .owner-name"); !strings.HasPrefix(got, "alice") {
		t.Errorf("owner = %q, want alice", got)
	}

	// A query whose hits rank apart shows their scores.
	do("search headcount",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("q").value = ""`),
		chromedp.SendKeys(chromedp.CSS("#q"), "headcount\r"),
		chromedp.WaitVisible(chromedp.CSS(`.result[data-key="metric:rel.hr.people.headcount"] .score`)),
	)

	// Type EmpTel and press Enter.
	do("search EmpTel",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("q").value = ""`),
		chromedp.SendKeys(chromedp.CSS("#q"), "EmpTel\r"),
		chromedp.WaitVisible(chromedp.CSS(employees)),
		chromedp.WaitNotPresent(chromedp.CSS(`.result[data-key="catalog:rel"]`)),
	)
	if got := text(employees + " .name"); got != "employees" {
		t.Errorf("result name = %q, want employees", got)
	}
	if got := text(employees + " .chip.match .v"); got != "EmpContact.EmpTel" {
		t.Errorf("match chip = %q, want EmpContact.EmpTel", got)
	}
	if got := text(employees + " .chip.match .k"); got != "column" {
		t.Errorf("match chip key = %q, want column", got)
	}
	reqs := api.searchRequests()
	if q := reqs[len(reqs)-1]; q.Get("query") != "EmpTel" || q.Get("facets") != "type,catalog,schema,owner,tags" || q.Get("limit") != "20" {
		t.Errorf("search request = %v", q)
	}

	// Click the facet "table": the next request carries type=table.
	before := len(api.searchRequests())
	do("click the table facet",
		chromedp.Click(chromedp.CSS(`button[data-facet="type"][data-value="table"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-facet="type"][data-value="table"][aria-pressed="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.chip.filter[data-param="type"][data-value="table"]`)),
		chromedp.WaitVisible(chromedp.CSS(employees)),
	)
	reqs = api.searchRequests()
	if len(reqs) <= before {
		t.Fatalf("clicking the facet sent no search request")
	}
	if next := reqs[before]; !slices.Equal(next["type"], []string{"table"}) || next.Get("query") != "EmpTel" {
		t.Errorf("the request after the facet click = %v, want type=table and query=EmpTel", next)
	}

	// Open the result: its page shows the nested columns, the matched one marked.
	const empTel = `//article[@id="detail"]//tr[contains(@class,"hit") and @data-path="EmpContact.EmpTel"]`
	do("open employees",
		chromedp.Click(chromedp.CSS(employees+" .result-link")),
		chromedp.WaitVisible(empTel),
	)
	if got := text("#detail-title"); got != "employees" {
		t.Errorf("detail title = %q", got)
	}
	loc, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(loc)
	if q := u.Query(); q.Get("metalake") != "demo" || q.Get("open") != "table:rel.hr.employees" {
		t.Errorf("URL = %s, want the entity in its query string", loc)
	}

	// Back: the search with its filter; reload: the same.
	do("back to the search",
		chromedp.NavigateBack(),
		chromedp.WaitVisible(chromedp.CSS(`button[data-facet="type"][data-value="table"][aria-pressed="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(employees)),
		chromedp.Reload(),
		chromedp.WaitVisible(chromedp.CSS(`button[data-facet="type"][data-value="table"][aria-pressed="true"]`)),
	)
	if v, err := chromedp.Run(ctx, chromedp.Value(chromedp.CSS("#q"))); err != nil || v != "EmpTel" {
		t.Errorf("search box after reload = %q, %v", v, err)
	}

	// An error answer shows its message.
	do("bad query",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("q").value = ""`),
		chromedp.SendKeys(chromedp.CSS("#q"), "-x\r"),
		chromedp.WaitVisible(chromedp.CSS("#query-error")),
	)
	if got := text("#query-error"); !strings.Contains(got, "at least one positive term") {
		t.Errorf("query error = %q", got)
	}

	// With authentication on, a 401 opens the sign-in control; the user name
	// goes as HTTP Basic on every later request.
	api.needAuth.Store(true)
	do("401 opens sign-in",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("q").value = ""`),
		chromedp.SendKeys(chromedp.CSS("#q"), "EmpTel\r"),
		chromedp.WaitVisible(chromedp.CSS("#auth-panel")),
		chromedp.SendKeys(chromedp.CSS("#auth-value"), "alice\r"),
		chromedp.WaitNotVisible(chromedp.CSS("#auth-panel")),
		chromedp.WaitVisible(chromedp.CSS(employees)),
	)
	if got := api.lastAuthorization(); got != "Basic YWxpY2U6" {
		t.Errorf("Authorization after sign-in = %q, want Basic base64(alice:)", got)
	}
	if got := text("#auth-toggle"); got != "Signed in: alice" {
		t.Errorf("sign-in control = %q", got)
	}
	checkConsole()
}
