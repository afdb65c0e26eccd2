package api

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/gorilla/mux"

	"github.com/semcat/semcat"
)

// pathVar returns the unescaped path variable key. The router matches the
// escaped path, so variables arrive escaped.
func pathVar(r *http.Request, key string) (string, error) {
	v, err := url.PathUnescape(mux.Vars(r)[key])
	if err != nil {
		return "", semcat.Errorf(semcat.EINVALID, "%s: malformed percent-encoding in the path", key)
	}
	return v, nil
}

// pathName returns the path variable key, checked to be a valid name.
func pathName(r *http.Request, key string) (string, error) {
	v, err := pathVar(r, key)
	if err != nil {
		return "", err
	}
	if err := semcat.ValidateName(key, v); err != nil {
		return "", err
	}
	return v, nil
}

// pathNames returns several path names at once, in order.
func pathNames(r *http.Request, keys ...string) ([]string, error) {
	names := make([]string, len(keys))
	for i, k := range keys {
		n, err := pathName(r, k)
		if err != nil {
			return nil, err
		}
		names[i] = n
	}
	return names, nil
}

// schemaNamespace returns the namespace {metalake, catalog} that holds the
// schemas of the request's path.
func schemaNamespace(r *http.Request) (semcat.Namespace, error) {
	n, err := pathNames(r, "metalake", "catalog")
	if err != nil {
		return semcat.Namespace{}, err
	}
	return semcat.Namespace{Metalake: n[0], Catalog: n[1]}, nil
}

// schemaObjectNamespace returns the namespace {metalake, catalog, schema}
// that holds the tables and semantic models of the request's path.
func schemaObjectNamespace(r *http.Request) (semcat.Namespace, error) {
	n, err := pathNames(r, "metalake", "catalog", "schema")
	if err != nil {
		return semcat.Namespace{}, err
	}
	return semcat.Namespace{Metalake: n[0], Catalog: n[1], Schema: n[2]}, nil
}

// queryValues parses the request's query string strictly: a pair that is
// not well percent-encoded is a 400 naming its parameter (url.Query would
// drop it silently, widening a filtered search), and none of single may be
// given more than once (url.Values.Get would take the first silently).
func queryValues(r *http.Request, single ...string) (url.Values, error) {
	q, err := url.ParseQuery(r.URL.RawQuery)
	if err != nil {
		return nil, malformedQuery(r.URL.RawQuery)
	}
	for _, name := range single {
		if len(q[name]) > 1 {
			return nil, semcat.Errorf(semcat.EINVALID, "%s: query parameter given more than once", name)
		}
	}
	return q, nil
}

// malformedQuery names the first parameter of raw whose name or value
// does not decode.
func malformedQuery(raw string) error {
	for pair := range strings.SplitSeq(raw, "&") {
		key, value, _ := strings.Cut(pair, "=")
		name, err := url.QueryUnescape(key)
		if err != nil || strings.Contains(key, ";") {
			return semcat.Errorf(semcat.EINVALID, "malformed query string: cannot decode the parameter name '%s'", key)
		}
		if _, err := url.QueryUnescape(value); err != nil {
			return semcat.Errorf(semcat.EINVALID, "%s: malformed percent-encoding in the query parameter", name)
		}
	}
	return semcat.Errorf(semcat.EINVALID, "malformed query string")
}

// boolParam reads the query parameter name: true or false, absent = false.
func boolParam(r *http.Request, name string) (bool, error) {
	q, err := queryValues(r, name)
	if err != nil {
		return false, err
	}
	vs := q[name]
	switch {
	case len(vs) == 0:
		return false, nil
	case strings.EqualFold(vs[0], "true"):
		return true, nil
	case strings.EqualFold(vs[0], "false"):
		return false, nil
	}
	return false, semcat.Errorf(semcat.EINVALID, "%s: expected true or false (in any letter case), got '%s'", name, vs[0])
}

// ifMatch reads the If-Match header of a semantic model alter or drop: the
// version the caller expects, as `"<version>"` or bare digits; absent or `*`
// is 0, meaning any version.
func ifMatch(r *http.Request) (int64, error) {
	vals := r.Header.Values("If-Match")
	if len(vals) == 0 {
		return 0, nil
	}
	if len(vals) > 1 {
		return 0, semcat.Errorf(semcat.EINVALID, "If-Match: header given more than once")
	}
	v := strings.TrimSpace(vals[0])
	if v == "*" {
		return 0, nil
	}
	digits := v
	if len(v) >= 2 && v[0] == '"' && v[len(v)-1] == '"' {
		digits = v[1 : len(v)-1]
	}
	n, err := strconv.ParseInt(digits, 10, 64)
	if err != nil || n <= 0 || digits[0] < '0' || digits[0] > '9' {
		return 0, semcat.Errorf(semcat.EINVALID, `If-Match: expected "<version>" (a positive integer) or *, got '%s'`, v)
	}
	return n, nil
}

// etag is the ETag of a semantic model version.
func etag(version int64) string {
	return `"` + strconv.FormatInt(version, 10) + `"`
}
