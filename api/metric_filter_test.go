package api_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/semcat/semcat/api"
)

// TestMetricListingFilters: GET …/semantic-model-metrics takes names,
// limit and cursor (query needs a search index: see TestMCPMetricPages);
// the pages joined are the listing, and bad arguments are 400 naming them.
func TestMetricListingFilters(t *testing.T) {
	t.Parallel()
	c, _ := newStoreServer(t, api.Config{})
	for _, model := range []string{"a", "b"} {
		var metrics []string
		for i := range 5 {
			metrics = append(metrics, fmt.Sprintf(`{"name":"m%d","expression":{"dialects":[{"dialect":"ANSI_SQL","expression":"1"}]}}`, i))
		}
		c.MustOK("POST", salesPath+"/semantic-models", fmt.Sprintf(
			`{"name":%q,"definition":{"datasets":[{"name":"o","source":{"namespace":["rel","sales"],"name":"orders"}}],"metrics":[%s]}}`,
			model, strings.Join(metrics, ",")))
	}
	base := salesPath + "/semantic-model-metrics"
	for _, details := range []string{"false", "true"} {
		key := map[string]string{"false": "identifiers", "true": "metrics"}[details]
		_, all := c.MustOK("GET", base+"?details="+details, nil)
		if _, ok := all["cursor"]; ok {
			t.Errorf("an unpaged listing has a cursor: %v", all)
		}
		var joined []any
		pages := 0
		for cursor := ""; pages == 0 || cursor != ""; pages++ {
			path := base + "?details=" + details + "&limit=3"
			if cursor != "" {
				path += "&cursor=" + cursor
			}
			_, page := c.MustOK("GET", path, nil)
			joined = append(joined, page[key].([]any)...)
			cursor, _ = page["cursor"].(string)
		}
		if pages != 4 || canonical(t, joined) != canonical(t, all[key]) {
			t.Errorf("details=%s: %d pages of 3 joined: %s\nwant %s", details, pages, canonical(t, joined), canonical(t, all[key]))
		}
	}
	_, got := c.MustOK("GET", base+"?details=true&names=m1&names=m4&names=none", nil)
	var found []string
	for _, m := range got["metrics"].([]any) {
		e := m.(map[string]any)
		found = append(found, fmt.Sprint(e["namespace"].([]any)[3], ".", e["metric"].(map[string]any)["name"]))
	}
	if strings.Join(found, " ") != "a.m1 a.m4 b.m1 b.m4" {
		t.Errorf("names m1, m4: %v", found)
	}
	_, page := c.MustOK("GET", base+"?limit=1", nil)
	other := page["cursor"].(string)
	for _, bad := range []struct{ query, want string }{
		{"limit=0", "limit:"},
		{"limit=1001", "limit:"},
		{"cursor=%21%21", "cursor: not a cursor"},
		{"details=true&cursor=" + other, "cursor: belongs to a listing with other arguments"},
		{"names=", "names[0]:"},
		{"query=", "query: must not be empty"},
		{"limit=1&limit=2", "limit: query parameter given more than once"},
	} {
		status, _, resp := c.Do("GET", base+"?"+bad.query, nil)
		if msg, _ := resp["message"].(string); status != 400 || !strings.HasPrefix(msg, bad.want) {
			t.Errorf("?%s: %d %v, want 400 %q", bad.query, status, resp, bad.want)
		}
	}
	// Without a search index, a query cannot be ranked.
	if status, _, resp := c.Do("GET", base+"?query=m1", nil); status != 405 {
		t.Errorf("query without a search index: %d %v", status, resp)
	}
}
