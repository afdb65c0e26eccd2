package client

import (
	"context"
	"net/http"

	"github.com/semcat/semcat"
)

var _ semcat.SynonymService = (*Client)(nil)

// synonymsPath returns the path of a metalake's synonym sets.
func synonymsPath(metalake string) (string, error) {
	p, err := metalakePath(metalake)
	return p + "/synonyms", err
}

// GetSynonyms returns a metalake's synonym sets (SPEC §2.6).
func (c *Client) GetSynonyms(ctx context.Context, metalake string) ([][]string, error) {
	p, err := synonymsPath(metalake)
	if err != nil {
		return nil, err
	}
	return get[[][]string](ctx, c, request{method: http.MethodGet, path: p}, "synonyms")
}

// SetSynonyms replaces a metalake's synonym sets; an empty list clears
// them. The next search uses them.
func (c *Client) SetSynonyms(ctx context.Context, metalake string, sets [][]string) (semcat.Position, error) {
	p, err := synonymsPath(metalake)
	if err != nil {
		return semcat.Position{}, err
	}
	if sets == nil {
		sets = [][]string{}
	}
	_, pos, err := write[[][]string](ctx, c, request{method: http.MethodPut, path: p, body: semcat.SynonymsBody{Synonyms: sets}}, "synonyms")
	return pos, err
}
