package client_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/semcat/semcat"
	"github.com/semcat/semcat/client"
)

func TestSynonyms(t *testing.T) {
	t.Parallel()
	s := newServer(t)
	c, ctx := s.admin, t.Context()
	pos := seed(t, c)
	search := func(after semcat.Position) []string {
		t.Helper()
		res, err := c.SearchAfter(ctx, semcat.SearchRequest{Metalake: "m", Query: "purchases", Types: []string{"table"}}, after, 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, r := range res.Results {
			out = append(out, r.Entity.Name)
		}
		return out
	}
	if got := search(pos); len(got) != 0 {
		t.Fatalf("purchases before any synonyms: %v", got)
	}
	if got := read(c.GetSynonyms(ctx, "m")).must(t); got == nil || len(got) != 0 {
		t.Errorf("GetSynonyms of a metalake without any: %#v, want an empty list", got)
	}
	pos, err := c.SetSynonyms(ctx, "m", [][]string{{"purchases", "orders"}})
	wrote1(pos, err).must(t)
	if got := read(c.GetSynonyms(ctx, "m")).must(t); fmt.Sprint(got) != "[[purchases orders]]" {
		t.Errorf("GetSynonyms: %v", got)
	}
	if got := search(pos); fmt.Sprint(got) != "[orders]" {
		t.Errorf("purchases with the set [purchases orders]: %v, want [orders]", got)
	}
	_, err = c.SetSynonyms(ctx, "m", [][]string{{"a", ""}})
	wantCode(t, "an empty entry", err, semcat.EINVALID, client.ErrInvalid)
	_, err = s.as(t, "bob").SetSynonyms(ctx, "m", nil)
	if err == nil {
		t.Error("a user who does not own the metalake changed its synonyms")
	}
}
