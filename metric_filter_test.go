package semcat_test

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/semcat/semcat"
)

type listing []semcat.SchemaMetric

func (l listing) ListSchemaMetrics(context.Context, semcat.Namespace, bool) ([]semcat.SchemaMetric, error) {
	return slices.Clone(l), nil
}

// ranking answers the metric hits it holds, two per page, and one hit of
// a metric the listing does not have (the index is behind).
type ranking struct {
	semcat.SearchService
	hits  [][2]string
	calls int
}

func (r *ranking) Search(_ context.Context, req semcat.SearchRequest) (*semcat.SearchResult, error) {
	r.calls++
	start := 0
	if req.Cursor != "" {
		fmt.Sscan(req.Cursor, &start)
	}
	res := &semcat.SearchResult{}
	for _, h := range r.hits[start:min(start+2, len(r.hits))] {
		res.Results = append(res.Results, semcat.SearchHit{Entity: semcat.SearchEntity{Type: "metric", Namespace: []string{"m", "c", "s", h[0]}, Name: h[1]}})
	}
	if start+2 < len(r.hits) {
		res.Cursor = fmt.Sprint(start + 2)
	}
	return res, nil
}

func names(ms []semcat.SchemaMetric) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.Model+"."+m.Name)
	}
	return out
}

func TestSelectMetrics(t *testing.T) {
	ctx := context.Background()
	ns := semcat.Namespace{Metalake: "m", Catalog: "c", Schema: "s"}
	l := listing{{Model: "a", Name: "x"}, {Model: "a", Name: "y"}, {Model: "b", Name: "x"}, {Model: "b", Name: "z"}}
	search := &ranking{hits: [][2]string{{"b", "z"}, {"gone", "q"}, {"a", "x"}, {"b", "x"}}}

	// Pages of two in listing order, resumed after the last.
	var got []string
	cursor, pages := "", 0
	for ; pages == 0 || cursor != ""; pages++ {
		sel, err := semcat.SelectMetrics(ctx, l, nil, ns, false, semcat.MetricFilter{Limit: 3, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		p := sel.Page(len(sel.Metrics))
		got, cursor = append(got, names(p.Metrics)...), p.Cursor
	}
	if want := []string{"a.x", "a.y", "b.x", "b.z"}; !slices.Equal(got, want) || pages != 2 {
		t.Errorf("pages of 3: %v in %d pages", got, pages)
	}
	// Names, and a query: search's order, the listing's metrics only.
	sel, err := semcat.SelectMetrics(ctx, l, search, ns, true, semcat.MetricFilter{Names: []string{"x", "z"}, Query: "q"})
	if err != nil {
		t.Fatal(err)
	}
	if p := sel.Page(100); !slices.Equal(names(p.Metrics), []string{"b.z", "a.x", "b.x"}) || p.Cursor != "" || search.calls != 2 {
		t.Errorf("names x, z and a query: %v %q after %d searches", names(p.Metrics), p.Cursor, search.calls)
	}
	// A ranked page resumes at its offset; a smaller page than the limit
	// (a budget) too.
	sel, _ = semcat.SelectMetrics(ctx, l, search, ns, true, semcat.MetricFilter{Query: "q", Limit: 2})
	p := sel.Page(1)
	sel, err = semcat.SelectMetrics(ctx, l, search, ns, true, semcat.MetricFilter{Query: "q", Limit: 2, Cursor: p.Cursor})
	if err != nil {
		t.Fatal(err)
	}
	if rest := sel.Page(100); !slices.Equal(names(p.Metrics), []string{"b.z"}) || !slices.Equal(names(rest.Metrics), []string{"a.x", "b.x"}) || rest.Cursor != "" {
		t.Errorf("ranked pages: %v then %v (%q)", names(p.Metrics), names(rest.Metrics), rest.Cursor)
	}
	// A cursor is for its own arguments; a query needs a search service.
	for _, f := range []semcat.MetricFilter{
		{Query: "other", Cursor: p.Cursor},
		{Cursor: p.Cursor},
		{Cursor: "%%"},
		{Limit: 1001},
		{Names: []string{""}},
	} {
		if _, err := semcat.SelectMetrics(ctx, l, search, ns, true, f); semcat.ErrorCode(err) != semcat.EINVALID {
			t.Errorf("%+v: %v, want EINVALID", f, err)
		}
	}
	if _, err := semcat.SelectMetrics(ctx, l, nil, ns, true, semcat.MetricFilter{Query: "q"}); semcat.ErrorCode(err) != semcat.EUNSUPPORTED {
		t.Errorf("a query without search: %v", err)
	}
}
