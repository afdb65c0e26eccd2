package semcat

import (
	"context"
	"strings"
	"unicode/utf8"
)

// Synonym sets (SPEC §2.6): a metalake's lists of words and phrases that a
// search takes as one another ("mau" and "monthly active users"), applied
// at query time, so that a change applies to the next search with no
// reindex.

// Limits on a metalake's synonym sets.
const (
	MaxSynonymSets        = 10000
	MaxSynonymEntries     = 16
	MaxSynonymEntryLength = 128 // characters
)

// SynonymsBody is the body of GET and PUT /api/metalakes/{m}/synonyms.
type SynonymsBody struct {
	Synonyms [][]string `json:"synonyms"`
}

// ValidateSynonyms checks synonym sets against the limits, naming the
// field at fault ("synonyms[3][1]").
func ValidateSynonyms(sets [][]string) error {
	if sets == nil {
		return Errorf(EINVALID, "synonyms: required (a list of synonym sets, each a list of words or phrases)")
	}
	if len(sets) > MaxSynonymSets {
		return Errorf(EINVALID, "synonyms: at most %d sets (got %d)", MaxSynonymSets, len(sets))
	}
	for i, set := range sets {
		if len(set) == 0 || len(set) > MaxSynonymEntries {
			return Errorf(EINVALID, "synonyms[%d]: a set holds 1 to %d entries (got %d)", i, MaxSynonymEntries, len(set))
		}
		for j, e := range set {
			n := utf8.RuneCountInString(e)
			switch {
			case !utf8.ValidString(e):
				return Errorf(EINVALID, "synonyms[%d][%d]: not valid UTF-8", i, j)
			case n < 1 || n > MaxSynonymEntryLength:
				return Errorf(EINVALID, "synonyms[%d][%d]: an entry holds 1 to %d characters (got %d)", i, j, MaxSynonymEntryLength, n)
			case strings.TrimSpace(e) == "":
				return Errorf(EINVALID, "synonyms[%d][%d]: an entry must hold a word, not only spaces", i, j)
			}
		}
	}
	return nil
}

// SynonymService reads and replaces a metalake's synonym sets.
type SynonymService interface {
	// GetSynonyms returns the metalake's synonym sets (none: empty).
	GetSynonyms(ctx context.Context, metalake string) ([][]string, error)
	// SetSynonyms replaces them.
	SetSynonyms(ctx context.Context, metalake string, sets [][]string) (Position, error)
}
