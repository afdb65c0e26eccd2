package api_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/api"
	"github.com/semcat/semcat/api/apitest"
	"github.com/semcat/semcat/catalogdb"
	"github.com/semcat/semcat/catalogdb/pgtest"
)

// The tests in this file hold api/openapi.yaml to the server: every route
// the router serves is documented under its operation name and every
// documented operation is served (TestOpenAPIDocumentsEveryRoute), and the
// answers of a real server — PostgreSQL store, authorization, search index,
// simple authentication — match the documented schemas, status by status
// (TestOpenAPIValidatesResponses).
//
// Responses are checked with a small validator of the JSON Schema subset the
// document uses (type, nullable, enum, properties, required,
// additionalProperties, items, oneOf, allOf, anyOf, lengths, bounds,
// pattern, format date-time, $ref). One policy is stricter than JSON Schema:
// an object schema that lists properties but says nothing about
// additionalProperties must list every member the server sends, so the
// document cannot fall behind the server's answers.

// ---- the document ------------------------------------------------------

// openAPIDoc is the parsed document with its operations indexed.
type openAPIDoc struct {
	root map[string]any
	ops  map[string]*docOperation // by operationId
	list []*docOperation          // by path, then method
}

// docOperation is one documented operation.
type docOperation struct {
	id, method, path string
	pathRE           *regexp.Regexp
	node             map[string]any   // the operation object
	params           []map[string]any // path-level and operation-level, resolved
}

// loadOpenAPI gets the document the way clients do, from GET
// /api/openapi.yaml, and parses it.
func loadOpenAPI(tb testing.TB) *openAPIDoc {
	tb.Helper()
	rr := httptest.NewRecorder()
	api.NewHandler(api.Services{}, api.Config{}).ServeHTTP(rr, httptest.NewRequest(http.MethodGet, "/api/openapi.yaml", nil))
	if rr.Code != http.StatusOK {
		tb.Fatalf("GET /api/openapi.yaml: status %d", rr.Code)
	}
	return parseOpenAPI(tb, rr.Body.Bytes())
}

func parseOpenAPI(tb testing.TB, data []byte) *openAPIDoc {
	tb.Helper()
	var y any
	if err := yaml.Unmarshal(data, &y); err != nil {
		tb.Fatalf("openapi.yaml is not YAML: %v", err)
	}
	// Through JSON, so that every mapping is a map[string]any and numbers
	// are float64, like decoded response bodies.
	j, err := json.Marshal(y)
	if err != nil {
		tb.Fatalf("openapi.yaml does not convert to JSON: %v", err)
	}
	var root map[string]any
	if err := json.Unmarshal(j, &root); err != nil {
		tb.Fatal(err)
	}
	d := &openAPIDoc{root: root, ops: map[string]*docOperation{}}
	for path, item := range jsonObject(root["paths"]) {
		pi := jsonObject(item)
		for _, m := range []string{"get", "put", "post", "delete", "patch", "head", "options", "trace"} {
			node, ok := pi[m].(map[string]any)
			if !ok {
				continue
			}
			id, _ := node["operationId"].(string)
			op := &docOperation{id: id, method: strings.ToUpper(m), path: path, node: node, pathRE: templateRE(path)}
			for _, p := range append(slices.Clone(jsonArray(pi["parameters"])), jsonArray(node["parameters"])...) {
				op.params = append(op.params, d.deref(jsonObject(p)))
			}
			if id == "" {
				tb.Errorf("%s %s has no operationId", op.method, path)
				continue
			}
			if _, dup := d.ops[id]; dup {
				tb.Errorf("operationId %s is used twice", id)
			}
			d.ops[id] = op
			d.list = append(d.list, op)
		}
	}
	sort.Slice(d.list, func(i, j int) bool {
		if d.list[i].path != d.list[j].path {
			return d.list[i].path < d.list[j].path
		}
		return d.list[i].method < d.list[j].method
	})
	return d
}

var templateVar = regexp.MustCompile(`\{(\w+)(?::[^}]*)?\}`)

// normalizeTemplate writes a mux path template the way OpenAPI does:
// {name:pattern} becomes {name}.
func normalizeTemplate(p string) string { return templateVar.ReplaceAllString(p, "{$1}") }

// templateVars returns the variables of a path template, in order.
func templateVars(p string) []string {
	var out []string
	for _, m := range templateVar.FindAllStringSubmatch(p, -1) {
		out = append(out, m[1])
	}
	return out
}

// templateRE matches the paths of a template; a variable is one segment.
func templateRE(p string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	last := 0
	for _, loc := range templateVar.FindAllStringIndex(p, -1) {
		b.WriteString(regexp.QuoteMeta(p[last:loc[0]]))
		b.WriteString("[^/]+")
		last = loc[1]
	}
	b.WriteString(regexp.QuoteMeta(p[last:]))
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// fillTemplate replaces the variables of a path template with values.
func fillTemplate(p string, values func(name string) string) string {
	return templateVar.ReplaceAllStringFunc(p, func(v string) string {
		return values(templateVar.FindStringSubmatch(v)[1])
	})
}

// match returns the documented operation of a request, or nil.
func (d *openAPIDoc) match(method, target string) *docOperation {
	path, _, _ := strings.Cut(target, "?")
	for _, op := range d.list {
		if op.method == method && op.pathRE.MatchString(path) {
			return op
		}
	}
	return nil
}

// pointer resolves a local JSON pointer ("#/components/schemas/Name"); nil
// if it does not resolve to an object.
func (d *openAPIDoc) pointer(ref string) map[string]any {
	rest, ok := strings.CutPrefix(ref, "#/")
	if !ok {
		return nil
	}
	var cur any = d.root
	for _, part := range strings.Split(rest, "/") {
		part = strings.ReplaceAll(strings.ReplaceAll(part, "~1", "/"), "~0", "~")
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[part]
	}
	m, _ := cur.(map[string]any)
	return m
}

// deref follows $ref until an object without one.
func (d *openAPIDoc) deref(n map[string]any) map[string]any {
	for range 16 {
		ref, ok := n["$ref"].(string)
		if !ok {
			return n
		}
		n = d.pointer(ref)
	}
	return nil
}

// response returns the documented response of op for status, or nil.
func (d *openAPIDoc) response(op *docOperation, status int) map[string]any {
	r, ok := jsonObject(op.node["responses"])[strconv.Itoa(status)].(map[string]any)
	if !ok {
		return nil
	}
	return d.deref(r)
}

// unsupported reports whether op answers only 405 (documents no 200).
func (d *openAPIDoc) unsupported(op *docOperation) bool {
	return d.response(op, 200) == nil && d.response(op, 405) != nil
}

// requestSchema returns the JSON schema of op's request body, or nil.
func (d *openAPIDoc) requestSchema(op *docOperation) map[string]any {
	rb, ok := op.node["requestBody"].(map[string]any)
	if !ok {
		return nil
	}
	mt, _ := jsonObject(d.deref(rb)["content"])["application/json"].(map[string]any)
	s, _ := mt["schema"].(map[string]any)
	return s
}

// params returns op's parameters of one location ("query", "path",
// "header") by name.
func (op *docOperation) paramsIn(in string) map[string]map[string]any {
	out := map[string]map[string]any{}
	for _, p := range op.params {
		if p["in"] == in {
			out[p["name"].(string)] = p
		}
	}
	return out
}

func jsonObject(v any) map[string]any  { m, _ := v.(map[string]any); return m }
func jsonArray(v any) []any            { l, _ := v.([]any); return l }
func jsonNumber(v any) (float64, bool) { f, ok := v.(float64); return f, ok }

func showJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	if len(b) > 200 {
		return string(b[:200]) + "…"
	}
	return string(b)
}

// ---- the validator -----------------------------------------------------

