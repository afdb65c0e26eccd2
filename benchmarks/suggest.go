package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
	"unicode"
)

// ---- Type-ahead -----------------------------------------------------------

// suggestLimit is how many suggestions a type-ahead asks for, as the search
// page does.
const suggestLimit = 10

// SuggestResult is type-ahead (GET …/suggest) against a prefix search of
// the same prefix (`pre*`, 10 results): what a page would call without
// suggest.
type SuggestResult struct {
	Example string `json:"example"`
	Suggest Stats  `json:"suggest"`
	Prefix  Stats  `json:"prefixSearch"`
	// Empty counts the prefixes with no suggestion, which cannot be: each
	// starts a part of an existing entity's name.
	Empty         int     `json:"empty"`
	MeanSuggested float64 `json:"meanSuggestions"`
}

// namePrefix draws what a user types: the first 2–4 characters of a part
// of an existing entity's name (its start, mostly).
func (s *sampler) namePrefix() string {
	name := s.entity().Name
	parts := strings.FieldsFunc(name, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	part := name
	if len(parts) > 0 && s.r.IntN(3) == 0 {
		part = parts[s.r.IntN(len(parts))]
	}
	n := min(len(part), 2+s.r.IntN(3))
	return strings.ToLower(part[:n])
}

// runSuggest times n type-aheads and n prefix searches of the same
// prefixes (after warmup unmeasured ones), alternating which goes first.
func runSuggest(ctx context.Context, c *Client, g *Generator, n, warmup int, seed uint64) (SuggestResult, error) {
	s := newSampler(g, rand.New(rand.NewPCG(seed, 2000)))
	var res SuggestResult
	var sugT, preT []time.Duration
	total := 0
	for i := range warmup + n {
		prefix := s.namePrefix()
		if i == 0 {
			res.Example = prefix
		}
		var sug *SuggestResponse
		var sugD, preD time.Duration
		runSuggest := func() error {
			t0 := time.Now()
			var err error
			sug, err = c.Suggest(ctx, g.Plan.Metalake, prefix, suggestLimit)
			sugD = time.Since(t0)
			return err
		}
		runPrefix := func() error {
			t0 := time.Now()
			_, err := c.Search(ctx, g.Plan.Metalake, SearchParams{Query: prefix + "*", Limit: suggestLimit})
			preD = time.Since(t0)
			return err
		}
		if err := alternate(i, runSuggest, runPrefix); err != nil {
			return res, fmt.Errorf("suggest %q: %w", prefix, err)
		}
		if i < warmup {
			continue
		}
		sugT, preT = append(sugT, sugD), append(preT, preD)
		if len(sug.Suggestions) == 0 {
			res.Empty++
		}
		total += len(sug.Suggestions)
	}
	res.Suggest, res.Prefix = summarize(sugT), summarize(preT)
	res.MeanSuggested = float64(total) / float64(max(n, 1))
	return res, nil
}
