package main

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// The page (SPEC §2.8) driven in headless Chromium against a real server:
// browse from the home page to a table, open entity URLs directly, pick
// several values of a facet, reach a schema past the first 10 through the
// facet's filter box, filter by owner, pick a suggestion with Enter, and
// edit a table's comment and tags as its owner (a reader gets no edit
// control). With SEMCAT_SCREENSHOTS=<dir> it writes a screenshot of each
// view there (docs/ holds the committed ones).

// pageChromium finds Debian's chromium, or fails (skips with SEMCAT_SKIP_BROWSER=1).
func pageChromium(t *testing.T) string {
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
	t.Fatal("the page's browser test needs headless Chromium: apt-get install -y chromium, or SEMCAT_SKIP_BROWSER=1 to skip")
	return ""
}

// pageTab is a headless Chromium tab on a server, with helpers that fail
// the test with the step's name.
type pageTab struct {
	t    *testing.T
	ctx  context.Context
	base string
	bad  func()
}

func newPageTab(t *testing.T, base string) *pageTab {
	t.Helper()
	exe := pageChromium(t)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(),
		chromedp.ExecPath(exe), chromedp.Headless, chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.NoDefaultBrowserCheck, chromedp.Flag("disable-dev-shm-usage", true), chromedp.Flag("disable-background-networking", true),
		chromedp.UserDataDir(t.TempDir()), chromedp.WindowSize(1280, 900))
	ctx, cancelCtx := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancelCtx(); cancelAlloc() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("starting %s: %v", exe, err)
	}
	// Fail on a JavaScript exception or error message (an API error answer
	// is a network message, expected where the test provokes one).
	var mu sync.Mutex
	var bad []string
	go func() {
		for m, err := range chromedp.Console(ctx) {
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
	p := &pageTab{t: t, ctx: ctx, base: base}
	p.bad = func() {
		mu.Lock()
		defer mu.Unlock()
		for _, b := range bad {
			t.Errorf("browser console: %s", b)
		}
		bad = nil
	}
	return p
}

func (p *pageTab) do(step string, actions ...chromedp.Action[chromedp.Void]) {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx, actions...); err != nil {
		p.bad()
		where, _ := chromedp.Run(p.ctx, chromedp.Evaluate[string](`location.search + " | " + document.body.dataset.view + " | " + (document.getElementById("layout").innerText || "").slice(0, 400)`))
		p.t.Fatalf("%s: %v (page: %s)", step, err, where)
	}
}

func (p *pageTab) text(sel string) string {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
	if err != nil {
		p.t.Fatalf("text of %s: %v", sel, err)
	}
	return strings.TrimSpace(s)
}