// validate checks v against schema s and returns what is wrong, each
// prefixed with the JSON path at.
func (d *openAPIDoc) validate(at string, s map[string]any, v any) []string {
	if s == nil {
		return []string{at + ": no schema"}
	}
	if ref, ok := s["$ref"].(string); ok {
		target := d.pointer(ref)
		if target == nil {
			return []string{at + ": unresolved $ref " + ref}
		}
		return d.validate(at, target, v)
	}
	var errs []string
	if enum, ok := s["enum"].([]any); ok && !slices.ContainsFunc(enum, func(e any) bool { return reflect.DeepEqual(e, v) }) {
		errs = append(errs, fmt.Sprintf("%s: %s is not one of %s", at, showJSON(v), showJSON(enum)))
	}
	for _, sub := range jsonArray(s["allOf"]) {
		errs = append(errs, d.validate(at, jsonObject(sub), v)...)
	}
	if branches := jsonArray(s["oneOf"]); len(branches) > 0 {
		matched, why := 0, []string{}
		for i, b := range branches {
			if e := d.validate(at, jsonObject(b), v); len(e) == 0 {
				matched++
			} else {
				why = append(why, fmt.Sprintf("[%d] %s", i, strings.Join(e, "; ")))
			}
		}
		switch {
		case matched == 0:
			errs = append(errs, fmt.Sprintf("%s: matches no oneOf branch: %s", at, strings.Join(why, " | ")))
		case matched > 1:
			errs = append(errs, fmt.Sprintf("%s: matches %d oneOf branches, want exactly one", at, matched))
		}
	}
	if branches := jsonArray(s["anyOf"]); len(branches) > 0 {
		if !slices.ContainsFunc(branches, func(b any) bool { return len(d.validate(at, jsonObject(b), v)) == 0 }) {
			errs = append(errs, fmt.Sprintf("%s: matches no anyOf branch", at))
		}
	}
	typ, typed := s["type"].(string)
	if v == nil {
		// OpenAPI 3.0.3: nullable admits null only next to a type; a schema
		// without one (a composition) admits it through its branches.
		if typed && s["nullable"] != true {
			errs = append(errs, at+": null is not allowed")
		}
		return errs
	}
	if typed && !hasType(typ, v) {
		return append(errs, fmt.Sprintf("%s: want %s, got %s", at, typ, showJSON(v)))
	}
	switch x := v.(type) {
	case map[string]any:
		props := jsonObject(s["properties"])
		_, listsProps := s["properties"]
		for _, r := range jsonArray(s["required"]) {
			if _, ok := x[r.(string)]; !ok {
				errs = append(errs, fmt.Sprintf("%s: required member %q is missing", at, r))
			}
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			if ps, ok := props[k]; ok {
				errs = append(errs, d.validate(at+"."+k, jsonObject(ps), x[k])...)
				continue
			}
			switch ap := s["additionalProperties"].(type) {
			case map[string]any:
				errs = append(errs, d.validate(at+"."+k, ap, x[k])...)
			case bool:
				if !ap {
					errs = append(errs, fmt.Sprintf("%s: member %q is not allowed", at, k))
				}
			case nil:
				if listsProps {
					errs = append(errs, fmt.Sprintf("%s: member %q is not documented", at, k))
				}
			}
		}
	case []any:
		if n, ok := jsonNumber(s["minItems"]); ok && float64(len(x)) < n {
			errs = append(errs, fmt.Sprintf("%s: %d items, want at least %v", at, len(x), n))
		}
		if n, ok := jsonNumber(s["maxItems"]); ok && float64(len(x)) > n {
			errs = append(errs, fmt.Sprintf("%s: %d items, want at most %v", at, len(x), n))
		}
		if items, ok := s["items"].(map[string]any); ok {
			for i, e := range x {
				errs = append(errs, d.validate(fmt.Sprintf("%s[%d]", at, i), items, e)...)
			}
		}
	case string:
		n := float64(utf8.RuneCountInString(x))
		if m, ok := jsonNumber(s["minLength"]); ok && n < m {
			errs = append(errs, fmt.Sprintf("%s: %q is shorter than %v", at, x, m))
		}
		if m, ok := jsonNumber(s["maxLength"]); ok && n > m {
			errs = append(errs, fmt.Sprintf("%s: %d characters, want at most %v", at, int(n), m))
		}
		if p, ok := s["pattern"].(string); ok {
			if re, err := regexp.Compile(p); err != nil {
				errs = append(errs, fmt.Sprintf("%s: bad pattern %q: %v", at, p, err))
			} else if !re.MatchString(x) {
				errs = append(errs, fmt.Sprintf("%s: %q does not match %s", at, x, p))
			}
		}
		if s["format"] == "date-time" {
			if _, err := time.Parse(time.RFC3339Nano, x); err != nil {
				errs = append(errs, fmt.Sprintf("%s: %q is not a date-time", at, x))
			}
		}
	case float64:
		if m, ok := jsonNumber(s["minimum"]); ok && x < m {
			errs = append(errs, fmt.Sprintf("%s: %v is below the minimum %v", at, x, m))
		}
		if m, ok := jsonNumber(s["maximum"]); ok && x > m {
			errs = append(errs, fmt.Sprintf("%s: %v is above the maximum %v", at, x, m))
		}
	}
	return errs
}

func hasType(typ string, v any) bool {
	switch typ {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	}
	return false
}

// schemaKeywords are the keywords the document may use: those the
// validator checks, and annotations.
var schemaKeywords = map[string]bool{
	"$ref": true, "type": true, "nullable": true, "enum": true, "properties": true, "required": true,
	"additionalProperties": true, "items": true, "minItems": true, "maxItems": true, "minLength": true,
	"maxLength": true, "pattern": true, "minimum": true, "maximum": true, "oneOf": true, "allOf": true,
	"anyOf": true, "format": true,
	"description": true, "example": true, "default": true, "discriminator": true, "title": true,
}

// lint checks what the validator would otherwise pass over silently: every
// $ref resolves, schemas use only known keywords, patterns compile, required
// members are declared, nullable sits next to a type, and nothing sits next
// to a $ref (OpenAPI 3.0 ignores it).
func (d *openAPIDoc) lint() []string {
	var errs []string
	var walk func(at string, v any)
	walk = func(at string, v any) {
		switch x := v.(type) {
		case map[string]any:
			if ref, ok := x["$ref"].(string); ok && d.pointer(ref) == nil {
				errs = append(errs, fmt.Sprintf("%s: $ref %s does not resolve", at, ref))
			}
			for k, e := range x {
				walk(at+"/"+k, e)
			}
		case []any:
			for i, e := range x {
				walk(fmt.Sprintf("%s/%d", at, i), e)
			}
		}
	}
	walk("#", d.root)

	var schema func(at string, s map[string]any)
	schema = func(at string, s map[string]any) {
		if s == nil {
			errs = append(errs, at+": missing schema")
			return
		}
		for k := range s {
			if !schemaKeywords[k] {
				errs = append(errs, fmt.Sprintf("%s: unknown schema keyword %q", at, k))
			}
		}
		if _, ok := s["$ref"]; ok {
			if len(s) > 1 {
				errs = append(errs, at+": members next to $ref are ignored in OpenAPI 3.0")
			}
			return
		}
		if p, ok := s["pattern"].(string); ok {
			if _, err := regexp.Compile(p); err != nil {
				errs = append(errs, fmt.Sprintf("%s: pattern %q: %v", at, p, err))
			}
		}
		if s["nullable"] == true && s["type"] == nil {
			errs = append(errs, at+": nullable without type has no effect in OpenAPI 3.0.3")
		}
		props := jsonObject(s["properties"])
		if props != nil {
			for _, r := range jsonArray(s["required"]) {
				if _, ok := props[r.(string)]; !ok {
					errs = append(errs, fmt.Sprintf("%s: required %q is not a property", at, r))
				}
			}
		}
		for k, p := range props {
			schema(at+"/properties/"+k, jsonObject(p))
		}
		if items, ok := s["items"]; ok {
			schema(at+"/items", jsonObject(items))
		}
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			schema(at+"/additionalProperties", ap)
		}
		for _, key := range []string{"oneOf", "allOf", "anyOf"} {
			for i, b := range jsonArray(s[key]) {
				schema(fmt.Sprintf("%s/%s/%d", at, key, i), jsonObject(b))
			}
		}
		if disc := jsonObject(s["discriminator"]); disc != nil {
			for v, ref := range jsonObject(disc["mapping"]) {
				if d.pointer(ref.(string)) == nil {
					errs = append(errs, fmt.Sprintf("%s: discriminator mapping %s → %v does not resolve", at, v, ref))
				}
			}
		}
	}
	content := func(at string, c any) {
		for mt, m := range jsonObject(c) {
			schema(at+"/content/"+mt+"/schema", jsonObject(jsonObject(m)["schema"]))
		}
	}
	parameter := func(at string, p map[string]any) {
		if _, ok := p["$ref"]; !ok {
			schema(at+"/schema", jsonObject(p["schema"]))
		}
	}
	comps := jsonObject(d.root["components"])
	for name, s := range jsonObject(comps["schemas"]) {
		schema("#/components/schemas/"+name, jsonObject(s))
	}
	for name, p := range jsonObject(comps["parameters"]) {
		parameter("#/components/parameters/"+name, jsonObject(p))
	}
	for name, h := range jsonObject(comps["headers"]) {
		schema("#/components/headers/"+name+"/schema", jsonObject(jsonObject(h)["schema"]))
	}
	for name, r := range jsonObject(comps["responses"]) {
		content("#/components/responses/"+name, jsonObject(r)["content"])
	}
	for _, op := range d.list {
		at := "#/paths/" + op.path + "/" + strings.ToLower(op.method)
		for i, p := range jsonArray(op.node["parameters"]) {
			parameter(fmt.Sprintf("%s/parameters/%d", at, i), jsonObject(p))
		}
		if rb := jsonObject(op.node["requestBody"]); rb != nil {
			content(at+"/requestBody", rb["content"])
		}
		for status, r := range jsonObject(op.node["responses"]) {
			r := jsonObject(r)
			if _, ok := r["$ref"]; ok {
				continue
			}
			content(at+"/responses/"+status, r["content"])
			for name, h := range jsonObject(r["headers"]) {
				if h := jsonObject(h); h["$ref"] == nil {
					schema(at+"/responses/"+status+"/headers/"+name+"/schema", jsonObject(h["schema"]))
				}
			}
		}
	}
	for path, item := range jsonObject(d.root["paths"]) {
		for i, p := range jsonArray(jsonObject(item)["parameters"]) {
			parameter(fmt.Sprintf("#/paths/%s/parameters/%d", path, i), jsonObject(p))
		}
	}
	sort.Strings(errs)
	return errs
}

// checkExamples validates the examples of component schemas, parameters
// and responses against their schemas.
func (d *openAPIDoc) checkExamples() []string {
	var errs []string
	check := func(at string, s map[string]any, example any, has bool) {
		if has {
			errs = append(errs, d.validate(at+" example", s, example)...)
		}
	}
	comps := jsonObject(d.root["components"])
	for name, s := range jsonObject(comps["schemas"]) {
		ex, has := jsonObject(s)["example"]
		check("#/components/schemas/"+name, jsonObject(s), ex, has)
	}
	for name, p := range jsonObject(comps["parameters"]) {
		ex, has := jsonObject(p)["example"]
		check("#/components/parameters/"+name, jsonObject(jsonObject(p)["schema"]), ex, has)
	}
	for name, r := range jsonObject(comps["responses"]) {
		for mt, m := range jsonObject(jsonObject(r)["content"]) {
			ex, has := jsonObject(m)["example"]
			check("#/components/responses/"+name+"/"+mt, jsonObject(jsonObject(m)["schema"]), ex, has)
		}
	}
	for _, op := range d.list {
		for _, p := range op.params {
			ex, has := p["example"]
			check(op.id+" parameter "+fmt.Sprint(p["name"]), jsonObject(p["schema"]), ex, has)
		}
	}
	sort.Strings(errs)
	return errs
}

// ---- (a) the document and the router -----------------------------------

func TestOpenAPIDocumentsEveryRoute(t *testing.T) {
	doc := loadOpenAPI(t)
	for _, e := range doc.lint() {
		t.Error(e)
	}
	for _, e := range doc.checkExamples() {
		t.Error(e)
	}

	// Every route the router serves is documented under its name, and the
	// document lists nothing else.
	served := map[string]bool{}
	for _, rt := range api.Routes() {
		key := rt.Method + " " + normalizeTemplate(rt.Path)
		if served[key] {
			t.Errorf("api.Routes lists %s twice", key)
		}
		served[key] = true
		op := doc.findRoute(rt.Method, normalizeTemplate(rt.Path))
		switch {
		case op == nil:
			t.Errorf("route %s (%s) is not in openapi.yaml", key, rt.Name)
		case op.id != rt.Name:
			t.Errorf("%s: operationId %q, but the route is named %q", key, op.id, rt.Name)
		}
	}
	for _, op := range doc.list {
		if !served[op.method+" "+op.path] {
			t.Errorf("openapi.yaml documents %s %s (%s), which the router does not serve", op.method, op.path, op.id)
		}
	}

	// The real router sends every documented operation to the route of that
	// name, and the operations documented as needing no credentials are
	// exactly those that answer without them.
	var seen string // ServeHTTP runs on this goroutine
	record := func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			seen = api.Operation(r)
			w.WriteHeader(http.StatusNoContent)
		})
	}
	admit := api.NewHandler(api.Services{}, api.Config{
		Authenticate: func(*http.Request) (string, error) { return "u", nil },
		Middleware:   []api.Middleware{record},
	})
	refuse := api.NewHandler(api.Services{}, api.Config{
		Authenticate: func(*http.Request) (string, error) { return "", semcat.Errorf(semcat.EUNAUTHORIZED, "no") },
		Middleware:   []api.Middleware{record},
	})
	for _, op := range doc.list {
		target := fillTemplate(op.path, func(string) string { return "x1" })
		public := op.node["security"] != nil && len(jsonArray(op.node["security"])) == 0

		seen = ""
		rr := httptest.NewRecorder()
		admit.ServeHTTP(rr, httptest.NewRequest(op.method, target, nil))
		switch {
		case seen == op.id:
		case seen == "" && public && rr.Code == http.StatusOK:
		default:
			t.Errorf("%s %s (%s): the router answered %d as operation %q", op.method, target, op.id, rr.Code, seen)
		}

		rr = httptest.NewRecorder()
		refuse.ServeHTTP(rr, httptest.NewRequest(op.method, target, nil))
		if public && rr.Code != http.StatusOK {
			t.Errorf("%s (documented without security) answers %d without credentials", op.id, rr.Code)
		}
		if !public {
			if rr.Code != http.StatusUnauthorized {
				t.Errorf("%s (documented with security) answers %d without credentials", op.id, rr.Code)
			}
			if doc.response(op, http.StatusUnauthorized) == nil {
				t.Errorf("%s needs credentials but does not document 401", op.id)
			}
		}
	}

	// Parameters: every path variable is declared once as a required path
	// parameter; query parameters and headers are exactly those the
	// handlers read.
	wantQuery := map[string][]string{
		"dropMetalake": {"force"}, "dropCatalog": {"force"}, "dropSchema": {"cascade"}, "dropTable": {"purge"}, "listTagObjects": {"value"}, "suggest": {"limit", "prefix", "type"},
		"listCatalogs": {"details"}, "listUsers": {"details"}, "listGroups": {"details"}, "listTags": {"details"}, "listObjectTags": {"details"}, "listSemanticModelMetrics": {"cursor", "details", "limit", "names", "query"},
		"listPolicies": {"details"}, "listObjectPolicies": {"details"},
		"search": {"catalog", "cursor", "facetSize", "facets", "limit", "minPosition", "offset", "owner", "profile", "query", "schema", "scope", "sort", "tag", "type", "waitMs"},
	}
	wantHeaders := map[string][]string{"alterSemanticModel": {"If-Match"}, "dropSemanticModel": {"If-Match"}}
	for _, op := range doc.list {
		path := op.paramsIn("path")
		vars := templateVars(op.path)
		for _, v := range vars {
			if p, ok := path[v]; !ok {
				t.Errorf("%s: path variable {%s} is not declared", op.id, v)
			} else if p["required"] != true {
				t.Errorf("%s: path parameter %s is not required", op.id, v)
			}
		}
		if len(path) != len(vars) {
			t.Errorf("%s: declares path parameters %v for the variables %v", op.id, slices.Sorted(maps.Keys(path)), vars)
		}
		if got := slices.Sorted(maps.Keys(op.paramsIn("query"))); !slices.Equal(got, wantQuery[op.id]) {
			t.Errorf("%s: query parameters %v, want %v", op.id, got, wantQuery[op.id])
		}
		if got := slices.Sorted(maps.Keys(op.paramsIn("header"))); !slices.Equal(got, wantHeaders[op.id]) {
			t.Errorf("%s: header parameters %v, want %v", op.id, got, wantHeaders[op.id])
		}
		for name, p := range op.params {
			if p["name"] == nil || p["in"] == nil || p["schema"] == nil {
				t.Errorf("%s: parameter %d is incomplete: %s", op.id, name, showJSON(p))
			}
		}
	}

	// Responses: every operation documents its success and 500; writes
	// document their position, model loads and writes their ETag; request
	// bodies are closed objects with 400 and 413 documented.
	for _, op := range doc.list {
		public := op.node["security"] != nil && len(jsonArray(op.node["security"])) == 0
		want := []int{200, 500}
		if public {
			want = []int{200} // healthz, readyz, getOpenAPI cannot fail but for readyz's 503
		}
		if doc.unsupported(op) {
			// Gravitino's calls semcat answers only with 405 (partitions):
			// nothing succeeds, and no body is read.
			for _, status := range []int{405, 500} {
				if doc.response(op, status) == nil {
					t.Errorf("%s does not document %d", op.id, status)
				}
			}
			continue
		}
		for _, status := range want {
			if doc.response(op, status) == nil {
				t.Errorf("%s does not document %d", op.id, status)
			}
		}
		ok := doc.response(op, 200)
		headers := jsonObject(ok["headers"])
		// A connection test reads (the source), it writes nothing.
		isWrite := op.method != http.MethodGet && op.id != "reindex" && !strings.HasSuffix(op.id, "Connection")
		if _, has := headers[api.PositionHeader]; has != isWrite {
			t.Errorf("%s: documents %s: %v, want %v", op.id, api.PositionHeader, has, isWrite)
		}
		wantETag := op.id == "createSemanticModel" || op.id == "loadSemanticModel" || op.id == "alterSemanticModel"
		if _, has := headers["ETag"]; has != wantETag {
			t.Errorf("%s: documents ETag: %v, want %v", op.id, has, wantETag)
		}
		for status, r := range jsonObject(op.node["responses"]) {
			if code, _ := strconv.Atoi(status); code >= 400 {
				s := jsonObject(jsonObject(jsonObject(doc.deref(jsonObject(r))["content"])["application/json"])["schema"])
				if s["$ref"] != "#/components/schemas/Error" {
					t.Errorf("%s: response %s does not use the Error schema", op.id, status)
				}
			}
		}
		if rs := doc.requestSchema(op); rs != nil {
			if doc.deref(rs)["additionalProperties"] != false {
				t.Errorf("%s: the request body schema does not reject unknown members, but the server does", op.id)
			}
			for _, status := range []int{400, 413} {
				if doc.response(op, status) == nil {
					t.Errorf("%s takes a body but does not document %d", op.id, status)
				}
			}
		} else if op.method == http.MethodPost && op.id != "reindex" && op.id != "testCatalogConnection" && op.id != "refreshCatalog" || op.method == http.MethodPut {
			t.Errorf("%s %s documents no JSON request body", op.method, op.path)
		}
	}
}