func pageEval[T any](p *pageTab, expr string) T {
	p.t.Helper()
	ctx, cancel := context.WithTimeout(p.ctx, 20*time.Second)
	defer cancel()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr))
	if err != nil {
		p.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

// signIn keeps a user name for the page (as its sign-in form does) and opens path.
func (p *pageTab) signIn(user, path string) {
	p.t.Helper()
	p.do("sign in as "+user,
		chromedp.Navigate(p.base+"/assets/favicon.svg"),
		chromedp.Evaluate[chromedp.Void](fmt.Sprintf(`sessionStorage.setItem("semcat.auth", JSON.stringify({kind: "basic", value: %q}))`, user)),
		chromedp.Navigate(p.base+path))
}

// shot writes a screenshot of the page to $SEMCAT_SCREENSHOTS/name.png.
func (p *pageTab) shot(name string) {
	p.t.Helper()
	dir := os.Getenv("SEMCAT_SCREENSHOTS")
	if dir == "" {
		return
	}
	png, err := chromedp.Run(p.ctx, chromedp.FullScreenshot(100))
	if err != nil {
		p.t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
		p.t.Fatal(err)
	}
}

// keys returns the data-key attributes of the elements sel matches.
func (p *pageTab) keys(sel string) []string {
	p.t.Helper()
	return pageEval[[]string](p, fmt.Sprintf(`[...document.querySelectorAll(%q)].map((e) => e.dataset.key)`, sel))
}

func TestPageInBrowser(t *testing.T) {
	t.Parallel()
	cfg := testConfig(t)
	cfg.Auth = "simple"
	cfg.Authorization = true
	cfg.ServiceAdmins = []string{"admin"}
	m := startMain(t, cfg)
	admin := client{t: t, base: m.URL(), user: "admin"}
	admin.ok("POST", "/api/metalakes", `{"name":"m","comment":"The company's metadata"}`)
	admin.ok("POST", "/api/metalakes/m/catalogs", `{"name":"rel","type":"relational","comment":"The warehouse"}`)
	for i := range 12 {
		admin.ok("POST", "/api/metalakes/m/catalogs/rel/schemas", fmt.Sprintf(`{"name":"s%02d","comment":"Schema number %d"}`, i, i))
	}
	admin.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s05/tables", `{"name":"people","comment":"One row per person",
		"properties":{"retention":"7y"},
		"columns":[{"name":"id","type":"long","comment":"Person id","nullable":false},
			{"name":"contact","type":{"type":"struct","fields":[{"name":"email","type":"string","nullable":true,"comment":"Work email address"}]}}]}`)
	admin.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s11/tables", `{"name":"orders","columns":[{"name":"id","type":"long"}]}`)
	for _, tag := range []string{"pii", "gold"} {
		admin.ok("POST", "/api/metalakes/m/tags", `{"name":"`+tag+`"}`)
	}
	admin.ok("POST", "/api/metalakes/m/objects/table/rel.s05.people/tags", `{"tagsToAdd":["pii"]}`)
	admin.ok("POST", "/api/metalakes/m/objects/column/rel.s05.people.contact/tags", `{"tagsToAdd":["pii"]}`)
	admin.ok("POST", "/api/metalakes/m/catalogs/rel/schemas/s05/semantic-models", `{"name":"hr","comment":"People analytics","definition":{
		"datasets":[{"name":"people","source":{"namespace":["rel","s05"],"name":"people"},
			"fields":[{"name":"id","datatype":"Integer","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"id"}]}}]}],
		"metrics":[{"name":"headcount","datatype":"Integer","description":"People employed","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"COUNT(DISTINCT id)"}]}},
			{"name":"headcount_growth","datatype":"Decimal","description":"Growth of the headcount over a month",
			 "expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"headcount / headcount_last_month - 1"}]},
			 "customExtensions":[{"vendorName":"dbt","data":"{\"type\":\"derived\",\"type_params\":{\"expr\":\"headcount / headcount_last_month - 1\",\"metrics\":[{\"name\":\"headcount\"},{\"name\":\"headcount\",\"alias\":\"headcount_last_month\",\"offset_window\":\"1 month\"}],\"filter\":\"{{ Dimension('people__active') }} = true\",\"window\":\"28 days\"}}"}]}]}}`)
	for _, u := range []string{"alice", "rita", "bob", "ed"} {
		admin.ok("POST", "/api/metalakes/m/users", `{"name":"`+u+`"}`)
	}
	admin.ok("POST", "/api/metalakes/m/roles", `{"name":"reader","securableObjects":[{"fullName":"m","type":"METALAKE","privileges":[
		{"name":"USE_CATALOG","condition":"ALLOW"},{"name":"USE_SCHEMA","condition":"ALLOW"},
		{"name":"SELECT_TABLE","condition":"ALLOW"},{"name":"SELECT_SEMANTIC_MODEL","condition":"ALLOW"}]}]}`)
	for _, u := range []string{"alice", "rita"} {
		admin.ok("PUT", "/api/metalakes/m/permissions/users/"+u+"/grant", `{"roleNames":["reader"]}`)
	}
	// ed owns nothing but may alter the tables of s05 through a role.
	admin.ok("POST", "/api/metalakes/m/roles", `{"name":"s05_editor","securableObjects":[{"fullName":"rel.s05","type":"SCHEMA","privileges":[
		{"name":"MODIFY_TABLE","condition":"ALLOW"}]}]}`)
	admin.ok("PUT", "/api/metalakes/m/permissions/users/ed/grant", `{"roleNames":["reader","s05_editor"]}`)
	hdr, _ := admin.ok("PUT", "/api/metalakes/m/owners/table/rel.s05.people", `{"name":"alice","type":"USER"}`)
	// The page reads the index as it is: wait until it has every write.
	admin.search("m", url.Values{"query": {"*"}, "minPosition": {hdr.Get("X-Semcat-Position")}})

	p := newPageTab(t, m.URL())
	defer p.bad()
	const peopleKey = "table:rel.s05.people"

	// 1. From the home page to a table through the hierarchy, by links.
	p.signIn("alice", "/")
	p.do("the home page lists the metalakes", chromedp.WaitVisible(chromedp.CSS(`#home .child[data-key="m"] a`)))
	p.shot("page-home")
	p.do("open the metalake", chromedp.Click(chromedp.CSS(`#home .child[data-key="m"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`#home .child[data-key="catalog:rel"] a`)))
	p.shot("page-metalake")
	p.do("open the catalog", chromedp.Click(chromedp.CSS(`.child[data-key="catalog:rel"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail .child[data-key="schema:rel.s11"] a`)))
	if got := p.keys(`#detail [data-listing="schema"] .child`); len(got) != 12 {
		t.Errorf("the catalog lists %d schemas, want 12: %v", len(got), got)
	}
	p.shot("page-catalog")
	p.do("open the schema", chromedp.Click(chromedp.CSS(`.child[data-key="schema:rel.s05"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail [data-listing="table"] .child[data-key="`+peopleKey+`"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail [data-listing="semantic_model"] .child[data-key="semantic_model:rel.s05.hr"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail [data-listing="metric"] .child[data-key="metric:rel.s05.hr.headcount"]`)))
	p.shot("page-schema")
	p.do("open the table", chromedp.Click(chromedp.CSS(`.child[data-key="`+peopleKey+`"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail [data-section="columns"] tr[data-path="contact.email"]`)))
	if got := p.text("#detail-title"); got != "people" {
		t.Errorf("the table page's title = %q", got)
	}
	crumbs := pageEval[[]string](p, `[...document.querySelectorAll("#crumbs a")].map((a) => a.textContent)`)
	if want := []string{"Home", "m", "rel", "s05"}; !slices.Equal(crumbs, want) {
		t.Errorf("breadcrumb links = %v, want %v", crumbs, want)
	}
	p.do("the column's tag", chromedp.WaitVisible(chromedp.CSS(`#detail tr[data-path="contact"] .col-tags .chip.tag`)))
	if got := p.text(`#detail tr[data-path="contact"] .col-tags`); got != "pii" {
		t.Errorf("the column contact's tags = %q, want pii (its own, not the table's)", got)
	}
	if got := p.text(`#detail tr[data-path="id"] .col-tags`); got != "" {
		t.Errorf("the column id's tags = %q, want none (the table's tag is not the column's)", got)
	}
	for _, want := range []string{"long", "Person id", "Work email address", "not null", "retention", "7y", "pii"} {
		if !strings.Contains(p.text("#detail"), want) {
			t.Errorf("the table page lacks %q", want)
		}
	}
	p.do("back to the schema by its breadcrumb", chromedp.Click(chromedp.CSS(`#crumbs a[href*="schema%3Arel.s05"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail [data-listing="table"] .child[data-key="`+peopleKey+`"]`)))

	// 2. An entity URL opened directly shows its tags and owner.
	p.do("open the table's URL", chromedp.Navigate(p.base+"/?metalake=m&open="+url.QueryEscape(peopleKey)),
		chromedp.WaitVisible(chromedp.CSS(`#detail .entity-header[data-editable="yes"]`)))
	if got := p.text("#detail .fact.owner dd .owner-name, #detail .fact.owner dd"); !strings.HasPrefix(got, "alice") {
		t.Errorf("owner on the table page = %q, want alice", got)
	}
	if got := pageEval[[]string](p, `[...document.querySelectorAll("#detail .entity-tags .chip.tag")].map((c) => c.firstChild.textContent)`); !slices.Equal(got, []string{"pii"}) {
		t.Errorf("tags on the table page = %v, want [pii]", got)
	}
	p.shot("page-table-owner")

	// A semantic model and a metric, directly too.
	p.do("open the model", chromedp.Navigate(p.base+"/?metalake=m&open=semantic_model:rel.s05.hr"),
		chromedp.WaitVisible(chromedp.CSS(`#detail [data-section="metrics"] a[href*="headcount_growth"]`)))
	for _, want := range []string{"Datasets (1)", "rel.s05.people", "COUNT(DISTINCT id)", "Relationships (0)"} {
		if !strings.Contains(p.text("#detail"), want) {
			t.Errorf("the model page lacks %q", want)
		}
	}
	p.shot("page-model")
	p.do("open the derived metric", chromedp.Click(chromedp.CSS(`#detail [data-section="metrics"] a[href*="headcount_growth"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail [data-section="inputs"] li`)))
	for sec, want := range map[string]string{"inputs": "headcount_last_month", "filter": "people__active", "window": "28 days", "definition": "headcount / headcount_last_month - 1"} {
		if got := p.text(`#detail [data-section="` + sec + `"]`); !strings.Contains(got, want) {
			t.Errorf("the metric's %s = %q, want %q in it", sec, got, want)
		}
	}
	if got := p.text("#detail .model-link a"); got != "rel.s05.hr" {
		t.Errorf("the metric's model link = %q", got)
	}
	p.shot("page-metric")

	// 3. Two values of one facet: either type.
	p.do("search everything", chromedp.Navigate(p.base+"/?metalake=m&q=*"),
		chromedp.WaitVisible(chromedp.CSS(`button[data-facet="type"][data-value="table"]`)))
	p.do("pick the type table", chromedp.Click(chromedp.CSS(`button[data-facet="type"][data-value="table"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-facet="type"][data-value="table"][aria-pressed="true"]`)),
		// The other types stay, to be added.
		chromedp.WaitVisible(chromedp.CSS(`button[data-facet="type"][data-value="schema"][aria-pressed="false"]`)))
	p.do("add the type schema", chromedp.Click(chromedp.CSS(`button[data-facet="type"][data-value="schema"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-facet="type"][data-value="schema"][aria-pressed="true"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.result[data-key="schema:rel.s00"]`)))
	if got := p.text("#status"); !strings.HasSuffix(got, "14 results") {
		t.Errorf("two types: status %q, want 14 results (12 schemas, 2 tables)", got)
	}
	types := pageEval[[]string](p, `[...new Set([...document.querySelectorAll("#results .result")].map((r) => r.dataset.key.split(":")[0]))].sort()`)
	if !slices.Equal(types, []string{"schema", "table"}) {
		t.Errorf("result types = %v", types)
	}
	if loc := pageEval[string](p, `location.search`); !strings.Contains(loc, "type=table&type=schema") {
		t.Errorf("URL %s lacks both types", loc)
	}
	p.shot("page-search-facets")

	// 4. A schema past the first 10 values, through the facet's filter box.
	if got := p.keys(`button[data-facet="schema"]`); len(got) > 10 {
		t.Errorf("the schema facet shows %d values before more", len(got))
	}
	visible := pageEval[bool](p, `!!document.querySelector('button[data-facet="schema"][data-value="s10"]')`)
	if visible {
		t.Log("s10 is among the first 10 values; the filter box is still used")
	}
	p.do("filter the schema facet", chromedp.SendKeys(chromedp.CSS(`#facet-schema-filter`), "s10"),
		chromedp.WaitVisible(chromedp.CSS(`button[data-facet="schema"][data-value="s10"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`button[data-facet="schema"][data-value="s05"]`)))
	p.shot("page-facet-filter")
	p.do("pick s10", chromedp.Click(chromedp.CSS(`button[data-facet="schema"][data-value="s10"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.result[data-key="schema:rel.s10"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`.result[data-key="schema:rel.s00"]`)))
	if got := p.keys("#results .result"); !slices.Equal(got, []string{"schema:rel.s10"}) {
		t.Errorf("schema s10: results %v", got)
	}
	p.do("the more button lists every schema", chromedp.Navigate(p.base+"/?metalake=m&q=*"),
		chromedp.WaitVisible(chromedp.CSS(`[data-facet="schema"] .facet-more`)),
		chromedp.Click(chromedp.CSS(`[data-facet="schema"] .facet-more`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-facet="schema"][data-value="s10"]`)),
		chromedp.WaitVisible(chromedp.CSS(`button[data-facet="schema"][data-value="s09"]`)))
	if got := p.keys(`button[data-facet="schema"]`); len(got) != 12 {
		t.Errorf("after more, the schema facet shows %d values, want 12", len(got))
	}

	// 5. Filter by owner.
	p.do("pick the owner alice", chromedp.Click(chromedp.CSS(`button[data-facet="owner"][data-value="alice"]`)),
		chromedp.WaitVisible(chromedp.CSS(`.result[data-key="`+peopleKey+`"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`.result[data-key="table:rel.s11.orders"]`)))
	if got := p.keys("#results .result"); !slices.Equal(got, []string{peopleKey}) {
		t.Errorf("owner alice: results %v, want only the table she owns", got)
	}
	if got := p.text(`.result[data-key="` + peopleKey + `"] .prop.owner dd`); got != "alice" {
		t.Errorf("the result's owner = %q", got)
	}

	// 6. A suggestion picked with Enter shows its entity's page alone.
	p.do("search for a column", chromedp.Navigate(p.base+"/?metalake=m&q=email"),
		chromedp.WaitVisible(chromedp.CSS(`.result[data-key="`+peopleKey+`"] .chip.match.field`)))
	if got := strings.Join(strings.Fields(p.text(`.result[data-key="`+peopleKey+`"] .chip.match.field`)), " "); got != "column contact.email" {
		t.Errorf("the match chip = %q, want column contact.email", got)
	}
	p.do("search a column's comment", chromedp.Navigate(p.base+"/?metalake=m&q=address"),
		chromedp.WaitVisible(chromedp.CSS(`.result[data-key="`+peopleKey+`"] .chip.match.field.in-comment`)))
	if got := strings.Join(strings.Fields(p.text(`.result[data-key="`+peopleKey+`"] .chip.match.field`)), " "); got != "column comment contact.email" {
		t.Errorf("the comment's match chip = %q, want column comment contact.email", got)
	}
	p.shot("page-search-matches")
	p.do("type a prefix",
		chromedp.Evaluate[chromedp.Void](`document.getElementById("q").value = ""`),
		chromedp.Focus(chromedp.CSS("#q")),
		chromedp.SendKeys(chromedp.CSS("#q"), "peo"),
		chromedp.WaitVisible(chromedp.CSS(`#suggestions .suggestion[data-key="`+peopleKey+`"]`)))
	idx := pageEval[int](p, `[...document.querySelectorAll("#suggestions .suggestion")].findIndex((s) => s.dataset.key === "`+peopleKey+`")`)
	actions := []chromedp.Action[chromedp.Void]{}
	for range idx + 1 {
		actions = append(actions, chromedp.KeyEvent(kb.ArrowDown))
	}
	actions = append(actions, chromedp.WaitVisible(chromedp.CSS(`#suggestions .suggestion[aria-selected="true"][data-key="`+peopleKey+`"]`)),
		chromedp.KeyEvent(kb.Enter),
		chromedp.WaitNotVisible(chromedp.CSS("#suggestions")),
		chromedp.WaitVisible(chromedp.CSS(`#detail .entity-tags .chip.tag`)))
	p.do("pick it with Enter", actions...)
	if got := p.text("#detail-title"); got != "people" {
		t.Errorf("the picked suggestion opened %q", got)
	}
	if pageEval[bool](p, `!document.getElementById("results-pane").hidden || document.querySelectorAll("#results-pane:not([hidden]) .result").length > 0`) {
		t.Error("after Enter on a suggestion, the result list of the earlier query is still shown")
	}
	if loc := pageEval[string](p, `location.search`); loc != "?metalake=m&open="+url.QueryEscape(peopleKey) {
		t.Errorf("after Enter on a suggestion the URL is %s", loc)
	}

	// 7. The owner edits the comment and the tags.
	p.do("edit the comment",
		chromedp.WaitVisible(chromedp.CSS(`#detail .entity-header[data-editable="yes"] .edit-comment`)),
		chromedp.Click(chromedp.CSS(`.edit-comment`)),
		chromedp.WaitVisible(chromedp.CSS(`#comment-input`)),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("comment-input").value = ""`),
		chromedp.SendKeys(chromedp.CSS(`#comment-input`), "Everyone on the payroll"),
		chromedp.Click(chromedp.CSS(`.comment-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail .entity-comment .comment`)),
	)
	p.do("the new comment shows", chromedp.WaitVisible(`//div[contains(@class,"entity-comment")]/p[text()="Everyone on the payroll"]`))
	p.do("add the tag gold",
		chromedp.WaitVisible(chromedp.CSS(`#tag-input`)),
		chromedp.SendKeys(chromedp.CSS(`#tag-input`), "gold"),
		chromedp.Click(chromedp.CSS(`.tag-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail button[aria-label="Remove tag gold"]`)))
	p.do("remove the tag pii",
		chromedp.Click(chromedp.CSS(`#detail button[aria-label="Remove tag pii"]`)),
		chromedp.WaitNotPresent(chromedp.CSS(`#detail button[aria-label="Remove tag pii"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail button[aria-label="Remove tag gold"]`)))
	p.shot("page-table-edited")
	_, tbl := admin.ok("GET", "/api/metalakes/m/catalogs/rel/schemas/s05/tables/people", "")
	if c := tbl["table"].(map[string]any)["comment"]; c != "Everyone on the payroll" {
		t.Errorf("the table's comment after the edit = %v", c)
	}
	_, tags := admin.ok("GET", "/api/metalakes/m/objects/table/rel.s05.people/tags", "")
	if got := fmt.Sprint(tags["names"]); got != "[gold]" {
		t.Errorf("the table's tags after the edits = %s, want [gold]", got)
	}

	// The owner hands the table over to bob, and may edit no more.
	p.do("change the owner",
		chromedp.Click(chromedp.CSS(`#detail .edit-owner`)),
		chromedp.WaitVisible(chromedp.CSS(`#owner-input`)),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("owner-input").value = ""`),
		chromedp.SendKeys(chromedp.CSS(`#owner-input`), "bob"),
		chromedp.Click(chromedp.CSS(`.owner-form button[type="submit"]`)),
		chromedp.WaitVisible(`//dd[contains(@class,"owner-name") and text()="bob"]`),
		chromedp.WaitVisible(chromedp.CSS(`#detail .entity-header[data-editable="no"]`)))
	_, owner := admin.ok("GET", "/api/metalakes/m/owners/table/rel.s05.people", "")
	if got := owner["owner"].(map[string]any)["name"]; got != "bob" {
		t.Errorf("the owner after the change = %v, want bob", got)
	}

	// 8. A reader sees the same page without edit controls.
	p.signIn("rita", "/?metalake=m&open="+url.QueryEscape(peopleKey))
	p.do("the reader's table page", chromedp.WaitVisible(chromedp.CSS(`#detail .entity-header[data-editable="no"]`)))
	if n := pageEval[int](p, `document.querySelectorAll("#detail .edit-comment, #detail .edit-owner, #detail #tag-input, #detail .chip-x, #detail textarea").length`); n != 0 {
		t.Errorf("the reader sees %d edit controls", n)
	}
	if got := p.text("#detail .fact.owner dd"); got != "bob" {
		t.Errorf("the reader sees the owner %q, want bob", got)
	}
	p.shot("page-table-reader")

	// 9. A non-owner who may alter the table through a privilege
	// (MODIFY_TABLE on its schema) edits its comment and tags, but may not
	// change its owner: the page asks the API what the user may do.
	p.signIn("ed", "/?metalake=m&open="+url.QueryEscape(peopleKey))
	p.do("the editor's table page", chromedp.WaitVisible(chromedp.CSS(`#detail .entity-header[data-editable="yes"] .edit-comment`)),
		chromedp.WaitVisible(chromedp.CSS(`#tag-input`)))
	if n := pageEval[int](p, `document.querySelectorAll("#detail .edit-owner").length`); n != 0 {
		t.Errorf("a non-owner with MODIFY_TABLE sees %d owner controls, want none", n)
	}
	p.do("the editor edits the comment",
		chromedp.Click(chromedp.CSS(`.edit-comment`)),
		chromedp.WaitVisible(chromedp.CSS(`#comment-input`)),
		chromedp.Evaluate[chromedp.Void](`document.getElementById("comment-input").value = ""`),
		chromedp.SendKeys(chromedp.CSS(`#comment-input`), "Edited by ed"),
		chromedp.Click(chromedp.CSS(`.comment-form button[type="submit"]`)),
		chromedp.WaitVisible(`//div[contains(@class,"entity-comment")]/p[text()="Edited by ed"]`))
	p.do("the editor adds the tag pii",
		chromedp.WaitVisible(chromedp.CSS(`#tag-input`)),
		chromedp.WaitReady(chromedp.CSS(`#tag-names option[value="pii"]`)),
		chromedp.SendKeys(chromedp.CSS(`#tag-input`), "pii"),
		chromedp.Click(chromedp.CSS(`.tag-form button[type="submit"]`)),
		chromedp.WaitVisible(chromedp.CSS(`#detail button[aria-label="Remove tag pii"]`)))
	p.shot("page-table-editor")
	_, tbl = admin.ok("GET", "/api/metalakes/m/catalogs/rel/schemas/s05/tables/people", "")
	if c := tbl["table"].(map[string]any)["comment"]; c != "Edited by ed" {
		t.Errorf("the table's comment after ed's edit = %v", c)
	}
	_, tags = admin.ok("GET", "/api/metalakes/m/objects/table/rel.s05.people/tags", "")
	if got := fmt.Sprint(tags["names"]); got != "[gold pii]" {
		t.Errorf("the table's tags after ed's edit = %s, want [gold pii]", got)
	}
	// On another schema's table ed holds no MODIFY_TABLE: no controls.
	p.do("the editor on s11's table", chromedp.Navigate(p.base+"/?metalake=m&open="+url.QueryEscape("table:rel.s11.orders")),
		chromedp.WaitVisible(chromedp.CSS(`#detail .entity-header[data-editable="no"]`)))
	if n := pageEval[int](p, `document.querySelectorAll("#detail .edit-comment, #detail .edit-owner, #detail #tag-input, #detail .chip-x, #detail textarea").length`); n != 0 {
		t.Errorf("ed sees %d edit controls on a table he may not alter", n)
	}
}