// findRoute returns the operation documented for a method and path template.
func (d *openAPIDoc) findRoute(method, path string) *docOperation {
	for _, op := range d.list {
		if op.method == method && op.path == path {
			return op
		}
	}
	return nil
}

// ---- (c) the document is served ----------------------------------------

func TestOpenAPIServed(t *testing.T) {
	// Served without credentials, even when every /api route needs them.
	h := api.NewHandler(api.Services{}, api.Config{
		Authenticate: func(*http.Request) (string, error) { return "", semcat.Errorf(semcat.EUNAUTHORIZED, "no") },
	})
	rr := httptest.NewRecorder()
	h.ServeHTTP(rr, httptest.NewRequest(http.MethodGet, "/api/openapi.yaml", nil))
	if rr.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rr.Code, rr.Body)
	}
	if ct := rr.Header().Get("Content-Type"); ct != "application/yaml" {
		t.Errorf("Content-Type %q, want application/yaml", ct)
	}
	if n, err := strconv.Atoi(rr.Header().Get("Content-Length")); err != nil || n != rr.Body.Len() {
		t.Errorf("Content-Length %q for %d bytes", rr.Header().Get("Content-Length"), rr.Body.Len())
	}
	onDisk, err := os.ReadFile("openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if rr.Body.String() != string(onDisk) {
		t.Error("the served document differs from api/openapi.yaml")
	}
	var doc struct {
		OpenAPI string         `yaml:"openapi"`
		Info    map[string]any `yaml:"info"`
		Paths   map[string]any `yaml:"paths"`
	}
	if err := yaml.Unmarshal(rr.Body.Bytes(), &doc); err != nil {
		t.Fatalf("not YAML: %v", err)
	}
	if !regexp.MustCompile(`^3\.\d+\.\d+$`).MatchString(doc.OpenAPI) {
		t.Errorf("openapi: %q, want 3.x.y", doc.OpenAPI)
	}
	if doc.Info["title"] == nil || doc.Info["version"] == nil || len(doc.Paths) == 0 {
		t.Errorf("incomplete document: info %v, %d paths", doc.Info, len(doc.Paths))
	}
	// Only GET.
	rr = httptest.NewRecorder()
	h.ServeHTTP(rr, httptest.NewRequest(http.MethodPost, "/api/openapi.yaml", nil))
	if rr.Code != http.StatusMethodNotAllowed || rr.Header().Get("Allow") != "GET" {
		t.Errorf("POST: %d, Allow %q", rr.Code, rr.Header().Get("Allow"))
	}
}

// ---- (b) real responses against the document ---------------------------

// conformance sends requests to a server and checks each answer (and each
// valid request body) against the document, recording which operations
// and statuses were seen.
type conformance struct {
	t     *testing.T
	doc   *openAPIDoc
	c     *apitest.Client
	user  string // Basic credentials; "" sends none
	mu    *sync.Mutex
	cover map[string]map[int]bool // operationId → statuses seen
}

// as returns a conformance that sends requests as user to c.
func (k *conformance) as(c *apitest.Client, user string) *conformance {
	k2 := *k
	k2.c, k2.user = c, user
	return &k2
}

// call sends a request, checks the answer has status want and conforms to
// the document, and returns its headers and body. A request body sent
// with want 200 must conform to the documented request schema as well.
func (k *conformance) call(want int, method, target string, body any, headers ...string) (http.Header, map[string]any) {
	k.t.Helper()
	op := k.doc.match(method, target)
	if op == nil {
		k.t.Fatalf("%s %s is not a documented operation", method, target)
	}
	if body != nil && want == http.StatusOK {
		var v any
		switch b := body.(type) {
		case string:
			if err := json.Unmarshal([]byte(b), &v); err != nil {
				k.t.Fatalf("%s: bad test body: %v", op.id, err)
			}
		default:
			raw, _ := json.Marshal(b)
			json.Unmarshal(raw, &v)
		}
		for _, e := range k.doc.validate("request", k.doc.requestSchema(op), v) {
			k.t.Errorf("%s %s: a request the server accepts does not conform: %s", op.id, method, e)
		}
	}
	if k.user != "" {
		headers = append(headers, "Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(k.user+":pw")))
	}
	status, hdr, resp := k.c.Do(method, target, body, headers...)
	if status != want {
		k.t.Errorf("%s %s (%s): status %d, want %d; body %s", method, target, op.id, status, want, showJSON(resp))
	}
	k.conforms(op, method+" "+target, status, hdr, resp)
	return hdr, resp
}

// conforms checks one answer of op against the document.
func (k *conformance) conforms(op *docOperation, what string, status int, hdr http.Header, body any) {
	k.t.Helper()
	k.mu.Lock()
	if k.cover[op.id] == nil {
		k.cover[op.id] = map[int]bool{}
	}
	k.cover[op.id][status] = true
	k.mu.Unlock()

	r := k.doc.response(op, status)
	if r == nil {
		k.t.Errorf("%s (%s): status %d is not documented; body %s", what, op.id, status, showJSON(body))
		return
	}
	mediaType, _, _ := mime.ParseMediaType(hdr.Get("Content-Type"))
	mt, ok := jsonObject(r["content"])[mediaType].(map[string]any)
	if !ok {
		k.t.Errorf("%s (%s): %d answered with undocumented content type %q", what, op.id, status, mediaType)
		return
	}
	for _, e := range k.doc.validate("body", jsonObject(mt["schema"]), body) {
		k.t.Errorf("%s (%s) %d: %s", what, op.id, status, e)
	}
	documented := jsonObject(r["headers"])
	for _, name := range []string{api.PositionHeader, "ETag", "Allow"} {
		value := hdr.Get(name)
		h := k.doc.deref(jsonObject(documented[name]))
		switch {
		case value != "" && h == nil:
			k.t.Errorf("%s (%s) %d: header %s is not documented", what, op.id, status, name)
		case value == "" && h != nil && h["required"] == true:
			k.t.Errorf("%s (%s) %d: required header %s is missing", what, op.id, status, name)
		case value != "":
			for _, e := range k.doc.validate("header "+name, jsonObject(h["schema"]), value) {
				k.t.Errorf("%s (%s) %d: %s", what, op.id, status, e)
			}
		}
	}
}

// newConformanceServer starts the whole API as cmd/semcat wires it: the
// PostgreSQL store behind the authorization rules, search over a Bleve index
// that follows the outbox, simple authentication, reindex for the service
// admin "admin". It returns the client and the database URL.
func newConformanceServer(t *testing.T) (*apitest.Client, string) {
	t.Helper()
	url := pgtest.NewDatabase(t)
	return apitest.NewStackServer(t, url, api.Config{MaxBodyBytes: 64 << 10, Version: "1.2.3"}), url
}

func TestOpenAPIValidatesResponses(t *testing.T) {
	t.Parallel()
	doc := loadOpenAPI(t)
	c, dbURL := newConformanceServer(t)
	k := &conformance{t: t, doc: doc, mu: &sync.Mutex{}, cover: map[string]map[int]bool{}}
	admin, bob, nobody := k.as(c, "admin"), k.as(c, "bob"), k.as(c, "")
	const (
		ml    = "/api/metalakes/m"
		rel   = ml + "/catalogs/rel"
		sales = rel + "/schemas/sales"
		model = sales + "/semantic-models/sales"
	)
	ok := http.StatusOK

	// Operations.
	nobody.call(ok, "GET", "/healthz", nil)
	nobody.call(ok, "GET", "/readyz", nil)
	admin.call(ok, "GET", "/api/version", nil)
	res, err := c.HTTP.Get(c.URL + "/api/openapi.yaml")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	k.conforms(doc.ops["getOpenAPI"], "GET /api/openapi.yaml", res.StatusCode, res.Header, "document")

	// Metalakes, catalogs, schemas.
	admin.call(ok, "POST", "/api/metalakes", `{"name":"m","comment":"the lake","properties":{"team":"data"}}`)
	admin.call(ok, "POST", "/api/metalakes", `{"name":"m2","comment":null}`)
	admin.call(ok, "GET", "/api/metalakes", nil)
	admin.call(ok, "GET", ml, nil)
	admin.call(ok, "PUT", "/api/metalakes/m2", `{"updates":[{"@type":"setProperty","property":"k","value":"v"},
		{"@type":"updateComment","newComment":"x"},{"@type":"removeProperty","property":"k"},{"@type":"rename","newName":"m3"}]}`)
	admin.call(ok, "POST", ml+"/catalogs", `{"name":"rel","type":"relational","properties":{"Codename":"Alpha Tango"}}`)
	admin.call(ok, "POST", ml+"/catalogs", `{"name":"files","type":"fileset","comment":""}`)
	admin.call(ok, "GET", ml+"/catalogs", nil)
	admin.call(ok, "GET", ml+"/catalogs?details=true", nil)
	admin.call(ok, "GET", rel, nil)
	admin.call(ok, "PUT", ml+"/catalogs/files", `{"updates":[{"@type":"updateComment","newComment":null}]}`)
	admin.call(ok, "POST", ml+"/catalogs", `{"name":"pg","type":"RELATIONAL","provider":"jdbc-postgresql","comment":null}`)
	admin.call(ok, "PATCH", ml+"/catalogs/pg", `{"inUse":false}`)
	admin.call(http.StatusConflict, "PUT", ml+"/catalogs/pg", `{"updates":[{"@type":"updateComment","newComment":"x"}]}`)
	admin.call(ok, "DELETE", ml+"/catalogs/pg", nil)
	admin.call(ok, "POST", rel+"/schemas", `{"name":"sales","properties":{"domain":"finance"}}`)
	admin.call(ok, "POST", rel+"/schemas", `{"name":"tmp"}`)
	admin.call(ok, "GET", rel+"/schemas", nil)
	admin.call(ok, "GET", sales, nil)
	admin.call(ok, "PUT", rel+"/schemas/tmp", `{"updates":[{"@type":"rename","newName":"tmp2"}]}`)
	admin.call(ok, "DELETE", rel+"/schemas/tmp2", nil)

	// Tables, with every kind of type.
	admin.call(ok, "POST", sales+"/tables", `{"name":"orders","columns":[{"name":"order_id","type":"long"},{"name":"customer_id","type":"long"},
		{"name":"amount","type":"decimal(12,2)"},{"name":"info","type":{"type":"struct","fields":[{"name":"note","type":"string"}]}}]}`)
	admin.call(ok, "POST", sales+"/tables", `{"name":"customers","columns":[{"name":"customer_id","type":"long"},{"name":"name","type":"string"}]}`)
	admin.call(ok, "POST", sales+"/tables", `{"name":"employees","comment":"people","properties":{"pii":"yes"},"columns":[
		{"name":"id","type":"long","nullable":false,"comment":"key"},
		{"name":"EmpContact","type":{"type":"struct","fields":[{"name":"EmpTel","type":"integer","nullable":true,"comment":"phone"},
			{"name":"EmpAddr","type":"string"}]}},
		{"name":"skills","type":{"type":"list","elementType":"varchar(20)","containsNull":false}},
		{"name":"attrs","type":{"type":"map","keyType":"string","valueType":{"type":"struct","fields":[]},"valueContainsNull":true}},
		{"name":"either","type":{"type":"union","types":["integer",{"type":"struct","fields":[{"name":"s","type":"char(2)"}]}]}},
		{"name":"price","type":"decimal(10, 2)"},{"name":"hired","type":"timestamp_tz"}]}`)
	admin.call(ok, "GET", sales+"/tables", nil)
	admin.call(ok, "GET", sales+"/tables/employees", nil)
	admin.call(ok, "PUT", sales+"/tables/employees", `{"updates":[{"@type":"setProperty","property":"owner","value":"hr"},
		{"@type":"replaceColumns","columns":[{"name":"id","type":"long"},{"name":"EmpContact","type":{"type":"struct","fields":[{"name":"EmpTel","type":"integer"}]}}]}]}`)

	// Semantic models and metric discovery.
	admin.call(ok, "POST", sales+"/semantic-models", modelBody)
	admin.call(ok, "GET", sales+"/semantic-models", nil)
	hdr, _ := admin.call(ok, "GET", model, nil)
	var created map[string]any
	json.Unmarshal([]byte(modelBody), &created)
	def := created["definition"].(map[string]any)
	def["metrics"] = append(def["metrics"].([]any), map[string]any{"name": "avg_amount", "description": nil, "datatype": nil, "aiContext": "average",
		"expression": map[string]any{"dialects": []any{map[string]any{"dialect": "ANSI_SQL", "expression": "AVG(amount)"}}}})
	hdr, _ = admin.call(ok, "PUT", model, map[string]any{"updates": []any{
		map[string]any{"@type": "updateComment", "newComment": "v2"},
		map[string]any{"@type": "replaceDefinition", "definition": def}}}, "If-Match", hdr.Get("ETag"))
	etag := hdr.Get("ETag")
	admin.call(ok, "GET", sales+"/semantic-model-metrics", nil)
	admin.call(ok, "GET", sales+"/semantic-model-metrics?details=true", nil)
	admin.call(ok, "POST", rel+"/schemas", `{"name":"empty"}`)
	admin.call(ok, "GET", rel+"/schemas/empty/semantic-model-metrics?details=true", nil)

	// Tags and metadata.
	admin.call(ok, "POST", ml+"/tags", `{"name":"pii","comment":"personal data","properties":{"level":"high"}}`)
	admin.call(ok, "POST", ml+"/tags", `{"name":"gold"}`)
	admin.call(ok, "GET", ml+"/tags", nil)
	admin.call(ok, "GET", ml+"/tags/pii", nil)
	admin.call(ok, "POST", ml+"/objects/table/rel.sales.employees/tags", `{"tagsToAdd":["pii","gold"]}`)
	admin.call(ok, "POST", sales+"/tables:batchCreate", `{"tables":[{"name":"events","columns":[{"name":"id","type":"long"}],"tags":["pii","gold"]},
		{"name":"clicks","comment":"web","properties":{"src":"web"},"columns":[{"name":"at","type":"timestamp"}]}]}`)
	admin.call(http.StatusConflict, "POST", sales+"/tables:batchCreate", `{"tables":[{"name":"new","columns":[]},{"name":"orders","columns":[]}]}`)
	admin.call(http.StatusNotFound, "POST", sales+"/tables:batchCreate", `{"tables":[{"name":"new","columns":[],"tags":["nope"]}]}`)
	admin.call(http.StatusBadRequest, "POST", sales+"/tables:batchCreate", `{"tables":[]}`)
	admin.call(ok, "POST", ml+"/objects/semantic_model/rel.sales.sales/tags", `{"tagsToAdd":["gold"],"tagsToRemove":null}`)
	admin.call(ok, "POST", ml+"/objects/catalog/rel/tags", `{"tagsToAdd":["gold"]}`)
	admin.call(ok, "GET", ml+"/objects/table/rel.sales.employees/tags", nil)
	for _, obj := range []string{"catalog/rel", "schema/rel.sales", "table/rel.sales.employees", "semantic_model/rel.sales.sales"} {
		admin.call(ok, "GET", ml+"/objects/"+obj+"/metadata", nil)
	}

	// Access control.
	admin.call(ok, "POST", ml+"/users", `{"name":"bob"}`)
	admin.call(ok, "GET", ml+"/users/bob", nil)
	admin.call(ok, "POST", ml+"/roles", `{"name":"analyst","securableObjects":[
		{"fullName":"rel","type":"CATALOG","privileges":[{"name":"USE_CATALOG","condition":"ALLOW"}]},
		{"fullName":"rel.sales","type":"SCHEMA","privileges":[{"name":"USE_SCHEMA","condition":"ALLOW"},{"name":"SELECT_TABLE","condition":"ALLOW"},
			{"name":"SELECT_SEMANTIC_MODEL","condition":"DENY"}]}]}`)
	admin.call(ok, "GET", ml+"/roles/analyst", nil)
	admin.call(ok, "PUT", ml+"/permissions/users/bob/grant", `{"roleNames":["analyst"]}`)
	admin.call(ok, "PUT", ml+"/owners/table/rel.sales.customers", `{"name":"bob","type":"USER"}`)
	admin.call(ok, "GET", ml+"/owners/table/rel.sales.customers", nil)
	admin.call(ok, "GET", ml+"/owners/metalake/m", nil)
	admin.call(ok, "GET", ml+"/users", nil)
	admin.call(ok, "GET", ml+"/users?details=True", nil)
	admin.call(ok, "POST", ml+"/users", `{"name":"carol"}`)
	admin.call(ok, "DELETE", ml+"/users/carol", nil)
	admin.call(ok, "POST", ml+"/groups", `{"name":"eng"}`)
	admin.call(ok, "GET", ml+"/groups", nil)
	admin.call(ok, "GET", ml+"/groups?details=true", nil)
	admin.call(ok, "GET", ml+"/groups/eng", nil)
	admin.call(ok, "PUT", ml+"/permissions/groups/eng/grant", `{"roleNames":["analyst"]}`)
	admin.call(ok, "PUT", ml+"/permissions/groups/eng/revoke", `{"roleNames":["analyst"]}`)
	admin.call(ok, "PUT", ml+"/owners/catalog/rel", `{"name":"eng","type":"GROUP"}`)
	admin.call(ok, "DELETE", ml+"/groups/eng", nil)
	admin.call(ok, "POST", ml+"/roles", `{"name":"tmp","properties":{"k":"v"},"securableObjects":[]}`)
	admin.call(ok, "GET", ml+"/roles", nil)
	admin.call(ok, "PUT", ml+"/permissions/roles/tmp/schema/rel.sales/grant", `{"privileges":[{"name":"use_schema","condition":"allow"}]}`)
	admin.call(ok, "GET", ml+"/objects/schema/rel.sales/roles", nil)
	admin.call(ok, "PUT", ml+"/permissions/roles/tmp/schema/rel.sales/revoke", `{"privileges":[{"name":"use_schema","condition":"allow"}]}`)
	admin.call(ok, "DELETE", ml+"/roles/tmp", nil)
	bob.call(ok, "GET", sales+"/tables", nil)
	bob.call(ok, "GET", sales+"/semantic-model-metrics", nil)
	admin.call(ok, "GET", ml+"/objects/table/rel.sales.orders/privileges", nil)
	bob.call(ok, "GET", ml+"/objects/table/rel.sales.orders/privileges", nil)
	bob.call(http.StatusNotFound, "GET", ml+"/objects/semantic_model/rel.sales.sales/privileges", nil)
	bob.call(http.StatusBadRequest, "GET", ml+"/objects/column/rel.sales.orders/privileges", nil)

	// Search: read-your-writes, facets, cursors, filters; and as bob, who
	// sees tables but no models.
	hdr, _ = admin.call(ok, "POST", ml+"/objects/table/rel.sales.orders/tags", `{"tagsToAdd":["pii"]}`)
	admin.call(ok, "GET", ml+"/objects/table/rel.sales.orders/tags?details=true", nil)
	admin.call(ok, "GET", ml+"/objects/table/rel.sales.orders/tags/pii", nil)
	admin.call(http.StatusNotFound, "GET", ml+"/objects/table/rel.sales.customers/tags/pii", nil)
	// Policies (SPEC §2.10).
	admin.call(ok, "POST", ml+"/policies", `{"name":"retention","comment":null,"policyType":"custom","enabled":null,
		"content":{"customRules":{"days":30},"supportedObjectTypes":["CATALOG","TABLE"],"properties":{"team":"data"}}}`)
	admin.call(ok, "POST", ml+"/policies", `{"name":"scratch","policyType":"CUSTOM","content":{"supportedObjectTypes":["TABLE"]}}`)
	admin.call(ok, "GET", ml+"/policies", nil)
	admin.call(ok, "GET", ml+"/policies?details=true", nil)
	admin.call(ok, "GET", ml+"/policies/retention", nil)
	admin.call(ok, "PUT", ml+"/policies/retention", `{"updates":[{"@type":"updateComment","newComment":"thirty days"}]}`)
	admin.call(ok, "PATCH", ml+"/policies/retention", `{"enable":false}`)
	admin.call(ok, "POST", ml+"/objects/catalog/rel/policies", `{"policiesToAdd":["retention"],"policiesToRemove":null}`)
	admin.call(ok, "POST", ml+"/objects/TABLE/rel.sales.orders/policies", `{"policiesToAdd":["scratch"]}`)
	admin.call(ok, "GET", ml+"/objects/table/rel.sales.orders/policies", nil)
	admin.call(ok, "GET", ml+"/objects/table/rel.sales.orders/policies?details=true", nil)
	admin.call(ok, "GET", ml+"/objects/table/rel.sales.orders/policies/retention", nil)
	admin.call(ok, "GET", ml+"/policies/retention/objects", nil)
	admin.call(http.StatusConflict, "POST", ml+"/objects/catalog/rel/policies", `{"policiesToAdd":["retention"]}`)
	admin.call(http.StatusConflict, "POST", ml+"/policies", `{"name":"retention","policyType":"custom","content":{"supportedObjectTypes":["TABLE"]}}`)
	admin.call(http.StatusNotFound, "GET", ml+"/policies/nope", nil)
	admin.call(http.StatusNotFound, "GET", ml+"/objects/table/rel.sales.orders/policies/nope", nil)
	admin.call(http.StatusBadRequest, "POST", ml+"/policies", `{"name":"p","policyType":"system_iceberg_compaction","content":{"supportedObjectTypes":["TABLE"]}}`)
	admin.call(ok, "DELETE", ml+"/policies/scratch", nil)
	admin.call(ok, "DELETE", ml+"/policies/scratch", nil)
	pos := hdr.Get(api.PositionHeader)
	_, found := admin.call(ok, "GET", ml+"/search?query=EmpTel&facets=type,catalog,schema,tags&minPosition="+pos+"&waitMs=10000", nil)
	if found["total"] == 0.0 {
		t.Errorf("search for EmpTel found nothing: %s", showJSON(found))
	}
	_, page := admin.call(ok, "GET", ml+"/search?query=*&limit=2&facets=type&facets=tags&facetSize=3&sort=name", nil)
	cursor, _ := page["cursor"].(string)
	if cursor == "" {
		t.Errorf("no cursor on a first page of two: %s", showJSON(page))
	} else {
		admin.call(ok, "GET", ml+"/search?query=*&limit=2&sort=name&cursor="+cursor, nil)
	}
	admin.call(ok, "GET", ml+"/search?query=revenue&type=metric,semantic_model&catalog=rel&schema=sales&scope=system&sort=-created", nil)
	admin.call(ok, "GET", ml+"/search?query=gold&tag=gold&tag=pii&type=table&type=catalog&scope=user&offset=0", nil)
	admin.call(ok, "GET", ml+"/search?query=%2BEmp*%20-nothing&sort=created", nil)
	_, profiled := admin.call(ok, "GET", ml+"/search?query=Emp*&profile=true", nil)
	if _, ok := profiled["profile"]; !ok {
		t.Errorf("no profile with profile=true: %s", showJSON(profiled))
	}
	bob.call(ok, "GET", ml+"/search?query=*&facets=type", nil)

	// The documented search limits and enums are the server's.
	for _, name := range []string{"limit", "offset", "facetSize", "waitMs"} {
		s := jsonObject(doc.ops["search"].paramsIn("query")[name]["schema"])
		lo, hi := s["minimum"].(float64), s["maximum"].(float64)
		q := func(v float64) string { return fmt.Sprintf("%s/search?query=x&%s=%d", ml, name, int(v)) }
		admin.call(ok, "GET", q(lo), nil)
		admin.call(ok, "GET", q(hi), nil)
		admin.call(http.StatusBadRequest, "GET", q(lo-1), nil)
		admin.call(http.StatusBadRequest, "GET", q(hi+1), nil)
	}
	for _, name := range []string{"scope", "sort", "type", "facets"} {
		s := jsonObject(doc.ops["search"].paramsIn("query")[name]["schema"])
		if items := jsonObject(s["items"]); items != nil {
			s = doc.deref(items)
		}
		for _, v := range jsonArray(s["enum"]) {
			admin.call(ok, "GET", fmt.Sprintf("%s/search?query=x&%s=%s", ml, name, v), nil)
		}
		admin.call(http.StatusBadRequest, "GET", fmt.Sprintf("%s/search?query=x&%s=bogus", ml, name), nil)
	}
	admin.call(http.StatusBadRequest, "GET", ml+"/search?sort=name", nil)
	admin.call(http.StatusBadRequest, "GET", ml+"/search?query=%22open", nil)
	admin.call(http.StatusBadRequest, "GET", ml+"/search?query=x&minPosition=nope", nil)

	// Every documented closed request body is closed on the server, too.
	names := map[string]string{"metalake": "m", "catalog": "rel", "schema": "sales", "table": "orders", "model": "sales",
		"tag": "pii", "policy": "retention", "user": "bob", "group": "eng", "role": "analyst", "type": "table", "fullName": "rel.sales.orders"}
	for _, op := range doc.list {
		if doc.requestSchema(op) == nil || doc.unsupported(op) {
			continue
		}
		target := fillTemplate(op.path, func(v string) string { return names[v] })
		_, resp := admin.call(http.StatusBadRequest, op.method, target, `{"zzUnknown":1}`)
		if msg, _ := resp["message"].(string); !strings.HasPrefix(msg, "zzUnknown: unknown field") {
			t.Errorf("%s with an unknown member: message %q", op.id, msg)
		}
	}

	// Errors of every status.
	nobody.call(http.StatusUnauthorized, "GET", "/api/version", nil)
	nobody.call(http.StatusUnauthorized, "GET", sales+"/semantic-model-metrics", nil)
	k.as(c, "no such").call(http.StatusUnauthorized, "GET", ml, nil)
	bob.call(http.StatusForbidden, "POST", "/api/admin/reindex", nil)
	// A model bob may not see is one that does not exist (SPEC §6).
	bob.call(http.StatusNotFound, "GET", sales+"/semantic-models/sales", nil)
	bob.call(http.StatusForbidden, "POST", "/api/metalakes", `{"name":"mine"}`)
	admin.call(http.StatusNotFound, "GET", "/api/metalakes/nope", nil)
	admin.call(http.StatusNotFound, "GET", sales+"/tables/nope", nil)
	admin.call(http.StatusNotFound, "GET", ml+"/tags/nope", nil)
	admin.call(http.StatusNotFound, "GET", ml+"/users/nope", nil)
	admin.call(http.StatusNotFound, "GET", ml+"/roles/nope", nil)
	admin.call(http.StatusNotFound, "POST", ml+"/objects/table/rel.sales.nope/tags", `{"tagsToAdd":["nope"]}`)
	admin.call(http.StatusNotFound, "GET", rel+"/schemas/nope/semantic-model-metrics", nil)
	admin.call(http.StatusNotFound, "GET", "/api/metalakes/nope/search?query=orders", nil)
	admin.call(http.StatusOK, "GET", ml+"/search?query=zzznothingmatches", nil)
	admin.call(http.StatusConflict, "POST", "/api/metalakes", `{"name":"m"}`)
	admin.call(http.StatusConflict, "POST", ml+"/objects/table/rel.sales.orders/tags", `{"tagsToAdd":["pii"]}`)
	admin.call(http.StatusConflict, "POST", sales+"/tables", `{"name":"orders","columns":[]}`)
	admin.call(http.StatusConflict, "DELETE", sales, nil)
	admin.call(http.StatusConflict, "DELETE", rel, nil)
	admin.call(http.StatusConflict, "PUT", model, `{"updates":[{"@type":"setProperty","property":"a","value":"b"}]}`, "If-Match", `"1"`)
	admin.call(http.StatusConflict, "DELETE", model, nil, "If-Match", `"1"`)
	admin.call(http.StatusRequestEntityTooLarge, "POST", "/api/metalakes", `{"name":"big","comment":"`+strings.Repeat("x", 70<<10)+`"}`)
	admin.call(http.StatusBadRequest, "DELETE", rel+"?force=maybe", nil)
	admin.call(http.StatusBadRequest, "GET", ml+"/catalogs?details=1", nil)
	admin.call(http.StatusBadRequest, "POST", sales+"/semantic-models", `{"name":"bad","definition":{"datasets":[]}}`)
	admin.call(http.StatusBadRequest, "PUT", model, `{"updates":[{"@type":"setProperty","property":"a","value":"b"}]}`, "If-Match", "v1")
	admin.call(http.StatusBadRequest, "GET", ml+"/objects/view/rel.sales.orders/tags", nil)
	admin.call(http.StatusMethodNotAllowed, "GET", ml+"/catalogs/files/schemas/any/tables", nil)
	admin.call(http.StatusMethodNotAllowed, "GET", ml+"/catalogs/files/schemas/any/semantic-model-metrics", nil)
	// Partitions: a table that exists answers 405, one that does not 404.
	admin.call(http.StatusMethodNotAllowed, "GET", sales+"/tables/orders/partitions", nil)
	admin.call(http.StatusMethodNotAllowed, "POST", sales+"/tables/orders/partitions", `{"partitions":[]}`)
	admin.call(http.StatusMethodNotAllowed, "GET", sales+"/tables/orders/partitions/p1", nil)
	admin.call(http.StatusMethodNotAllowed, "DELETE", sales+"/tables/orders/partitions/p1", nil)
	admin.call(http.StatusNotFound, "GET", sales+"/tables/nope/partitions", nil)
	// A paged metric listing.
	admin.call(ok, "GET", sales+"/semantic-model-metrics?details=true&limit=1&names=revenue&names=order_count", nil)
	// Connection tests.
	admin.call(ok, "POST", ml+"/catalogs/testConnection", `{"name":"new","type":"relational","provider":null,"comment":null,"properties":null}`)
	admin.call(ok, "POST", rel+"/testConnection", nil)
	// Synonyms.
	admin.call(ok, "PUT", ml+"/synonyms", `{"synonyms":[["mau","monthly active users"]]}`)
	admin.call(ok, "GET", ml+"/synonyms", nil)
	admin.call(http.StatusBadRequest, "PUT", ml+"/synonyms", `{"synonyms":[[]]}`)
	admin.call(ok, "POST", rel+"/refresh", nil)
	// Type-ahead.
	admin.call(ok, "GET", ml+"/suggest?prefix=ord&type=table&limit=5", nil)
	admin.call(http.StatusBadRequest, "GET", ml+"/suggest?prefix=", nil)
	admin.call(http.StatusBadRequest, "GET", ml+"/suggest?prefix=o&limit=101", nil)
	admin.call(http.StatusNotFound, "GET", "/api/metalakes/nope/suggest?prefix=o", nil)
	// Statistics of a table.
	admin.call(ok, "PUT", ml+"/objects/table/rel.sales.orders/statistics", `{"updates":{"custom-rows":10,"custom-owners":["a","b"]}}`)
	admin.call(ok, "GET", ml+"/objects/table/rel.sales.orders/statistics", nil)
	admin.call(ok, "POST", ml+"/objects/table/rel.sales.orders/statistics", `{"names":["custom-rows","custom-none"]}`)
	admin.call(http.StatusBadRequest, "PUT", ml+"/objects/table/rel.sales.orders/statistics", `{"updates":{"rows":10}}`)
	admin.call(http.StatusMethodNotAllowed, "GET", ml+"/objects/schema/rel.sales/statistics", nil)
	future := "t" + strconv.FormatUint(1<<60, 36)
	admin.call(http.StatusServiceUnavailable, "GET", ml+"/search?query=x&waitMs=0&minPosition="+future, nil)

	// Reindex, then drops: present and missing, with If-Match, cascade and
	// force.
	admin.call(ok, "POST", "/api/admin/reindex", nil)
	_, progress := admin.call(ok, "GET", "/api/admin/reindex", nil)
	if p, _ := progress["rebuild"].(map[string]any); p["running"] != false || p["indexed"] != p["total"] || p["total"].(float64) < 10 {
		t.Errorf("after a rebuild, its progress is %v; want not running, every live entity indexed", p)
	}
	bob.call(http.StatusForbidden, "GET", "/api/admin/reindex", nil)
	admin.call(ok, "PUT", ml+"/permissions/users/bob/revoke", `{"roleNames":["analyst"]}`)
	admin.call(ok, "GET", ml+"/tags?details=true", nil)
	admin.call(ok, "GET", ml+"/tags/gold/objects", nil)
	admin.call(ok, "PUT", ml+"/tags/gold", `{"updates":[{"@type":"setProperty","property":"k","value":"v"}]}`)
	admin.call(ok, "POST", ml+"/tags", `{"name":"tier","allowedValues":["1","2","1"]}`)
	admin.call(ok, "DELETE", ml+"/tags/tier", nil)
	admin.call(ok, "DELETE", ml+"/tags/gold", nil)
	admin.call(ok, "DELETE", ml+"/tags/gold", nil)
	admin.call(ok, "DELETE", model, nil, "If-Match", etag)
	admin.call(ok, "DELETE", sales+"/tables/customers", nil)
	admin.call(ok, "DELETE", sales+"/tables/customers", nil)
	admin.call(ok, "DELETE", sales+"?cascade=true", nil)
	admin.call(ok, "DELETE", rel+"?force=true", nil)
	admin.call(ok, "DELETE", ml+"?force=true", nil)
	admin.call(http.StatusConflict, "DELETE", "/api/metalakes/m3", nil)
	admin.call(ok, "PATCH", "/api/metalakes/m3", `{"inUse":false}`)
	admin.call(ok, "DELETE", "/api/metalakes/m3", nil)

	// A server whose database is gone: 500, and /readyz 503.
	broken, err := catalogdb.Open(context.Background(), dbURL, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	broken.Close()
	bc := apitest.NewServerWithConfig(t, api.Services{Metalakes: broken, Catalogs: broken, Schemas: broken, Tables: broken,
		Models: broken, Tags: broken, Metrics: broken, Access: broken, Metadata: broken},
		api.Config{Logger: slog.New(slog.DiscardHandler), Ready: broken.Ping})
	k.as(bc, "").call(http.StatusInternalServerError, "GET", "/api/metalakes", nil)
	k.as(bc, "").call(http.StatusInternalServerError, "GET", sales+"/semantic-model-metrics?details=true", nil)
	k.as(bc, "").call(http.StatusServiceUnavailable, "GET", "/readyz", nil)

	// Every operation was seen succeeding, and every error status of SPEC
	// §2 was seen.
	statuses := map[int]bool{}
	for _, op := range doc.list {
		if doc.unsupported(op) {
			if !k.cover[op.id][http.StatusMethodNotAllowed] {
				t.Errorf("no 405 of %s was checked", op.id)
			}
		} else if !k.cover[op.id][http.StatusOK] {
			t.Errorf("no successful %s was checked", op.id)
		}
		for s := range k.cover[op.id] {
			statuses[s] = true
		}
	}
	for _, s := range []int{400, 401, 403, 404, 405, 409, 413, 500, 503} {
		if !statuses[s] {
			t.Errorf("no %d response was checked", s)
		}
	}
}

// TestOpenAPIValidator checks that the validator rejects what it must, so
// that the conformance test cannot pass by accepting everything.
func TestOpenAPIValidator(t *testing.T) {
	doc := loadOpenAPI(t)
	schema := func(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }
	audit := `{"creator":"a","createTime":"2024-01-02T03:04:05.678Z"}`
	tests := []struct {
		schema string
		value  string
		errs   []string // substrings of the expected errors, in order; none = valid
	}{
		{"MetalakeResponse", `{"code":0,"metalake":{"name":"m","comment":null,"properties":{},"audit":` + audit + `}}`, nil},
		{"MetalakeResponse", `{"code":0,"metalake":{"name":"m","properties":{},"audit":` + audit + `}}`, []string{`body.metalake: required member "comment" is missing`}},
		{"MetalakeResponse", `{"code":1,"metalake":{"name":"m","comment":"","properties":{"k":1},"audit":` + audit + `,"extra":true}}`,
			[]string{"body.code: 1 is not one of [0]", `body.metalake: member "extra" is not documented`, "body.metalake.properties.k: want string"}},
		{"Audit", `{"creator":"a","createTime":"yesterday"}`, []string{"is not a date-time"}},
		{"Name", `"*"`, []string{"does not match"}},
		{"Type", `"decimal(10, 2)"`, nil},
		{"Type", `"text"`, []string{"matches no oneOf branch"}},
		{"Type", `{"type":"struct","fields":[{"name":"a","type":{"type":"list","elementType":"int"}}]}`, []string{"matches no oneOf branch"}},
		{"Type", `{"type":"map","keyType":"string"}`, []string{"matches no oneOf branch"}},
		{"Type", `null`, []string{"matches no oneOf branch"}},
		{"AIContext", `null`, nil},
		{"AIContext", `{"synonyms":["a"],"anything":{"else":1}}`, nil},
		{"AIContext", `["a"]`, []string{"matches no oneOf branch"}},
		{"OwnerResponse", `{"code":0}`, nil},
		{"OwnerResponse", `{"code":0,"owner":{"name":"bob","type":"group"}}`, nil},
		{"OwnerResponse", `{"code":0,"owner":{"name":"bob","type":"robot"}}`, []string{"does not match"}},
		{"Definition", `{"datasets":[]}`, []string{"0 items, want at least 1"}},
		{"Definition", `{"datasets":[{"name":"d","source":{"namespace":["c","s"],"name":"t"}}],"metrics":null,"bogus":1}`, []string{`member "bogus" is not allowed`}},
		{"CommonUpdate", `{"@type":"replaceColumns","columns":[]}`, []string{"matches no oneOf branch"}},
		{"SearchResult", `{"code":0,"total":1.5,"position":"t1","results":[]}`, []string{"body.total: want integer"}},
		{"Error", `{"code":1003,"type":"NoSuchTableException","message":"m","stack":[]}`, nil},
		{"Error", `{"code":404,"type":"x"}`, []string{`"message" is missing`, `"stack" is missing`, "is not one of"}},
	}
	for _, tt := range tests {
		var v any
		if err := json.Unmarshal([]byte(tt.value), &v); err != nil {
			t.Fatal(err)
		}
		errs := doc.validate("body", schema(tt.schema), v)
		if len(errs) != len(tt.errs) {
			t.Errorf("%s %s: got errors %q, want %d", tt.schema, tt.value, errs, len(tt.errs))
			continue
		}
		for i, want := range tt.errs {
			if !strings.Contains(errs[i], want) {
				t.Errorf("%s %s: error %q does not contain %q", tt.schema, tt.value, errs[i], want)
			}
		}
	}
}
